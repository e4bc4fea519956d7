// Package kindtest holds what the tests of every kind package need: a cell
// checked as the runner checks it, and a spec run to its rows. It is
// imported by tests only (a kind itself never imports the runner).
package kindtest

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/harness"
)

// CheckRaw checks a cell as the runner does: its raw params against the
// kind's ParamSet, then the kind's Check. It sets c.Params.
func CheckRaw(k experiment.Kind, c *experiment.CellSpec, raw map[string]string) error {
	p, err := k.Params().Parse(raw)
	if err != nil {
		return err
	}
	c.Params = p
	return k.Check(c)
}

// RunRows runs s with the given kinds and jobs workers into dir and
// returns rows.csv.
func RunRows(t testing.TB, kinds experiment.Registry, s *harness.Spec, dir string, jobs int) []byte {
	t.Helper()
	if _, err := harness.Run(context.Background(), kinds, s, harness.Options{OutDir: dir, Jobs: jobs}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, harness.RowsFile))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Trials runs trials 0, …, count−1 of a prepared cell, trial i with its own
// generator PCG(seed, i), and returns each metric's values in trial order.
func Trials(t testing.TB, run experiment.CellRun, count int, seed uint64) map[string][]float64 {
	t.Helper()
	out := map[string][]float64{}
	var ms []experiment.Measurement
	for i := range count {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		var err error
		ms, err = run.Trial(context.Background(), i, rng, ms[:0])
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			out[m.Metric] = append(out[m.Metric], m.Value)
		}
	}
	return out
}
