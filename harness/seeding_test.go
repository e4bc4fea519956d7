package harness

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/results"
)

// Every trial of every cell draws its own stream: its generator is seeded
// from (master seed, experiment, cell key, trial), and dropping the cell
// key or the trial from the seed would make draws coincide.
//
// Toy's gauss error is e = s·mean(z), s = scale/ε, z n standard normals,
// so W = mse/theory = n·e²/s² is χ²(1) for every cell: the same function
// of the stream, whatever the cell's dataset, ε or scale. Two draws from
// one stream (two cells, or two trials, seeded alike) give W = W' to
// rounding (the data's x cancel against the truth, the factor s against
// the theory: a few ulps); two independent draws give W/W' ~ F(1, 1),
// whose density at 1 is 1/(2π), so P(|W/W' − 1| ≤ δ) ≈ δ/π (computed
// exactly below from the F law). Over the K pairs of (cell, trial) draws
// the test asks |W/W' − 1| > δ with δ chosen so that K·P(|W/W' − 1| ≤ δ)
// = 1e-6: the false-failure probability of the whole test (union bound).
//
// The cells differ in the dataset (2), ε (3) and params.scale (2), so a
// seed without the cell key makes all 12 cells' trial t coincide, and a
// seed without the trial makes each cell's trials coincide. Both were
// planted (TrialRand hashing without trialKey, and without the trial) and
// fail here.
func TestCellsAndTrialsDrawIndependentStreams(t *testing.T) {
	const falseFailure = 1e-6
	s := &Spec{
		Name: "streams", Kind: "toy", Seed: 11, Trials: 10, Metrics: []string{"mse"},
		Axes: Axes{
			Method: []string{"gauss"}, Eps: []float64{0.5, 1, 2}, N: []int{500},
			Params: map[string][]string{"scale": {"1", "3"}},
		},
		Datasets: []datasets.Spec{
			{Name: "beta", Source: "beta", A: 2, B: 5},
			{Name: "unif", Source: "uniform", Lo: -1, Hi: 1},
		},
	}
	dir := t.TempDir()
	if _, err := Run(context.Background(), testKinds, s, Options{OutDir: dir, Jobs: 3}); err != nil {
		t.Fatal(err)
	}
	rows, err := results.ReadRowsFile(filepath.Join(dir, RowsFile))
	if err != nil {
		t.Fatal(err)
	}
	type draw struct {
		cell  string
		trial int
		w     float64 // mse/theory: χ²(1)
	}
	var draws []draw
	cells := map[string]bool{}
	for _, r := range rows {
		if r.Metric != "mse" || !(r.Theory > 0) {
			t.Fatalf("row %+v: want mse with a positive theory", r)
		}
		key := r.Cell().Key()
		cells[key] = true
		draws = append(draws, draw{key, r.Trial, float64(r.Value) / float64(r.Theory)})
	}
	if len(cells) != 12 || len(draws) != 12*s.Trials {
		t.Fatalf("%d cells, %d draws; want 12 and %d", len(cells), len(draws), 12*s.Trials)
	}

	// δ from the F(1, 1) law: P(|R − 1| ≤ δ) = F(1+δ) − F(1−δ) ≈ δ/π.
	K := float64(len(draws) * (len(draws) - 1) / 2)
	f := distuv.F{D1: 1, D2: 1}
	delta := math.Pi * falseFailure / K
	pOne := f.CDF(1+delta) - f.CDF(1-delta)
	if K*pOne > 1.01*falseFailure {
		t.Fatalf("δ = %.3g: K·P = %.3g, above %g", delta, K*pOne, falseFailure)
	}

	closest, where := math.Inf(1), ""
	bad := 0
	for i := range draws {
		for j := i + 1; j < len(draws); j++ {
			a, b := draws[i], draws[j]
			d := math.Abs(a.w/b.w - 1)
			if d < closest {
				closest, where = d, fmt.Sprintf("%s trial %d and %s trial %d", a.cell, a.trial, b.cell, b.trial)
			}
			if !(d > delta) {
				bad++
				if bad <= 5 {
					same := "two trials of one cell"
					if a.cell != b.cell {
						same = "two cells"
					}
					t.Errorf("%s (%s and %s, trials %d and %d): normalised squared errors %.17g and %.17g, |ratio − 1| = %.3g ≤ δ = %.3g: one stream drawn twice",
						same, a.cell, b.cell, a.trial, b.trial, a.w, b.w, d, delta)
				}
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %.0f pairs of draws coincide (δ = %.3g; false-failure probability %g)", bad, K, delta, falseFailure)
	}
	t.Logf("%.0f pairs of draws; the closest, %s, has |W/W' − 1| = %.3g > δ = %.3g (K·P(|W/W' − 1| ≤ δ) = %.3g)", K, where, closest, delta, K*pOne)
}
