package figures

import (
	"math"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/results"
)

// summaryOf summarises raw trial values as the runner does (mean, sd, se,
// CI), for one cell.
func summaryOf(dataset string, eps float64, metric string, values []float64, theory float64) results.Summary {
	var rows []results.Row
	for _, v := range values {
		rows = append(rows, results.Row{Experiment: "e", Dataset: dataset, Method: "m", Eps: results.Float(eps),
			N: 100, Params: "d=2", Metric: metric, Value: results.Float(v), Theory: results.Float(theory)})
	}
	return results.Summarise(rows)[0]
}

// TestPoolMatchesRawValues: the pooled mean and SD equal those of every
// raw trial value behind the pooled cells, and with sd_from the SD is that
// of the averaged values. Bugs caught: an unweighted mean of means (the
// cells below have 3 and 5 trials), the within-cell SD alone (forgetting
// the between-cell term), n instead of n−1, and a companion metric
// ignored.
func TestPoolMatchesRawValues(t *testing.T) {
	a := []float64{1, 2, 4}
	b := []float64{10, 11, 13, 12, 20}
	sq := []float64{2, 5, 17} // per-trial mean of x² over two groups: (a±1)² averaged
	sqb := []float64{101, 122, 170, 145, 401}
	in := []results.Summary{
		summaryOf("x", 1, "err", a, 2),
		summaryOf("y", 1, "err", b, 12),
		summaryOf("x", 1, "err_sq", sq, math.NaN()),
		summaryOf("y", 1, "err_sq", sqb, math.NaN()),
		summaryOf("x", 2, "other", a, 1),
	}
	all := append(append([]float64{}, a...), b...)
	var mean, ss float64
	for _, v := range all {
		mean += v
	}
	mean /= float64(len(all))
	for _, v := range all {
		ss += (v - mean) * (v - mean)
	}
	sd := math.Sqrt(ss / float64(len(all)-1))

	out, err := pool(in, Spec{Name: "f", Metric: "err", X: "eps", Pool: []string{"dataset"}, Spread: "sd"})
	if err != nil {
		t.Fatal(err)
	}
	var got *results.Summary
	for i := range out {
		if out[i].Metric == "err" {
			if got != nil {
				t.Fatalf("two pooled err summaries: %+v", out)
			}
			got = &out[i]
		}
	}
	if got == nil || got.Dataset != PooledValue || got.Count != 8 {
		t.Fatalf("pooled summary %+v", got)
	}
	if math.Abs(float64(got.Mean)-mean) > 1e-12 || math.Abs(float64(got.SD)-sd) > 1e-12 {
		t.Errorf("pooled mean, sd = %v, %v; want %v, %v", got.Mean, got.SD, mean, sd)
	}
	// Theory pools as the data do: (3·2 + 5·12)/8.
	if want := (3*2 + 5*12) / 8.0; math.Abs(float64(got.Theory)-want) > 1e-12 {
		t.Errorf("pooled theory %v, want %v", got.Theory, want)
	}
	if !finite(float64(got.CILo)) || got.CILo >= got.Mean || got.CIHi <= got.Mean {
		t.Errorf("pooled CI [%v, %v] around %v", got.CILo, got.CIHi, got.Mean)
	}

	// sd_from: SD² = E[x²] − E[x]² over all averaged values.
	out, err = pool(in, Spec{Name: "f", Metric: "err", X: "eps", Pool: []string{"dataset"}, Spread: "sd", SDFrom: "err_sq"})
	if err != nil {
		t.Fatal(err)
	}
	var m2 float64
	for _, v := range append(append([]float64{}, sq...), sqb...) {
		m2 += v
	}
	m2 /= 8
	for _, s := range out {
		if s.Metric == "err" {
			if want := math.Sqrt(m2 - mean*mean); math.Abs(float64(s.SD)-want) > 1e-12 {
				t.Errorf("sd_from: sd = %v, want %v", s.SD, want)
			}
		}
		if s.Metric == "err_sq" {
			t.Errorf("the companion metric is passed on: %+v", s)
		}
	}
}

// TestPoolErrors: pooling a field the figure draws, or a field summaries
// lack, and a companion metric missing from a pooled cell are errors that
// name the key.
func TestPoolErrors(t *testing.T) {
	in := []results.Summary{summaryOf("x", 1, "err", []float64{1, 2}, 1)}
	for _, tc := range []struct {
		spec Spec
		want string
	}{
		{Spec{Name: "f", Metric: "err", X: "eps", Panel: "dataset", Pool: []string{"dataset"}}, `pool[0]`},
		{Spec{Name: "f", Metric: "err", X: "eps", Pool: []string{"method"}}, `pool[0]`},
		{Spec{Name: "f", Metric: "err", X: "eps", Pool: []string{"k"}}, `no field "k"`},
		{Spec{Name: "f", Metric: "err", X: "eps", SDFrom: "sq"}, `sd_from`},
		{Spec{Name: "f", Metric: "err", X: "eps", Spread: "sd", SDFrom: "sq"}, `"sq" is missing`},
		{Spec{Name: "f", Metric: "err", X: "eps", Spread: "iqr"}, `spread`},
		{Spec{Name: "f", Metric: "err", X: "eps", Spread: "sd", Band: true}, `spread`},
	} {
		_, err := Project(in, tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.spec, err, tc.want)
		}
	}
}

// TestSpreadBand: spread = "sd" draws mean ± SD, not the CI. The bug
// caught: the CI drawn under a caption that says SD (the two differ by
// √n).
func TestSpreadBand(t *testing.T) {
	in := []results.Summary{summaryOf("x", 1, "err", []float64{1, 2, 4, 8}, 3)}
	fig, err := Project(in, Spec{Name: "f", Metric: "err", X: "eps", Spread: "sd"})
	if err != nil {
		t.Fatal(err)
	}
	pt := fig.Panels[0].Series[0].Points[0]
	sd := float64(in[0].SD)
	if math.Abs(pt.Lo-(pt.Mean-sd)) > 1e-12 || math.Abs(pt.Hi-(pt.Mean+sd)) > 1e-12 {
		t.Errorf("band [%v, %v], want mean ± sd = %v ± %v", pt.Lo, pt.Hi, pt.Mean, sd)
	}
	if c := strings.Join(fig.caption(), " "); !strings.Contains(c, "±1 SD") {
		t.Errorf("caption does not say the band is ±1 SD: %s", c)
	}
}
