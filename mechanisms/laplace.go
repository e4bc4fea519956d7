package mechanisms

import (
	"math"
	"math/rand/v2"
)

// Laplace adds Laplace noise of scale b = 2/ε to an input on [-1, 1]
// (Zhao et al.'s baseline of Table I; Du et al. Section 2.2). The report is
// unbiased with variance 2b² = 8/ε² for every input, and its support is the
// whole real line.
type Laplace struct {
	eps   float64
	scale float64 // b = 2/ε
}

var _ interface {
	Mechanism
	Variancer
	Continuous
} = (*Laplace)(nil)

// NewLaplace returns the Laplace mechanism at budget eps.
func NewLaplace(eps float64) (*Laplace, error) {
	if err := checkEpsilon("laplace", eps); err != nil {
		return nil, err
	}
	return &Laplace{eps: eps, scale: 2 / eps}, nil
}

// Name returns "laplace".
func (m *Laplace) Name() string { return "laplace" }

// Epsilon returns the privacy budget.
func (m *Laplace) Epsilon() float64 { return m.eps }

// Domain returns [-1, 1].
func (m *Laplace) Domain() (lo, hi float64) { return -1, 1 }

// Scale returns the noise scale b = 2/ε.
func (m *Laplace) Scale() float64 { return m.scale }

// Perturb returns x + Lap(2/ε): b·E with E ~ Exp(1) drawn by
// rng.ExpFloat64 (math/rand/v2's ziggurat), negated if bit 0 of one
// rng.Uint64(), drawn first, is set. A report takes two 64-bit words from
// the generator, and on about 3% of reports a third or more (the
// ziggurat's slow steps: 0.034 extra words a report on average).
//
// The law is Laplace's up to the ziggurat's own rounding (abscissas on a
// 32-bit grid of each layer, a float32 wedge test), far below anything a
// test can see; its tail step, re - log(U), gives +Inf if U is exactly 0,
// which happens on fewer than 1e-19 of reports.
func (m *Laplace) Perturb(x float64, rng *rand.Rand) float64 {
	signs := rng.Uint64()
	return x + signed(m.scale*rng.ExpFloat64(), signs)
}

// laplaceSignBits is the number of reports PerturbBatch takes the signs of
// from one rng.Uint64(): all 64 of its bits.
const laplaceSignBits = 64

// PerturbBatch writes a report of xs[i] to dst[i]; dst may be xs. It checks
// every input before it draws anything.
//
// The reports have Perturb's law, independently, but the batch spends the
// generator's words differently: Perturb spends a word on each report's
// sign, the batch one word on the signs of 64 reports. For each run of up
// to 64 inputs, in order, it draws one rng.Uint64(), whose bit k (from bit
// 0) is the sign of the run's k-th report, and then the run's exponentials
// by rng.ExpFloat64, one per report in order: report k is x ± b·E_k. A
// report so costs 1 + 1/64 words, plus the ziggurat's extra ones (0.034 on
// average). A batch of one input equals Perturb; a longer batch does not
// equal the same sequence of Perturb calls, nor leave the generator where
// they would.
func (m *Laplace) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	if err := checkInputs("laplace", xs, -1, 1); err != nil {
		return err
	}
	dst = batchDst(dst, len(xs))
	b := m.scale
	for len(xs) > 0 {
		n := min(len(xs), laplaceSignBits)
		d, x := dst[:n], xs[:n]
		signs := rng.Uint64()
		for i := range d {
			// x[i] is read before d[i] is written, so dst may be xs.
			d[i] = x[i] + signed(b*rng.ExpFloat64(), signs)
			signs >>= 1
		}
		xs, dst = xs[n:], dst[n:]
	}
	return nil
}

// signed returns v, which is ≥ 0, negated if bit 0 of s is set: the bit is
// moved onto v's sign bit, without a branch.
func signed(v float64, s uint64) float64 {
	return math.Float64frombits(math.Float64bits(v) ^ s<<63)
}

