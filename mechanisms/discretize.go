package mechanisms

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
)

// MaxDiscretizeM is the largest grid parameter m that [NewDiscretized]
// accepts: the output alphabet holds 2m+1 values.
const MaxDiscretizeM = 1 << 20

// Mixture is implemented by mechanisms that report through one of two
// components chosen independently of the input: with probability
// pContinuous the continuous one, otherwise the discrete one (Wang et al.'s
// HM: PM and Duchi; Zhao et al.'s HM-TP: PM-SUB and Three-Outputs). Both
// components are unbiased on [-1, 1] at the mixture's budget.
//
// [NewDiscretized] rounds only the continuous component's draw (Zhao et al.
// do not say whether the discrete one is rounded too; its outputs already
// have at most three levels), so a mixture plugs into Algorithm 5 by
// implementing this one method; its continuous component must be a
// [*Piecewise] and its discrete one must implement [Discrete] and
// [Variancer].
type Mixture interface {
	Mechanism
	Components() (continuous, discrete Mechanism, pContinuous float64)
}

// Discretized is Zhao et al.'s discretisation post-processing (Algorithm 5,
// Section V-D, Lemmas 8–9) of a mechanism with a bounded continuous output
// [-C_b, C_b]: a report y is rounded at random to one of its two neighbours
// on the grid {i·C_b/m: i = -m … m} (2m+1 values, eq. (34)), the upper one
// with probability m·y/C_b - ⌊m·y/C_b⌋ (eq. (35)), so that E[Z | y] = y and
// the report stays unbiased. C_b is the inner mechanism's own output bound
// (A for the piecewise family, C for PM; ERRATA E3.19). Being
// post-processing, it keeps ε-LDP; [Discretized.Probabilities] gives the
// exact law so that this can be checked.
//
// The inner mechanism is a member of the piecewise family ([*Piecewise]:
// PM, PM-SUB, PM-OPT), whose density is c on the window [L(x), R(x)] and d
// elsewhere on [-A, A], or a [Mixture] whose continuous component is one
// (HM, HM-TP), of which only the continuous draw is rounded. The added
// variance is then exact in closed form (see [Discretized.Variance]).
type Discretized struct {
	name string
	eps  float64
	m    int
	cb   float64 // C_b = A
	h    float64 // grid step C_b/m
	invH float64 // m/C_b

	cont   *Piecewise
	c, d   float64 // densities of cont on and off its window
	slope  float64 // dL/dx = dR/dx = rt
	l0, r0 float64 // window at x = 0

	disc  Mechanism // discrete component of a Mixture, or nil
	discD Discrete
	discV Variancer
	p     float64 // probability of the continuous component (1 without a mixture)

	outs   []float64 // the alphabet, increasing
	gridAt []int     // gridAt[i+m]: index in outs of the grid value i·h
	discAt []int     // index in outs of each discrete-component output
	worst  float64
}

var _ interface {
	Mechanism
	Variancer
	Discrete
} = (*Discretized)(nil)

