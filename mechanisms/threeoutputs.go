package mechanisms

import (
	"math"
	"math/rand/v2"
)

// ThreeOutputs is Zhao et al.'s Three-Outputs mechanism (Section V-A,
// Algorithm 2, Appendices A–F): an input x in [-1, 1] is reported as -C, 0
// or C.
//
// With e = e^ε and a = P[0 | 0] the output magnitude is
// C = e(e+1)/((e-1)(e-a)) (eqs. (49), (73)) and, for 0 ≤ x ≤ 1,
//
//	P[C | x]  = (1-a)/2 + ((e-a)/(e+1) - (1-a)/2)·x          (eq. (3))
//	P[-C | x] = (1-a)/2 - ((1-a)/2 - (e-a)/(e(e+1)))·x       (eq. (2) corrected, E3.1)
//	P[0 | x]  = a - (a - a/e)·|x|                             (eq. (4) corrected, E3.2)
//
// and P[±C | x] = P[∓C | -x] for x < 0. The paper prints eq. (2) with the
// opposite sign of the x term and eq. (4) without |x|; as printed the three
// probabilities do not sum to 1 for x ≠ 0. Every probability is linear in
// x on [-1, 0] and on [0, 1], with the end values P[C | 1] = (e-a)/(e+1),
// P[-C | 1] = (e-a)/(e(e+1)), P[0 | 1] = a/e, P[±C | 0] = (1-a)/2 and
// P[0 | 0] = a (eqs. (48)–(50)), and is computed as the convex combination
// of its end values: a sum of non-negative terms, accurate to a few ulps
// even where it is tiny (large ε). The report is unbiased; the ratio of
// each output's largest to smallest probability is e^ε (attained by ±C
// between x = ±1) when 0 ≤ a ≤ e/(e+2), and a > e/(e+2) would break ε-LDP
// (P[C | 1]/P[C | 0] > e^ε).
//
// The variance is (eq. (25)) Var[Y|x] = C²(1-a) + C²·b·|x| - x² with
// b = a(1 - 1/e), concave in |x| with its vertex at |x| = C²b/2 (eq. (78)),
// so the worst case is at min(C²b/2, 1) (eqs. (76)–(77)). It is evaluated
// in the equivalent form C²(4pq + r(p+q)), p = P[C|x], q = P[-C|x],
// r = P[0|x] (from p+q+r = 1 and C(p-q) = x), a sum of non-negative terms
// that keeps its relative accuracy where the variance is small.
//
// a = 0 (ε < ln 2) is Duchi et al.'s mechanism with an unused output 0.
// [NewThreeOutputs] uses the a that minimises the worst case,
// [ThreeOutputsA].
type ThreeOutputs struct {
	name  string
	eps   float64
	a     float64 // P[0 | 0]
	c     float64 // C
	half0 float64 // (1-a)/2 = P[±C | 0]
	near1 float64 // (e-a)/(e+1) = P[C | 1] = P[-C | -1]
	far1  float64 // (e-a)/(e(e+1)) = P[-C | 1] = P[C | -1]
	zero1 float64 // a/e = P[0 | ±1]
	slope float64 // C²b, the coefficient of |x| in the variance
	c2    float64 // C²
	out   [3]float64
	// tab holds the sampler's reports (see pick), indexed by
	// 3·[x < 0] + [u < far] + [u < far + zero].
	tab [6]float64
}

var _ interface {
	Mechanism
	Variancer
	Discrete
} = (*ThreeOutputs)(nil)

// NewThreeOutputs returns Three-Outputs at budget eps with the optimal
// a = [ThreeOutputsA](eps), registered as "three-outputs". Its worst-case
// variance is eq. (122): ((e+1)/(e-1))² for ε < ln 2 (Duchi),
// f1(a(ε)) of eq. (76) for ln 2 ≤ ε ≤ ε′ and (e+2)(e+10)/(4(e-1)²) above
// ε′ = ln((3+√65)/2).
func NewThreeOutputs(eps float64) (*ThreeOutputs, error) {
	if err := checkEpsilon("three-outputs", eps); err != nil {
		return nil, err
	}
	a, oneMin := optimalA(eps)
	return newThreeOutputs("three-outputs", eps, a, oneMin), nil
}

