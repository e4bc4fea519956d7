package central

import (
	"math"

	"github.com/ldpbench/ldpbench/centraldp"
)

// The leading-order theory is stated where bounds on the terms it
// neglects are small against it: tolClip for the share of the error that
// clipping removes (a bound that is tight for one noise term: the exact
// tail of the swap reference's staircase) and tolExpansion for the terms
// of the ratio's expansion in D/n (Hölder and Minkowski bounds, 3–4 times
// the terms: 24/(nε) against the exact 6/(nε) at the boundary with
// Laplace noise). The neglected terms are then ≲ 0.15 % of the theory
// where it is stated, under the 95 % CI of a point of 10⁶ runs (±0.5 % for
// Laplace noise, wider for the staircases' heavier tails).
const (
	tolClip      = 1e-3
	tolExpansion = 5e-3
)

// errorModel is an estimator's error at first order. In units of the
// range w and counts, the estimate is (n·α + N)/(n + D) clipped to [0, 1]
// (Algorithm 3: N = (1 − α)Z1 − αZ2, D = Z1 + Z2), so its error is
// N/n·(1 − D/n + D²/n² − …) until clipping. N and D are linear in the
// noise coordinates, uncorrelated in every estimator here (independent
// Laplace; E[xy] = 0 for the 2-D staircase; E[Z1·Z2] = 0 for the
// hourglass), so E N² = Σ cᵢ² E Zᵢ².
type errorModel struct {
	laws     []law
	num, den []float64 // coefficients of N and D on laws
	// near and far are the distances, in counts (n times the distance in
	// units of w), from the data mean to the nearer and farther end of
	// the clipping interval.
	near, far float64
	n         float64
	// independent: the noise terms are independent (Laplace), not only
	// uncorrelated.
	independent bool
}

// newErrorModel returns the first-order error of estimator name at data
// mean mu on [l, u] with n values: the noise laws and coefficients of
// the estimators (Algorithm 1's sum noise Lap(2W/ε), W = max(|l|, |u|);
// Algorithm 2's Lap(w/ε) on the centred sum; Lap(2/ε) on their counts;
// Lap(1/ε), the 2-D staircase at γ̃* or the hourglass at γ* on
// Algorithm 3's two coordinates; the staircase at γ* and Δ = w for the swap
// reference, whose n is public).
func newErrorModel(name string, eps, mu, l, u float64, n int) errorModel {
	w := u - l
	alpha := (mu - l) / w
	fn := float64(n)
	e := errorModel{n: fn, near: fn * math.Min(alpha, 1-alpha), far: fn * math.Max(alpha, 1-alpha)}
	switch name {
	case centraldp.NameAlg1:
		W := math.Max(math.Abs(l), math.Abs(u))
		e.laws, e.independent = []law{laplaceLaw(2 * W / (w * eps)), laplaceLaw(2 / eps)}, true
		e.num, e.den = []float64{1, -mu / w}, []float64{0, 1}
	case centraldp.NameAlg2:
		e.laws, e.independent = []law{laplaceLaw(1 / eps), laplaceLaw(2 / eps)}, true
		e.num, e.den = []float64{1, -(alpha - 0.5)}, []float64{0, 1}
	case centraldp.NameAlg3Lap:
		z := laplaceLaw(1 / eps)
		e.laws, e.independent = []law{z, z}, true
		e.num, e.den = []float64{1 - alpha, -alpha}, []float64{1, 1}
	case centraldp.NameAlg3TwoD:
		z := staircase2DLaw(eps, centraldp.Staircase2DGamma(eps))
		e.laws = []law{z, z}
		e.num, e.den = []float64{1 - alpha, -alpha}, []float64{1, 1}
	case centraldp.NameAlg3HG:
		z := staircaseLaw(eps, centraldp.GammaStar(eps))
		e.laws = []law{z, z}
		e.num, e.den = []float64{1 - alpha, -alpha}, []float64{1, 1}
	case centraldp.NameSwapStair:
		e.laws, e.independent = []law{staircaseLaw(eps, centraldp.GammaStar(eps))}, true
		e.num, e.den = []float64{1}, []float64{0}
	}
	return e
}

// varN returns E N².
func (e *errorModel) varN() float64 {
	var v float64
	for i, c := range e.num {
		v += c * c * e.laws[i].m2
	}
	return v
}

// norm returns the Minkowski bound Σ|cᵢ|·‖Zᵢ‖_p on ‖Σ cᵢZᵢ‖_p (p = 3, 4).
func (e *errorModel) norm(coef []float64, p int) float64 {
	var s float64
	for i, c := range coef {
		m := e.laws[i].m4
		if p == 3 {
			m = e.laws[i].m3
		}
		s += math.Abs(c) * math.Pow(m, 1/float64(p))
	}
	return s
}

