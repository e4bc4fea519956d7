package mechanisms

import (
	"math"
	"math/rand/v2"
)

// Laplace adds Laplace noise of scale b = 2/ε to an input on [-1, 1]
// (p3 spec §2.1, p4 spec §3.1). The report is unbiased with variance
// 2b² = 8/ε² for every input, and its support is the whole real line.
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

// Perturb returns x + Lap(2/ε), drawn by inversion from one uniform.
func (m *Laplace) Perturb(x float64, rng *rand.Rand) float64 {
	// u is in [0, 1). Each half of it is mapped onto a half of the noise
	// distribution by its inverse CDF, the lower half reflected
	// (w = 1-2u instead of 2u), so that the excluded end u = 1 carries both
	// infinite tails and every report is finite. w is in (0, 1] exactly:
	// u is a multiple of 2^-53, so 1-2u and 2-2u are computed without
	// rounding. The halves are selected without a branch (choose).
	u := rng.Float64()
	upper := u >= 0.5
	l := m.scale * math.Log(choose(upper, 2-2*u, 1-2*u)) // ≤ 0
	return x + choose(upper, -l, l)
}

// PerturbBatch writes a report of xs[i] to dst[i]; dst may be xs.
func (m *Laplace) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	if err := checkInputs("laplace", xs, -1, 1); err != nil {
		return err
	}
	dst = dst[:len(xs)]
	for i, x := range xs {
		dst[i] = m.Perturb(x, rng)
	}
	return nil
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
