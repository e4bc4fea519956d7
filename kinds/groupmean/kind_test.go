package groupmean

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/kinds/kindtest"
)

// placeholder is the dataset a synthetic spec names (params.shape draws the
// data).
func placeholder(t testing.TB) *datasets.Dataset {
	t.Helper()
	ds, err := datasets.Spec{Name: "synthetic", Source: "uniform", Lo: -1, Hi: 1}.BuildSeed(10, 1)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// prepare checks and prepares one cell as the runner does.
func prepare(t testing.TB, ds *datasets.Dataset, method string, eps float64, n int, raw map[string]string, metrics ...string) *cell {
	t.Helper()
	c := &experiment.CellSpec{Experiment: "test", Dataset: ds, Method: method, Eps: eps, N: n, Metrics: metrics, Seed: 7}
	if err := kindtest.CheckRaw(Kind{}, c, raw); err != nil {
		t.Fatal(err)
	}
	run, err := Kind{}.Prepare(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return run.(*cell)
}

func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)-1))
}

// TestGroupErrorRatioExact: the group error ratio's mean over runs equals
// its exact theory 1 − a within 4.9 SE (false failure 1e-6 per case), SE =
// √(a(1 − a)/n)/√runs, for every method's budget allocation (Theorems 1–3,
// Proposition 6). Bugs caught: the wrong ε1 of a method (ε/2 for Bernoulli
// or NPRR instead of ln((e^ε + 1)/2) and ln((e^ε + k)/(k + 1)), ε for
// Laplace instead of ε/2); at these n a 1 % error in a is 5–40 SE.
func TestGroupErrorRatioExact(t *testing.T) {
	ds := placeholder(t)
	for _, tc := range []struct {
		method string
		eps    float64
		d      string
		a      float64 // by hand from the allocation
	}{
		{"laplace", 2, "2", math.Exp(1) / (math.Exp(1) + 1)},
		{"bernoulli", 1, "8", ((math.E + 1) / 2) / ((math.E+1)/2 + 7)},
		{"nprr(k=8)", 4, "8", ((math.Exp(4) + 8) / 9) / ((math.Exp(4)+8)/9 + 7)},
		{"pw(split=0.3)", 4, "4", math.Exp(1.2) / (math.Exp(1.2) + 3)},
	} {
		t.Run(tc.method, func(t *testing.T) {
			r := prepare(t, ds, tc.method, tc.eps, 2000, map[string]string{"shape": "normal", "groups": tc.d}, "group_error_ratio")
			th, _ := r.Theory("group_error_ratio")
			if math.Abs(th-(1-tc.a)) > 1e-12 {
				t.Fatalf("theory %v, want 1 − a = %v", th, 1-tc.a)
			}
			const runs = 400
			vals := kindtest.Trials(t, r, runs, 1)["group_error_ratio"]
			mean, _ := meanSD(vals)
			n := float64(len(r.data.unit))
			se := math.Sqrt(tc.a*(1-tc.a)/n) / math.Sqrt(runs)
			if z := (mean - th) / se; math.Abs(z) > 4.9 {
				t.Errorf("mean group error ratio %v, theory %v: z = %.1f", mean, th, z)
			}
		})
	}
}

