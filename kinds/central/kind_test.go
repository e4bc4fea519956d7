package central

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/centraldp"
	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/kinds/kindtest"
)

// TestErrorAgainstEmpiricalMean: with data = dataset (the first n values
// of a uniform sample, mapped onto [0, 1]) the error is measured against
// their own mean μ(D), never the law's ½ (E1.14): the batch MSE equals the
// leading-order theory at α = μ(D) within zCrit SE. Measured against ½ it
// would carry (μ(D) − ½)², which the test first checks to be over 100 times
// the theory, so the bug cannot hide in the band.
func TestErrorAgainstEmpiricalMean(t *testing.T) {
	const n = 10000
	r := prepare(t, centraldp.NameAlg3Lap, 1, n, map[string]string{"data": "dataset", "runs": "1000000"})
	var sum float64
	for _, v := range placeholder(t).Values[:n] {
		sum += (v + 1) / 2
	}
	if muD := sum / n; relDiff(r.data.truth, muD) > 1e-12 {
		t.Fatalf("truth %.15g, μ(D) of the first n values %.15g", r.data.truth, muD)
	}
	th, ok := r.Theory("mse")
	if !ok {
		t.Fatal("no theory")
	}
	if gap := (r.data.truth - 0.5) * (r.data.truth - 0.5); gap < 100*th {
		t.Fatalf("(μ(D) − ½)² = %.3g is not ≫ the theory %.3g: pick another seed", gap, th)
	}
	got := mean(kindtest.Trials(t, r, 2, 3)["mse"])
	if se := th * math.Sqrt(5/2e6); math.Abs(got-th) > zCrit*se {
		t.Errorf("MSE %.5g, theory %.5g (%.1f SE)", got, th, (got-th)/se)
	}
}

// TestLocalMechanismsExactTheory: an ldp: method's batch MSE equals its
// exact theory (w/2)²·(1/n²)Σ Var(Y | xᵢ) within zCrit SE, SE = MSE·√(2/runs)
// (a mean of n = 200 reports is nearly normal: κ ≈ 3). 20,000 runs: the
// band is ±5 %. Bugs caught: the map from [−1, 1] back to [l, u] without
// the factor w/2 (MSE × 4), values not mapped onto [−1, 1] (the mechanism
// clips them), a truth that is not μ(D).
func TestLocalMechanismsExactTheory(t *testing.T) {
	for _, c := range []struct {
		mech, mu, rng string
		eps           float64
	}{
		{"laplace", "0.3", "", 1},
		{"pm-sub", "0.3", "", 2},
		{"duchi", "12", "10:14", 0.5},
	} {
		t.Run(c.mech, func(t *testing.T) {
			raw := map[string]string{"mu": c.mu, "runs": "10000"}
			if c.rng != "" {
				raw["range"] = c.rng
			}
			r := prepare(t, "ldp:"+c.mech, c.eps, 200, raw)
			th, ok := r.Theory("mse")
			if !ok {
				t.Fatal("no theory")
			}
			est, err := ldpMechanism(c.mech, c.eps)
			if err != nil {
				t.Fatal(err)
			}
			w := r.data.u - r.data.l
			if want := w * w / 4 * estimators.ExpectedMeanMSE(est, r.data.unit); relDiff(th, want) > 1e-12 {
				t.Fatalf("theory %g, want %g", th, want)
			}
			got := mean(kindtest.Trials(t, r, 2, 9)["mse"])
			if se := th * math.Sqrt(2/2e4); math.Abs(got-th) > zCrit*se {
				t.Errorf("MSE %.5g, theory %.5g (%.1f SE)", got, th, (got-th)/se)
			}
		})
	}
}

