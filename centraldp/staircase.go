package centraldp

import (
	"math"
	"math/rand/v2"
)

// Staircase is the univariate staircase distribution of Geng and
// Viswanath (Definition 2, App. A) for budget ε, step γ ∈ [0, 1] and
// sensitivity Δ: density
//
//	f(x) = a·e^{−ε·J(x)},  J(x) = ⌈|x|/Δ − γ⌉ = ⌊|x|/Δ + 1 − γ⌋ (a.e.),
//	a = (1 − b)/(2Δ(γ + b(1 − γ))),  b = e^{−ε},
//
// so J = 0 on |x| < γΔ and J = j on [(j−1+γ)Δ, (j+γ)Δ). Adding it to a
// query of sensitivity Δ is ε-DP; at γ = [GammaStar](ε) its variance is
// Δ²σ²(ε), the least of any ε-DP additive noise.
type Staircase struct {
	eps, gamma, delta float64
	invEps            float64 // 1/ε, for the geometric draws
	b                 float64 // e^{−ε}
	p0                float64 // P(B = 0) = γ/(γ + (1−γ)b): the inner piece of a step
	outerShift        float64 // 1 − 2γ: the width of the outer piece minus the inner's
	a                 float64 // the density's top value
}

// NewStaircase returns the staircase for ε in [1e−9, 700], γ in [0, 1]
// and Δ > 0.
func NewStaircase(eps, gamma, delta float64) (*Staircase, error) {
	const where = "central: staircase"
	if err := checkStairParams(where, eps, gamma, delta); err != nil {
		return nil, err
	}
	s := newStaircase(eps, gamma, delta)
	return &s, nil
}

func newStaircase(eps, gamma, delta float64) Staircase {
	b := math.Exp(-eps)
	oneMinusB := -math.Expm1(-eps)
	mass := gamma + b*(1-gamma) // a step's mass per unit height, in units of Δ
	return Staircase{
		eps: eps, gamma: gamma, delta: delta,
		invEps:     1 / eps,
		b:          b,
		p0:         gamma / mass,
		outerShift: 1 - 2*gamma,
		a:          oneMinusB / (2 * delta * mass),
	}
}

// Epsilon, Gamma and Delta return the parameters.
func (s *Staircase) Epsilon() float64 { return s.eps }

// Gamma returns the step parameter γ.
func (s *Staircase) Gamma() float64 { return s.gamma }

// Delta returns the sensitivity Δ.
func (s *Staircase) Delta() float64 { return s.delta }

// Sample returns one draw X, its sign (+1 or −1) and its step index J,
// from the geometric mixture of uniforms:
//
//	G = ⌊E/ε⌋ geometric, B = 1 with probability (1−γ)b/(γ + (1−γ)b),
//	V uniform on [0, 1), S a fair sign;
//	X = S·Δ·(G + γV)              if B = 0 (the inner piece, J = G),
//	X = S·Δ·(G + γ + (1−γ)V)      if B = 1 (the outer piece, J = G + 1).
//
// J is the latent G + B, exact: recomputing it by flooring the float X
// can be off by one at a step's edge, and the hourglass needs the exact
// index. sign is S even when X = 0.
//
// It takes three words from rng: an exponential (rng.ExpFloat64), one
// rng.Uint64 whose bit 0 is the sign and top 53 bits are V, and one
// rng.Float64 for B.
func (s *Staircase) Sample(rng *rand.Rand) (x float64, sign int, j int) {
	g := geometric(s.invEps, rng)
	w := rng.Uint64()
	u := rng.Float64()
	// B as 0 or 1 without a branch (a compare and a SETcc): at small ε
	// P(B = 0) ≈ ½ and a branch would be mispredicted half the time.
	var bi int
	if u >= s.p0 {
		bi = 1
	}
	bf := float64(bi)
	// Inner piece: offset 0, width γ; outer: offset γ, width 1 − γ.
	mag := s.delta * (float64(g) + bf*s.gamma + (s.gamma+bf*s.outerShift)*unit53(w))
	return signed(mag, w), 1 - 2*int(w&1), g + bi
}

// StepIndex returns J(x) = ⌊|x|/Δ + 1 − γ⌋, the step of the density that
// x falls in (J = 0 on |x| < γΔ). It is the density's index, computed from
// the float x; a sampler's latent index is exact where this one can be off
// by one within rounding of a step's edge.
func (s *Staircase) StepIndex(x float64) int {
	return int(math.Floor(math.Abs(x)/s.delta + 1 - s.gamma))
}

// Density returns f(x) = a·e^{−ε·J(x)}.
func (s *Staircase) Density(x float64) float64 {
	j := math.Floor(math.Abs(x)/s.delta + 1 - s.gamma)
	return s.a * math.Exp(-s.eps*j)
}

// CDF returns P(X ≤ x). For x ≥ 0 the survival is
// b^g·(½ − aΔ·p(t)) with g = ⌊x/Δ⌋, t = x/Δ − g and p(t) = t on the inner
// piece (t < γ), γ + b(t − γ) on the outer one; each whole step [g, g+1)
// holds half of (1 − b)b^g of the mass. The tail is computed from the
// survival side, so small tail probabilities keep their relative accuracy.
func (s *Staircase) CDF(x float64) float64 {
	if x < 0 {
		return s.survival(-x)
	}
	return 1 - s.survival(x)
}

// survival returns P(X > x) for x ≥ 0.
func (s *Staircase) survival(x float64) float64 {
	u := x / s.delta
	if math.IsInf(u, 1) {
		return 0
	}
	g := math.Floor(u)
	t := u - g
	p := t
	if t >= s.gamma {
		p = s.gamma + s.b*(t-s.gamma)
	}
	return math.Exp(-s.eps*g) * (0.5 - s.a*s.delta*p)
}

// SecondMoment returns E[X²] in closed form, with b = e^{−ε}:
//
//	Δ²·{ b(1+b)/(1−b)² + [b(γ² + b(1−γ²))/(1−b) + (γ³ + b(1−γ³))/3] / (γ + b(1−γ)) }.
//
// At γ = GammaStar(ε) it equals Δ²·SigmaSq(ε).
func (s *Staircase) SecondMoment() float64 {
	return s.delta * s.delta * staircaseVar(s.b, -math.Expm1(-s.eps), s.gamma)
}

// staircaseVar is E[X²] at Δ = 1; d = 1 − b, passed in from expm1 so
// that small ε keeps its digits.
func staircaseVar(b, d, g float64) float64 {
	g2, g3 := g*g, g*g*g
	return b*(1+b)/(d*d) + (b*(g2+b*(1-g2))/d+(g3+b*(1-g3))/3)/(g+b*(1-g))
}
