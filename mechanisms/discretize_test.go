package mechanisms_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/mechtest"
)

// The helpers of this file and multidim_test.go have their own names, so
// that they do not depend on the helpers of other test files.

func dzRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 77)) }

func dzClose(got, want, tol float64) bool { return math.Abs(got-want) <= tol*math.Abs(want) }

const dzReports = 200_000

var dzXs = []float64{-1, -0.4, 0, 0.7, 1}

func mustPM(t testing.TB, eps float64) *mechanisms.Piecewise {
	t.Helper()
	m, err := mechanisms.NewPM(eps)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustPMSub(t testing.TB, eps float64) *mechanisms.Piecewise {
	t.Helper()
	m, err := mechanisms.NewPiecewise("pm-sub", eps, math.Exp(eps/3))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustDisc(t testing.TB, inner mechanisms.Mechanism, m int) *mechanisms.Discretized {
	t.Helper()
	z, err := mechanisms.NewDiscretized(inner, m)
	if err != nil {
		t.Fatal(err)
	}
	return z
}

// TestDiscretizedReference: the variance and the probabilities against
// literal values from mpmath (40 digits; ∫ f(y|x)·E[Z²|y] dy - x² and
// ∫ f(y|x)·w_i(y) dy split at the grid and the window edges).
func TestDiscretizedReference(t *testing.T) {
	for _, c := range []struct {
		eps  float64
		m    int
		x, v float64
	}{
		{1, 1, 0.3, 6.5068290201385468578},
		{1, 2, 0.3, 4.4902791259704529625},
		{1, 2, 1, 5.9191330441281016013},
		{4, 5, -0.7, 0.17372877138071664995},
		{0.5, 3, 0, 18.883115405322126566},
	} {
		z := mustDisc(t, mustPM(t, c.eps), c.m)
		if got := z.Variance(c.x); !dzClose(got, c.v, 1e-13) {
			t.Errorf("ε=%v m=%d x=%v: Variance %v, want %v", c.eps, c.m, c.x, got, c.v)
		}
	}
	z := mustDisc(t, mustPM(t, 1), 2)
	want := []float64{0.07581633246407917795, 0.17060352252221319647, 0.36236211324620442191, 0.31324867864240937741, 0.077969353125093826264}
	got := make([]float64, len(z.Outputs()))
	z.Probabilities(0.3, got)
	for i := range want {
		if !dzClose(got[i], want[i], 1e-13) {
			t.Errorf("P[%v | 0.3] = %v, want %v", z.Outputs()[i], got[i], want[i])
		}
	}
	_, a := mustPM(t, 1).OutputRange()
	for i, o := range z.Outputs() {
		if w := float64(i-2) * a / 2; !dzClose(o, w, 1e-15) && o != w {
			t.Errorf("output %d = %v, want %v", i, o, w)
		}
	}
}

// TestDiscretizedM1: with m = 1 the grid is {-A, 0, A} and E[Z²|y] = A|y|,
// so Var[Z|x] = A·E|Y| - x², with E|Y| = d·A² + (c-d)·(F(R) - F(L)),
// F(y) = y|y|/2: an independent closed form.
func TestDiscretizedM1(t *testing.T) {
	for _, eps := range []float64{0.1, 0.5, 1, 2, 4, 8} {
		for _, inner := range []*mechanisms.Piecewise{mustPM(t, eps), mustPMSub(t, eps)} {
			z := mustDisc(t, inner, 1)
			_, a := inner.OutputRange()
			e := math.Exp(eps)
			tw := inner.T()
			c := e * tw * (e - 1) / (2 * (tw + e) * (tw + e))
			d := c / e
			f := func(y float64) float64 { return y * math.Abs(y) / 2 }
			for _, x := range mechtest.Grid(-1, 1, 20) {
				l, r := inner.Window(x)
				want := a*(d*a*a+(c-d)*(f(r)-f(l))) - x*x
				if got := z.Variance(x); !dzClose(got, want, 1e-12) {
					t.Errorf("%s ε=%v x=%v: Variance %v, closed form %v", inner.Name(), eps, x, got, want)
				}
			}
		}
	}
}

// exactMoment integrates f(y|x)·g(y) over [-A, A] piece by piece between
// the grid points and the window edges, where g is a polynomial of degree
// ≤ 2 times a constant density, so that Gauss–Legendre quadrature is exact
// on every piece: an independent route to the exact variance and
// probabilities.
func exactMoment(inner *mechanisms.Piecewise, m int, x float64, g func(float64) float64) float64 {
	return exactMomentOn(inner, m, x, g, math.Inf(-1), math.Inf(1))
}

// exactMomentOn is exactMoment over the pieces inside [from, to], where g
// vanishes outside.
func exactMomentOn(inner *mechanisms.Piecewise, m int, x float64, g func(float64) float64, from, to float64) float64 {
	_, a := inner.OutputRange()
	l, r := inner.Window(x)
	pts := []float64{l, r}
	for i := -m; i <= m; i++ {
		pts = append(pts, float64(i)*a/float64(m))
	}
	slices.Sort(pts)
	pts = slices.Compact(pts)
	sum := 0.0
	for i := 0; i+1 < len(pts); i++ {
		lo, hi := pts[i], pts[i+1]
		if lo < -a || hi > a || !(hi > lo) || lo < from || hi > to {
			continue
		}
		dens := inner.Density((lo+hi)/2, x)
		// Two-point Gauss–Legendre: exact for cubics, and its nodes are
		// inside the piece, away from the jumps of g at the grid points.
		mid, half := (lo+hi)/2, (hi-lo)/2
		sum += dens * half * (g(mid-half/math.Sqrt(3)) + g(mid+half/math.Sqrt(3)))
	}
	return sum
}

// TestDiscretizedExact: the variance and every probability against the
// piecewise integral, probabilities summing to 1 with mean x, exact ε-LDP,
// and the added variance within [0, (C_b/m)²/4] (Lemma 9 pointwise).
func TestDiscretizedExact(t *testing.T) {
	for _, eps := range []float64{0.01, 0.5, 1, 2, 4, 5, 8} {
		for _, inner := range []*mechanisms.Piecewise{mustPM(t, eps), mustPMSub(t, eps)} {
			for _, m := range []int{1, 2, 3, 10, 57} {
				z := mustDisc(t, inner, m)
				h := z.Bound() / float64(m)
				name := fmt.Sprintf("%s ε=%v m=%d", inner.Name(), eps, m)
				if len(z.Outputs()) != 2*m+1 {
					t.Fatalf("%s: %d outputs", name, len(z.Outputs()))
				}
				xs := mechtest.Grid(-1, 1, 40)
				if err := mechtest.ProbabilitiesSumToOne(z, xs, 1e-12); err != nil {
					t.Errorf("%s: %v", name, err)
				}
				if err := mechtest.DiscreteLDP(z, mechtest.Grid(-1, 1, 200), eps, 1e-9); err != nil {
					t.Errorf("%s: %v", name, err)
				}
				ps := make([]float64, 2*m+1)
				for _, x := range []float64{-1, -0.55, 0, 0.123, 1} {
					ez2 := exactMoment(inner, m, x, func(y float64) float64 {
						k := math.Floor(y / h)
						lam := y/h - k
						return (1-lam)*(k*h)*(k*h) + lam*(k+1)*h*(k+1)*h
					})
					v := z.Variance(x)
					if !dzClose(v, ez2-x*x, 1e-10) {
						t.Errorf("%s x=%v: Variance %v, integral %v", name, x, v, ez2-x*x)
					}
					if add := v - inner.Variance(x); !(add >= -1e-12*v && add <= h*h/4*(1+1e-12)) {
						t.Errorf("%s x=%v: added variance %v outside [0, h²/4 = %v]", name, x, add, h*h/4)
					}
					z.Probabilities(x, ps)
					for i := -m; i <= m; i++ {
						hat := func(y float64) float64 { return max(0, 1-math.Abs(y/h-float64(i))) }
						// The grid points in pts are computed as i·a/m, the
						// support edges as (i±1)·h: widen by a rounding margin.
						want := exactMomentOn(inner, m, x, hat, (float64(i)-1.5)*h, (float64(i)+1.5)*h)
						if got := ps[i+m]; math.Abs(got-want) > 1e-13 {
							t.Errorf("%s x=%v: P[%d·h] = %v, integral %v", name, x, i, got, want)
						}
					}
				}
			}
		}
	}
}

// TestDiscretizedWorstCase: WorstCaseVariance is the maximum of Variance
// over a dense grid (never below it, and within 1e-9 of it; the grid
// misses an interior maximum by O(spacing²)), and at least the inner worst
// case (Lemma 9).
func TestDiscretizedWorstCase(t *testing.T) {
	const n = 20_000
	xs := mechtest.Grid(-1, 1, n)
	vs := make([]float64, len(xs))
	check := func(t *testing.T, z *mechanisms.Discretized, inner mechanisms.Variancer) {
		t.Helper()
		best := math.Inf(-1)
		for i, x := range xs {
			vs[i] = z.Variance(x)
			best = max(best, vs[i])
		}
		// The grid misses an interior maximum by about f''·(1/n)²/2
		// (f'' reaches ~10 at ε = 8, m = 10: ~1e-7 relative); refine
		// on a fine grid around every local maximum within 1e-6 of the best.
		for i, v := range vs {
			if v < best*(1-1e-6) || (i > 0 && vs[i-1] > v) || (i+1 < len(vs) && vs[i+1] > v) {
				continue // not a local maximum of the grid near the best
			}
			for _, x := range mechtest.Grid(max(-1, xs[i]-1.0/n), min(1, xs[i]+1.0/n), 1000) {
				best = max(best, z.Variance(x))
			}
		}
		w := z.WorstCaseVariance()
		if w < best*(1-1e-14) || !dzClose(w, best, 1e-12) {
			t.Errorf("%s ε=%v: WorstCaseVariance %v, grid maximum %v", z.Name(), z.Epsilon(), w, best)
		}
		if w < inner.WorstCaseVariance()*(1-1e-14) {
			t.Errorf("%s ε=%v: WorstCaseVariance %v below the inner one %v (Lemma 9)", z.Name(), z.Epsilon(), w, inner.WorstCaseVariance())
		}
	}
	for _, eps := range []float64{0.5, 1, 2, 4, 5, 8} {
		for _, m := range []int{1, 2, 5, 10, 100, 1000} {
			pm, sub := mustPM(t, eps), mustPMSub(t, eps)
			check(t, mustDisc(t, pm, m), pm)
			check(t, mustDisc(t, sub, m), sub)
			hm := newTestMixture(t, eps, false)
			check(t, mustDisc(t, hm, m), hm)
			kink := newTestMixture(t, eps, true)
			check(t, mustDisc(t, kink, m), kink)
		}
	}
	// Coarse grids move the maximum inside (-1, 1): for PM-SUB at ε = 8
	// and m = 1 the narrow window at y ≈ ±A/2 rounds with variance ≈ A²/4,
	// while at x = 0 and x = 1 it sits on a grid point; the worst case is
	// about 0.292, against 0.040 at 0 and 0.078 at 1.
	z := mustDisc(t, mustPMSub(t, 8), 1)
	if w := z.WorstCaseVariance(); !(w > 3*max(z.Variance(0), z.Variance(1))) {
		t.Errorf("m=1 PM-SUB ε=8: worst %v, Var(0) %v, Var(1) %v: the interior maximum is missed", w, z.Variance(0), z.Variance(1))
	}
}

// TestDiscretizedMoments: reports are unbiased with the exact variance
// (Monte Carlo, mechtest tolerances), and their histogram fits the exact
// probabilities (chi-square).
func TestDiscretizedMoments(t *testing.T) {
	seed := uint64(300)
	for _, eps := range []float64{0.5, 1, 4} {
		for _, m := range []int{1, 3, 1000} {
			for _, inner := range []mechanisms.Mechanism{mustPM(t, eps), mustPMSub(t, eps), newTestMixture(t, eps, false)} {
				seed++
				rng := dzRNG(seed)
				z := mustDisc(t, inner, m)
				t.Run(fmt.Sprintf("%s/eps=%v", z.Name(), eps), func(t *testing.T) {
					t.Parallel()
					for _, x := range dzXs {
						if err := mechtest.Unbiased(z, x, dzReports, rng, mechtest.DefaultAlpha); err != nil {
							t.Error(err)
						}
						if err := mechtest.Variance(z, x, dzReports, rng, mechtest.DefaultAlpha); err != nil {
							t.Error(err)
						}
						if m <= 3 {
							if err := mechtest.DiscreteFit(z, x, dzReports, rng, mechtest.DefaultAlpha); err != nil {
								t.Error(err)
							}
						}
					}
				})
			}
		}
	}
}

// halfRounding rounds to either neighbour with probability 1/2 instead of
// the linear weights of eq. (35): biased.
type halfRounding struct{ *mechanisms.Discretized }

func (z halfRounding) Perturb(x float64, rng *rand.Rand) float64 {
	inner := z.inner()
	y := inner.Perturb(x, rng)
	h := z.Bound() / float64(z.M())
	k := min(math.Floor(y/h), float64(z.M()-1))
	if rng.Float64() < 0.5 {
		return k * h
	}
	return (k + 1) * h
}

func (z halfRounding) inner() *mechanisms.Piecewise {
	pm, _ := mechanisms.NewPM(z.Epsilon())
	return pm
}

func (z halfRounding) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	for i, x := range xs {
		dst[i] = z.Perturb(x, rng)
	}
	return nil
}

// innerVariance claims the inner variance, forgetting the rounding term.
type innerVariance struct {
	*mechanisms.Discretized
	inner *mechanisms.Piecewise
}

func (z innerVariance) Variance(x float64) float64 { return z.inner.Variance(x) }

func TestDiscretizedBrokenCaught(t *testing.T) {
	rng := dzRNG(401)
	for _, eps := range []float64{1, 4} {
		pm := mustPM(t, eps)
		z := mustDisc(t, pm, 2)
		for _, x := range []float64{-1, 1} {
			if err := mechtest.Unbiased(halfRounding{z}, x, dzReports, rng, mechtest.DefaultAlpha); err == nil {
				t.Errorf("ε=%v x=%v: the unbiasedness check missed 50/50 rounding", eps, x)
			}
		}
		for _, x := range []float64{0, 1} {
			if err := mechtest.Variance(innerVariance{z, pm}, x, dzReports, rng, mechtest.DefaultAlpha); err == nil {
				t.Errorf("ε=%v x=%v: the variance check missed the missing rounding term", eps, x)
			}
		}
	}
}

// TestDiscretizedSampler: reports lie on the grid (y = ±C_b gives ±C_b),
// PerturbBatch is the sequence of Perturb calls, bad input is an
// *InputError before any draw, and nothing allocates.
func TestDiscretizedSampler(t *testing.T) {
	z := mustDisc(t, mustPM(t, 2), 7)
	rng := dzRNG(5)
	for _, x := range dzXs {
		for range 20000 {
			if y := z.Perturb(x, rng); !slices.Contains(z.Outputs(), y) {
				t.Fatalf("report %v of x = %v is not an output", y, x)
			}
		}
	}
	xs := mechtest.Grid(-1, 1, 50)
	want := make([]float64, len(xs))
	r1 := dzRNG(9)
	for i, x := range xs {
		want[i] = z.Perturb(x, r1)
	}
	got := slices.Clone(xs)
	if err := z.PerturbBatch(got, got, dzRNG(9)); err != nil || !slices.Equal(got, want) {
		t.Errorf("in-place PerturbBatch %v (%v), Perturb %v", got, err, want)
	}
	bad := slices.Clone(xs)
	bad[3] = 1.5
	r2, r3 := dzRNG(3), dzRNG(3)
	var ie *mechanisms.InputError
	if err := z.PerturbBatch(make([]float64, len(bad)), bad, r2); !errors.As(err, &ie) || ie.Index != 3 {
		t.Errorf("bad input: %v", err)
	}
	if r2.Uint64() != r3.Uint64() {
		t.Error("a rejected batch drew from the generator")
	}
	hm := mustDisc(t, newTestMixture(t, 1, false), 1000)
	dst := make([]float64, len(xs))
	ps := make([]float64, len(hm.Outputs()))
	for what, f := range map[string]func(){
		"Perturb":       func() { _ = z.Perturb(0.3, rng) },
		"PerturbBatch":  func() { _ = z.PerturbBatch(dst, xs, rng) },
		"MixtureBatch":  func() { _ = hm.PerturbBatch(dst, xs, rng) },
		"Probabilities": func() { hm.Probabilities(0.3, ps) },
	} {
		if a := testing.AllocsPerRun(50, f); a != 0 {
			t.Errorf("%s allocates %v times", what, a)
		}
	}
}

func TestDiscretizedBits(t *testing.T) {
	for _, c := range []struct{ m, outs, bits int }{
		{1, 3, 2}, {2, 5, 3}, {3, 7, 3}, {4, 9, 4}, {7, 15, 4}, {8, 17, 5}, {1000, 2001, 11},
	} {
		z := mustDisc(t, mustPM(t, 1), c.m)
		if len(z.Outputs()) != c.outs || z.Bits() != c.bits || z.M() != c.m {
			t.Errorf("m=%d: %d outputs, %d bits; want %d, %d", c.m, len(z.Outputs()), z.Bits(), c.outs, c.bits)
		}
	}
	// HM's ±C_D lie off the grid: two more outputs.
	z := mustDisc(t, newTestMixture(t, 1, false), 1)
	if len(z.Outputs()) != 5 || z.Bits() != 3 {
		t.Errorf("mixture m=1: %d outputs %v, %d bits", len(z.Outputs()), z.Outputs(), z.Bits())
	}
}

func TestDiscretizedErrors(t *testing.T) {
	pm := mustPM(t, 1)
	for _, m := range []int{0, -1, mechanisms.MaxDiscretizeM + 1} {
		_, err := mechanisms.NewDiscretized(pm, m)
		var pe *mechanisms.ParamError
		if !errors.As(err, &pe) || pe.Param != "m" {
			t.Errorf("m = %d: error %v, want a *ParamError on m", m, err)
		}
	}
	for _, name := range []string{"laplace", "duchi", "sw"} {
		inner, err := mechanisms.New(name, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := mechanisms.NewDiscretized(inner, 10); err == nil {
			t.Errorf("%s: no error, but its variance after rounding is not exact", name)
		}
	}
	z := mustDisc(t, pm, 10)
	if z.Name() != "discretize(pm,m=10)" || z.Epsilon() != 1 {
		t.Errorf("Name %q, Epsilon %v", z.Name(), z.Epsilon())
	}
}

// testMixture is an HM-like mixture for the tests: PM with probability
// alpha, else a discrete component: Duchi (HM), or with kink a
// three-output mechanism whose variance has a |x| term (like HM-TP's
// Three-Outputs).
type testMixture struct {
	pm    *mechanisms.Piecewise
	disc  mechanisms.Mechanism
	alpha float64
}

func newTestMixture(t testing.TB, eps float64, kink bool) *testMixture {
	t.Helper()
	pm := mustPM(t, eps)
	var disc mechanisms.Mechanism
	if kink {
		disc = threeLevel{c: 3 / math.Tanh(eps/2), q: 0.4, eps: eps}
	} else {
		du, err := mechanisms.NewDuchi(eps)
		if err != nil {
			t.Fatal(err)
		}
		disc = du
	}
	return &testMixture{pm: pm, disc: disc, alpha: -math.Expm1(-eps / 2)}
}

func (m *testMixture) Name() string             { return "test-hm" }
func (m *testMixture) Epsilon() float64         { return m.pm.Epsilon() }
func (m *testMixture) Domain() (lo, hi float64) { return -1, 1 }
func (m *testMixture) Perturb(x float64, rng *rand.Rand) float64 {
	if rng.Float64() < m.alpha {
		return m.pm.Perturb(x, rng)
	}
	return m.disc.Perturb(x, rng)
}
func (m *testMixture) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	for i, x := range xs {
		dst[i] = m.Perturb(x, rng)
	}
	return nil
}
func (m *testMixture) Variance(x float64) float64 {
	return m.alpha*m.pm.Variance(x) + (1-m.alpha)*m.disc.(mechanisms.Variancer).Variance(x)
}
func (m *testMixture) WorstCaseVariance() float64 { return math.NaN() }
func (m *testMixture) Components() (mechanisms.Mechanism, mechanisms.Mechanism, float64) {
	return m.pm, m.disc, m.alpha
}

// threeLevel reports 0 with probability q(1-|x|) and ±c otherwise,
// unbiased, with variance c²(1 - q + q|x|) - x². It is not meant to be
// private, only to have a kink at 0.
type threeLevel struct{ c, q, eps float64 }

func (m threeLevel) Name() string             { return "three-level" }
func (m threeLevel) Epsilon() float64         { return m.eps }
func (m threeLevel) Domain() (lo, hi float64) { return -1, 1 }
func (m threeLevel) Outputs() []float64       { return []float64{-m.c, 0, m.c} }
func (m threeLevel) Probabilities(x float64, dst []float64) {
	p0 := m.q * (1 - math.Abs(x))
	dst[0] = (1-p0)/2 - x/(2*m.c)
	dst[1] = p0
	dst[2] = (1-p0)/2 + x/(2*m.c)
}
func (m threeLevel) Perturb(x float64, rng *rand.Rand) float64 {
	var p [3]float64
	m.Probabilities(x, p[:])
	u := rng.Float64()
	switch {
	case u < p[0]:
		return -m.c
	case u < p[0]+p[1]:
		return 0
	}
	return m.c
}
func (m threeLevel) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	for i, x := range xs {
		dst[i] = m.Perturb(x, rng)
	}
	return nil
}
func (m threeLevel) Variance(x float64) float64 {
	return m.c*m.c*(1-m.q+m.q*math.Abs(x)) - x*x
}
func (m threeLevel) WorstCaseVariance() float64 { return math.NaN() }