// TestDataConstructions: the extremes data hold ⌊nα⌋ values at u, one at
// the remainder and the rest at l, with Σ and μ(D) as the estimators see
// them; constant data all at μ. Bugs caught: the remainder dropped (μ(D)
// off by up to 1/n: at n = 7, μ = 0.01 every value would be 0), the last
// value at u when nα is whole, an off-by-one in the count at u.
func TestDataConstructions(t *testing.T) {
	for _, c := range []struct {
		how, mu, rng string
		n            int
		wantUnit     []float64
	}{
		{"extremes", "0.01", "", 7, []float64{2*0.07 - 1, -1, -1, -1, -1, -1, -1}},
		{"extremes", "0.5", "", 4, []float64{1, 1, -1, -1}},
		{"extremes", "1", "", 3, []float64{1, 1, 1}},
		{"extremes", "0", "", 3, []float64{-1, -1, -1}},
		{"extremes", "2.5", "2:4", 4, []float64{1, -1, -1, -1}},
		{"extremes", "2.75", "2:4", 3, []float64{1, -0.75, -1}},
		{"constant", "0.25", "", 3, []float64{-0.5, -0.5, -0.5}},
	} {
		t.Run(fmt.Sprintf("%s/mu=%s/n=%d", c.how, c.mu, c.n), func(t *testing.T) {
			raw := map[string]string{"data": c.how, "mu": c.mu}
			if c.rng != "" {
				raw["range"] = c.rng
			}
			r := prepare(t, "ldp:laplace", 1, c.n, raw)
			d := r.data
			var sum float64
			for i, u := range d.unit {
				if math.Abs(u-c.wantUnit[i]) > 1e-12 {
					t.Fatalf("unit values %v, want %v", d.unit, c.wantUnit)
				}
				sum += d.l + (d.u-d.l)*(u+1)/2
			}
			if math.Abs(sum-d.sum) > 1e-12*math.Max(1, math.Abs(sum)) || math.Abs(d.truth-sum/float64(c.n)) > 1e-12 {
				t.Errorf("sum %v, truth %v; from the values %v, %v", d.sum, d.truth, sum, sum/float64(c.n))
			}
			mu := experiment.ParamSet(params).MustParse(map[string]string{"mu": c.mu}).Float("mu", 0)
			if math.Abs(d.truth-mu) > 1e-12 {
				t.Errorf("μ(D) = %v, want μ = %v", d.truth, mu)
			}
		})
	}
}

// TestLowerBoundMethod: lower-bound reports w²σ²(ε)/n² in every trial,
// i.e. σ²(ε)ε²/2 in Section 6's normalisation and σ²(ε)ε²/(2n²) in App.
// H's (reading (i) of E1.16), exact. Bugs caught: σ² for σ²ε²/2, the App.
// H value without 1/n².
func TestLowerBoundMethod(t *testing.T) {
	r := prepare(t, LowerBound, 1.5, 8, map[string]string{"mu": "0.01", "range": "0:2"})
	vals := kindtest.Trials(t, r, 3, 1)
	want := map[string]float64{
		"mse":           4 * centraldp.SigmaSq(1.5) / 64,
		"mse_norm_sec6": centraldp.LowerBound(1.5),
		"mse_norm_apph": centraldp.LowerBound(1.5) / 64,
	}
	for m, w := range want {
		for _, v := range vals[m] {
			if relDiff(v, w) > 1e-12 {
				t.Errorf("%s = %.15g, want %.15g", m, v, w)
			}
		}
		if th, _ := r.Theory(m); relDiff(th, w) > 1e-12 {
			t.Errorf("theory of %s = %.15g, want %.15g", m, th, w)
		}
	}
}

// TestTags: the rows' privacy model and neighbour relation, read from the
// method name (the swap reference is the one central method whose n is
// public).
func TestTags(t *testing.T) {
	for method, want := range map[string][2]string{
		centraldp.NameAlg3HG:    {"central", "add-remove"},
		centraldp.NameSwapStair: {"central", "swap"},
		LowerBound:              {"central", "add-remove"},
		"ldp:pm":                {"local", "any two values of one user"},
	} {
		if m, n := Tags(method); m != want[0] || n != want[1] {
			t.Errorf("Tags(%s) = %s, %s; want %v", method, m, n, want)
		}
	}
}