// clipShare bounds E[N²; |N| > x]/E N², the share of the first-order
// error that clipping at distance x (counts) would remove. With
// s = Σ|cᵢ|βᵢ (βᵢ the tail scales) and t = x/s, |N| > x needs some
// |Zᵢ| > tβᵢ (event Aᵢ), and on it N² ≤ s·Σ(|cᵢ|/βᵢ)Zᵢ² (Cauchy–Schwarz);
// E[Zᵢ²; Aᵢ] is the law's tail and E[Zᵢ²; Aⱼ] is E Zᵢ²·P(Aⱼ) for
// independent terms, ≤ √(E Zᵢ⁴·P(Aⱼ)) otherwise, with
// P(Aⱼ) ≤ E[Zⱼ²; Aⱼ]/(tβⱼ)².
func (e *errorModel) clipShare(x float64) float64 {
	var s float64
	for i, c := range e.num {
		s += math.Abs(c) * e.laws[i].scale
	}
	if s == 0 {
		return 0
	}
	t := x / s
	var bound float64
	for i, ci := range e.num {
		if ci == 0 {
			continue
		}
		li := e.laws[i]
		var ez float64
		for j, cj := range e.num {
			if cj == 0 {
				continue
			}
			lj := e.laws[j]
			xj := t * lj.scale
			switch {
			case i == j:
				ez += li.tail(xj)
			case e.independent:
				ez += li.m2 * lj.tail(xj) / (xj * xj)
			default:
				ez += math.Sqrt(li.m4 * lj.tail(xj) / (xj * xj))
			}
		}
		bound += s * math.Abs(ci) / li.scale * ez
	}
	return bound / e.varN()
}

// negShare bounds the share of the error from runs whose denominator
// n + D falls below n/2 (the expansion's domain; there the error is at
// most 1 in units of w): P(|D| > n/2)·n²/E N², with P(|Dⱼ term| > x) ≤
// E[Z²; |Z| > x]/x².
func (e *errorModel) negShare() float64 {
	var k float64
	for _, c := range e.den {
		if c != 0 {
			k++
		}
	}
	var p float64
	for i, c := range e.den {
		if c == 0 {
			continue
		}
		x := e.n / (2 * k * math.Abs(c))
		p += e.laws[i].tail(x) / (x * x)
	}
	return p * e.n * e.n / e.varN()
}

// neglected bounds the relative size of the terms the leading-order
// theory leaves out, as the share clipping removes and the expansion's
// terms. Inside the range: clipping at the nearer end; the second-order
// term 3E[N²D²]/(n² E N²) ≤ 3‖N‖₄²‖D‖₄²/(n² E N²) (the first vanishes: the
// noise is symmetric) and runs with n + D < n/2. At the boundary (α = 0
// or 1, where the constant halves): clipping at the far end; the
// first-order term 2|E[N²D; N > 0]|/(n·E[N²; N > 0]) ≤ 4‖N‖₃²‖D‖₃/(n E N²),
// which does not vanish there; twice the second and the runs with a small
// denominator.
func (e *errorModel) neglected(boundary bool) (clip, expansion float64) {
	v := e.varN()
	if v == 0 || e.n == 0 {
		return math.Inf(1), math.Inf(1)
	}
	n4, d4 := e.norm(e.num, 4), e.norm(e.den, 4)
	second := 3 * n4 * n4 * d4 * d4 / (e.n * e.n * v)
	if !boundary {
		return e.clipShare(e.near), second + e.negShare()
	}
	n3, d3 := e.norm(e.num, 3), e.norm(e.den, 3)
	first := 4 * n3 * n3 * d3 / (e.n * v)
	return 2 * e.clipShare(e.far), first + 2*second + 2*e.negShare()
}

// holds reports whether the leading-order theory holds to the tolerances.
func (e *errorModel) holds(boundary bool) bool {
	clip, expansion := e.neglected(boundary)
	return clip <= tolClip && expansion <= tolExpansion
}

// kurtosis bounds the kurtosis E e⁴/(E e²)² of one run's error at first
// order, for sizing a batch (params.target_rse): E N⁴/(E N²)², exact for
// independent noise terms (the Laplace estimators: Σcᵢ⁴E Zᵢ⁴ +
// 6Σ_{i<j}cᵢ²cⱼ²E Zᵢ²E Zⱼ²) and bounded by Minkowski, ‖N‖₄ ≤ Σ|cᵢ|‖Zᵢ‖₄, for
// the dependent coordinates of the 2-D staircase and the hourglass (exact
// for the swap reference, nearly so for Algorithm 3 near α = 0); doubled
// at the boundary, where half the runs are exact.
func (e *errorModel) kurtosis(boundary bool) float64 {
	v := e.varN()
	var m4 float64
	if e.independent {
		for i, ci := range e.num {
			m4 += ci * ci * ci * ci * e.laws[i].m4
			for j := i + 1; j < len(e.num); j++ {
				cj := e.num[j]
				m4 += 6 * ci * ci * cj * cj * e.laws[i].m2 * e.laws[j].m2
			}
		}
	} else {
		n4 := e.norm(e.num, 4)
		m4 = n4 * n4 * n4 * n4
	}
	k := m4 / (v * v)
	if boundary {
		k *= 2
	}
	return k
}
