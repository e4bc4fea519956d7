package centraldp_test

import (
	"math"
	"testing"

	"github.com/ldpbench/ldpbench/centraldp"
)

// Reference values computed with mpmath at 40 digits from eq. (2) and the
// unsimplified γ* = ((b(1+b)/2)^{1/3} − b)/(1 − b).
var sigmaRefs = []struct{ eps, sigmaSq, gammaStar float64 }{
	{1e-6, 1999999999999.9166667, 0.49999991666666666667},
	{1e-3, 1999999.9166666680556, 0.49991666666666666674},
	{0.05, 799.91667013923323484, 0.49583333335744060641},
	{0.5, 7.9170172153663356807, 0.45833569180240079604},
	{1, 1.9181035312355251481, 0.41673743492888243343},
	{2, 0.42273284904654675411, 0.33513002967945216706},
	{4, 0.064978782485097215167, 0.19575655015879312151},
	{8, 0.003379827922006546367, 0.054838151431042900133},
	{15, 0.000028906089423701131505, 0.0053476083560652742066},
	{30, 1.2985389942187168199e-9, 0.000036033948038553677131},
	{100, 7.0201739910568745176e-30, 2.6495610940412069156e-15},
	{700, 1.3444823791314474947e-203, 3.6667183954204166491e-102},
}

// TestSigmaSqAndGammaStarReference checks σ²(ε) and γ* against 40-digit
// values over ε from 1e−6 to 700. Catches: the naive γ* form (it loses
// every digit below ε ≈ 1e−4: cancellation of −b/(1−b) against the cube
// root term), a wrong exponent (2/3 vs 1/3), 1 − e^{−ε} computed as
// 1 − Exp(−ε) (relative error 1e−10 at ε = 1e−6), and overflow at ε = 700.
func TestSigmaSqAndGammaStarReference(t *testing.T) {
	for _, c := range sigmaRefs {
		if e := relErr(centraldp.SigmaSq(c.eps), c.sigmaSq); e > 1e-12 {
			t.Errorf("SigmaSq(%g) = %.17g, want %.17g (rel err %.2g)", c.eps, centraldp.SigmaSq(c.eps), c.sigmaSq, e)
		}
		if e := relErr(centraldp.GammaStar(c.eps), c.gammaStar); e > 1e-12 {
			t.Errorf("GammaStar(%g) = %.17g, want %.17g (rel err %.2g)", c.eps, centraldp.GammaStar(c.eps), c.gammaStar, e)
		}
	}
}

// TestSigmaSqLimits checks eq. (3) and its expansion σ²ε²/2 =
// 1 − ε²/24 + O(ε⁴) at small ε (the O(ε⁴) term is below ε⁴/100 for
// ε ≤ 0.1, measured against mpmath), the large-ε rate
// σ² ≈ 2^{−2/3}e^{−2ε/3} (Section 2.1) with its relative correction
// (1 + b)^{2/3} − 1 + 2^{2/3}e^{−ε/3} + ... ≤ 2·e^{−ε/3}, and
// LowerBound = σ²ε²/2. Catches a factor 2 in σ² (the limit 2/ε² would read
// 1/ε² or 4/ε²) and a wrong exponent in the large-ε term.
func TestSigmaSqLimits(t *testing.T) {
	for _, eps := range []float64{1e-4, 1e-3, 0.01, 0.03, 0.1} {
		got := centraldp.LowerBound(eps)
		if d := math.Abs(got - (1 - eps*eps/24)); d > eps*eps*eps*eps/100+1e-15 {
			t.Errorf("LowerBound(%g) = %.17g, want 1 − ε²/24 = %.17g within ε⁴/100", eps, got, 1-eps*eps/24)
		}
		if e := relErr(got, centraldp.SigmaSq(eps)*eps*eps/2); e > 1e-15 {
			t.Errorf("LowerBound(%g) is not σ²ε²/2", eps)
		}
	}
	for _, eps := range []float64{10, 20, 40, 80} {
		ratio := centraldp.SigmaSq(eps) / (math.Pow(2, -2.0/3) * math.Exp(-2*eps/3))
		if d := ratio - 1; d < 0 || d > 2*math.Exp(-eps/3) {
			t.Errorf("σ²(%g)/(2^{−2/3}e^{−2ε/3}) − 1 = %.3g, want in [0, 2e^{−ε/3} = %.3g]", eps, d, 2*math.Exp(-eps/3))
		}
	}
	for _, eps := range []float64{0, -1, math.NaN()} {
		if !math.IsNaN(centraldp.SigmaSq(eps)) || !math.IsNaN(centraldp.GammaStar(eps)) {
			t.Errorf("SigmaSq/GammaStar(%v) not NaN", eps)
		}
	}
}

