package central

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/kinds/kindtest"
)

// zCrit is the two-sided normal quantile for a false-failure probability
// of 1e-6 per check.
const zCrit = 4.9

// placeholder is the dataset a synthetic spec names (params.mu builds the
// data): 20,000 uniform values on [−1, 1], also the data of data = dataset.
func placeholder(t testing.TB) *datasets.Dataset {
	t.Helper()
	ds, err := datasets.Spec{Name: "synthetic", Source: "uniform", Lo: -1, Hi: 1}.BuildSeed(20000, 1)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

var allMetrics = []string{"mse", "mse_norm_sec6", "mse_norm_apph"}

// prepare checks and prepares one cell as the runner does.
func prepare(t testing.TB, method string, eps float64, n int, raw map[string]string) *cell {
	t.Helper()
	c := &experiment.CellSpec{Experiment: "test", Dataset: placeholder(t), Method: method, Eps: eps, N: n, Metrics: allMetrics, Seed: 7}
	if err := kindtest.CheckRaw(Kind{}, c, raw); err != nil {
		t.Fatal(err)
	}
	run, err := Kind{}.Prepare(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return run.(*cell)
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// errors returns count errors μ̂ − μ(D) of a central cell's estimator.
func errorsOf(r *cell, count int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 99))
	out := make([]float64, count)
	for i := range out {
		out[i] = r.est.Estimate(r.data.n, r.data.sum, rng) - r.data.truth
	}
	return out
}

func relDiff(a, b float64) float64 { return math.Abs(a-b) / math.Abs(b) }
