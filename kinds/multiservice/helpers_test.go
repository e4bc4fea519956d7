package multiservice

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/harness"
)

// testKinds is the registry of this package's end-to-end tests.
var testKinds = experiment.Registry{Kind{}, MD{}}

// checkRaw checks a cell as the runner does: its raw params against the
// kind's ParamSet, then the kind's Check.
func checkRaw(k experiment.Kind, c *experiment.CellSpec, raw map[string]string) error {
	p, err := k.Params().Parse(raw)
	if err != nil {
		return err
	}
	c.Params = p
	return k.Check(c)
}

// loadShipped loads runs/<name>.toml.
func loadShipped(t *testing.T, name string) *harness.Spec {
	t.Helper()
	spec, err := harness.LoadSpec(filepath.Join("..", "..", "runs", name+".toml"))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// runTo runs s with jobs workers into dir and returns rows.csv.
func runTo(t *testing.T, s *harness.Spec, dir string, jobs int) []byte {
	t.Helper()
	if _, err := harness.Run(context.Background(), testKinds, s, harness.Options{OutDir: dir, Jobs: jobs}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, harness.RowsFile))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
