package emkernel

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ldpbench/ldpbench/estimators/internal/uletest"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// testBins is the authors' number of input bins and of output buckets of
// PM and SW (estimators.DefaultBins, DefaultBuckets).
const testBins = 1024

// uleMatrices returns the services' matrices with l = bins input bins and
// h output buckets, and the authors' input rule (estimators.InputDefault:
// averaged over the bin for Square Wave, at the midpoint otherwise), as
// estimators.NewService builds them.
func uleMatrices(tb testing.TB, mechs []mechanisms.Mechanism, bins, buckets int) []*Matrix {
	tb.Helper()
	mats := make([]*Matrix, len(mechs))
	for j, m := range mechs {
		_, discrete := m.(mechanisms.Discrete)
		mat, err := NewMatrix(m, bins, buckets, discrete || m.Name() != "sw")
		if err != nil {
			tb.Fatal(err)
		}
		mats[j] = mat
	}
	return mats
}

// uleLinked is Linked without a deadline.
func uleLinked(tb testing.TB, reports [][]float64, mats []*Matrix, opt Options) ([]float64, Info) {
	tb.Helper()
	theta, info, err := Linked(context.Background(), reports, mats, opt)
	if err != nil {
		tb.Fatal(err)
	}
	return theta, info
}

// uleDedup buckets and merges the linked reports (no missing ones) as
// ULE does before its EM.
func uleDedup(tb testing.TB, mats []*Matrix, reps [][]float64) *uleData {
	tb.Helper()
	lay := newULELayout(mats, make([]bool, len(mats)))
	d, err := lay.dedup(len(reps[0]), func(j, i int) int { return mats[j].Bucket(reps[j][i]) })
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

func maxAbsDiff(a, b []float64) float64 {
	var d float64
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// TestULEFastMatchesDense runs the fast route (each of its kernels) and
// the dense route for the same fixed number of iterations, with and
// without smoothing, and compares the histograms and LL.
//
// Under -short the five rows of 512 to 1024 bins over several services
// (about 3 s of the test's 5.5) are left to make test; m3-l1021
// (a bin count ≡ 1 mod 4 near the paper's 1024) runs in both.
func TestULEFastMatchesDense(t *testing.T) {
	skipUnderRace(t, "56 s")
	longRows := map[string]bool{"m3-l1024": true, "m3-l1024-eps2": true, "m3-l1022": true, "sr-pm-pm-l515": true, "sr-pm-pm-l512": true}
	for _, tc := range []struct {
		name  string
		bins  int
		mechs []string
		eps   []float64
		n     int
	}{
		{"m3-l64", 64, []string{"duchi", "pm", "sw"}, []float64{0.5, 0.5, 0.5}, 2000},
		{"m3-l1024", 1024, []string{"duchi", "pm", "sw"}, []float64{0.3, 0.6, 0.4}, 2000},
		{"m3-l1024-eps2", 1024, []string{"duchi", "pm", "sw"}, []float64{2, 2, 2}, 2000},
		// Bin counts that are not multiples of 4: the tail loop of
		// inclusiveScan (pair and band kernels), 1022 ≡ 2 and 1021 ≡ 1
		// (mod 4), and a small odd count just above its 64-element cut.
		{"m3-l1022", 1022, []string{"duchi", "pm", "sw"}, []float64{0.3, 0.6, 0.4}, 2000},
		{"m3-l1021", 1021, []string{"duchi", "pm", "sw"}, []float64{0.3, 0.6, 0.4}, 2000},
		{"m3-l67", 67, []string{"duchi", "pm", "sw"}, []float64{0.5, 0.5, 0.5}, 2000},
		{"sr-pm-pm-l515", 515, []string{"duchi", "pm", "pm"}, []float64{1, 0.5, 4}, 3000},
		{"m6-l256", 256, []string{"duchi", "pm", "sw", "duchi", "pm", "sw"}, []float64{0.2, 0.3, 0.4, 0.5, 0.6, 0.7}, 2000},
		{"sw-pm-sw-l128", 128, []string{"sw", "pm", "sw"}, []float64{0.4, 1, 3}, 2000},
		{"pm-sw-l256", 256, []string{"pm", "sw"}, []float64{0.7, 0.2}, 3000},
		{"sr-pm-pm-l512", 512, []string{"duchi", "pm", "pm"}, []float64{1, 0.5, 4}, 3000},
		{"m3-l256-eps8", 256, []string{"duchi", "pm", "sw"}, []float64{8, 8, 8}, 2000},
		{"m3-l128-eps30", 128, []string{"duchi", "pm", "sw"}, []float64{30, 30, 30}, 2000},
		{"pm", 1024, []string{"pm"}, []float64{1}, 2000},
		{"sw", 1024, []string{"sw"}, []float64{0.2}, 2000},
		{"sr", 128, []string{"duchi"}, []float64{1}, 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && longRows[tc.name] {
				t.Skip("skipped under -short (make test runs it)")
			}
			rng := rand.New(rand.NewPCG(1, 2))
			mechs := make([]mechanisms.Mechanism, len(tc.mechs))
			for j, name := range tc.mechs {
				m, err := mechanisms.New(name, tc.eps[j])
				if err != nil {
					t.Fatal(err)
				}
				mechs[j] = m
			}
			v := uletest.BetaInputs(tc.n, 2, 5, rng)
			reps := uletest.Reports(t, v, mechs, rng)
			mats := uleMatrices(t, mechs, tc.bins, testBins)
			// Compare the iterates at iteration cmp (a run that converges
			// exactly, ΔLL = 0, stops earlier, at an iteration that
			// rounding decides).
			const iters, cmp = 30, 30
			run := func(opt Options) ([]float64, float64, Info) {
				var at []float64
				var ll float64
				opt.Trace = func(it int, theta []float64, l float64) {
					if it == cmp {
						at, ll = slices.Clone(theta), l
					}
				}
				_, info := uleLinked(t, reps, mats, opt)
				if at == nil {
					t.Fatalf("stopped after %d iterations (stop %v)", info.Iterations, info.Stop)
				}
				return at, ll, info
			}
			for _, smooth := range []bool{true, false} {
				opt := Options{NoSmooth: !smooth, Converged: true, MaxIter: iters, LLTol: 1e-300, ThetaTol: 1e-300}
				opt.Dense = true
				dense, dll, di := run(opt)
				opt.Dense = false
				for _, kernel := range []string{"", "merged", "compiled", "explicit", "grouped", "band", "pair", "pairgrid"} {
					opt.kernel = kernel
					fast, fll, fi := run(opt)
					if fi.Distinct != di.Distinct || fi.Route != "fast" || di.Route != "dense" {
						t.Fatalf("distinct %d %d, routes %s %s", fi.Distinct, di.Distinct, fi.Route, di.Route)
					}
					if d := maxAbsDiff(fast, dense); d > 1e-9 {
						t.Errorf("smooth=%v kernel %q: max |fast - dense| = %g", smooth, kernel, d)
					}
					if d := math.Abs(fll - dll); d > 1e-9*math.Abs(dll) {
						t.Errorf("smooth=%v kernel %q: LL fast %v dense %v", smooth, kernel, fll, dll)
					}
					t.Logf("smooth=%v kernel %q: distinct %d, LL %.6f, max diff %.3g at iteration %d (%d and %d iterations in all)",
						smooth, kernel, fi.Distinct, fll, maxAbsDiff(fast, dense), cmp, fi.Iterations, di.Iterations)
				}
			}
		})
	}
}

// TestULEPairKernelPaths checks that [SR, PM, SW] at the authors'
// discretisation takes the pair kernel, and that both its paths are used
// (TestULEFastMatchesDense checks their values).
func TestULEPairKernelPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	mechs := uletest.Mechs(t, 0.3, 0.3, 0.3)
	v := uletest.BetaInputs(20000, 2, 5, rng)
	reps := uletest.Reports(t, v, mechs, rng)
	d := uleDedup(t, uleMatrices(t, mechs, testBins, testBins), reps)
	e := newULEFast(d, 2, "")
	if !e.pairMode {
		t.Fatal("pair kernel not used")
	}
	theta := make([]float64, testBins)
	for i := range theta {
		theta[i] = 1 / float64(len(theta))
	}
	a := make([]float64, testBins)
	e.eval(theta, a)
	slow := 0
	for _, s := range e.slots {
		for _, acc := range s.pair {
			if acc != nil {
				slow += acc.slowVector
			}
		}
	}
	if slow == 0 || slow > len(d.count)/5 {
		t.Errorf("%d of %d vectors on the slow path", slow, len(d.count))
	}
	t.Logf("%d of %d vectors on the slow path", slow, len(d.count))
}

// TestULEZonePrograms checks that m = 6 services ([SR, PM, SW] twice) at
// the authors' discretisation compile nearly every vector to a zone
// program (TestULEFastMatchesDense checks their values).
func TestULEZonePrograms(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	mechs := uletest.Mechs(t, 0.3, 0.3, 0.3, 0.5, 0.5, 0.5)
	v := uletest.BetaInputs(5000, 2, 5, rng)
	reps := uletest.Reports(t, v, mechs, rng)
	d := uleDedup(t, uleMatrices(t, mechs, testBins, testBins), reps)
	e := newULEFast(d, 1, "")
	if e.zones == nil || e.prog == nil {
		t.Fatal("no zone programs")
	}
	zoned := e.prog.zoned
	if zoned < len(d.count)*8/10 {
		t.Errorf("%d of %d vectors with zone programs", zoned, len(d.count))
	}
	t.Logf("%d of %d vectors with zone programs", zoned, len(d.count))
}