// NewDiscretized returns Algorithm 5 with 2m+1 output levels applied to
// inner, which must be a [*Piecewise] or a [Mixture] with a [*Piecewise]
// continuous component (see [Discretized]); any other mechanism gives an
// error, since its added variance would not be exact. m must be in
// [1, MaxDiscretizeM]. The construction costs O(m) (the output alphabet and
// the exact worst case).
func NewDiscretized(inner Mechanism, m int) (*Discretized, error) {
	name := "discretize(" + inner.Name() + ",m=" + strconv.Itoa(m) + ")"
	if m < 1 || m > MaxDiscretizeM {
		return nil, &ParamError{Mechanism: name, Param: "m", Value: float64(m), Reason: fmt.Sprintf("must be an integer in [1, %d]", MaxDiscretizeM)}
	}
	if lo, hi := inner.Domain(); lo != -1 || hi != 1 {
		return nil, fmt.Errorf("%s: the inner mechanism's domain is [%v, %v], want [-1, 1]", name, lo, hi)
	}
	if _, ok := inner.(Debiaser); ok {
		return nil, fmt.Errorf("%s: the inner mechanism is biased; Algorithm 5 needs an unbiased report", name)
	}
	z := &Discretized{name: name, eps: inner.Epsilon(), m: m, p: 1}
	switch v := inner.(type) {
	case *Piecewise:
		z.cont = v
	case Mixture:
		c, d, p := v.Components()
		pc, ok := c.(*Piecewise)
		if !ok {
			return nil, fmt.Errorf("%s: the continuous component %s is not a member of the piecewise family: no exact variance after rounding", name, c.Name())
		}
		dd, ok1 := d.(Discrete)
		dv, ok2 := d.(Variancer)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("%s: the discrete component %s must implement Discrete and Variancer", name, d.Name())
		}
		if !(p >= 0 && p <= 1) {
			return nil, fmt.Errorf("%s: the probability of the continuous component is %v, not in [0, 1]", name, p)
		}
		if lo, hi := d.Domain(); lo != -1 || hi != 1 {
			return nil, fmt.Errorf("%s: the discrete component's domain is [%v, %v], want [-1, 1]", name, lo, hi)
		}
		z.cont, z.disc, z.discD, z.discV, z.p = pc, d, dd, dv, p
		if err := checkPiecewiseQuadratic(dv); err != nil {
			return nil, fmt.Errorf("%s: discrete component %s: %w", name, d.Name(), err)
		}
	case Discrete:
		return nil, fmt.Errorf("%s: %s is discrete already (%d outputs); Algorithm 5 rounds continuous reports", name, inner.Name(), len(v.Outputs()))
	default:
		return nil, fmt.Errorf("%s: %s is neither a member of the piecewise family nor a Mixture with one: its density is not known to be piecewise constant, so the variance after rounding would not be exact", name, inner.Name())
	}
	lo, hi := z.cont.OutputRange()
	if lo != -hi || !(hi > 0) || math.IsInf(hi, 0) {
		return nil, fmt.Errorf("%s: output range [%v, %v] is not a finite symmetric interval", name, lo, hi)
	}
	z.cb = hi
	z.h = hi / float64(m)
	z.invH = float64(m) / hi
	z.l0, z.r0 = z.cont.Window(0)
	_, r1 := z.cont.Window(1)
	z.slope = r1 - z.r0
	z.c = z.cont.Density(0, 0)
	z.d = z.cont.Density((z.r0+hi)/2, 0)
	z.buildOutputs()
	z.worst = z.maxVariance()
	return z, nil
}

// checkPiecewiseQuadratic checks that v.Variance is a polynomial of degree
// at most 2 on [-1, 0] and on [0, 1] (true of Duchi, Three-Outputs and the
// piecewise family), which the exact worst case relies on.
func checkPiecewiseQuadratic(v Variancer) error {
	for _, s := range []float64{-1, 1} {
		f0, f1, f2 := v.Variance(0), v.Variance(s/2), v.Variance(s)
		scale := max(math.Abs(f0), math.Abs(f1), math.Abs(f2), 1e-300)
		for _, u := range []float64{0.25, 0.75} {
			// Lagrange interpolation through 0, 1/2, 1 (in units of s).
			q := f0*(u-0.5)*(u-1)/0.5 - f1*u*(u-1)/0.25 + f2*u*(u-0.5)/0.5
			if got := v.Variance(s * u); !(math.Abs(got-q) <= 1e-9*scale) {
				return fmt.Errorf("Variance is not quadratic on [%v, %v] (at x = %v: %v, quadratic through 0, %v, %v: %v)", min(0, s), max(0, s), s*u, got, s/2, s, q)
			}
		}
	}
	return nil
}

// buildOutputs fills the alphabet: the grid, merged with the discrete
// component's outputs for a mixture.
func (z *Discretized) buildOutputs() {
	m := z.m
	grid := make([]float64, 2*m+1)
	for i := -m; i <= m; i++ {
		grid[i+m] = z.gridValue(i)
	}
	z.gridAt = make([]int, 2*m+1)
	if z.disc == nil {
		z.outs = grid
		for i := range z.gridAt {
			z.gridAt[i] = i
		}
		return
	}
	douts := z.discD.Outputs()
	all := slices.Concat(grid, douts)
	slices.Sort(all)
	z.outs = slices.Compact(all)
	for i, g := range grid {
		z.gridAt[i] = sort.SearchFloat64s(z.outs, g)
	}
	z.discAt = make([]int, len(douts))
	for j, o := range douts {
		z.discAt[j] = sort.SearchFloat64s(z.outs, o)
	}
}

// gridValue is the grid point i·C_b/m; Perturb and Outputs both use it, so
// that every report is bit-for-bit an element of Outputs.
func (z *Discretized) gridValue(i int) float64 { return float64(i) * z.h }

// Name returns "discretize(<inner>,m=<m>)".
func (z *Discretized) Name() string { return z.name }

