package centraldp

import (
	"math"
	"math/rand/v2"
)

// Hourglass is the paper's two-dimensional noise (Section 4.1; App. D):
// supported on the lines x + y = kΔ, k ∈ ℤ, with density (w.r.t. Lebesgue
// in x times counting in k), in a compact form equivalent to eq. (7),
//
//	f(x, k) = c·exp(−ε·(J + |k − s·J|)),  J = ⌊|x|/Δ + 1 − γ⌋, s = sign(x),
//	c = (1 − b)²/(2Δ(1 + b)(γ + b(1 − γ))),  b = e^{−ε}  (App. D.1; E1.4).
//
// Both marginals are the staircase(ε, γ, Δ) (Lemma 3); E[Z1·Z2] = 0 at
// γ = GammaStar(ε) (CrossMoment; not at other γ). Adding it to a query
// whose neighbouring changes lie in ±{(x0, Δ − x0): x0 ∈ [0, Δ]} is ε-DP
// (Theorem 2), but not for general ℓ1 changes such as (Δ/2, −Δ/2).
type Hourglass struct {
	st Staircase
	c  float64 // the density's top value
}

// NewHourglass returns the hourglass for ε in [1e−9, 700], γ in (0, 1]
// and Δ > 0. Theorem 3 uses γ = [GammaStar](ε).
func NewHourglass(eps, gamma, delta float64) (*Hourglass, error) {
	const where = "central: hourglass"
	if err := checkStairEps(where, eps); err != nil {
		return nil, err
	}
	if err := checkGamma(where, gamma, true); err != nil {
		return nil, err
	}
	if err := checkDelta(where, delta); err != nil {
		return nil, err
	}
	h := newHourglass(eps, gamma, delta)
	return &h, nil
}

func newHourglass(eps, gamma, delta float64) Hourglass {
	st := newStaircase(eps, gamma, delta)
	b := st.b
	// c = ((1−b)/(1+b))·a: the line index given x is two-sided geometric.
	return Hourglass{st: st, c: -math.Expm1(-eps) / (1 + b) * st.a}
}

// Epsilon returns ε.
func (h *Hourglass) Epsilon() float64 { return h.st.eps }

// Gamma returns the step parameter γ.
func (h *Hourglass) Gamma() float64 { return h.st.gamma }

// Delta returns Δ.
func (h *Hourglass) Delta() float64 { return h.st.delta }

// Marginal returns the staircase both coordinates are distributed as.
func (h *Hourglass) Marginal() *Staircase {
	m := h.st
	return &m
}

// Sample returns (Z1, Z2) and the line index K, Z1 + Z2 = K·Δ
// (the sampler of Section 4.1, with the corrected conditional law of
// Lemma 4, E1.1):
//
//	(X, S, J) ← staircase(ε, γ, Δ) with its latent step index J;
//	K ← S·J + (G1 − G2);  Z1 = X, Z2 = K·Δ − X.
//
// The printed eq. (10) centres K at J + 1 for x ≥ 0 (a ceiling for the
// floor), which moves half the mass one line up and gives E[Z2] = ½Δ.
// J is the sampler's latent index, never a floor of the float X. K is
// returned as an integer so that an estimator can form the exact
// denominator n + K (E1.17). It takes five words: the staircase's three
// and two exponentials.
func (h *Hourglass) Sample(rng *rand.Rand) (z1, z2 float64, k int) {
	x, s, j := h.st.Sample(rng)
	k = s*j + twoSided(h.st.invEps, rng)
	return x, float64(k)*h.st.delta - x, k
}

// Density returns f(x, k), the density at the point (x, kΔ − x) of the
// line k, in the compact form c·exp(−ε(J + |k − s·J|)).
func (h *Hourglass) Density(x float64, k int) float64 {
	j := math.Floor(math.Abs(x)/h.st.delta + 1 - h.st.gamma)
	sj := j
	if x < 0 {
		sj = -j
	}
	return h.c * math.Exp(-h.st.eps*(j+math.Abs(float64(k)-sj)))
}

// LineProb returns P(K = k), the probability that the noise lies on the
// line x + y = kΔ; for Algorithm 3 (Δ = 1) the noisy count n + K is 0
// with probability LineProb(−n) (E1.17). With b = e^{−ε},
//
//	P(K = k) = cΔ·b^{|k|}·(|k| + 2γ + 2b²/(1 − b²)),
//	cΔ = (1 − b)²/(2(1 + b)(γ + b(1 − γ))).
//
// It is Σ over the steps J of the step's width times c·b^{J + |k − sJ|}
// (Density): step 0 is |x| < γΔ, width 2γΔ and s·J = 0, giving 2γ·b^{|k|};
// step j ≥ 1 has a piece of width Δ on each side, s·J = ±j, giving
// b^j(b^{|k−j|} + b^{|k+j|}). For k = −n ≤ 0 the j from 1 to n contribute
// b^n each (n·b^n), the others b^{n+2j'} twice over j' ≥ 1 (2b^n·b²/(1−b²));
// k > 0 is the mirror image. The geometric part alone, P(G1 − G2 = k) =
// ((1−b)/(1+b))·b^{|k|}, leaves out every path with s·J ≠ 0 and is 3.25
// times too small at ε = 4, k = −1 and 5.58 times at k = −2.
func (h *Hourglass) LineProb(k int) float64 {
	st := &h.st
	ak := math.Abs(float64(k))
	// 2b²/(1 − b²) = 2/(e^{2ε} − 1), from expm1 so that small ε keeps
	// its digits.
	return h.c * st.delta * math.Exp(-st.eps*ak) * (ak + 2*st.gamma + 2/math.Expm1(2*st.eps))
}

// CrossMoment returns E[Z1·Z2] in closed form: with U = X/Δ,
// Z1·Z2 = Δ²(U·K − U²) and E[U·K | U] = |U|·J (K is centred on s·J), so
//
//	E[Z1·Z2] = Δ²(E[|U|·J] − E[U²]),
//	E[|U|·J] = a·Σ_k [b^k·k(2kγ + γ²) + b^{k+1}(k+1)(2k(1−γ) + 1 − γ²)]
//	         = a·[2γS₂ + γ²S₁ + b(2(1−γ)S₂ + (3 − 2γ − γ²)S₁ + (1 − γ²)S₀)],
//
// a = (1−b)/(2(γ + b(1−γ))), S_p = Σ_k k^p b^k. It is exactly 0 at
// γ = GammaStar(ε) — the condition that makes γ* stationary — and not
// at other γ, where the two coordinates are correlated.
func (h *Hourglass) CrossMoment() float64 {
	b, d, g := h.st.b, -math.Expm1(-h.st.eps), h.st.gamma
	s0 := 1 / d
	s1 := b / (d * d)
	s2 := b * (1 + b) / (d * d * d)
	a := d / (2 * (g + b*(1-g)))
	uj := a * (2*g*s2 + g*g*s1 + b*(2*(1-g)*s2+(3-2*g-g*g)*s1+(1-g*g)*s0))
	return h.st.delta * h.st.delta * (uj - staircaseVar(b, d, g))
}
