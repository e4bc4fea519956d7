package mechanisms

import (
	"math"
	"math/rand/v2"
)

// Piecewise is the piecewise family with width parameter t > 0 of Zhao et
// al. (Section V-B, eqs. (26)–(32)); Wang et al.'s PM is t = e^{ε/2}
// ([NewPM]), PM-SUB is t = e^{ε/3}, PM-OPT the t that minimises the worst
// case variance (the four papers write the family with different symbols;
// one implementation serves them all).
//
// With e = e^ε and input x in [-1, 1] the report has density
//
//	c = e·t(e-1)/(2(t+e)²) on [L(x), R(x)], d = c/e elsewhere on [-A, A],
//
// where A = (e+t)(t+1)/(t(e-1)), L(x) = (e+t)(xt-1)/(t(e-1)) and
// R(x) = (e+t)(xt+1)/(t(e-1)). The inner window has probability e/(t+e) and
// the report is unbiased with variance (eq. (31))
//
//	Var[Y|x] = (t+1)x²/(e-1) + (t+e)((t+1)³ + e - 1)/(3t²(e-1)²),
//
// largest at |x| = 1 (eq. (32)). The output range is [-A, A], not [-1, 1]
// (E3.11).
//
// Internally every constant is written with r = (e+t)/(t(e-1)), so that
// A = r(t+1), L = r(xt-1), R = r(xt+1), and r is evaluated as
// (1 + t·e^{-ε})/(t·(1 - e^{-ε})) with expm1: no cancellation as ε → 0 and
// no overflow of e^ε. The constants are accurate for ε up to about 700.
type Piecewise struct {
	name     string
	eps, t   float64
	r        float64 // (e+t)/(t(e-1)): half the inner window
	rt       float64 // r·t: the outer lengths are rt(1+x) and rt(1-x)
	a        float64 // A = r(t+1)
	pIn      float64 // e/(t+e)
	c, d     float64 // inner and outer densities
	cMinusD  float64 // c - d = d(e-1)
	invExpm1 float64 // 1/(e-1)
	// cases are the operands of the sampler's three cases (see report),
	// indexed by 2·[u < pIn] + [w < 1+x].
	cases [4]pwCase
}

// pwCase holds the operands of one case of [Piecewise.report]: the report
// is (r·(xt + e) + h) + q·(w - (1+x)·g).
type pwCase struct{ r, e, h, q, g float64 }

var _ interface {
	Mechanism
	Variancer
	Continuous
} = (*Piecewise)(nil)

// NewPiecewise returns the member of the piecewise family with width
// parameter t at budget eps, registered as name. eps and t must be finite
// and > 0.
func NewPiecewise(name string, eps, t float64) (*Piecewise, error) {
	if err := checkEpsilon(name, eps); err != nil {
		return nil, err
	}
	if math.IsNaN(t) || math.IsInf(t, 0) || t <= 0 {
		return nil, &ParamError{Mechanism: name, Param: "t", Value: t, Reason: "must be finite and > 0"}
	}
	te := t * math.Exp(-eps) // t/e
	oneMinus := -math.Expm1(-eps)
	r := (1 + te) / (t * oneMinus)
	pIn := 1 / (1 + te)
	d := math.Exp(-eps) / (2 * r * (1 + te)) // (1-pIn)/(2rt)
	m := &Piecewise{
		name:     name,
		eps:      eps,
		t:        t,
		r:        r,
		rt:       r * t,
		a:        r * (t + 1),
		pIn:      pIn,
		c:        pIn / (2 * r),
		d:        d,
		cMinusD:  d * math.Expm1(eps),
		invExpm1: 1 / math.Expm1(eps),
	}
	negZero := math.Copysign(0, -1)
	inner := pwCase{r: m.r, e: -1, h: negZero, q: m.r, g: 0}
	m.cases = [4]pwCase{
		{r: m.r, e: 1, h: negZero, q: m.rt, g: 1}, // outer, right side
		{r: 0, e: 0, h: -m.a, q: m.rt, g: 0},      // outer, left side
		inner, inner,
	}
	return m, nil
}

// NewPM returns Wang et al.'s piecewise mechanism PM (ICDE 2019; Du et al.
// Section 2.4, Raab et al. Definition 3): the piecewise family with
// t = e^{ε/2}, where A is Wang et al.'s C = (e^{ε/2}+1)/(e^{ε/2}-1) and L,
// R are their l(x), r(x).
func NewPM(eps float64) (*Piecewise, error) {
	if err := checkEpsilon("pm", eps); err != nil {
		return nil, err
	}
	return NewPiecewise("pm", eps, math.Exp(eps/2))
}

// Name returns the registry name given to the constructor.
func (m *Piecewise) Name() string { return m.name }

// Epsilon returns the privacy budget.
func (m *Piecewise) Epsilon() float64 { return m.eps }

// Domain returns [-1, 1].
func (m *Piecewise) Domain() (lo, hi float64) { return -1, 1 }

// T returns the width parameter t.
func (m *Piecewise) T() float64 { return m.t }

// Window returns the inner interval [L(x), R(x)], reported with
// probability e^ε/(t+e^ε).
func (m *Piecewise) Window(x float64) (l, r float64) {
	xt := x * m.t
	return m.r * (xt - 1), m.r * (xt + 1)
}

// Perturb returns one report of x from two uniforms (Zhao et al.
// Algorithms 3/4): the first chooses the inner window with probability
// e^ε/(t+e^ε), the second places the report uniformly in the window or in
// the outer part [-A, L) ∪ (R, A]. The outer sides are chosen by length,
// L+A = rt(1+x) and A-R = rt(1-x), so the left side has probability
// (1+x)/2; these lengths are never negative and a zero-length side
// (x = ±1) is never chosen.
func (m *Piecewise) Perturb(x float64, rng *rand.Rand) float64 {
	u := rng.Float64()
	w := 2 * rng.Float64()
	return m.report(x, u, w)
}

