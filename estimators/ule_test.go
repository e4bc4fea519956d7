package estimators

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/metrics"
)

// uleMechs returns the distribution services [SR, PM, SW] cycled over eps.
func uleMechs(tb testing.TB, eps ...float64) []mechanisms.Mechanism {
	tb.Helper()
	names := []string{"duchi", "pm", "sw"}
	out := make([]mechanisms.Mechanism, len(eps))
	for j, e := range eps {
		m, err := mechanisms.New(names[j%3], e)
		if err != nil {
			tb.Fatal(err)
		}
		out[j] = m
	}
	return out
}

// uleBetaInputs returns n values v = 2u - 1 with u ~ Beta(a, b).
func uleBetaInputs(n int, a, b float64, rng *rand.Rand) []float64 {
	d := distuv.Beta{Alpha: a, Beta: b, Src: rng}
	v := make([]float64, n)
	for i := range v {
		v[i] = 2*d.Rand() - 1
	}
	return v
}

// uleReports perturbs every value through every mechanism: [service][user].
// Square Wave gets s = (v+1)/2.
func uleReports(tb testing.TB, v []float64, mechs []mechanisms.Mechanism, rng *rand.Rand) [][]float64 {
	tb.Helper()
	out := make([][]float64, len(mechs))
	s := make([]float64, len(v))
	for i, x := range v {
		s[i] = min(max((x+1)/2, 0), 1)
	}
	for j, m := range mechs {
		out[j] = make([]float64, len(v))
		in := v
		if lo, _ := m.Domain(); lo == 0 {
			in = s
		}
		if err := m.PerturbBatch(out[j], in, rng); err != nil {
			tb.Fatal(err)
		}
	}
	return out
}

// uleTruth is the histogram of v over l equal bins of [-1, 1], normalised.
func uleTruth(v []float64, l int) []float64 {
	h := make([]float64, l)
	metrics.Histogram(v, -1, 1, l, h)
	for i := range h {
		h[i] /= float64(len(v))
	}
	return h
}

func uleServices(tb testing.TB, mechs []mechanisms.Mechanism, bins int) []*Service {
	tb.Helper()
	svcs, err := NewServices(mechs, bins)
	if err != nil {
		tb.Fatal(err)
	}
	return svcs
}

func maxAbsDiff(a, b []float64) float64 {
	var d float64
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// TestULEFastMatchesDense runs the fast and the dense route for the same
// fixed number of iterations and compares the histograms and LL.
func TestULEFastMatchesDense(t *testing.T) {
	for _, tc := range []struct {
		name string
		bins int
		eps  []float64
		n    int
	}{
		{"m3-l64", 64, []float64{0.5, 0.5, 0.5}, 2000},
		{"m3-l1024", 1024, []float64{0.3, 0.6, 0.4}, 2000},
		{"m3-l1024-eps2", 1024, []float64{2, 2, 2}, 2000},
		{"m6-l256", 256, []float64{0.2, 0.3, 0.4, 0.5, 0.6, 0.7}, 2000},
		{"pm-only", 1024, []float64{0, 1}, 2000}, // SR dropped below
		{"m1-sr", 128, []float64{1}, 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			mechs := uleMechs(t, tc.eps...)
			if tc.name == "pm-only" {
				m, _ := mechanisms.New("pm", 1)
				mechs = []mechanisms.Mechanism{m}
			}
			v := uleBetaInputs(tc.n, 2, 5, rng)
			reps := uleReports(t, v, mechs, rng)
			svcs := uleServices(t, mechs, tc.bins)
			for _, smooth := range []bool{true, false} {
				opt := EMOptions{NoSmooth: !smooth, Stop: StopConverged, MaxIter: 200, LLTol: 1e-300, ThetaTol: 1e-300}
				fast, fi, err := ULE(reps, svcs, opt)
				if err != nil {
					t.Fatal(err)
				}
				opt.Dense = true
				dense, di, err := ULE(reps, svcs, opt)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Iterations != di.Iterations || fi.Iterations != 200 {
					t.Fatalf("iterations fast %d dense %d", fi.Iterations, di.Iterations)
				}
				if d := maxAbsDiff(fast, dense); d > 1e-9 {
					t.Errorf("smooth=%v: max |fast - dense| = %g", smooth, d)
				}
				if d := math.Abs(fi.LL - di.LL); d > 1e-9*math.Abs(di.LL) {
					t.Errorf("smooth=%v: LL fast %v dense %v", smooth, fi.LL, di.LL)
				}
				t.Logf("smooth=%v distinct %d LL %.6f maxdiff %.3g", smooth, fi.Distinct, fi.LL, maxAbsDiff(fast, dense))
			}
		})
	}
}