// TestGammaStarLimits checks γ* → ½ as ε → 0 (γ* = ½ − ε/12 + O(ε²)) and
// γ* ≈ 2^{−1/3}e^{−ε/3} at large ε (relative correction below 2e^{−ε/3}).
// Catches the ℓ1 optimum 1/(1 + e^{ε/2}) (→ ½ too, but as ½ − ε/8, and as
// e^{−ε/2} at large ε) put in place of γ*.
func TestGammaStarLimits(t *testing.T) {
	for _, eps := range []float64{1e-6, 1e-3, 0.01} {
		if d := math.Abs(centraldp.GammaStar(eps) - (0.5 - eps/12)); d > eps*eps {
			t.Errorf("GammaStar(%g) = %.17g, want ½ − ε/12 = %.17g within ε²", eps, centraldp.GammaStar(eps), 0.5-eps/12)
		}
	}
	for _, eps := range []float64{10, 20, 40, 100} {
		ratio := centraldp.GammaStar(eps) / (math.Pow(2, -1.0/3) * math.Exp(-eps/3))
		if d := math.Abs(ratio - 1); d > 2*math.Exp(-eps/3) {
			t.Errorf("GammaStar(%g)/(2^{−1/3}e^{−ε/3}) − 1 = %.3g, want within 2e^{−ε/3} = %.3g", eps, ratio-1, 2*math.Exp(-eps/3))
		}
	}
}

// TestGammaStarMinimisesStaircaseVariance: E[X²] at γ* equals σ²(ε)
// (relative 1e−9) for Δ = 1 and Δ = 2.5 (Δ² σ²), no γ on a grid of 10⁴
// steps (nor γ* ± 1e−4) does better, and the ℓ1-optimal
// γ = 1/(1 + e^{ε/2}), diffprivlib's default, is strictly worse by the
// margin computed with mpmath (8e−4 relative at ε = 1, 0.94 at ε = 8).
// Catches a γ* that is not the MSE optimum (e.g. the ℓ1 one), a wrong
// second-moment formula, and a missing Δ².
func TestGammaStarMinimisesStaircaseVariance(t *testing.T) {
	l1Excess := map[float64]float64{0.1: 8.67574e-8, 0.5: 5.35122e-5, 1: 0.000822806, 2: 0.0114382, 4: 0.123579, 8: 0.940615}
	for _, eps := range []float64{1e-4, 0.05, 0.1, 0.5, 1, 2, 4, 8, 15, 30, 100} {
		gs := centraldp.GammaStar(eps)
		for _, delta := range []float64{1, 2.5} {
			s := mustStaircase(t, eps, gs, delta)
			if e := relErr(s.SecondMoment(), delta*delta*centraldp.SigmaSq(eps)); e > 1e-9 {
				t.Errorf("ε = %g, Δ = %g: E[X²](γ*) = %.15g, want Δ²σ² = %.15g (rel %.2g)", eps, delta, s.SecondMoment(), delta*delta*centraldp.SigmaSq(eps), e)
			}
		}
		best := mustStaircase(t, eps, gs, 1).SecondMoment()
		// Rounding of the closed form: a few ulps of its largest term.
		slack := best * 1e-13
		for i := 0; i <= 10000; i++ {
			g := float64(i) / 10000
			if v := mustStaircase(t, eps, g, 1).SecondMoment(); v < best-slack {
				t.Errorf("ε = %g: E[X²](γ = %g) = %.17g < E[X²](γ*) = %.17g", eps, g, v, best)
				break
			}
		}
		for _, g := range []float64{gs - 1e-4, gs + 1e-4} {
			if g >= 0 && g <= 1 {
				if v := mustStaircase(t, eps, g, 1).SecondMoment(); v < best-slack {
					t.Errorf("ε = %g: γ* ± 1e−4 beats γ*", eps)
				}
			}
		}
		if want, ok := l1Excess[eps]; ok {
			l1 := mustStaircase(t, eps, 1/(1+math.Exp(eps/2)), 1).SecondMoment()
			if got := l1/best - 1; relErr(got, want) > 1e-4 {
				t.Errorf("ε = %g: E[X²](γ_ℓ1)/E[X²](γ*) − 1 = %.6g, want %.6g", eps, got, want)
			}
		}
	}
}

func mustStaircase(t *testing.T, eps, gamma, delta float64) *centraldp.Staircase {
	t.Helper()
	s, err := centraldp.NewStaircase(eps, gamma, delta)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