// TestErrorOnDeltaTheory: where every CV(n̂_g) is small the mean of the
// per-run mean squared scaled error equals the delta-method theory
// Var(m̂_g)/4 within 4.9 SE of its Monte Carlo mean (false failure 1e-6),
// for each method. Bugs caught: a value mechanism at the wrong ε2 (Laplace at
// ε/2 doubles its variance), the estimator's 1/(a·c) without c (Bernoulli's
// error off by 1/c² ≈ 4.3 at ε2 = 1), the neutral second moment left out of
// the theory (its share is 10–50 % here), the wrong range in the scaling;
// with 6,000 runs of 3 groups the SE is about 1 %: a theory 10 % off fails
// in every case, 5 % off in three of the six (tried).
func TestErrorOnDeltaTheory(t *testing.T) {
	skipUnderRace(t, "21 s")
	ds := placeholder(t)
	for _, tc := range []struct {
		method string
		eps    float64
	}{
		{"laplace", 2}, {"bernoulli", 1}, {"nprr(k=4)", 3}, {"pw", 4}, {"nprr(k=8,neutral=uniform-grid)", 4}, {"value:pm-sub", 3},
	} {
		t.Run(tc.method, func(t *testing.T) {
			r := prepare(t, ds, tc.method, tc.eps, 2000, map[string]string{"shape": "normal", "groups": "3", "range": "0:100"},
				"scaled_abs_error_sq", "scaled_abs_error")
			th, ok := r.Theory("scaled_abs_error_sq")
			if !ok {
				t.Fatal("no theory: CV too large for this test's cell")
			}
			const runs = 6000
			vals := kindtest.Trials(t, r, runs, 2)["scaled_abs_error_sq"]
			mean, sd := meanSD(vals)
			if z := (mean - th) / (sd / math.Sqrt(runs)); math.Abs(z) > 4.9 {
				t.Errorf("mean squared scaled error %.4g, delta-method theory %.4g: z = %.1f", mean, th, z)
			}
		})
	}
}

// TestRangeInvariance: the same configuration on the ranges [−1, 1],
// [0, 100] and [−50, 50] gives the same scaled errors run by run, to
// rounding (as E3 of Section 5.2.3 relies on): the data are affine images
// of one another, the runs are shared (TrialKey leaves the range out) and
// the mechanisms see the same values on [−1, 1]. Bugs caught: truth
// computed on the clipped or scaled data, a range in the seed, scaling by
// the data's min–max.
func TestRangeInvariance(t *testing.T) {
	ds := placeholder(t)
	var base []float64
	for _, rg := range []string{"-1:1", "0:100", "-50:50"} {
		raw := map[string]string{"shape": "extremum", "groups": "4", "range": rg}
		r := prepare(t, ds, "pw", 2, 3000, raw, "scaled_abs_error")
		c := &experiment.CellSpec{Dataset: ds, Method: "pw", Eps: 2, N: 3000}
		c.Params = params.MustParse(raw)
		if k := (Kind{}).TrialKey(c); strings.Contains(k, rg) {
			t.Fatalf("trial key %q holds the range", k)
		}
		vals := kindtest.Trials(t, r, 20, 3)["scaled_abs_error"]
		if base == nil {
			base = vals
			continue
		}
		for i := range vals {
			if math.Abs(vals[i]-base[i]) > 1e-9*math.Abs(base[i]) {
				t.Fatalf("range %s, run %d: scaled error %v, on [−1, 1] %v", rg, i, vals[i], base[i])
			}
		}
	}
}

// TestOrderAndDifference: with well-separated groups (constant data, means
// ∓1/3) and a large ε every run orders the groups correctly and m̂₀ − m̂₁
// averages the true difference within 4.9 SE. Bugs caught: the groups'
// estimates swapped (order_correct 0), the difference in [−1, 1] units
// rather than the data's.
func TestOrderAndDifference(t *testing.T) {
	ds := placeholder(t)
	r := prepare(t, ds, "laplace", 8, 4000, map[string]string{"shape": "constant", "range": "0:90"}, "order_correct", "mean_diff")
	vals := kindtest.Trials(t, r, 200, 4)
	if m, _ := meanSD(vals["order_correct"]); m != 1 {
		t.Errorf("order accuracy %v, want 1 at ε = 8", m)
	}
	want := r.data.means[0] - r.data.means[1] // 30 − 60
	if math.Abs(want+30) > 1e-9 {
		t.Fatalf("true difference %v, want −30", want)
	}
	m, sd := meanSD(vals["mean_diff"])
	if z := (m - want) / (sd / math.Sqrt(200)); math.Abs(z) > 4.9 {
		t.Errorf("mean m̂₀ − m̂₁ = %v, truth %v: z = %.1f", m, want, z)
	}
}