// TestDiscretizedMixture: for a mixture only the continuous draw is
// rounded; the law is exact (probabilities sum to one, mean x, ε-LDP for
// HM), the variance is α(Var_PM + rounding) + (1-α)Var_disc, and the
// zero of a three-level component merges with the grid's 0.
func TestDiscretizedMixture(t *testing.T) {
	for _, eps := range []float64{0.5, 1, 4} {
		for _, kink := range []bool{false, true} {
			mix := newTestMixture(t, eps, kink)
			for _, m := range []int{1, 4, 100} {
				z := mustDisc(t, mix, m)
				name := fmt.Sprintf("ε=%v kink=%v m=%d", eps, kink, m)
				want := 2*m + 1 + 2
				if len(z.Outputs()) != want {
					t.Errorf("%s: %d outputs, want %d", name, len(z.Outputs()), want)
				}
				if err := mechtest.ProbabilitiesSumToOne(z, mechtest.Grid(-1, 1, 40), 1e-12); err != nil {
					t.Errorf("%s: %v", name, err)
				}
				if !kink {
					if err := mechtest.DiscreteLDP(z, mechtest.Grid(-1, 1, 200), eps, 1e-9); err != nil {
						t.Errorf("%s: %v", name, err)
					}
				}
				pmz := mustDisc(t, mix.pm, m)
				for _, x := range dzXs {
					w := mix.alpha*pmz.Variance(x) + (1-mix.alpha)*mix.disc.(mechanisms.Variancer).Variance(x)
					if got := z.Variance(x); !dzClose(got, w, 1e-13) {
						t.Errorf("%s x=%v: Variance %v, want %v", name, x, got, w)
					}
				}
			}
		}
	}
}

