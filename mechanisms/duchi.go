package mechanisms

import (
	"math"
	"math/rand/v2"
)

// Duchi is Duchi et al.'s one-dimensional binary mechanism, called
// stochastic rounding (SR) in Du et al. (Zhao et al.'s baseline of Table I;
// Du et al. Section 2.3).
//
// An input x in [-1, 1] is reported as +C with probability
// 1/2 + x(e^ε-1)/(2(e^ε+1)) and as -C otherwise, C = (e^ε+1)/(e^ε-1). The
// report is unbiased with variance C² - x², largest (C²) at x = 0.
//
// The constants are computed without cancellation or overflow for every
// ε > 0: C = 1/tanh(ε/2), and the probabilities as
// P[±C | x] = ((1±x)σ + (1∓x)(1-σ))/2 with σ = e^ε/(e^ε+1) and
// 1-σ = 1/(e^ε+1), a sum of non-negative terms, so that even the small
// probability at large ε keeps its relative accuracy (and the privacy ratio
// P[+C|1]/P[+C|-1] = σ/(1-σ) = e^ε is exact to rounding).
type Duchi struct {
	eps  float64
	c    float64    // C
	sig  float64    // σ = e^ε/(e^ε+1)
	sigc float64    // 1-σ = 1/(e^ε+1)
	out  [2]float64 // {-C, C}
}

var _ interface {
	Mechanism
	Variancer
	Discrete
} = (*Duchi)(nil)

// NewDuchi returns Duchi et al.'s mechanism at budget eps.
func NewDuchi(eps float64) (*Duchi, error) {
	if err := checkEpsilon("duchi", eps); err != nil {
		return nil, err
	}
	c := 1 / math.Tanh(eps/2)
	return &Duchi{
		eps:  eps,
		c:    c,
		sig:  1 / (1 + math.Exp(-eps)),
		sigc: 1 / (1 + math.Exp(eps)),
		out:  [2]float64{-c, c},
	}, nil
}

// Name returns "duchi".
func (m *Duchi) Name() string { return "duchi" }

// Epsilon returns the privacy budget.
func (m *Duchi) Epsilon() float64 { return m.eps }

// Domain returns [-1, 1].
func (m *Duchi) Domain() (lo, hi float64) { return -1, 1 }

// C returns the output magnitude (e^ε+1)/(e^ε-1).
func (m *Duchi) C() float64 { return m.c }

// pPlus is P[Y = +C | x] = 1/2 + x(e^ε-1)/(2(e^ε+1)).
func (m *Duchi) pPlus(x float64) float64 { return duchiPPlus(x, m.sig, m.sigc) }

// pMinus is P[Y = -C | x].
func (m *Duchi) pMinus(x float64) float64 { return ((1-x)*m.sig + (1+x)*m.sigc) / 2 }

// duchiPPlus is P[Y = +C | x] from σ and 1-σ. The float64 conversions
// forbid the compiler to fuse a product and the sum into one FMA (see
// [Piecewise.report]), which could round differently where the sampler's
// report is inlined into Perturb and into PerturbBatch.
func duchiPPlus(x, sig, sigc float64) float64 {
	return (float64((1+x)*sig) + float64((1-x)*sigc)) / 2
}

// Perturb returns +C or -C, drawing one uniform.
func (m *Duchi) Perturb(x float64, rng *rand.Rand) float64 {
	return m.report(x, rng.Float64())
}

// report is the report of x for the uniform u: +C if u < P[+C | x], -C
// otherwise. Perturb and PerturbBatch both use it, so a batch equals the
// same sequence of Perturb calls; PerturbBatch's loop relies on its being
// inlined (see batchBlock).
func (m *Duchi) report(x, u float64) float64 {
	return choose(u < duchiPPlus(x, m.sig, m.sigc), m.c, -m.c)
}

// PerturbBatch writes a report of xs[i] to dst[i]; dst may be xs.
func (m *Duchi) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	if err := checkInputs("duchi", xs, -1, 1); err != nil {
		return err
	}
	dst = batchDst(dst, len(xs))
	if len(xs) < smallBatch {
		for i, x := range xs {
			dst[i] = m.report(x, rng.Float64())
		}
		return nil
	}
	var us [batchBlock]float64
	for len(xs) > 0 {
		n := min(len(xs), batchBlock)
		u, x, d := us[:n], xs[:n], dst[:n]
		drawUniforms(u, rng)
		for i := range d {
			d[i] = m.report(x[i], u[i])
		}
		xs, dst = xs[n:], dst[n:]
	}
	return nil
}

// Variance returns C² - x².
func (m *Duchi) Variance(x float64) float64 { return m.c*m.c - x*x }

// WorstCaseVariance returns C², attained at x = 0.
func (m *Duchi) WorstCaseVariance() float64 { return m.c * m.c }

// Outputs returns {-C, C}. The slice belongs to the mechanism.
func (m *Duchi) Outputs() []float64 { return m.out[:] }

// Probabilities writes P[-C | x] and P[+C | x] to dst[0] and dst[1].
func (m *Duchi) Probabilities(x float64, dst []float64) {
	dst[0], dst[1] = m.pMinus(x), m.pPlus(x)
}
