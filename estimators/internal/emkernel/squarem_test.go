package emkernel

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ldpbench/ldpbench/estimators/internal/uletest"
)

// squaremProblem is a ULE problem small enough that plain EMS converges to
// its fixed point in a few thousand iterations: n users of Beta(2,5) on
// [-1, 1], m services cycling [SR, PM, SW] (m = 1: PM alone) at ε, bins
// input bins and output buckets.
type squaremProblem struct {
	n, bins, m int
	eps        float64
}

func (c squaremProblem) build(tb testing.TB) ([][]float64, []*Matrix) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	v := uletest.BetaInputs(c.n, 2, 5, rng)
	ms := uletest.Mechs(tb, c.eps, c.eps, c.eps)[:c.m]
	if c.m == 1 {
		ms = uletest.Mechs(tb, c.eps, c.eps)[1:2]
	}
	return uletest.Reports(tb, v, ms, rng), uleMatrices(tb, ms, c.bins, c.bins)
}

func l1Dist(a, b []float64) float64 {
	var d float64
	for i := range a {
		d += math.Abs(a[i] - b[i])
	}
	return d
}

// TestSquaremSameFixedPointEMS: SQUAREM on the EMS map (smoothing on, the
// authors' EM) run to the converged rule at LL tolerance 1e-12 reaches the
// fixed point of plain EMS, run further (LL tolerance 1e-16, θ tolerance
// 1e-15, so that the reference itself is at the fixed point: plain EMS
// stopped at 1e-12 is still 1e-7 to 1e-5 away in L1 on these problems),
// within 1e-6 in L1 and 1e-10·|LL| in LL, in at least 5 times fewer
// E-steps. Catches a wrong extrapolation (the sign of α, r and v
// swapped: no convergence or another point), a map without the smoothing
// (EM's fixed point, 10⁻² away), an E-step count that misses the
// stabilising or safeguard passes (the ratio is 10-24 counted honestly).
func TestSquaremSameFixedPointEMS(t *testing.T) {
	for _, c := range []squaremProblem{
		{20000, 16, 3, 0.5},
		{20000, 32, 1, 0.5},
		{20000, 32, 3, 0.5},
		{20000, 32, 1, 1},
		{20000, 32, 3, 1},
	} {
		rep, mats := c.build(t)
		ref, ri := uleLinked(t, rep, mats, Options{Converged: true, LLTol: 1e-16, ThetaTol: 1e-15, MaxIter: 200000})
		if ri.Stop == StopMaxIter {
			t.Fatalf("%+v: the plain reference did not converge", c)
		}
		th, si := uleLinked(t, rep, mats, Options{Converged: true, LLTol: 1e-12, Squarem: true})
		d := l1Dist(th, ref)
		t.Logf("%+v: plain %d E-steps, SQUAREM %d (%.1fx; %+v), L1 %.2g, ΔLL %.2g", c, ri.ESteps, si.ESteps, float64(ri.ESteps)/float64(si.ESteps), si.Squarem, d, si.LL-ri.LL)
		if si.Stop == StopMaxIter {
			t.Errorf("%+v: SQUAREM did not converge", c)
		}
		if d > 1e-6 {
			t.Errorf("%+v: SQUAREM's θ is %.3g from plain EMS's fixed point in L1 (want ≤ 1e-6)", c, d)
		}
		if math.Abs(si.LL-ri.LL) > 1e-10*math.Abs(ri.LL) {
			t.Errorf("%+v: LL %.12g, plain EMS's fixed point %.12g", c, si.LL, ri.LL)
		}
		if 5*si.ESteps > ri.ESteps {
			t.Errorf("%+v: SQUAREM took %d E-steps, plain %d: want at least 5 times fewer", c, si.ESteps, ri.ESteps)
		}
		if si.ESteps != si.Squarem.Evals || si.Iterations != si.Squarem.Cycles {
			t.Errorf("%+v: Info %d E-steps %d iterations, SQUAREM %+v", c, si.ESteps, si.Iterations, si.Squarem)
		}
	}
}

