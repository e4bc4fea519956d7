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
	xs, us := [1]float64{x}, [1]float64{rng.Float64()}
	var y [1]float64
	m.reports(y[:], xs[:], us[:])
	return y[0]
}

// PerturbBatch writes a report of xs[i] to dst[i]; dst may be xs.
func (m *Laplace) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	if err := checkInputs("laplace", xs, -1, 1); err != nil {
		return err
	}
	dst = batchDst(dst, len(xs))
	if len(xs) < smallBatch {
		for i, x := range xs {
			dst[i] = m.Perturb(x, rng)
		}
		return nil
	}
	var us [batchBlock]float64
	for len(xs) > 0 {
		n := min(len(xs), batchBlock)
		u := us[:n]
		drawUniforms(u, rng)
		m.reports(dst[:n], xs[:n], u)
		xs, dst = xs[n:], dst[n:]
	}
	return nil
}

// reports sets d[i] to x[i] plus the noise for the uniform u[i], by
// inversion. Perturb runs it on a block of one and PerturbBatch on blocks
// of batchBlock, so a batch equals the same sequence of Perturb calls.
//
// u is in [0, 1). Each half of it is mapped onto a half of the noise
// distribution by its inverse CDF, the lower half reflected (w = 1-2u
// instead of 2u), so that the excluded end u = 1 carries both infinite
// tails and every report is finite: the report is x + b·log(w) for u < 1/2
// and x - b·log(w) otherwise. w is in (0, 1] exactly: u is a multiple of
// 2^-53, so 1-2u and 2-2u are computed without rounding. The halves are
// selected without a branch (choose).
//
// log(w) is math.Log's algorithm (fdlibm's), written out here operation
// for operation, so it equals math.Log(w) bit for bit on amd64, whose
// assembly is the same algorithm, at about two thirds of the cost here: it
// is inlined, w needs none of the special cases (0, negative, subnormal,
// Inf, NaN; w ≥ 2^-52), and the reduction to [√2/2, √2) has no branch. The
// float64 conversions forbid the compiler to fuse a product and a sum into
// one FMA (arm64 does by default, amd64 with GOAMD64=v3), which would
// change the rounding.
func (m *Laplace) reports(d, x, u []float64) {
	const (
		ln2Hi = 6.93147180369123816490e-01 // 0x3fe62e42fee00000
		ln2Lo = 1.90821492927058770002e-10 // 0x3dea39ef35793c76
		l1    = 6.666666666666735130e-01   // 0x3FE5555555555593
		l2    = 3.999999999940941908e-01   // 0x3FD999999997FA04
		l3    = 2.857142874366239149e-01   // 0x3FD2492494229359
		l4    = 2.222219843214978396e-01   // 0x3FCC71C51D8E78AF
		l5    = 1.818357216161805012e-01   // 0x3FC7466496CB03DE
		l6    = 1.531383769920937332e-01   // 0x3FC39A09D078C69F
		l7    = 1.479819860511658591e-01   // 0x3FC2F112DF3E5244

		fracMask  = 1<<52 - 1
		sqrt2Frac = 0x6a09e667f3bcd // the fraction bits of √2
	)
	b := m.scale
	x, u = x[:len(d)], u[:len(d)]
	for i := range d {
		u := u[i]
		upper := u >= 0.5
		w := choose(upper, 2-2*u, 1-2*u)

		// log(w). w = 2^e · 1.g; math.Log takes w = 2^k · z with z in
		// [√2/2, √2): z = 1.g and k = e if 1.g < √2, otherwise z = 1.g/2
		// and k = e+1. The carry out of g + (2^52 - frac(√2)) is 1
		// exactly when 1.g ≥ √2.
		bits := math.Float64bits(w)
		g := bits & fracMask
		c := (g + (1<<52 - sqrt2Frac)) >> 52
		z := math.Float64frombits(g | (0x3ff-c)<<52)
		k := float64(int64(bits>>52) - 0x3ff + int64(c))
		f := z - 1
		s := f / (2 + f)
		s2 := s * s
		s4 := s2 * s2
		t1 := float64(s2 * float64(l1+float64(s4*float64(l3+float64(s4*float64(l5+float64(s4*l7)))))))
		t2 := float64(s4 * float64(l2+float64(s4*float64(l4+float64(s4*l6)))))
		r := t1 + t2
		hfsq := float64(float64(0.5*f) * f)
		logw := float64(k*ln2Hi) - float64(float64(hfsq-float64(float64(s*float64(hfsq+r))+float64(k*ln2Lo)))-f)

		l := b * logw // ≤ 0
		d[i] = x[i] + choose(upper, -l, l)
	}
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
