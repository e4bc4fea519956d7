package centraldp

import (
	"math"
	"math/rand/v2"
)

// Staircase2D is the two-dimensional ℓ1 staircase of Geng et al. (2015)
// (Definition 3, App. A; E1.2, E1.3): with s = (|x| + |y|)/Δ and
// r = e^{−ε},
//
//	f(x, y) = a·r^k on s ∈ [k, k+γ),  a·r^{k+1} on s ∈ [k+γ, k+1),
//
// i.e. f = a·r^{J(s)} with J(s) = ⌊s + 1 − γ⌋, and the corrected
// normaliser (E1.2: the printed one lacks a factor 2 and Δ²)
//
//	a = (1 − r)² / (2Δ²[2r(r + (1−r)γ) + (1−r)(r + (1−r)γ²)]).
//
// Adding it to a query whose neighbouring changes have ℓ1 norm ≤ Δ is
// ε-DP (J changes by at most one).
type Staircase2D struct {
	eps, gamma, delta float64
	invEps            float64
	r                 float64 // e^{−ε}
	pOne              float64 // P(shell from the k = G component) of the mixture
	a                 float64 // the density's top value
}

// NewStaircase2D returns the 2-D staircase for ε in [1e−9, 700], γ in
// [0, 1] and Δ > 0. The MSE-optimal γ is [Staircase2DGamma](ε).
func NewStaircase2D(eps, gamma, delta float64) (*Staircase2D, error) {
	const where = "central: staircase2d"
	if err := checkStairParams(where, eps, gamma, delta); err != nil {
		return nil, err
	}
	s := newStaircase2D(eps, gamma, delta)
	return &s, nil
}

func newStaircase2D(eps, gamma, delta float64) Staircase2D {
	r := math.Exp(-eps)
	d := -math.Expm1(-eps) // 1 − r
	// Shell k (both rings) has mass ∝ r^k(A·k + B): the ℓ1 ring
	// [R1, R2) has area 2(R2² − R1²).
	A := 4 * (gamma + r*(1-gamma))
	B := 2 * (gamma*gamma + r*(1-gamma*gamma))
	wOne := B / d           // Σ r^k·B
	wTwo := A * r / (d * d) // Σ r^k·A·k
	return Staircase2D{
		eps: eps, gamma: gamma, delta: delta,
		invEps: 1 / eps,
		r:      r,
		pOne:   wOne / (wOne + wTwo),
		// wOne + wTwo is the mass at a = 1, Δ = 1; written as the
		// corrected normaliser of E1.2 it is
		// 2[2r(r + (1−r)γ) + (1−r)(r + (1−r)γ²)]/(1−r)².
		a: 1 / ((wOne + wTwo) * delta * delta),
	}
}

// Epsilon returns ε.
func (s *Staircase2D) Epsilon() float64 { return s.eps }

// Gamma returns the step parameter γ.
func (s *Staircase2D) Gamma() float64 { return s.gamma }

// Delta returns the ℓ1 sensitivity Δ.
func (s *Staircase2D) Delta() float64 { return s.delta }

// Sample returns one draw (x, y), exactly:
//  1. the shell k: with probability B/(1−r) ÷ total, k = G (geometric),
//     else k = 1 + G1 + G2, whose law ∝ k·r^k supplies the A·k part;
//  2. the ring: inner [k, k+γ) with weight 2kγ + γ², outer [k+γ, k+1)
//     with weight r(2k(1−γ) + 1 − γ²) (area times height);
//  3. the ℓ1 radius t on the ring [R1, R2) with density ∝ t:
//     t = √(R1² + U(R2² − R1²));
//  4. a uniform point of the ℓ1 circle of radius t: x = tV, y = t − x,
//     with independent fair signs.
//
// It takes five or six words: a uniform for the mixture, one or two
// exponentials, a uniform for the ring, one for the radius, and one
// rng.Uint64 whose top 53 bits are V and bits 0 and 1 the signs.
func (s *Staircase2D) Sample(rng *rand.Rand) (x, y float64) {
	ki := geometric(s.invEps, rng)
	if rng.Float64() >= s.pOne {
		ki += 1 + geometric(s.invEps, rng)
	}
	k := float64(ki)
	g := s.gamma
	inner := 2*k*g + g*g
	outer := s.r * (2*k*(1-g) + 1 - g*g)
	// The ring as 0 (inner) or 1 (outer) without a branch: at moderate ε
	// both are likely and a branch would be mispredicted often.
	var oi int
	if rng.Float64()*(inner+outer) >= inner {
		oi = 1
	}
	o := float64(oi)
	r1 := k + o*g         // k or k + γ
	r2 := k + g + o*(1-g) // k + γ or k + 1
	t := math.Sqrt(r1*r1 + rng.Float64()*(r2*r2-r1*r1))
	w := rng.Uint64()
	ax := t * unit53(w)
	ay := t - ax
	return signed(s.delta*ax, w), signed(s.delta*ay, w>>1)
}