// TestNoTheoryWhereIllConditioned: at ε = 0.1 with 64 groups the count
// estimates' CV is far above 0.15 and the kind states no error theory (a
// delta-method line there would be drawn where it is wrong by factors of
// 3–50), but still the exact group error ratio.
func TestNoTheoryWhereIllConditioned(t *testing.T) {
	r := prepare(t, placeholder(t), "pw", 0.1, 1000, map[string]string{"shape": "uniform", "groups": "64"}, "scaled_abs_error", "group_error_ratio")
	if v, ok := r.Theory("scaled_abs_error"); ok {
		t.Errorf("theory %v stated for an ill-conditioned cell", v)
	}
	if _, ok := r.Theory("group_error_ratio"); !ok {
		t.Error("no group error ratio theory")
	}
}

// TestCheckErrors: every bad cell is refused before anything runs, with an
// error that names what is wrong.
func TestCheckErrors(t *testing.T) {
	ds := placeholder(t)
	for _, tc := range []struct {
		method string
		raw    map[string]string
		want   string
	}{
		{"nprr", map[string]string{}, "no group column"},
		{"gauss", map[string]string{"shape": "normal"}, "unknown"},
		{"value:nope", map[string]string{"shape": "normal"}, "no registered mechanism"},
		{"laplace(k=3)", map[string]string{"shape": "normal"}, `"k" does not apply`},
		{"nprr(k=3)", map[string]string{"shape": "normal", "k": "4"}, "give it once"},
		{"nprr(k=0)", map[string]string{"shape": "normal"}, "k"},
		{"nprr(q=1)", map[string]string{"shape": "normal"}, "unknown option"},
		{"nprr(k=3", map[string]string{"shape": "normal"}, "name(key=value"},
		{"pw", map[string]string{"shape": "normal", "split": "ratio:1.5"}, "split"},
		{"pw", map[string]string{"shape": "normal", "groups": "8", "imbalance": "0.1"}, "axes.params.imbalance"},
		{"pw", map[string]string{"shape": "normal", "range": "1:1"}, "axes.params.range"},
		{"pw", map[string]string{"shape": "normal", "group": "2"}, "axes.params.group"},
		{"pw", map[string]string{"shape": "normal", "mode": "clip"}, "axes.params.mode"},
	} {
		c := &experiment.CellSpec{Dataset: ds, Method: tc.method, Eps: 1, N: 100, Metrics: []string{"scaled_abs_error"}}
		err := kindtest.CheckRaw(Kind{}, c, tc.raw)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: error %v, want one containing %q", tc.method, tc.raw, err, tc.want)
		}
	}
	c := &experiment.CellSpec{Dataset: ds, Method: "pw", Eps: 1, N: 100, Metrics: []string{"group_mean"}}
	if err := kindtest.CheckRaw(Kind{}, c, map[string]string{"shape": "normal"}); err == nil || !strings.Contains(err.Error(), "group_mean needs one group") {
		t.Errorf("group_mean without params.group: %v", err)
	}
}

// TestMethodConfig: inline options and the params axis reach the mechanism,
// a bare number is a split ratio.
func TestMethodConfig(t *testing.T) {
	p := params.MustParse(map[string]string{"k": "16", "split": "0.3"})
	for _, tc := range []struct {
		method, want string
	}{
		{"nprr", "k=16"},
		{"nprr(neutral=uniform-grid)", "uniform-grid"},
		{"pw", "ratio:0.3"},
	} {
		cfg, err := methodConfig(tc.method, 1, 2, p)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join([]string{cfg.Method, "k=" + strconv.Itoa(cfg.K), cfg.Neutral, cfg.Split}, " ")
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: config %q lacks %q", tc.method, got, tc.want)
		}
	}
}