// report is the report of x for the uniform u, which chooses the window,
// and w = 2v, v the uniform that places the report. Perturb and
// PerturbBatch both use it, so a batch equals the same sequence of Perturb
// calls.
//
// With xt = x·t, and w uniform on [0, 2) (a point of the outer part, whose
// total length 2rt is measured in units of rt; [0, 1+x) is the left side),
// the three cases are
//
//	u < pIn:       r(xt-1) + r·w            L + (R-L)v, in the window;
//	w < 1+x:       -A + rt·w                on the left side;
//	otherwise:     r(xt+1) + rt(w-(1+x))    on the right side,
//
// each operation rounded in turn. The case is found without a branch and
// its operands are looked up (cases) rather than all three computed and
// selected. Every case is written as (r'·(xt + e) + h) + q·(w - (1+x)·g),
// which is bit for bit the expression above: r' = r and e = ∓1 in the
// window and on the right side, multiplying by g = 1 is exact, and adding
// h = -0 leaves any value unchanged; on the left side r' = 0 and g = 0
// give 0·(xt + 0) + (-A) = -A and w - (1+x)·0 = w, exactly, as xt is
// finite and 1+x ≥ 0. (r·w is the correctly rounded 2rv, as is the (2r)·v
// of the algorithm, since 2r and 2v are exact.)
//
// The float64 conversions forbid the compiler to fuse a product and a sum
// into one FMA (arm64 does by default, amd64 with GOAMD64=v3): it would
// change the rounding, and could do so differently where report is inlined
// into Perturb and into PerturbBatch. Keep report within the compiler's
// inlining budget (go build -gcflags=-m says "can inline
// (*Piecewise).report"): PerturbBatch's loop relies on it (see batchBlock).
func (m *Piecewise) report(x, u, w float64) float64 {
	c := &m.cases[2*b2i(u < m.pIn)+b2i(w < 1+x)]
	return float64(c.r*(float64(x*m.t)+c.e)) + c.h + float64(c.q*(w-float64((1+x)*c.g)))
}

// PerturbBatch writes a report of xs[i] to dst[i]; dst may be xs.
func (m *Piecewise) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	if err := checkInputs(m.name, xs, -1, 1); err != nil {
		return err
	}
	dst = batchDst(dst, len(xs))
	for i, x := range xs {
		u := rng.Float64()
		w := 2 * rng.Float64()
		dst[i] = m.report(x, u, w)
	}
	return nil
}

// Variance returns eq. (31), (t+1)x²/(e-1) + (t+e)((t+1)³+e-1)/(3t²(e-1)²),
// written as (t+1)x²/(e-1) + r((t+1)³/(e-1) + 1)/(3t).
func (m *Piecewise) Variance(x float64) float64 {
	t1 := m.t + 1
	k := t1 * m.invExpm1 // (t+1)/(e-1), then multiplied up without overflow
	return k*x*x + m.r*(k*t1*t1+1)/(3*m.t)
}

// WorstCaseVariance returns eq. (32): the variance at |x| = 1, since eq.
// (31) increases with x².
func (m *Piecewise) WorstCaseVariance() float64 { return m.Variance(1) }

// OutputRange returns [-A, A].
func (m *Piecewise) OutputRange() (lo, hi float64) { return -m.a, m.a }

// Density returns c on [L(x), R(x)], d elsewhere on [-A, A] and 0 outside.
func (m *Piecewise) Density(y, x float64) float64 {
	if y < -m.a || y > m.a {
		return 0
	}
	if l, r := m.Window(x); y >= l && y <= r {
		return m.c
	}
	return m.d
}

// CDF returns Pr[Y ≤ y | x].
func (m *Piecewise) CDF(y, x float64) float64 {
	if y <= -m.a {
		return 0
	}
	if y >= m.a {
		return 1
	}
	return m.d*(y+m.a) + m.cMinusD*windowOverlap(-m.a, y, m.r*x*m.t, m.r)
}

// prob returns Pr[ylo < Y ≤ yhi | x] as d·|bucket ∩ [-A, A]| +
// (c-d)·|bucket ∩ [L, R]|: no difference of CDFs, so small buckets keep
// their relative accuracy.
func (m *Piecewise) prob(ylo, yhi, x float64) float64 {
	return m.d*overlap(ylo, yhi, -m.a, m.a) + m.cMinusD*windowOverlap(ylo, yhi, m.r*x*m.t, m.r)
}

// BucketGivenBin returns Pr[ylo < Y ≤ yhi] for x uniform on [xlo, xhi],
// exactly: Pr[ylo < Y ≤ yhi | x] is piecewise linear in x with kinks where
// L(x) or R(x) crosses ylo or yhi, and is integrated piece by piece.
func (m *Piecewise) BucketGivenBin(ylo, yhi, xlo, xhi float64) float64 {
	if !(ylo < yhi) {
		return 0
	}
	f := func(x float64) float64 { return m.prob(ylo, yhi, x) }
	// L(x) = y at x = (y/r+1)/t; R(x) = y at x = (y/r-1)/t.
	kinks := [4]float64{
		(ylo/m.r + 1) / m.t, (yhi/m.r + 1) / m.t,
		(ylo/m.r - 1) / m.t, (yhi/m.r - 1) / m.t,
	}
	return avgPiecewiseLinear(f, xlo, xhi, kinks)
}
