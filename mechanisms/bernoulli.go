package mechanisms

import (
	"math"
	"math/rand/v2"
)

// Bernoulli is the Bernoulli mechanism of Raab et al. (Section 3.2.2,
// Algorithm 1): an input v in [-1, 1] is rounded to B ~ Bernoulli((1+v)/2),
// B is sent through randomised response (kept with probability
// β = e^ε/(e^ε+1)), and the report is 2·RR(B) - 1 ∈ {-1, +1}.
//
// So Pr[+1 | v] = β(1+v)/2 + (1-β)(1-v)/2 = 1/2 + c·v/2 with
// c = 2β - 1 = (e^ε-1)/(e^ε+1): the report is biased, E[Y] = c·v, and
// [Bernoulli.Debias] divides by c. It is Duchi et al.'s mechanism with the
// outputs ±1 instead of ±1/c (Raab et al. Section 3.2.2), and simplified
// NPRR with k = 1 ([NewNPRR]).
type Bernoulli struct {
	eps    float64
	c      float64    // (e^ε-1)/(e^ε+1) = tanh(ε/2)
	excess float64    // 1/c² - 1 = 1/sinh²(ε/2)
	sig    float64    // β = e^ε/(e^ε+1)
	sigc   float64    // 1-β = 1/(e^ε+1)
	out    [2]float64 // {-1, +1}
}

var _ interface {
	Mechanism
	Variancer
	Discrete
	Debiaser
} = (*Bernoulli)(nil)

// NewBernoulli returns the Bernoulli mechanism at budget eps.
func NewBernoulli(eps float64) (*Bernoulli, error) {
	if err := checkEpsilon("bernoulli", eps); err != nil {
		return nil, err
	}
	return &Bernoulli{
		eps:    eps,
		c:      math.Tanh(eps / 2),
		excess: 1 / (math.Sinh(eps/2) * math.Sinh(eps/2)),
		sig:    1 / (1 + math.Exp(-eps)),
		sigc:   1 / (1 + math.Exp(eps)),
		out:    [2]float64{-1, 1},
	}, nil
}

// Name returns "bernoulli".
func (m *Bernoulli) Name() string { return "bernoulli" }

// Epsilon returns the privacy budget.
func (m *Bernoulli) Epsilon() float64 { return m.eps }

// Domain returns [-1, 1].
func (m *Bernoulli) Domain() (lo, hi float64) { return -1, 1 }

// C returns the slope c = (e^ε-1)/(e^ε+1) of E[Y | v] = c·v.
func (m *Bernoulli) C() float64 { return m.c }

// Perturb returns -1 or +1 from one uniform, by inversion of
// Pr[+1 | v]: the law of Algorithm 1's two draws (round, then randomised
// response) in one.
func (m *Bernoulli) Perturb(x float64, rng *rand.Rand) float64 {
	return m.report(x, rng.Float64())
}

// report is +1 if u < Pr[+1 | x], else -1. Pr[+1 | x] is Duchi's
// ((1+x)β + (1-x)(1-β))/2, a sum of non-negative terms that keeps its
// relative accuracy at large ε.
func (m *Bernoulli) report(x, u float64) float64 {
	return choose(u < duchiPPlus(x, m.sig, m.sigc), 1, -1)
}

// PerturbBatch writes a report of xs[i] to dst[i]; dst may be xs. It equals
// the same sequence of Perturb calls.
func (m *Bernoulli) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	if err := checkInputs("bernoulli", xs, -1, 1); err != nil {
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

// Debias returns y/c, an unbiased estimate of the input.
func (m *Bernoulli) Debias(y float64) float64 { return y / m.c }

// Variance returns the variance of the de-biased report, 1/c² - v²
// (E[Y²] = 1), written as (1 - v²) + 1/sinh²(ε/2) (1/c² - 1 = 1/sinh²(ε/2)):
// two non-negative terms, without the cancellation of 1/c² - 1 at large ε.
func (m *Bernoulli) Variance(x float64) float64 { return (1 - x*x) + m.excess }

// WorstCaseVariance returns 1/c², attained at v = 0.
func (m *Bernoulli) WorstCaseVariance() float64 { return 1 / (m.c * m.c) }

// Outputs returns {-1, +1}. The slice belongs to the mechanism.
func (m *Bernoulli) Outputs() []float64 { return m.out[:] }

// Probabilities writes Pr[-1 | x] and Pr[+1 | x] to dst[0] and dst[1].
func (m *Bernoulli) Probabilities(x float64, dst []float64) {
	dst[0] = ((1-x)*m.sig + (1+x)*m.sigc) / 2
	dst[1] = duchiPPlus(x, m.sig, m.sigc)
}
