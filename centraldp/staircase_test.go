package centraldp_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/centraldp"
)

// staircaseCases spans small and large ε, γ at both ends, γ*, and Δ ≠ 1.
var staircaseCases = []struct{ eps, gamma, delta float64 }{
	{0.3, 0.5, 1},
	{1, -1, 1}, // −1: γ*
	{1, 0, 2.5},
	{1, 1, 1},
	{4, -1, 0.7},
	{4, 0.9, 1},
	{8, -1, 1},
}

func stairGamma(eps, g float64) float64 {
	if g < 0 {
		return centraldp.GammaStar(eps)
	}
	return g
}

// TestStaircaseDensityIntegrates: ∫f = 1 and ∫x²f = SecondMoment, both to
// 1e−9, by adaptive quadrature of Density over [−R, R] (R where the tail
// is below 1e−13). Catches a normaliser without Δ or with b for 1 − b, a
// step index offset by γ (⌊|x|/Δ⌋ for ⌈|x|/Δ − γ⌉ moves mass between
// steps), and an error in the closed-form second moment.
func TestStaircaseDensityIntegrates(t *testing.T) {
	for _, c := range staircaseCases {
		g := stairGamma(c.eps, c.gamma)
		s := mustStaircase(t, c.eps, g, c.delta)
		R := c.delta * (math.Ceil(36/c.eps) + 1)
		h := c.delta * max(min(g, 1-g), 0.05) / 4
		mass := integrate(s.Density, -R, R, h, 1e-14)
		if math.Abs(mass-1) > 1e-9 {
			t.Errorf("ε = %g, γ = %g, Δ = %g: ∫f = %.15g, want 1", c.eps, g, c.delta, mass)
		}
		m2 := integrate(func(x float64) float64 { return x * x * s.Density(x) }, -R, R, h, 1e-14*s.SecondMoment())
		if e := relErr(m2, s.SecondMoment()); e > 1e-9 {
			t.Errorf("ε = %g, γ = %g, Δ = %g: ∫x²f = %.15g, SecondMoment %.15g (rel %.2g)", c.eps, g, c.delta, m2, s.SecondMoment(), e)
		}
	}
}

// TestStaircaseCDF: the CDF equals ½ plus the integral of the density
// from 0 (1e−12), is ½ at 0, and is symmetric. Catches a survival formula
// that puts the outer piece's height b where the inner's 1 belongs, and
// an off-by-one step.
func TestStaircaseCDF(t *testing.T) {
	for _, c := range staircaseCases {
		g := stairGamma(c.eps, c.gamma)
		s := mustStaircase(t, c.eps, g, c.delta)
		if s.CDF(0) != 0.5 {
			t.Errorf("CDF(0) = %v", s.CDF(0))
		}
		for _, u := range []float64{0.01, 0.2, 0.5, 0.99, 1, 1.3, 2.05, 3.7, 7.2} {
			x := u * c.delta
			want := 0.5 + integrate(s.Density, 0, x, c.delta*0.01, 1e-16)
			if d := math.Abs(s.CDF(x) - want); d > 1e-12 {
				t.Errorf("ε = %g, γ = %g: CDF(%g) = %.16g, want %.16g", c.eps, g, x, s.CDF(x), want)
			}
			if d := math.Abs(s.CDF(-x) - (1 - s.CDF(x))); d > 1e-15 {
				t.Errorf("CDF not symmetric at %g", x)
			}
		}
	}
}

// stepBuckets returns bucket edges on [0, ∞) for |X|: each step's inner
// and outer piece, halved, merged with the next until a bucket's expected
// count (per sign, of n draws) is at least 20; the last bucket is the
// tail.
func stepBuckets(s *centraldp.Staircase, n int) []float64 {
	g, d := s.Gamma(), s.Delta()
	surv := func(x float64) float64 { return 1 - s.CDF(x) }
	edges := []float64{0}
	for k := 0.0; surv(k*d)*float64(n) >= 20; k++ {
		for _, e := range []float64{k + g/2, k + g, k + g + (1-g)/2, k + 1} {
			last := edges[len(edges)-1]
			if e*d > last && (s.CDF(e*d)-s.CDF(last))*float64(n) >= 20 && surv(e*d)*float64(n) >= 20 {
				edges = append(edges, e*d)
			}
		}
	}
	return append(edges, math.Inf(1))
}