// Epsilon returns the inner mechanism's budget (post-processing spends
// none).
func (z *Discretized) Epsilon() float64 { return z.eps }

// Domain returns [-1, 1].
func (z *Discretized) Domain() (lo, hi float64) { return -1, 1 }

// M returns the grid parameter m: the grid has 2m+1 points.
func (z *Discretized) M() int { return z.m }

// Bound returns C_b, the inner output bound: the grid spans [-C_b, C_b].
func (z *Discretized) Bound() float64 { return z.cb }

// Bits returns ⌈log2 |Outputs()|⌉, the length of a fixed-length code of a
// report: ⌈log2(2m+1)⌉ for the piecewise family (not stated by the paper),
// more when a mixture's discrete outputs lie off the grid (HM's ±C_D).
func (z *Discretized) Bits() int { return bits.Len(uint(len(z.outs) - 1)) }

// round applies eq. (35) to y with the uniform u: the lower neighbour
// k·C_b/m with probability k+1-m·y/C_b, else the upper one. y is clamped to
// [-C_b, C_b]; y = C_b gives C_b; a y on the grid gives y.
func (z *Discretized) round(y, u float64) float64 {
	s := min(max(y*z.invH, -float64(z.m)), float64(z.m))
	// y·(m/C_b) may miss the integer i by an ulp when y = i·C_b/m: keep
	// grid values exactly.
	if g := z.gridValue(int(math.Round(s))); g == y {
		return g
	}
	k := min(int(math.Floor(s)), z.m-1)
	i := k
	if u < s-float64(k) {
		i++
	}
	return z.gridValue(i)
}

// Perturb returns one report of x: the inner report rounded to the grid
// (for a mixture, the continuous component's draw rounded or the discrete
// component's report as it is). It does not allocate.
func (z *Discretized) Perturb(x float64, rng *rand.Rand) float64 {
	if z.disc != nil && !(rng.Float64() < z.p) {
		return z.disc.Perturb(x, rng)
	}
	y := z.cont.Perturb(x, rng)
	return z.round(y, rng.Float64())
}

// PerturbBatch writes a report of xs[i] to dst[i]; dst may be xs.
func (z *Discretized) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	if err := checkInputs(z.name, xs, -1, 1); err != nil {
		return err
	}
	dst = dst[:len(xs)]
	for i, x := range xs {
		dst[i] = z.Perturb(x, rng)
	}
	return nil
}

// phi is Φ(y) = ∫_0^y g, where g(y) = (y-a)(a+h-y), a = ⌊y/h⌋h, is the
// conditional variance of the rounding given Y = y (periodic, h³/6 per
// cell): Φ(y) = q·h³/6 + h·u²/2 - u³/3 with q = ⌊y/h⌋, u = y - qh.
func (z *Discretized) phi(y float64) float64 {
	h := z.h
	q := math.Floor(y * z.invH)
	u := min(max(y-q*h, 0), h)
	return q*h*h*h/6 + u*u*(h/2-u/3)
}

// roundingVariance returns E[(Y-z_lo)(z_hi-Y) | x] for the continuous
// component: d·∫_{-A}^{A} g + (c-d)·∫_L^R g, the first term being
// 2m·h³/6 exactly (the range is 2m whole cells).
func (z *Discretized) roundingVariance(x float64) float64 {
	l, r := z.cont.Window(x)
	h := z.h
	return z.d*float64(z.m)*h*h*h/3 + (z.c-z.d)*(z.phi(r)-z.phi(l))
}

// Variance returns the exact variance of a report of x:
// Var[Z|x] = Var[Y|x] + E[(Y-z_lo)(z_hi-Y) | x], since E[Z|Y] = Y and
// Var[Z|Y=y] = (y-z_lo)(z_hi-y) (Lemma 8). The second term integrates this
// piecewise quadratic against the piecewise constant density in closed form
// ([Discretized.phi]); it is at most (C_b/m)²/4. For a mixture with
// probability p of the continuous component it is
// p·(Var_cont + rounding) + (1-p)·Var_disc.
func (z *Discretized) Variance(x float64) float64 {
	v := z.cont.Variance(x) + z.roundingVariance(x)
	if z.disc == nil {
		return v
	}
	return z.p*v + (1-z.p)*z.discV.Variance(x)
}

// WorstCaseVariance returns the maximum of Variance over [-1, 1], computed
// exactly at construction (see maxVariance). By Lemma 9 it is at least the
// inner mechanism's worst case.
func (z *Discretized) WorstCaseVariance() float64 { return z.worst }