// Density returns f(x, y) = a·r^{⌊(|x|+|y|)/Δ + 1 − γ⌋}.
func (s *Staircase2D) Density(x, y float64) float64 {
	j := math.Floor((math.Abs(x)+math.Abs(y))/s.delta + 1 - s.gamma)
	return s.a * math.Exp(-s.eps*j)
}

// SecondMoment returns E[x²] (= E[y²]; E[xy] = 0 by symmetry) in closed
// form. With ∫_{|x|+|y|<R} x² = R⁴/3 the moment is the series (aΔ⁴/3)·Σ_k
// [r^k((k+γ)⁴ − k⁴) + r^{k+1}((k+1)⁴ − (k+γ)⁴)]; expanding the quartics and
// summing S_p = Σ_k k^p r^k gives
//
//	(aΔ⁴/3)·(4c₁S₃ + 6c₂S₂ + 4c₃S₁ + c₄S₀),  c_p = r + (1−r)γ^p,
//
// with S₀ = 1/(1−r), S₁ = r/(1−r)², S₂ = r(1+r)/(1−r)³,
// S₃ = r(1+4r+r²)/(1−r)⁴: all terms positive, no truncation, accurate
// at any ε.
func (s *Staircase2D) SecondMoment() float64 {
	return s.delta * s.delta * staircase2DVar(s.eps, s.gamma)
}

// staircase2DVar is E[x²] at Δ = 1.
func staircase2DVar(eps, g float64) float64 {
	r := math.Exp(-eps)
	d := -math.Expm1(-eps)
	c := func(gp float64) float64 { return r + d*gp }
	g2 := g * g
	s0 := 1 / d
	s1 := r / (d * d)
	s2 := r * (1 + r) / (d * d * d)
	s3 := r * (1 + 4*r + r*r) / (d * d * d * d)
	sum := 4*c(g)*s3 + 6*c(g2)*s2 + 4*c(g2*g)*s1 + c(g2*g2)*s0
	// a at Δ = 1, the corrected normaliser of E1.2.
	a := d * d / (2 * (2*r*(r+d*g) + d*(r+d*g2)))
	return a * sum / 3
}

// Staircase2DGamma returns γ̃*(ε), the γ that minimises the per-coordinate
// second moment of the 2-D staircase (Lemma 5 optimises it for MSE but
// gives no formula, E1.13), by golden-section search on [0, 1], where the
// objective is unimodal. The minimiser is located to about 1e−8 (the
// objective is flat to rounding closer than that); the minimum value to
// full precision. γ̃* ≈ e^{−ε/4} and the minimum ≈ e^{−ε/2}/3 at large ε.
// It returns NaN outside ε ∈ [1e−9, 700].
func Staircase2DGamma(eps float64) float64 {
	if checkStairEps("", eps) != nil {
		return math.NaN()
	}
	f := func(g float64) float64 { return staircase2DVar(eps, g) }
	return goldenMin(f, 0, 1, 1e-12)
}

// goldenMin returns the argmin of a unimodal f on [lo, hi] to within tol.
func goldenMin(f func(float64) float64, lo, hi, tol float64) float64 {
	invPhi := (math.Sqrt(5) - 1) / 2
	x1 := hi - invPhi*(hi-lo)
	x2 := lo + invPhi*(hi-lo)
	f1, f2 := f(x1), f(x2)
	for hi-lo > tol {
		if f1 <= f2 {
			hi, x2, f2 = x2, x1, f1
			x1 = hi - invPhi*(hi-lo)
			f1 = f(x1)
		} else {
			lo, x1, f1 = x1, x2, f2
			x2 = lo + invPhi*(hi-lo)
			f2 = f(x2)
		}
	}
	// The ends count too: the minimum may sit at γ = 0 or 1.
	best, fb := (lo+hi)/2, f((lo+hi)/2)
	for _, g := range [...]float64{0, 1} {
		if v := f(g); v < fb {
			best, fb = g, v
		}
	}
	return best
}