// TestDiscretizedRegistered runs the exact and Monte Carlo checks on every
// registered mechanism that Algorithm 5 accepts (the piecewise family and
// the hybrids HM and HM-TP, of which only the continuous draw is rounded),
// including the exact worst case against a dense grid (E3.15: HM-TP's
// maximum is interior).
func TestDiscretizedRegistered(t *testing.T) {
	seed := uint64(1000)
	accepted := 0
	for _, name := range mechanisms.Names() {
		for _, eps := range []float64{0.5, 1, 4} {
			inner, err := mechanisms.New(name, eps)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range []int{1, 20} {
				z, err := mechanisms.NewDiscretized(inner, m)
				if err != nil {
					if eps == 1 && m == 1 {
						t.Logf("%s: not discretised: %v", name, err)
					}
					continue
				}
				accepted++
				label := fmt.Sprintf("%s ε=%v m=%d", name, eps, m)
				if err := mechtest.ProbabilitiesSumToOne(z, mechtest.Grid(-1, 1, 40), 1e-12); err != nil {
					t.Errorf("%s: %v", label, err)
				}
				if err := mechtest.DiscreteLDP(z, mechtest.Grid(-1, 1, 200), eps, 1e-9); err != nil {
					t.Errorf("%s: %v", label, err)
				}
				best := math.Inf(-1)
				for _, x := range mechtest.Grid(-1, 1, 20000) {
					best = max(best, z.Variance(x))
				}
				if w := z.WorstCaseVariance(); w < best*(1-1e-14) || !dzClose(w, best, 1e-6) {
					t.Errorf("%s: WorstCaseVariance %v, grid maximum %v", label, w, best)
				}
				if w, iw := z.WorstCaseVariance(), inner.(mechanisms.Variancer).WorstCaseVariance(); w < iw*(1-1e-14) {
					t.Errorf("%s: worst case %v below the inner %v (Lemma 9)", label, w, iw)
				}
				seed++
				rng := dzRNG(seed)
				for _, x := range []float64{-1, 0.7} {
					if err := mechtest.Unbiased(z, x, 100_000, rng, mechtest.DefaultAlpha); err != nil {
						t.Error(err)
					}
					if err := mechtest.Variance(z, x, 100_000, rng, mechtest.DefaultAlpha); err != nil {
						t.Error(err)
					}
				}
			}
		}
	}
	if accepted == 0 {
		t.Error("no registered mechanism can be discretised")
	}
}