// maxVariance maximises Variance exactly. Between consecutive x at which
// L(x) or R(x) crosses a grid point (and x = 0, the kink of |x| in a
// mixture's discrete variance), Variance is a quadratic polynomial in x:
// Var[Y|x] is quadratic on each half (checked at construction), and in
// Φ(R(x)) - Φ(L(x)) the cubic terms -(R-a_R)³/3 + (L-a_L)³/3 cancel because
// L and R have the same slope. The maximum over each piece is at an end or
// at the vertex of the quadratic through the piece's ends and midpoint, and
// Variance itself is evaluated there; so the result is the exact maximum up
// to rounding, with O(m) pieces.
func (z *Discretized) maxVariance() float64 {
	xs := []float64{-1, 0, 1}
	s := z.slope
	// L(x) = l0 + s·x, R(x) = r0 + s·x for x in (-1, 1).
	for _, e0 := range []float64{z.l0, z.r0} {
		lo := int(math.Ceil((e0 - s) * z.invH))
		hi := int(math.Floor((e0 + s) * z.invH))
		for i := lo; i <= hi; i++ {
			if x := (z.gridValue(i) - e0) / s; x > -1 && x < 1 {
				xs = append(xs, x)
			}
		}
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
	best := math.Inf(-1)
	for i, a := range xs {
		fa := z.Variance(a)
		best = max(best, fa)
		if i+1 == len(xs) {
			break
		}
		b := xs[i+1]
		mid := (a + b) / 2
		half := (b - a) / 2
		fb, fm := z.Variance(b), z.Variance(mid)
		// f(mid+u) = fm + β·u + γ·u² on [-half, half].
		beta := (fb - fa) / (2 * half)
		gamma := (fb + fa - 2*fm) / (2 * half * half)
		if gamma < 0 {
			if u := -beta / (2 * gamma); u > -half && u < half {
				best = max(best, z.Variance(mid+u))
			}
		}
	}
	return best
}

// Outputs returns the alphabet in increasing order: the 2m+1 grid values
// i·C_b/m, and for a mixture also the discrete component's outputs. The
// slice belongs to the mechanism.
func (z *Discretized) Outputs() []float64 { return z.outs }

// hatIntegral returns ∫_p^q w_i(y) dy for the hat w_i(y) = max(0,
// 1-|y/h-i|), the probability that a report y is rounded to grid point i:
// h·[K(s_q) - K(s_p)], K(s) = s - s|s|/2 and s = y/h - i clamped to
// [-1, 1].
func (z *Discretized) hatIntegral(i int, p, q float64) float64 {
	k := func(y float64) float64 {
		s := min(max(y*z.invH-float64(i), -1), 1)
		return s - s*math.Abs(s)/2
	}
	return z.h * (k(q) - k(p))
}

// Probabilities writes Pr[Z = Outputs()[i] | x] to dst[i], exactly: the
// probability of grid point i is ∫ f(y|x)·w_i(y) dy with the hat w_i of the
// linear rounding weights, d·h (d·h/2 at ±C_b) plus (c-d)·∫_L^R w_i, in
// closed form. For a mixture the continuous part is weighted by p and the
// discrete component's probabilities by 1-p. It costs O(m) and does not
// allocate for discrete components of up to 8 outputs.
func (z *Discretized) Probabilities(x float64, dst []float64) {
	dst = dst[:len(z.outs)]
	// The discrete component's probabilities are computed into dst first
	// and copied out, so that no scratch escapes to the heap.
	var buf [8]float64
	var ps []float64
	if z.disc != nil {
		nd := len(z.discAt)
		z.discD.Probabilities(x, dst[:nd])
		ps = buf[:0]
		if nd > len(buf) {
			ps = make([]float64, 0, nd)
		}
		ps = append(ps, dst[:nd]...)
	}
	clear(dst)
	m := z.m
	l, r := z.cont.Window(x)
	base := z.d * z.h * z.p
	for i := -m; i <= m; i++ {
		w := base
		if i == -m || i == m {
			w /= 2
		}
		dst[z.gridAt[i+m]] += w
	}
	ilo := max(int(math.Floor(l*z.invH))-1, -m)
	ihi := min(int(math.Ceil(r*z.invH))+1, m)
	for i := ilo; i <= ihi; i++ {
		dst[z.gridAt[i+m]] += z.p * (z.c - z.d) * z.hatIntegral(i, l, r)
	}
	for j, pj := range ps {
		dst[z.discAt[j]] += (1 - z.p) * pj
	}
}