// TestSquaremEMMonotone: on plain EM (no smoothing), whose LL the EM step
// never decreases, every accepted SQUAREM cycle keeps LL within the
// safeguard's tolerance of the last (LLTol·|LL|), the run ends above plain
// EM's LL at the same converged rule (the same concave likelihood, climbed
// further: plain EM is still far from the maximum here, whose bins at the
// edge of the support tend to 0 sublinearly) in at least 5 times fewer
// E-steps, and the safeguard is exercised: without it the same run's raw
// extrapolations decrease LL by more than the tolerance. So the test fails
// if the safeguard is removed (the first check) or never triggers here
// (the last).
func TestSquaremEMMonotone(t *testing.T) {
	skipUnderRace(t, "10 s")
	c := squaremProblem{20000, 32, 3, 1}
	rep, mats := c.build(t)
	d := uleDedup(t, mats, rep)
	e := newULEFast(d, 1, "")
	llConst := d.llConst()
	l := c.bins
	a := make([]float64, l)
	sm := make([]float64, l)
	f := func(theta, next []float64) float64 {
		ll := e.eval(theta, a) + llConst
		emUpdate(next, theta, a, sm, false)
		return ll
	}
	start := make([]float64, l)
	for i := range start {
		start[i] = 1 / float64(l)
	}
	const tol = 1e-12
	maxDrop := func(noSafeguard bool) (float64, SquaremInfo) {
		var lls []float64
		_, info, err := Squarem(context.Background(), start, f, SquaremOptions{LLTol: tol, noSafeguard: noSafeguard, MaxEvals: 20000,
			Trace: func(_ int, _ []float64, ll float64) { lls = append(lls, ll) }})
		if err != nil {
			t.Fatal(err)
		}
		drop := math.Inf(-1)
		for i := 1; i < len(lls); i++ {
			drop = max(drop, (lls[i-1]-lls[i])/math.Abs(lls[i-1]))
		}
		return drop, info
	}
	drop, info := maxDrop(false)
	if drop > tol {
		t.Errorf("with the safeguard, an accepted cycle lowered LL by %.3g·|LL| (tolerance %g)", drop, tol)
	}
	if info.Backtracks == 0 {
		t.Errorf("the safeguard never backtracked: %+v", info)
	}
	rawDrop, rawInfo := maxDrop(true)
	if rawDrop <= tol {
		t.Errorf("without the safeguard LL never fell by more than %.3g·|LL|: the case does not exercise it (%+v)", rawDrop, rawInfo)
	}
	_, pi := uleLinked(t, rep, mats, Options{NoSmooth: true, Converged: true, LLTol: tol})
	t.Logf("SQUAREM %+v (largest drop %.2g·|LL|; without the safeguard %.2g·|LL|, %+v); plain %d E-steps LL %.10g", info, drop, rawDrop, rawInfo, pi.ESteps, pi.LL)
	if info.LL < pi.LL-tol*math.Abs(pi.LL) {
		t.Errorf("SQUAREM ended at LL %.12g, below plain EM's %.12g", info.LL, pi.LL)
	}
	if 5*info.Evals > pi.ESteps {
		t.Errorf("SQUAREM took %d E-steps, plain EM %d: want at least 5 times fewer", info.Evals, pi.ESteps)
	}
}

// TestSquaremCountsEveryEvaluation: on a linear fixed-point map θ → Aθ + b
// with a known fixed point, Squarem counts every call of the map, stops
// on the θ tolerance at the fixed point, and, capped, never calls the map
// more than MaxEvals times. Catches an uncounted stabilising or backtrack
// evaluation, and a cap that overshoots.
func TestSquaremCountsEveryEvaluation(t *testing.T) {
	// θ = (0.9θ₀ + 0.05, 0.99θ₁ + 0.002): fixed point (0.5, 0.2), slow in
	// the second coordinate (plain iteration: thousands of steps). LL is
	// −‖θ − θ*‖² (increasing towards the fixed point).
	calls := 0
	f := func(theta, next []float64) float64 {
		calls++
		next[0] = 0.9*theta[0] + 0.05
		next[1] = 0.99*theta[1] + 0.002
		return -((theta[0]-0.5)*(theta[0]-0.5) + (theta[1]-0.2)*(theta[1]-0.2))
	}
	th, info, err := Squarem(context.Background(), []float64{1, 1}, f, SquaremOptions{ThetaTol: 1e-13})
	if err != nil {
		t.Fatal(err)
	}
	if info.Evals != calls || info.Stop != StopTheta {
		t.Errorf("%d calls, info %+v", calls, info)
	}
	if math.Abs(th[0]-0.5)+math.Abs(th[1]-0.2) > 1e-10 {
		t.Errorf("fixed point %v, want (0.5, 0.2)", th)
	}
	if calls > 100 {
		t.Errorf("%d evaluations for a linear map of two coordinates", calls)
	}
	for _, cap := range []int{1, 2, 3, 4, 5, 7, 10} {
		calls = 0
		_, info, err := Squarem(context.Background(), []float64{1, 1}, f, SquaremOptions{MaxEvals: cap})
		if err != nil {
			t.Fatal(err)
		}
		if calls > max(cap, 1) || info.Evals != calls || info.Stop != StopMaxIter {
			t.Errorf("MaxEvals %d: %d calls, info %+v", cap, calls, info)
		}
	}
}

// TestSquaremStopsOnContext: a cancelled context stops the run with an
// error wrapping it.
func TestSquaremStopsOnContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := func(theta, next []float64) float64 { copy(next, theta); next[0] += 1e-3; return 0 }
	if _, _, err := Squarem(ctx, []float64{1, 1}, f, SquaremOptions{}); err == nil {
		t.Error("no error from a cancelled context")
	}
}