// TestCheckErrors: a bad cell is refused before anything runs, and the
// error names what is wrong by its spec key.
func TestCheckErrors(t *testing.T) {
	ds := placeholder(t)
	for _, c := range []struct {
		method string
		eps    float64
		raw    map[string]string
		want   string
	}{
		{"central-alg4", 1, map[string]string{"mu": "0.1"}, `method "central-alg4": unknown`},
		{"ldp:nope", 1, map[string]string{"mu": "0.1"}, "unknown mechanism"},
		{centraldp.NameAlg2, 1, nil, "axes.params.mu: is required"},
		{centraldp.NameAlg2, 1, map[string]string{"mu": "1.5"}, "axes.params.mu: 1.5 is outside the range [0, 1]"},
		{centraldp.NameAlg2, 1, map[string]string{"mu": "5", "range": "4:2"}, "axes.params.range"},
		{centraldp.NameAlg2, 1, map[string]string{"data": "dataset", "mu": "0.5"}, "axes.params.mu: sets the mean of synthetic data"},
		{centraldp.NameAlg2, 1, map[string]string{"mu": "0.5", "target_rse": "1"}, "axes.params.target_rse"},
		{centraldp.NameAlg3HG, 800, map[string]string{"mu": "0.5"}, "epsilon"},
		{centraldp.NameAlg2, 1, map[string]string{"mu": "0.5", "runs": "0"}, "axes.params.runs"},
	} {
		t.Run(c.want, func(t *testing.T) {
			cs := &experiment.CellSpec{Dataset: ds, Method: c.method, Eps: c.eps, N: 100, Metrics: allMetrics}
			err := kindtest.CheckRaw(Kind{}, cs, c.raw)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// TestBatchDoesNotAllocate: a central trial (100,000 releases) allocates
// nothing once its output slice has room (a per-run allocation would cost
// more than the release itself).
func TestBatchDoesNotAllocate(t *testing.T) {
	for _, method := range []string{centraldp.NameAlg1, centraldp.NameAlg3TwoD, centraldp.NameAlg3HG, centraldp.NameSwapStair} {
		r := prepare(t, method, 2, 1000, map[string]string{"mu": "0.4", "runs": "1000"})
		rng := rand.New(rand.NewPCG(1, 2))
		out := make([]experiment.Measurement, 0, 3)
		allocs := testing.AllocsPerRun(20, func() {
			out, _ = r.Trial(context.Background(), 0, rng, out[:0])
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per batch", method, allocs)
		}
	}
}

// TestBatchSizing: params.target_rse raises a batch to (κ − 1)/t² runs,
// κ the first-order kurtosis, and never lowers params.runs. For the swap
// reference κ is the staircase's own E Z⁴/(E Z²)² (exact): at ε = 8 it is
// 140, and the measured kurtosis of 10⁶ errors matches it within zCrit of
// its SE (estimated from the same draws' eighth moment). Bugs caught: the
// kurtosis of a Laplace law (6) used for the staircase, which would
// leave the ε = 8 batches 28 times too small; runs = κ/t without the
// square.
func TestBatchSizing(t *testing.T) {
	r := prepare(t, centraldp.NameSwapStair, 8, 10000, map[string]string{"mu": "0.5", "runs": "1000", "target_rse": "0.02"})
	l := staircaseLaw(8, centraldp.GammaStar(8))
	kappa := l.m4 / (l.m2 * l.m2)
	if want := int(math.Ceil((kappa - 1) / (0.02 * 0.02))); r.runs != want {
		t.Fatalf("runs = %d, want ⌈(κ − 1)/t²⌉ = %d (κ = %.1f)", r.runs, want, kappa)
	}
	if kappa < 100 || kappa > 200 {
		t.Fatalf("κ = %.1f at ε = 8: the staircase is no longer heavy-tailed?", kappa)
	}
	floor := prepare(t, centraldp.NameSwapStair, 8, 10000, map[string]string{"mu": "0.5", "runs": "900000", "target_rse": "0.02"})
	if floor.runs != 900000 {
		t.Errorf("target_rse lowered runs to %d", floor.runs)
	}
	es := errorsOf(r, 1_000_000, 4)
	var m2, m4, m8 float64
	for _, e := range es {
		e2 := e * e
		m2 += e2
		m4 += e2 * e2
		m8 += e2 * e2 * e2 * e2
	}
	k := float64(len(es))
	m2, m4, m8 = m2/k, m4/k, m8/k
	got := m4 / (m2 * m2)
	// The SE of the fourth moment dominates (the second's is √κ times
	// smaller relative to it): √((m8 − m4²)/k)/m2².
	se := math.Sqrt((m8-m4*m4)/k) / (m2 * m2)
	if math.Abs(got-kappa) > zCrit*se {
		t.Errorf("measured kurtosis %.1f, law %.1f (SE %.1f)", got, kappa, se)
	}
}

// TestRowsSameAtAnyJobs: the same spec gives the same rows.csv at -j 1 and
// -j 3 (a trial's batch draws from its own generator only).
func TestRowsSameAtAnyJobs(t *testing.T) {
	s := &harness.Spec{
		Name: "central-det", Kind: "central-mean", Seed: 5, Trials: 3,
		Metrics: allMetrics,
		Axes: harness.Axes{
			Method: []string{centraldp.NameAlg2, centraldp.NameAlg3HG, LowerBound, "ldp:laplace"},
			Eps:    []float64{1, 4}, N: []int{16, 500},
			Params: map[string][]string{"mu": {"0", "0.3"}, "runs": {"2000"}},
		},
		Datasets: []datasets.Spec{{Name: "deterministic", Source: "uniform", Lo: -1, Hi: 1}},
	}
	reg := experiment.Registry{Kind{}}
	one := kindtest.RunRows(t, reg, s, t.TempDir(), 1)
	three := kindtest.RunRows(t, reg, s, t.TempDir(), 3)
	if !bytes.Equal(one, three) {
		t.Fatal("rows.csv differs between -j 1 and -j 3")
	}
	if !bytes.Contains(one, []byte("central-alg3-hg")) || !bytes.Contains(one, []byte("ldp:laplace")) {
		t.Fatal("rows lack the methods")
	}
}