// Variance returns 8/ε² whatever x.
func (m *Laplace) Variance(x float64) float64 { return 2 * m.scale * m.scale }

// WorstCaseVariance returns 8/ε².
func (m *Laplace) WorstCaseVariance() float64 { return 2 * m.scale * m.scale }

// OutputRange returns (-Inf, +Inf).
func (m *Laplace) OutputRange() (lo, hi float64) { return math.Inf(-1), math.Inf(1) }

// Density returns exp(-|y-x|/b)/(2b).
func (m *Laplace) Density(y, x float64) float64 {
	return math.Exp(-math.Abs(y-x)/m.scale) / (2 * m.scale)
}

// CDF returns Pr[Y ≤ y | x].
func (m *Laplace) CDF(y, x float64) float64 {
	z := (y - x) / m.scale
	if z < 0 {
		return 0.5 * math.Exp(z)
	}
	return 1 - 0.5*math.Exp(-z)
}

// BucketGivenBin returns Pr[ylo < Y ≤ yhi] for x uniform on [xlo, xhi],
// in closed form: the Laplace CDF G has the antiderivative
// H(z) = (b/2)e^{z/b} for z < 0 and z + (b/2)e^{-z/b} for z ≥ 0, so the
// average of Pr[Y ≤ y | x] over the bin is (H(y-xlo) - H(y-xhi))/(xhi-xlo).
// Tail buckets are computed from the survival side, so small probabilities
// keep their relative accuracy. ylo may be -Inf and yhi +Inf.
func (m *Laplace) BucketGivenBin(ylo, yhi, xlo, xhi float64) float64 {
	if !(ylo < yhi) {
		return 0
	}
	b := m.scale
	if xlo == xhi {
		x := xlo
		switch {
		case ylo >= x: // both edges above x: difference of survivals
			return 0.5 * (math.Exp(-(ylo-x)/b) - math.Exp(-(yhi-x)/b))
		case yhi <= x:
			return 0.5 * (math.Exp((yhi-x)/b) - math.Exp((ylo-x)/b))
		default:
			return 1 - 0.5*math.Exp((ylo-x)/b) - 0.5*math.Exp(-(yhi-x)/b)
		}
	}
	switch {
	case ylo >= xhi:
		return m.avgSurvival(ylo, xlo, xhi) - m.avgSurvival(yhi, xlo, xhi)
	case yhi <= xlo:
		return m.avgCDF(yhi, xlo, xhi) - m.avgCDF(ylo, xlo, xhi)
	default:
		return 1 - m.avgCDF(ylo, xlo, xhi) - m.avgSurvival(yhi, xlo, xhi)
	}
}

// avgCDF returns the average of Pr[Y ≤ y | x] over x in [xlo, xhi],
// xlo < xhi, written with expm1 so that narrow bins lose no digits.
func (m *Laplace) avgCDF(y, xlo, xhi float64) float64 {
	b := m.scale
	w := xhi - xlo
	z1, z2 := y-xlo, y-xhi // z1 > z2
	// g = (b/(2w))·(1 - e^{-w/b}): the bin average of e^{±(z-z_edge)/b}/2.
	g := -b / (2 * w) * math.Expm1(-w/b)
	switch {
	case z1 <= 0:
		return g * math.Exp(z1/b)
	case z2 >= 0:
		return 1 - g*math.Exp(-z2/b)
	default:
		return (z1 + b/2*(math.Exp(-z1/b)-math.Exp(z2/b))) / w
	}
}

// avgSurvival returns the average of Pr[Y > y | x] over x in [xlo, xhi]:
// -Y is Laplace about -x, so Pr[Y > y | x] = Pr[-Y < -y | -x].
func (m *Laplace) avgSurvival(y, xlo, xhi float64) float64 {
	return m.avgCDF(-y, -xhi, -xlo)
}
