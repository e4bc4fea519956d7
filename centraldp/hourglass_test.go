package centraldp_test

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ldpbench/ldpbench/centraldp"
)

func mustHourglass(t *testing.T, eps, gamma, delta float64) *centraldp.Hourglass {
	t.Helper()
	h, err := centraldp.NewHourglass(eps, gamma, delta)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

var hourglassCases = []struct{ eps, gamma, delta float64 }{
	{0.5, -1, 1}, {1, -1, 1}, {1, 0.4, 2}, {3, 1, 1}, {4, -1, 0.5}, {8, -1, 1},
}

// eq7 is the unnormalised density of eq. (7) as printed, for an independent
// comparison with the compact form: regions A_k and B_k(i) for x ≥ 0, and
// f(x, y) = f(−x, −y) (the point (−x, −y) lies on line −k).
func eq7(eps, gamma, delta, x float64, k int) float64 {
	if x < 0 {
		x, k = -x, -k
	}
	u, kf := x/delta, float64(k)
	if k >= 0 && u < kf+gamma { // A_k: x ∈ [0, (k+γ)Δ)
		return math.Exp(-kf * eps)
	}
	i := math.Floor(u-kf-gamma) + 1 // B_k(i): x ∈ [(k+γ+i−1)Δ, (k+γ+i)Δ), i ≥ 1
	return math.Exp(-(2*i + kf) * eps)
}

// TestHourglassCompactFormIsEq7: Density(x, k) equals
// c·(eq. (7)) with c = (1−b)²/(2Δ(1+b)(γ + b(1−γ))) (App. D.1, E1.4) on a
// grid of x and k = −8..8 (relative 1e−13). Catches a compact form whose
// |k − s·J| has the sign of s wrong for x < 0, a J of ⌊|x|/Δ⌋, and the
// geometric sum of App. D.1 as printed (c·(1−b)/(1+b) inverted).
func TestHourglassCompactFormIsEq7(t *testing.T) {
	for _, c := range hourglassCases {
		g := stairGamma(c.eps, c.gamma)
		h := mustHourglass(t, c.eps, g, c.delta)
		b := math.Exp(-c.eps)
		norm := (1 - b) * (1 - b) / (2 * c.delta * (1 + b) * (g + b*(1-g)))
		for i := -400; i <= 400; i++ {
			x := float64(i) * c.delta / 53
			for k := -8; k <= 8; k++ {
				want := norm * eq7(c.eps, g, c.delta, x, k)
				if relErr(h.Density(x, k), want) > 1e-13 {
					t.Fatalf("ε = %g, γ = %g: Density(%g, %d) = %.16g, eq. (7) gives %.16g", c.eps, g, x, k, h.Density(x, k), want)
				}
			}
		}
	}
}

// TestHourglassDensityIntegratesToOne: Σ_k ∫ f(x, k) dx = 1 (1e−9), by
// adaptive quadrature along each line (|k| and |x| cut where the mass
// left out is below 1e−13). Catches c off by (1+b)/(1−b) (E1.4) or a
// missing Δ.
func TestHourglassDensityIntegratesToOne(t *testing.T) {
	for _, c := range hourglassCases {
		g := stairGamma(c.eps, c.gamma)
		h := mustHourglass(t, c.eps, g, c.delta)
		K := int(math.Ceil(36/c.eps)) + 1
		R := c.delta * float64(K+1)
		step := c.delta * max(min(g, 1-g), 0.05) / 4
		mass := 0.0
		for k := -2 * K; k <= 2*K; k++ {
			mass += integrate(func(x float64) float64 { return h.Density(x, k) }, -R, R, step, 1e-16)
		}
		if math.Abs(mass-1) > 1e-9 {
			t.Errorf("ε = %g, γ = %g, Δ = %g: Σ_k ∫f = %.15g, want 1", c.eps, g, c.delta, mass)
		}
	}
}

// TestHourglassMarginalsExact (Lemma 3): Σ_k f(x, k) is the staircase
// density of x, and Σ_k f(kΔ − y, k) the staircase density of y (the
// change of variable x = kΔ − y has unit Jacobian), relative 1e−12 on a
// grid. Catches a conditional law of K given x that is not a normalised
// two-sided geometric, and the E1.1 centre, which would leave the x
// marginal right but shift the y marginal.
func TestHourglassMarginalsExact(t *testing.T) {
	for _, c := range hourglassCases {
		g := stairGamma(c.eps, c.gamma)
		h := mustHourglass(t, c.eps, g, c.delta)
		st := h.Marginal()
		K := int(math.Ceil(45/c.eps)) + 12
		for i := -300; i <= 300; i++ {
			x := float64(i) * c.delta / 41
			fx, fy := 0.0, 0.0
			for k := -K; k <= K; k++ {
				fx += h.Density(x, k)
				fy += h.Density(float64(k)*c.delta-x, k)
			}
			if relErr(fx, st.Density(x)) > 1e-12 {
				t.Fatalf("ε = %g, γ = %g: Σ_k f(%g, k) = %.16g, staircase %.16g", c.eps, g, x, fx, st.Density(x))
			}
			if relErr(fy, st.Density(x)) > 1e-12 {
				t.Fatalf("ε = %g, γ = %g: Σ_k f(kΔ − %g, k) = %.16g, staircase %.16g", c.eps, g, x, fy, st.Density(x))
			}
		}
	}
}

// hourglassSampler is what TestHourglassSampling draws from: the
// package's sampler, and the printed eq. (10) (E1.1).
type hourglassSampler func(rng *rand.Rand) (z1, z2 float64, k int)

// printedLemma4 samples by eq. (10) as printed: the line given x ≥ 0 is
// centred at ⌈x/Δ + 1 − γ⌉ = J + 1 (the ceiling where the floor belongs),
// for x < 0 at −J (correct). J is the latent index, so only the printed
// centre differs from the package's sampler.
func printedLemma4(h *centraldp.Hourglass) hourglassSampler {
	st := h.Marginal()
	r := math.Exp(-h.Epsilon())
	return func(rng *rand.Rand) (float64, float64, int) {
		x, s, j := st.Sample(rng)
		k := s*j + centraldp.TwoSidedGeometric(r, rng)
		if s > 0 {
			k++
		}
		return x, float64(k)*h.Delta() - x, k
	}
}

// TestHourglassSampling: over 3·10⁵ draws
//   - (K, sign, step index of Z1) fit the exact cell probabilities
//     c·e^{−ε(J + |k − sJ|)}·width (p ≥ 1e−6);
//   - Z1 and Z2 each fit the staircase on buckets (p ≥ 1e−6; Lemma 3);
//   - E[Z1], E[Z2] are within 4.9 SE of 0, E[Z1²], E[Z2²] of the
//     staircase's second moment and E[Z1·Z2] of CrossMoment (0 at γ*,
//     TestHourglassCrossMoment);
//   - Z1 + Z2 = K·Δ to rounding.
//
// Catches the printed eq. (10) (E1.1: E[Z2] = Δ/2, and the joint cells
// move by one line), a K centred on J without the sign, an independent
// K (E[Z1·Z2] < 0), and a geometric of the wrong ratio.
func TestHourglassSampling(t *testing.T) {
	const n = 300000
	for i, c := range hourglassCases {
		g := stairGamma(c.eps, c.gamma)
		h := mustHourglass(t, c.eps, g, c.delta)
		st := h.Marginal()
		rng := newRNG(uint64(700 + i))
		// Joint cells: k in [−Kc, Kc], signed step sJ in [−Jc, Jc], and
		// one cell for everything else.
		Kc, Jc := 0, 0
		for float64(n)*h.Density(0, Kc+1)*2*g*c.delta >= 20 {
			Kc++
		}
		for float64(n)*h.Density(float64(Jc+1)*c.delta, Jc+1)*c.delta >= 20 {
			Jc++
		}
		// Cells with an expected count below 20 join the rest cell 0, and
		// so do the smallest others until the rest cell expects 20 too.
		nk, nj := 2*Kc+1, 2*Jc+1
		type cell struct {
			idx int
			p   float64
		}
		var kept []cell
		rest := 1.0
		for k := -Kc; k <= Kc; k++ {
			for sj := -Jc; sj <= Jc; sj++ {
				x := float64(sj) * c.delta // a point of step |sj| on that side
				width := c.delta
				if sj == 0 {
					x, width = 0, 2*g*c.delta
				}
				if p := h.Density(x, k) * width; p*n >= 20 {
					kept = append(kept, cell{(k+Kc)*nj + sj + Jc, p})
					rest -= p
				}
			}
		}
		slices.SortFunc(kept, func(a, b cell) int { return cmp.Compare(a.p, b.p) })
		for rest*n < 20 {
			rest += kept[0].p
			kept = kept[1:]
		}
		cellOf := make([]int, nk*nj)
		ps := []float64{rest}
		for _, c := range kept {
			cellOf[c.idx] = len(ps)
			ps = append(ps, c.p)
		}
		counts := make([]int, len(ps))
		z1s, z2s := make([]float64, n), make([]float64, n)
		var m1, m2, m11, m22, m12 moments
		for d := range n {
			z1, z2, k := h.Sample(rng)
			if math.Abs(z1+z2-float64(k)*c.delta) > 1e-12*(1+math.Abs(z1)) {
				t.Fatalf("Z1 + Z2 = %v, K·Δ = %v", z1+z2, float64(k)*c.delta)
			}
			z1s[d], z2s[d] = z1, z2
			m1.add(z1)
			m2.add(z2)
			m11.add(z1 * z1)
			m22.add(z2 * z2)
			m12.add(z1 * z2)
			sj := st.StepIndex(z1)
			if z1 < 0 {
				sj = -sj
			}
			if k < -Kc || k > Kc || sj < -Jc || sj > Jc {
				counts[0]++
			} else {
				counts[cellOf[(k+Kc)*nj+sj+Jc]]++
			}
		}
		if p := chiSquare(t, "hourglass joint", counts, ps, n); p < alpha {
			t.Errorf("ε = %g, γ = %g, Δ = %g: (K, s·J) do not fit the density: p = %.3g", c.eps, g, c.delta, p)
		}
		if p := fitStaircase(t, "hourglass Z1", st, z1s); p < alpha {
			t.Errorf("ε = %g, γ = %g: Z1 does not fit the staircase: p = %.3g", c.eps, g, p)
		}
		if p := fitStaircase(t, "hourglass Z2", st, z2s); p < alpha {
			t.Errorf("ε = %g, γ = %g: Z2 does not fit the staircase: p = %.3g", c.eps, g, p)
		}
		checkMean(t, "E[Z1]", &m1, 0)
		checkMean(t, "E[Z2]", &m2, 0)
		checkMean(t, "E[Z1²]", &m11, st.SecondMoment())
		checkMean(t, "E[Z2²]", &m22, st.SecondMoment())
		checkMean(t, "E[Z1·Z2]", &m12, h.CrossMoment())
	}
}

// TestHourglassPrintedLemma4Fails (E1.1): sampling K about the printed
// centre ⌈x + 1 − γ⌉ gives E[Z2] = Δ/2, not 0: the mean of 2·10⁵ draws is
// within 4.9 SE of Δ/2 and more than 4.9 SE from 0, while the package's
// sampler on the same stream is within 4.9 SE of 0 (TestHourglassSampling).
func TestHourglassPrintedLemma4Fails(t *testing.T) {
	for i, c := range []struct{ eps, delta float64 }{{1, 1}, {4, 2}} {
		h := mustHourglass(t, c.eps, centraldp.GammaStar(c.eps), c.delta)
		sample := printedLemma4(h)
		rng := newRNG(uint64(800 + i))
		var m2 moments
		for range 200000 {
			_, z2, _ := sample(rng)
			m2.add(z2)
		}
		checkMean(t, "printed eq. (10): E[Z2]", &m2, c.delta/2)
		if math.Abs(m2.mean()) <= zCrit*m2.se() {
			t.Errorf("ε = %g: the printed form's E[Z2] = %.4g is not distinguishable from 0", c.eps, m2.mean())
		}
	}
}

// TestHourglassPrivacyRatio (Theorem 2): on admissible shifts, (x0, Δ − x0)
// with x0 ∈ [0, Δ] (the line index moves by +1) and their negatives,
// max over a grid of (x, k) of |log f(x ± x0, k ± 1) − log f(x, k)| is ε
// to 1e−12 (never more, and attained); the ℓ1 shift (Δ/2, −Δ/2), which
// stays on the line, reaches 2ε (the caption of Fig. 2a: the hourglass is
// not DP for general ℓ1 changes). Catches a density whose level changes by
// 2 between adjacent lines (the printed centre, E1.1, does: its positive
// half is one line off).
func TestHourglassPrivacyRatio(t *testing.T) {
	for _, c := range hourglassCases {
		g := stairGamma(c.eps, c.gamma)
		h := mustHourglass(t, c.eps, g, c.delta)
		lf := func(x float64, k int) float64 { return math.Log(h.Density(x, k)) }
		worst, l1 := 0.0, 0.0
		for xi := -500; xi <= 500; xi++ {
			x := float64(xi) * c.delta / 97
			for k := -8; k <= 8; k++ {
				base := lf(x, k)
				for oi := 0; oi <= 20; oi++ {
					x0 := float64(oi) * c.delta / 20
					worst = max(worst, math.Abs(lf(x+x0, k+1)-base), math.Abs(lf(x-x0, k-1)-base))
				}
				l1 = max(l1, math.Abs(lf(x+c.delta/2, k)-base))
			}
		}
		if math.Abs(worst-c.eps) > 1e-12 {
			t.Errorf("ε = %g, γ = %g: max log ratio on admissible shifts %.15g, want ε", c.eps, g, worst)
		}
		if l1 < 2*c.eps-1e-12 {
			t.Errorf("ε = %g, γ = %g: max log ratio on the shift (Δ/2, −Δ/2) is %.6g, want 2ε (not DP)", c.eps, g, l1)
		}
	}
}

// TestHourglassCrossMoment: E[Z1·Z2] = Δ²(E[|U|·J] − E[U²]), U = X/Δ, is
// exactly 0 at γ = γ* (|E[Z1·Z2]| ≤ 1e−12·E[Z1²]): the stationarity
// condition of γ* in E[X²] is this identity, and it is what makes the
// hourglass's leading-order MSE that of independent noise (Theorem 3).
// At other γ it is not 0 (mpmath: −0.6243 at ε = 1, γ = 1; +0.0167 at
// ε = 1, γ = 0.4; −0.0506 at ε = 4, γ = 0.4), so "E[Z1·Z2] = 0 exactly"
// holds at γ* only. Catches a closed form with S₁ and S₂ swapped or the
// outer piece's index k for k + 1.
func TestHourglassCrossMoment(t *testing.T) {
	for _, eps := range []float64{1e-3, 0.05, 0.5, 1, 4, 8, 30, 100} {
		h := mustHourglass(t, eps, centraldp.GammaStar(eps), 1.7)
		if v := h.CrossMoment(); math.Abs(v) > 1e-12*h.Marginal().SecondMoment() {
			t.Errorf("ε = %g: E[Z1·Z2] at γ* = %.3g, want 0 (E[Z1²] = %.3g)", eps, v, h.Marginal().SecondMoment())
		}
	}
	for _, c := range []struct{ eps, gamma, want float64 }{{1, 1, -0.62432169}, {1, 0.4, 0.016717505}, {4, 0.4, -0.050576302}, {8, 1, -0.33350112}} {
		h := mustHourglass(t, c.eps, c.gamma, 2)
		if got := h.CrossMoment() / 4; relErr(got, c.want) > 1e-7 {
			t.Errorf("ε = %g, γ = %g: E[Z1·Z2]/Δ² = %.9g, want %.9g (mpmath)", c.eps, c.gamma, got, c.want)
		}
	}
}
