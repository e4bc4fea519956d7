package results

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// cellOf summarises literal trial values of one cell as Summarise does.
func cellOf(dataset string, metric string, values []float64, theory float64) Summary {
	var rows []Row
	for i, v := range values {
		rows = append(rows, Row{Experiment: "e", Dataset: dataset, Method: "m", Eps: 1, N: 100, Params: "d=2",
			Trial: i, Metric: metric, Value: Float(v), Theory: Float(theory)})
	}
	return Summarise(rows)[0]
}

// rawStats are the mean, SD (n−1), min and max of values.
func rawStats(values []float64) (mean, sd, lo, hi float64) {
	for _, v := range values {
		mean += v
	}
	mean /= float64(len(values))
	var ss float64
	for _, v := range values {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(values)-1)), slices.Min(values), slices.Max(values)
}

// TestPool: the pooled mean, SD, extremes and theory against those of
// every raw trial value behind the pooled cells, to 1e-12 (a dozen
// operations on values of order 10). Each case names the bug it catches.
func TestPool(t *testing.T) {
	a := []float64{1, 2, 4}
	b := []float64{10, 11, 13, 12, 20}
	// Per-trial means of squares over two groups whose mean is the trial's
	// value: what sd_from reads.
	sqA := []float64{2, 5, 17}
	sqB := []float64{101, 122, 170, 145, 401}
	both := slices.Concat(a, b)
	mean, sd, lo, hi := rawStats(both)
	m2 := 0.0
	for _, v := range slices.Concat(sqA, sqB) {
		m2 += v
	}
	m2 /= 8
	ma, _, _, _ := rawStats(a)
	m2a := (2 + 5 + 17) / 3.0
	for _, c := range []struct {
		name, catches string
		in            []Summary
		sdFrom        string
		fields        []string
		count         int
		mean, sd      float64
		min, max      float64
		median        float64 // NaN: unknown
		theory        float64
	}{
		{"two datasets", "an unweighted mean of means (3 and 5 trials), the within-cell SD alone (no between-cell term), n for n−1, the max as the min",
			[]Summary{cellOf("x", "err", a, 2), cellOf("y", "err", b, 12)}, "", []string{"dataset"},
			8, mean, sd, lo, hi, math.NaN(), (3*2 + 5*12) / 8.0},
		{"sd_from", "the SD of trial means where the spread of every averaged value is asked for",
			[]Summary{cellOf("x", "err", a, 2), cellOf("y", "err", b, 12), cellOf("x", "err_sq", sqA, math.NaN()), cellOf("y", "err_sq", sqB, math.NaN())},
			"err_sq", []string{"dataset"}, 8, mean, math.Sqrt(m2 - mean*mean), lo, hi, math.NaN(), (3*2 + 5*12) / 8.0},
		{"sd_from, one cell", "a single cell's trial SD kept in place of the sd_from SD (a quick run of one dataset would change what the band means)",
			[]Summary{cellOf("x", "err", a, 2), cellOf("x", "err_sq", sqA, math.NaN())}, "err_sq", []string{"dataset"},
			3, ma, math.Sqrt(m2a - ma*ma), 1, 4, 2, 2},
		{"sd_from, no pooling", "sd_from ignored unless some field is pooled",
			[]Summary{cellOf("x", "err", a, 2), cellOf("x", "err_sq", sqA, math.NaN())}, "err_sq", nil,
			3, ma, math.Sqrt(m2a - ma*ma), 1, 4, 2, 2},
		{"theory unknown in one cell", "a theory pooled from the cells that have one",
			[]Summary{cellOf("x", "err", a, 2), cellOf("y", "err", b, math.NaN())}, "", []string{"dataset"},
			8, mean, sd, lo, hi, math.NaN(), math.NaN()},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := append(slices.Clone(c.in), cellOf("x", "other", a, 1))
			out, err := Pool(in, "err", c.sdFrom, c.fields, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []Summary
			for _, s := range out {
				switch s.Metric {
				case "err":
					got = append(got, s)
				case "other":
					if s.Mean != in[len(in)-1].Mean || s.Dataset != "x" {
						t.Errorf("another metric changed: %+v", s)
					}
				default:
					t.Errorf("metric %q passed on (the sd_from companion is consumed)", s.Metric)
				}
			}
			if len(got) != 1 {
				t.Fatalf("%d pooled summaries: %+v", len(got), got)
			}
			p := got[0]
			near := func(name string, g Float, w float64) {
				t.Helper()
				if math.IsNaN(w) != math.IsNaN(float64(g)) || math.Abs(float64(g)-w) > 1e-12 {
					t.Errorf("%s = %v, want %v (catches: %s)", name, g, w, c.catches)
				}
			}
			if p.Count != c.count {
				t.Errorf("count %d, want %d", p.Count, c.count)
			}
			near("mean", p.Mean, c.mean)
			near("sd", p.SD, c.sd)
			near("min", p.Min, c.min)
			near("max", p.Max, c.max)
			near("median", p.Median, c.median)
			near("theory", p.Theory, c.theory)
			if len(c.fields) > 0 && p.Dataset != PooledValue {
				t.Errorf("dataset %q, want %q", p.Dataset, PooledValue)
			}
			if !(p.CILo < p.Mean && p.Mean < p.CIHi) {
				t.Errorf("CI [%v, %v] does not hold the mean %v", p.CILo, p.CIHi, p.Mean)
			}
		})
	}
}

// TestPoolQuickAndFilter: a pooled cell is quick if any of its cells is,
// and the filter drops cells before pooling. Bugs caught: a quick cell
// hidden by pooling (a pipeline check read as the paper's scale), a
// filtered-out dataset pooled in.
func TestPoolQuickAndFilter(t *testing.T) {
	x, y, z := cellOf("x", "err", []float64{1, 2}, 1), cellOf("y", "err", []float64{3, 4}, 1), cellOf("z", "err", []float64{100, 200}, 1)
	y.Quick = true
	out, err := Pool([]Summary{x, y, z}, "err", "", []string{"dataset"}, func(s *Summary) bool { return s.Dataset != "z" })
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || !out[0].Quick || out[0].Mean != 2.5 || out[0].Count != 4 {
		t.Errorf("pooled %+v; want one quick summary of mean 2.5 over 4 trials", out)
	}
}

// TestPoolErrors: the key each error concerns comes first.
func TestPoolErrors(t *testing.T) {
	in := []Summary{cellOf("x", "err", []float64{1, 2}, 1), cellOf("y", "err", []float64{1, 3}, 1), cellOf("x", "sq", []float64{1, 2}, 1)}
	for _, c := range []struct {
		sdFrom string
		fields []string
		want   string
	}{
		{"", []string{"k"}, `key "pool": summary experiment=e;dataset=x;method=m;eps=1;n=100;d=2 has no field "k"`},
		{"sq", []string{"dataset"}, `key "sd_from": metric "sq" is missing from the cells pooled into`},
	} {
		_, err := Pool(in, "err", c.sdFrom, c.fields, nil)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("error %v, want one starting %q", err, c.want)
		}
	}
	for f, want := range map[string]bool{"dataset": true, "n": true, "k": true, "method": false, "eps": false, "metric": false, "": false} {
		if CanPool(f) != want {
			t.Errorf("CanPool(%q) = %v", f, !want)
		}
	}
}
