package mechanisms

import (
	"math"
	"math/rand/v2"
)

// SquareWave is Li et al.'s Square Wave mechanism (SIGMOD 2020) as used by
// Du et al. (Section 2.5). An input s in [0, 1] is reported on [-b, 1+b]
// with density p on the window [s-b, s+b] and q elsewhere,
//
//	b = (εe^ε - e^ε + 1)/(2e^ε(e^ε - ε - 1)),
//	p = e^ε/(2be^ε + 1),  q = 1/(2be^ε + 1).
//
// The window never leaves [-b, 1+b]. The report is biased, with
// E[Y|s] = q/2 + qb + 2b(p-q)s; [SquareWave.Debias] inverts this affine map,
// and [SquareWave.Variance] is the variance of the de-biased report on
// [0, 1] (var_usw of Du et al. Section 4.1). [Unbiased] maps it to [-1, 1],
// multiplying the variance by 4 (E4.5). Density, CDF and BucketGivenBin
// describe the raw report Y.
//
// b is computed without the cancellation of e^ε - ε - 1 (a power series for
// ε < 1, and the form b·e^ε = (ε - 1 + e^{-ε})/(2(1 - (1+ε)e^{-ε}))
// otherwise), so it is accurate to a few ulps for every ε. For ε above
// about 36, b is below the float64 spacing near 1, and the reports of an
// input s away from 0 round to s; the window's probability is still
// counted exactly when a bucket contains it. p overflows above ε ≈ 709.
type SquareWave struct {
	eps   float64
	b     float64
	p, q  float64
	pmq   float64 // p - q = q(e^ε - 1)
	pWin  float64 // 2bp: probability of the window
	slope float64 // k = 2b(p-q): E[Y|s] = alpha + k·s
	alpha float64 // q/2 + qb
	v0    float64 // var_sw(0) = var_sw(1), the raw variance at the ends
	// pieces are the operands of the sampler's three inverse-CDF pieces
	// (see report), indexed by the number of the pieces' upper ends
	// u ≤ qs, u ≤ qs + 2bp that the uniform is below.
	pieces [3]swPiece
}

// swPiece holds the operands of one piece of the inverse CDF of
// [SquareWave.report]: the report is ((u - qs·f) - a)/den + s·f + off.
type swPiece struct{ f, a, den, off float64 }

var _ interface {
	Mechanism
	Variancer
	Continuous
	Debiaser
} = (*SquareWave)(nil)

// NewSquareWave returns the Square Wave mechanism at budget eps.
func NewSquareWave(eps float64) (*SquareWave, error) {
	if err := checkEpsilon("sw", eps); err != nil {
		return nil, err
	}
	be := swBE(eps) // b·e^ε
	b := be * math.Exp(-eps)
	q := 1 / (2*be + 1)
	pWin := 2 * be * q
	k := pWin * -math.Expm1(-eps) // 2b(p-q) = 2be·q·(1-e^{-ε})
	alpha := q * (0.5 + b)
	// E[Y²|s=0] = q(1 + 3b + 3b²)/3 + 2pb³/3, with 2pb = pWin.
	ey2 := q*(1+3*b+3*b*b)/3 + pWin*b*b/3
	m := &SquareWave{
		eps:   eps,
		b:     b,
		p:     q * math.Exp(eps),
		q:     q,
		pmq:   q * math.Expm1(eps),
		pWin:  pWin,
		slope: k,
		alpha: alpha,
		v0:    ey2 - alpha*alpha,
	}
	m.pieces = [3]swPiece{
		{f: 1, a: m.pWin, den: m.q, off: m.b}, // above the window
		{f: 1, a: 0, den: m.p, off: -m.b},     // the window
		{f: 0, a: 0, den: m.q, off: -m.b},     // below the window
	}
	return m, nil
}

// swBE returns b·e^ε = (εe^ε - e^ε + 1)/(2(e^ε - ε - 1)).
func swBE(eps float64) float64 {
	if eps < 1 {
		// Numerator and denominator divided by ε²:
		// εe^ε - e^ε + 1 = Σ_{k≥0} (k+1)ε^{k+2}/(k+2)!,
		// e^ε - ε - 1   = Σ_{k≥0} ε^{k+2}/(k+2)!.
		// For ε < 1 the 30th term is below 1e-33 of the first.
		term := 0.5
		num, den := 0.0, 0.0
		for k := 0; k < 30; k++ {
			num += float64(k+1) * term
			den += term
			term *= eps / float64(k+3)
		}
		return num / (2 * den)
	}
	em := math.Exp(-eps)
	return (eps - 1 + em) / (2 * (1 - (1+eps)*em))
}

// Name returns "sw".
func (m *SquareWave) Name() string { return "sw" }

// Epsilon returns the privacy budget.
func (m *SquareWave) Epsilon() float64 { return m.eps }

// Domain returns [0, 1].
func (m *SquareWave) Domain() (lo, hi float64) { return 0, 1 }

// B returns the half-width b of the window.
func (m *SquareWave) B() float64 { return m.b }

// Perturb returns one raw (biased) report of s from one uniform, as the
// authors' sampler: the uniform is spread over the output range by the
// inverse CDF.
func (m *SquareWave) Perturb(s float64, rng *rand.Rand) float64 {
	return m.report(s, rng.Float64())
}

