package mean

import (
	"testing"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/kinds/kindtest"
)

// testKinds is the registry of this package's end-to-end tests.
var testKinds = experiment.Registry{Mean{}, HT{}, MD{}, Theory{}}

var checkRaw = kindtest.CheckRaw

// runTo runs s with this package's kinds into dir and returns rows.csv.
func runTo(t *testing.T, s *harness.Spec, dir string, jobs int) []byte {
	t.Helper()
	return kindtest.RunRows(t, testKinds, s, dir, jobs)
}