// fitStaircase bins xs by sign and stepBuckets and returns the
// chi-square p-value against the staircase's CDF.
func fitStaircase(t *testing.T, what string, s *centraldp.Staircase, xs []float64) float64 {
	t.Helper()
	edges := stepBuckets(s, len(xs))
	nb := len(edges) - 1
	counts := make([]int, 2*nb)
	ps := make([]float64, 2*nb)
	for i := range nb {
		p := s.CDF(edges[i+1]) - s.CDF(edges[i])
		if math.IsInf(edges[i+1], 1) {
			p = 1 - s.CDF(edges[i])
		}
		ps[i], ps[nb+i] = p, p // positive side, negative side
	}
	for _, x := range xs {
		a := math.Abs(x)
		i := 0
		for i < nb-1 && a >= edges[i+1] {
			i++
		}
		if math.Signbit(x) {
			i += nb
		}
		counts[i]++
	}
	return chiSquare(t, what, counts, ps, len(xs))
}

// TestStaircaseSampleFitsDensity: 2·10⁵ draws fit the CDF on buckets
// (every inner and outer piece, halved, per sign) at p ≥ 1e−6; the latent
// step index equals the density's index of the drawn x (except within
// 1e−9 of a step edge, where floating rounding decides and no draw is
// expected), and the sign equals X's sign. Catches P(B = 0) with γ and
// 1 − γ swapped, an outer piece of width γ, a geometric of ratio b² or
// √b, a biased sign, and a latent index off by one.
func TestStaircaseSampleFitsDensity(t *testing.T) {
	const n = 200000
	for i, c := range staircaseCases {
		g := stairGamma(c.eps, c.gamma)
		s := mustStaircase(t, c.eps, g, c.delta)
		rng := newRNG(uint64(100 + i))
		xs := make([]float64, n)
		for k := range xs {
			x, sign, j := s.Sample(rng)
			xs[k] = x
			if (sign == 1) == math.Signbit(x) || (sign != 1 && sign != -1) {
				t.Fatalf("ε = %g, γ = %g: x = %v with sign %d", c.eps, g, x, sign)
			}
			u := math.Abs(x)/c.delta + 1 - g
			if j != s.StepIndex(x) && math.Abs(u-math.Round(u)) > 1e-9 {
				t.Fatalf("ε = %g, γ = %g: latent J = %d, density's step index of x = %v is %d", c.eps, g, j, x, s.StepIndex(x))
			}
		}
		if p := fitStaircase(t, "staircase", s, xs); p < alpha {
			t.Errorf("ε = %g, γ = %g, Δ = %g: draws do not fit the staircase: p = %.3g", c.eps, g, c.delta, p)
		}
	}
}

// TestStaircaseSecondMomentMonteCarlo: the mean of X and of X² over 4·10⁵
// draws are within 4.9 SE of 0 and of SecondMoment. Catches a sampler
// whose law is right in shape but scaled (Δ applied twice or not at all).
func TestStaircaseSecondMomentMonteCarlo(t *testing.T) {
	for i, c := range staircaseCases {
		g := stairGamma(c.eps, c.gamma)
		s := mustStaircase(t, c.eps, g, c.delta)
		rng := newRNG(uint64(200 + i))
		var m1, m2 moments
		for range 400000 {
			x, _, _ := s.Sample(rng)
			m1.add(x)
			m2.add(x * x)
		}
		checkMean(t, "staircase E[X]", &m1, 0)
		checkMean(t, "staircase E[X²]", &m2, s.SecondMoment())
	}
}

// scripted is a rand.Source that replays fixed words (then zeros), to put
// a sampler at a chosen point.
type scripted struct {
	words []uint64
	i     int
}

func (s *scripted) Uint64() uint64 {
	if s.i >= len(s.words) {
		return 0
	}
	s.i++
	return s.words[s.i-1]
}

