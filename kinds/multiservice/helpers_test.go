package multiservice

import (
	"path/filepath"
	"testing"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/kinds/kindtest"
)

// testKinds is the registry of this package's end-to-end tests.
var testKinds = experiment.Registry{Kind{}, MD{}}

var checkRaw = kindtest.CheckRaw

// loadShipped loads runs/<name>.toml.
func loadShipped(t *testing.T, name string) *harness.Spec {
	t.Helper()
	spec, err := harness.LoadSpec(filepath.Join("..", "..", "runs", name+".toml"))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// runTo runs s with this package's kinds into dir and returns rows.csv.
func runTo(t *testing.T, s *harness.Spec, dir string, jobs int) []byte {
	t.Helper()
	return kindtest.RunRows(t, testKinds, s, dir, jobs)
}