// NewThreeOutputsA returns Three-Outputs with a given a = P[0 | 0],
// registered as name; a must lie in [0, e^ε/(e^ε+2)], the range in which
// the mechanism is ε-LDP.
func NewThreeOutputsA(name string, eps, a float64) (*ThreeOutputs, error) {
	if err := checkEpsilon(name, eps); err != nil {
		return nil, err
	}
	amax := 1 / (1 + 2*math.Exp(-eps)) // e/(e+2)
	if !(a >= 0 && a <= amax*(1+4e-16)) {
		return nil, &ParamError{Mechanism: name, Param: "a", Value: a, Reason: "must be in [0, e^ε/(e^ε+2)] for ε-LDP"}
	}
	a = min(a, amax)
	return newThreeOutputs(name, eps, a, 1-a), nil
}

// epsPrime is ε′ = ln((3+√65)/2) of eq. (8): above it a = e/(e+2).
var epsPrime = math.Log((3 + math.Sqrt(65)) / 2)

// ThreeOutputsA returns the a = P[0 | 0] that minimises Three-Outputs'
// worst-case variance (eq. (5) corrected, E3.3):
//
//   - 0 for ε < ln 2;
//   - for ln 2 ≤ ε ≤ ε′ = ln((3+√65)/2), the root in [0, e/(e+2)] of the
//     cubic (92) 2a³ + a²(-e²-5-4e) + a(7e-4e²-e³) + (2e³-4e²) = 0;
//   - e/(e+2) for ε > ε′ (the ε-LDP bound on a).
//
// The cubic is 2e²(e-2) ≥ 0 at a = 0 and ≤ 0 at a = e/(e+2) on
// [ln 2, ε′] (zero at the ends), with one root in between; the root is
// found by bisection down to adjacent floats, with the constant term
// written 4e²·expm1(ε - ln 2) so that the small a just above ln 2 keeps its
// relative accuracy. The paper's trigonometric form, which prints Δ0 for
// Δ0^{3/2} in the arccos (E3.3) and is NaN as printed, is kept in the tests
// as a cross-check (with the argument clamped to [-1, 1]).
func ThreeOutputsA(eps float64) float64 {
	a, _ := optimalA(eps)
	return a
}

// optimalA returns ThreeOutputsA(eps) and 1 - a, the latter accurate for
// a close to 1 (large ε).
func optimalA(eps float64) (a, oneMinusA float64) {
	switch {
	case !(eps > 0):
		return math.NaN(), math.NaN()
	case eps < math.Ln2:
		return 0, 1
	case eps > epsPrime:
		em2 := 2 * math.Exp(-eps)
		return 1 / (1 + em2), em2 / (1 + em2)
	}
	e := math.Exp(eps)
	c2 := -(e*e + 4*e + 5)
	c1 := 7*e - 4*e*e - e*e*e
	c0 := 4 * e * e * math.Expm1(eps-math.Ln2) // 2e²(e-2)
	g := func(a float64) float64 { return ((2*a+c2)*a+c1)*a + c0 }
	hi := e / (e + 2)
	if g(hi) >= 0 { // ε = ε′ up to rounding
		return hi, 1 - hi
	}
	lo, hi := bisectAdjacent(0, hi, func(a float64) bool { return g(a) > 0 })
	a = hi
	if math.Abs(g(lo)) < math.Abs(g(hi)) {
		a = lo
	}
	return a, 1 - a
}

// newThreeOutputs builds the mechanism from a and 1 - a (passed separately
// so that 1 - a keeps its relative accuracy when a is close to 1).
func newThreeOutputs(name string, eps, a, oneMin float64) *ThreeOutputs {
	em := math.Exp(-eps)                       // 1/e
	sig := 1 / (1 + em)                        // e/(e+1)
	sigc := em / (1 + em)                      // 1/(e+1)
	oneMinusAOverE := 1 - a*em                 // (e-a)/e
	c := 1 / math.Tanh(eps/2) / oneMinusAOverE // (e+1)/(e-1) · e/(e-a)
	b := -a * math.Expm1(-eps)                 // a(1 - 1/e)
	return &ThreeOutputs{
		name:  name,
		eps:   eps,
		a:     a,
		c:     c,
		half0: oneMin / 2,
		near1: oneMinusAOverE * sig,
		far1:  oneMinusAOverE * sigc,
		zero1: a * em,
		slope: c * c * b,
		c2:    c * c,
		out:   [3]float64{-c, 0, c},
		// x ≥ 0: C, 0, -C; x < 0: -C, 0, C.
		tab: [6]float64{c, 0, -c, -c, 0, c},
	}
}

// Name returns the registry name.
func (m *ThreeOutputs) Name() string { return m.name }

// Epsilon returns the privacy budget.
func (m *ThreeOutputs) Epsilon() float64 { return m.eps }