// TestStaircaseLatentIndexAtStepEdge: with γ = 0.1 and the largest V below
// 1 on the inner piece of step 0, X = 0.1·(1 − 2^−53) is in step 0, but
// ⌊|X| + 1 − γ⌋ rounds to 1. The sampler must report the latent J = 0, and
// the hourglass built on it must centre K on 0. The words: the
// exponential's word 0 gives E = 0 (G = 0); the next word has bit 0 clear
// (sign +) and top 53 bits set (V = 1 − 2^−53); word 0 for the Bernoulli
// gives U = 0 < P(B = 0) (inner piece); for the hourglass, two more zero
// words give G1 = G2 = 0.
func TestStaircaseLatentIndexAtStepEdge(t *testing.T) {
	const gamma = 0.1
	words := []uint64{0, ^uint64(0) &^ 1, 0, 0, 0}
	s := mustStaircase(t, 1, gamma, 1)
	x, sign, j := s.Sample(rand.New(&scripted{words: words}))
	if x != gamma*(1-0x1p-53) || sign != 1 {
		t.Fatalf("scripted draw gave x = %v, sign %d; the test's word layout is stale", x, sign)
	}
	if j != 0 {
		t.Errorf("latent J = %d at x = %v < γ, want 0", j, x)
	}
	if got := s.StepIndex(x); got != 1 {
		t.Errorf("the float floor gave %d here; the trap this test guards needs 1 (rounding of |x| + 1 − γ changed?)", got)
	}
	h, err := centraldp.NewHourglass(1, gamma, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, z2, k := h.Sample(rand.New(&scripted{words: words}))
	if k != 0 || z2 != -x {
		t.Errorf("hourglass at the edge: K = %d, Z2 = %v, want K = 0, Z2 = −X", k, z2)
	}
}

// TestConstructorErrors: every constructor rejects bad parameters with an
// error naming the parameter. Catches missing validation (a NaN ε would
// propagate into every draw) and messages that do not say what is wrong.
func TestConstructorErrors(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		what  string
		param string
		err   error
	}{}
	add := func(what, param string, err error) {
		cases = append(cases, struct {
			what  string
			param string
			err   error
		}{what, param, err})
	}
	for _, eps := range []float64{0, -1, nan, math.Inf(1), 701, 1e-10} {
		_, e1 := centraldp.NewStaircase(eps, 0.5, 1)
		_, e2 := centraldp.NewStaircase2D(eps, 0.5, 1)
		_, e3 := centraldp.NewHourglass(eps, 0.5, 1)
		add("staircase", "epsilon", e1)
		add("staircase2d", "epsilon", e2)
		add("hourglass", "epsilon", e3)
	}
	for _, g := range []float64{-0.1, 1.1, nan} {
		_, e1 := centraldp.NewStaircase(1, g, 1)
		_, e2 := centraldp.NewStaircase2D(1, g, 1)
		_, e3 := centraldp.NewHourglass(1, g, 1)
		add("staircase", "gamma", e1)
		add("staircase2d", "gamma", e2)
		add("hourglass", "gamma", e3)
	}
	_, e := centraldp.NewHourglass(1, 0, 1)
	add("hourglass", "gamma", e)
	for _, d := range []float64{0, -1, nan, math.Inf(1)} {
		_, e1 := centraldp.NewStaircase(1, 0.5, d)
		_, e2 := centraldp.NewStaircase2D(1, 0.5, d)
		_, e3 := centraldp.NewHourglass(1, 0.5, d)
		add("staircase", "delta", e1)
		add("staircase2d", "delta", e2)
		add("hourglass", "delta", e3)
	}
	for _, c := range cases {
		var pe *centraldp.ParamError
		if !errors.As(c.err, &pe) || pe.Param != c.param || !strings.Contains(c.err.Error(), c.what) || !strings.Contains(c.err.Error(), c.param) {
			t.Errorf("%s: bad %s: got error %v", c.what, c.param, c.err)
		}
	}
	for _, ok := range []struct{ eps, g float64 }{{1e-9, 0}, {700, 1}} {
		if _, err := centraldp.NewStaircase(ok.eps, ok.g, 1); err != nil {
			t.Errorf("NewStaircase(%g, %g, 1): %v", ok.eps, ok.g, err)
		}
	}
}