// report is the report of s for the uniform u, by the inverse CDF, whose
// three pieces are
//
//	u ≤ qs:          u/q - b                  on [-b, s-b],
//	u ≤ qs + 2bp:    (u-qs)/p + s - b         on [s-b, s+b],
//	otherwise:       (u-qs-2bp)/q + s + b     on [s+b, 1+b],
//
// evaluated left to right as written, each operation rounded in turn.
// Perturb and PerturbBatch both use it, so a batch equals the same sequence
// of Perturb calls.
//
// The piece is found without a branch, as the number of upper ends u is
// below (u ≤ qs implies u ≤ qs + 2bp, as 2bp ≥ 0), and its operands are
// looked up rather than all three pieces computed: one division instead of
// three, no conditional moves. Every piece is written as
// ((u - qs·f) - a)/den + s·f + off, which is bit for bit the expression
// above: f = 1 multiplies exactly; the first piece has f = 0 and a = 0,
// and u - (±0) - 0 = u and t + (±0) = t for t = u/q, which is not -0.
//
// The float64 conversions forbid the compiler to fuse a product and a sum
// into one FMA (see [Piecewise.report]). Keep report within the compiler's
// inlining budget (go build -gcflags=-m says "can inline
// (*SquareWave).report"): PerturbBatch's loop relies on it (see
// batchBlock).
func (m *SquareWave) report(s, u float64) float64 {
	qs := float64(m.q * s)
	c := &m.pieces[b2i(u <= qs)+b2i(u <= qs+m.pWin)]
	return ((u-float64(qs*c.f))-c.a)/c.den + float64(s*c.f) + c.off
}

// PerturbBatch writes a raw report of xs[i] to dst[i]; dst may be xs.
func (m *SquareWave) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	if err := checkInputs("sw", xs, 0, 1); err != nil {
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

// Debias maps a raw report to the unbiased estimate
// (y - q/2 - qb)/(2b(p-q)) of s (Du et al. Section 4.1).
func (m *SquareWave) Debias(y float64) float64 { return (y - m.alpha) / m.slope }

// Mean returns E[Y|s] = q/2 + qb + 2b(p-q)s of the raw report.
func (m *SquareWave) Mean(s float64) float64 { return m.alpha + m.slope*s }

// RawVariance returns var_sw(s) of Du et al. Section 2.5, the variance of
// the raw report.
//
// var_sw is quadratic in s with leading coefficient k(1-k), k = 2b(p-q), and
// symmetric about s = 1/2, so var_sw(s) = var_sw(0) - k(1-k)s(1-s); this
// form avoids the cancellation of E[Y²] - E[Y]² near s = 1.
func (m *SquareWave) RawVariance(s float64) float64 {
	k := m.slope
	return m.v0 - k*(1-k)*s*(1-s)
}

// Variance returns var_usw(s) = var_sw(s)/(2b(p-q))², the variance of the
// de-biased report on [0, 1] (Du et al. Section 4.1).
func (m *SquareWave) Variance(s float64) float64 {
	return m.RawVariance(s) / (m.slope * m.slope)
}

// WorstCaseVariance returns var_usw at s = 0 (equal to s = 1): var_sw is
// convex in s (0 < k < 1, so k(1-k) > 0), its vertex s = 1/2 is the
// minimum, and the maximum over [0, 1] is at the ends, which tie by
// symmetry.
func (m *SquareWave) WorstCaseVariance() float64 {
	return m.v0 / (m.slope * m.slope)
}

// OutputRange returns [-b, 1+b].
func (m *SquareWave) OutputRange() (lo, hi float64) { return -m.b, 1 + m.b }

// Density returns the density of the raw report: p on [s-b, s+b], q
// elsewhere on [-b, 1+b], 0 outside.
func (m *SquareWave) Density(y, s float64) float64 {
	if y < -m.b || y > 1+m.b {
		return 0
	}
	if math.Abs(y-s) <= m.b {
		return m.p
	}
	return m.q
}

// CDF returns Pr[Y ≤ y | s] of the raw report.
func (m *SquareWave) CDF(y, s float64) float64 {
	if y <= -m.b {
		return 0
	}
	if y >= 1+m.b {
		return 1
	}
	return m.q*(y+m.b) + m.pmq*windowOverlap(-m.b, y, s, m.b)
}

// prob returns Pr[ylo < Y ≤ yhi | s] as q·|bucket ∩ range| +
// (p-q)·|bucket ∩ window|.
func (m *SquareWave) prob(ylo, yhi, s float64) float64 {
	return m.q*overlap(ylo, yhi, -m.b, 1+m.b) + m.pmq*windowOverlap(ylo, yhi, s, m.b)
}

// BucketGivenBin returns Pr[ylo < Y ≤ yhi] for s uniform on [slo, shi]
// (Li et al.'s transform), exactly: the bucket probability is piecewise
// linear in s with kinks where s ± b crosses ylo or yhi.
func (m *SquareWave) BucketGivenBin(ylo, yhi, slo, shi float64) float64 {
	if !(ylo < yhi) {
		return 0
	}
	f := func(s float64) float64 { return m.prob(ylo, yhi, s) }
	kinks := [4]float64{ylo - m.b, yhi - m.b, ylo + m.b, yhi + m.b}
	return avgPiecewiseLinear(f, slo, shi, kinks)
}
