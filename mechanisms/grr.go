package mechanisms

import (
	"math"
	"math/rand/v2"
)

// GRR is generalised randomised response over the categories {0, …, d-1}
// (Raab et al. Section 3.1, eq. (2)): the true category is reported with
// probability p = e^ε/(e^ε+d-1), each other one with q = 1/(e^ε+d-1), so
// p/q = e^ε.
//
// It is not a [Mechanism]: its input is a category, not a number. Group
// mechanisms report the group with it, and NPRR reports a grid index with
// it.
//
// p and q are computed as 1/(1+(d-1)e^{-ε}) and e^{-ε}/(1+(d-1)e^{-ε}):
// no overflow of e^ε, and q keeps its relative accuracy at large ε.
type GRR struct {
	eps  float64
	d    int
	p, q float64
	invQ float64 // 1/q = e^ε+d-1: maps the uniform past p onto the offsets
}

// NewGRR returns GRR over d ≥ 2 categories at budget eps. d = 1 is
// rejected: q = (1-p)/(d-1) would divide by zero.
func NewGRR(eps float64, d int) (*GRR, error) {
	if err := checkEpsilon("grr", eps); err != nil {
		return nil, err
	}
	if d < 2 {
		return nil, &ParamError{Mechanism: "grr", Param: "d", Value: float64(d), Reason: "must be ≥ 2"}
	}
	p, q, invQ := grrConstants(eps, d)
	return &GRR{eps: eps, d: d, p: p, q: q, invQ: invQ}, nil
}

// grrConstants returns p, q and 1/q of GRR over d categories at eps.
func grrConstants(eps float64, d int) (p, q, invQ float64) {
	e := math.Exp(-eps)
	den := 1 + float64(d-1)*e
	return 1 / den, e / den, math.Exp(eps) + float64(d-1)
}

// Epsilon returns the privacy budget.
func (m *GRR) Epsilon() float64 { return m.eps }

// D returns the number of categories.
func (m *GRR) D() int { return m.d }

// P returns the probability of reporting the true category.
func (m *GRR) P() float64 { return m.p }

// Q returns the probability of reporting one given other category.
func (m *GRR) Q() float64 { return m.q }

// Perturb returns a report of the category x in {0, …, d-1}, from one
// uniform: x with probability p, else (x + J) mod d with J uniform on
// {1, …, d-1} (the keep-or-offset sampler of the authors' code).
func (m *GRR) Perturb(x int, rng *rand.Rand) int {
	return grrReport(x, m.d, m.p, m.invQ, rng.Float64())
}

// grrReport is GRR's report of x for the uniform u: x if u < p, else the
// offset J = 1 + ⌊(u-p)/q⌋. Given u ≥ p, (u-p)/q is uniform on
// [0, (1-p)/q) = [0, d-1), so J is uniform on {1, …, d-1}; the clamp only
// guards against (u-p)/q rounding up to d-1. The rescaled uniform keeps
// 53 - log2(d-1) - log2(1/(1-p)) bits, far more than any test can resolve.
func grrReport(x, d int, p, invQ, u float64) int {
	if u < p {
		return x
	}
	j := 1 + int((u-p)*invQ)
	j = min(j, d-1)
	y := x + j
	if y >= d {
		y -= d
	}
	return y
}

// Probabilities writes Pr[Y = y | x] to dst[y] for every category y; dst
// must have length ≥ d.
func (m *GRR) Probabilities(x int, dst []float64) {
	dst = dst[:m.d]
	for i := range dst {
		dst[i] = m.q
	}
	dst[x] = m.p
}