// Domain returns [-1, 1].
func (m *ThreeOutputs) Domain() (lo, hi float64) { return -1, 1 }

// A returns a = P[0 | 0].
func (m *ThreeOutputs) A() float64 { return m.a }

// C returns the output magnitude C = e(e+1)/((e-1)(e-a)).
func (m *ThreeOutputs) C() float64 { return m.c }

// probs returns, at |x| = ax, the probability of the output on x's side
// (C for x ≥ 0), of the opposite one and of 0.
func (m *ThreeOutputs) probs(ax float64) (near, far, zero float64) {
	bx := 1 - ax
	return bx*m.half0 + ax*m.near1, bx*m.half0 + ax*m.far1, bx*m.a + ax*m.zero1
}

// Perturb returns -C, 0 or C, drawing one uniform (Algorithm 2, by the
// cumulative probabilities: far side, then 0, then x's side).
func (m *ThreeOutputs) Perturb(x float64, rng *rand.Rand) float64 {
	far, cum := m.cuts(math.Abs(x))
	return m.pick(x, rng.Float64(), far, cum)
}

// cuts returns the cumulative probabilities at |x| = ax of the sampler
// (Perturb): far, of the output opposite x's side, and cum = far + zero,
// zero the probability of 0, as [ThreeOutputs.probs] computes them.
//
// The report of x for the uniform u is pick(x, u, cuts(|x|)). Perturb and
// the batch loops (PerturbBatch, [Hybrid]'s) all make it so, and the
// compiler inlines both into each (go build -gcflags=-m says "can inline"
// for both; the two together exceed its inlining budget), so a batch
// equals the same sequence of Perturb calls and its loop has no call (see
// batchBlock). The float64 conversions forbid the compiler to fuse a
// product and a sum into one FMA (see [Piecewise.report]): each operation
// is rounded in turn on every platform.
func (m *ThreeOutputs) cuts(ax float64) (far, cum float64) {
	bx := 1 - ax
	far = float64(bx*m.half0) + float64(ax*m.far1)
	return far, far + (float64(bx*m.a) + float64(ax*m.zero1))
}

// pick returns the report of x for the uniform u, given x's cumulative
// probabilities (cuts): -s if u < far, 0 if u < cum and s otherwise, s = C
// on x's side (-C if x < 0, C otherwise, also for x = -0). The case is
// found without a branch, as the number of the cumulative probabilities u
// is below (u < far implies u < cum, as zero ≥ 0), and the report is
// looked up (tab) with x's side.
func (m *ThreeOutputs) pick(x, u, far, cum float64) float64 {
	return m.tab[3*b2i(x < 0)+b2i(u < far)+b2i(u < cum)]
}

// PerturbBatch writes a report of xs[i] to dst[i]; dst may be xs.
func (m *ThreeOutputs) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	if err := checkInputs(m.name, xs, -1, 1); err != nil {
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
		u, x, d := us[:n], xs[:n], dst[:n]
		drawUniforms(u, rng)
		for i := range d {
			far, cum := m.cuts(math.Abs(x[i]))
			d[i] = m.pick(x[i], u[i], far, cum)
		}
		xs, dst = xs[n:], dst[n:]
	}
	return nil
}

// Variance returns eq. (25), C²(1-a) + C²b|x| - x², evaluated as
// C²(4pq + r(p+q)).
func (m *ThreeOutputs) Variance(x float64) float64 {
	p, q, r := m.probs(math.Abs(x))
	return m.c2 * (4*p*q + r*(p+q))
}

// WorstCaseVariance returns the variance at |x| = min(C²b/2, 1), the
// maximiser of the concave quadratic eq. (25) over [0, 1] (eqs. (76)–(78));
// at the optimal a this is eq. (122).
func (m *ThreeOutputs) WorstCaseVariance() float64 {
	return m.Variance(min(m.slope/2, 1))
}

// VarianceVertex returns C²b/2, the |x| at which eq. (25) peaks (it may
// exceed 1, and is 0 when a = 0).
func (m *ThreeOutputs) VarianceVertex() float64 { return m.slope / 2 }

// Outputs returns {-C, 0, C}. The slice belongs to the mechanism.
func (m *ThreeOutputs) Outputs() []float64 { return m.out[:] }

// Probabilities writes P[-C | x], P[0 | x] and P[C | x] to dst[0..2].
func (m *ThreeOutputs) Probabilities(x float64, dst []float64) {
	near, far, zero := m.probs(math.Abs(x))
	if x < 0 {
		near, far = far, near
	}
	dst[0], dst[1], dst[2] = far, zero, near
}
