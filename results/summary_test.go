package results

import (
	"bytes"
	"math"
	"testing"
)

// The derived metrics of summary.csv (metrics.Derived: rmse from mse,
// var-rmse from var-mse, quantile-rmse from quantile-mse,
// quantile-rmse-centre from quantile-mse-centre) against values computed
// by hand from literal per-trial values, every column: count, mean = √(mean
// of the source), sd and se by the delta method (d√m = dm/(2√m): the
// source's sd and se divided by 2√m), the CI bounds the square roots of
// the source's, theory = √theory, ci_method the source's.
//
// Every source is a mean of squared errors, whose interval is the scaled χ²
// (metrics.IntervalChi2): [k·m/χ²_k(0.975), k·m/χ²_k(0.025)] with k trials
// and mean m. The two cases have quantiles in closed form or nearly: k = 2,
// χ²₂(p) = −2·ln(1 − p), 0.050635615968579795 and 7.3777589082278725; k = 3,
// 0.215795282623898 and 9.348403604496138, by bisection of the closed-form
// CDF erf(√(x/2)) − √(2x/π)·e^(−x/2) in double precision. Summarise takes
// them from gonum's numerical inversion (distuv.ChiSquared.Quantile), which
// agrees with these to about 1e-15 relative. Every value on either side is
// at most ~16 correctly rounded operations (u = 1.1e-16 each), so the
// tolerance, 1e-13 relative, is about 50 times the error of either side. A
// missing ½ in the delta method is off by a factor 2.
func TestSummariseDerivedColumns(t *testing.T) {
	const (
		q2lo, q2hi = 0.050635615968579795, 7.3777589082278725 // χ²₂(0.025), χ²₂(0.975)
		q3lo, q3hi = 0.215795282623898, 9.348403604496138     // χ²₃(0.025), χ²₃(0.975)
	)
	if lo, hi := -2*math.Log(0.975), -2*math.Log(0.025); math.Abs(lo-q2lo) > 1e-15*q2lo || math.Abs(hi-q2hi) > 1e-15*q2hi {
		t.Fatalf("closed-form χ²₂ quantiles %v, %v; literals %v, %v", lo, hi, q2lo, q2hi)
	}
	type want struct {
		count                          int
		mean, sd, se, lo, hi, theory   float64
		rmean, rsd, rse, rlo, rhi, rth float64
	}
	for _, c := range []struct {
		name   string
		values []float64
		theory float64
		want   want
	}{
		// 4, 5, 6: mean 5, sd 1, se 1/√3, CI [15/χ²₃(0.975), 15/χ²₃(0.025)].
		{"k=3", []float64{4, 5, 6}, 4.5, want{
			count: 3, mean: 5, sd: 1, se: 1 / math.Sqrt(3), lo: 15 / q3hi, hi: 15 / q3lo, theory: 4.5,
			rmean: math.Sqrt(5), rsd: 1 / (2 * math.Sqrt(5)), rse: 1 / math.Sqrt(3) / (2 * math.Sqrt(5)),
			rlo: math.Sqrt(15 / q3hi), rhi: math.Sqrt(15 / q3lo), rth: math.Sqrt(4.5),
		}},
		// 9, 11: mean 10, sd √2, se 1, CI [20/χ²₂(0.975), 20/χ²₂(0.025)]
		// (Student's t would give 10 ± 12.7, below 0).
		{"k=2", []float64{9, 11}, 16, want{
			count: 2, mean: 10, sd: math.Sqrt2, se: 1, lo: 20 / q2hi, hi: 20 / q2lo, theory: 16,
			rmean: math.Sqrt(10), rsd: math.Sqrt2 / (2 * math.Sqrt(10)), rse: 1 / (2 * math.Sqrt(10)),
			rlo: math.Sqrt(20 / q2hi), rhi: math.Sqrt(20 / q2lo), rth: 4,
		}},
	} {
		for _, d := range []struct{ from, name string }{
			{"mse", "rmse"}, {"var-mse", "var-rmse"}, {"quantile-mse", "quantile-rmse"}, {"quantile-mse-centre", "quantile-rmse-centre"},
		} {
			var rows []Row
			for i, v := range c.values {
				rows = append(rows, Row{Experiment: "e", Dataset: "d", Method: "m", Eps: 0.5, N: 100, Params: "k=1",
					Trial: i, Metric: d.from, Value: Float(v), Theory: Float(c.theory)})
			}
			// Through summary.csv and back: what a reader of the file sees.
			var buf bytes.Buffer
			if err := WriteSummaries(&buf, Summarise(rows)); err != nil {
				t.Fatal(err)
			}
			s, err := ReadSummaries(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if len(s) != 2 || s[0].Metric != d.from || s[1].Metric != d.name {
				t.Fatalf("%s %s: %d summaries %v; want %s then %s", c.name, d.from, len(s), s, d.from, d.name)
			}
			src, der := s[0], s[1]
			check := func(col string, got Float, want float64) {
				t.Helper()
				if !(math.Abs(float64(got)-want) <= 1e-13*math.Abs(want)) {
					t.Errorf("%s %s: %s = %.17g, want %.17g", c.name, d.name, col, float64(got), want)
				}
			}
			w := c.want
			if src.Count != w.count || der.Count != w.count {
				t.Errorf("%s %s: counts %d and %d, want %d", c.name, d.name, src.Count, der.Count, w.count)
			}
			check(d.from+" mean", src.Mean, w.mean)
			check(d.from+" sd", src.SD, w.sd)
			check(d.from+" se", src.SE, w.se)
			check(d.from+" ci95_lo", src.CILo, w.lo)
			check(d.from+" ci95_hi", src.CIHi, w.hi)
			check(d.from+" theory", src.Theory, w.theory)
			check("mean", der.Mean, w.rmean)
			check("sd", der.SD, w.rsd)
			check("se", der.SE, w.rse)
			check("ci95_lo", der.CILo, w.rlo)
			check("ci95_hi", der.CIHi, w.rhi)
			check("theory", der.Theory, w.rth)
			if src.CIMethod != "chi2" || der.CIMethod != "chi2" {
				t.Errorf("%s %s: ci_method %q and %q, want chi2 for both", c.name, d.name, src.CIMethod, der.CIMethod)
			}
			if der.Cell() != src.Cell() || der.Normalisation != src.Normalisation {
				t.Errorf("%s %s: the derived row's cell %v differs from its source's %v", c.name, d.name, der.Cell(), src.Cell())
			}
		}
	}
}

// One trial: the derived row, like its source, has a mean and no spread
// (sd, se and CI not known: empty in summary.csv).
func TestSummariseDerivedOneTrial(t *testing.T) {
	s := Summarise([]Row{{Experiment: "e", Dataset: "d", Method: "m", Eps: 1, N: 10, Metric: "mse", Value: 9, Theory: 4}})
	if len(s) != 2 || s[1].Metric != "rmse" {
		t.Fatalf("got %v", s)
	}
	r := s[1]
	if r.Count != 1 || r.Mean != 3 || r.Theory != 2 || r.SD.Known() || r.SE.Known() || r.CILo.Known() || r.CIHi.Known() {
		t.Errorf("rmse of one trial: %+v; want count 1, mean 3, theory 2, no sd, se or CI", r)
	}
}
