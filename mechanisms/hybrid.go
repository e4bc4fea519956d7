package mechanisms

import (
	"math"
	"math/rand/v2"
)

// Atoms is implemented by [Continuous] mechanisms whose report also has
// point masses at fixed outputs: a [Mixture] with a [Discrete] component
// ([Hybrid]).
// The law of the report is then the sum of two mutually singular parts,
//
//   - the atoms: P[Y = AtomOutputs()[i] | x] = AtomProbabilities(x)[i], and
//   - an absolutely continuous part of density Density(y, x), which
//     integrates to 1 minus the atoms' total mass;
//
// and CDF and BucketGivenBin give probabilities of the whole law, atoms
// included (a bucket (ylo, yhi] holds the atoms o with ylo < o ≤ yhi), so
// that a transition matrix built from them has columns summing to 1, while
// Density is that of the continuous part alone (a point mass has no
// density). The atom positions do not depend on x, so the mechanism is
// ε-LDP if and only if both parts satisfy the ratio bound: each atom's
// probability ratio over inputs and the density ratio at every y are at
// most e^ε.
type Atoms interface {
	// AtomOutputs returns the atom positions in increasing order, strictly
	// inside OutputRange. The slice belongs to the mechanism.
	AtomOutputs() []float64
	// AtomProbabilities writes P[Y = AtomOutputs()[i] | x] to dst[i].
	AtomProbabilities(x float64, dst []float64)
}

// hybridDiscrete is the discrete component of a [Hybrid]: Duchi or
// Three-Outputs, whose output probabilities are linear in x on [-1, 0] and
// on [0, 1] (so that their average over an input bin is exact by the
// midpoint rule on each side of 0) and whose variance is a quadratic in
// |x|.
type hybridDiscrete interface {
	Mechanism
	Variancer
	Discrete
}

// Hybrid is a two-component [Mixture]: with probability w a member of the
// piecewise family (continuous), otherwise a discrete mechanism, chosen
// independently of the input. It serves Wang et al.'s HM ([NewHM]: PM and
// Duchi, w = α) and Zhao et al.'s HM-TP ([NewHMTP]: PM-SUB and
// Three-Outputs, w = β).
//
// Mixing with an input-independent weight preserves ε-LDP: both components
// are ε-LDP at the hybrid's ε, so for every set S
// P[Y ∈ S | x] = w·P_pw[S|x] + (1-w)·P_d[S|x]
// ≤ e^ε·(w·P_pw[S|x′] + (1-w)·P_d[S|x′]) = e^ε·P[Y ∈ S | x′]. Both
// components are unbiased, so the hybrid is, with variance
// w·Var_pw(x) + (1-w)·Var_d(x).
//
// A hybrid is neither purely discrete nor purely continuous. It implements
// [Continuous] with the discrete component's outputs as point masses
// ([Atoms]): Density is w times the piecewise density, CDF and
// BucketGivenBin add (1-w) times the discrete probabilities of the outputs
// in range (exactly: the piecewise part by its own exact BucketGivenBin,
// the discrete part by the midpoint rule on each side of x = 0, exact for
// probabilities linear there). Its output range is the hull of the
// components' ranges (also when a weight is 0), so that the atoms lie
// strictly inside it.
//
// Sampling draws one uniform to choose the component and then the
// component's own (two for the piecewise family, one for the discrete
// ones). The variance is w·Var_pw(x) + (1-w)·Var_d(x); each is a quadratic
// in |x| (eq. (31); C² - x² for Duchi; eq. (25) for Three-Outputs), so the
// mixture is v0 + v1|x| + v2x² and its exact maximum over [-1, 1] is at
// |x| = 0, at |x| = 1 or, when v2 < 0, at the vertex -v1/(2v2) clipped to
// [0, 1] (Lemma 11, eq. (174)); WorstCaseVariance takes the largest of the
// three values.
type Hybrid struct {
	name   string
	eps    float64
	w, wc  float64 // weight of the piecewise component, and 1 - w
	pw     *Piecewise
	disc   hybridDiscrete
	duchi  *Duchi        // disc, if it is Duchi's mechanism
	three  *ThreeOutputs // disc, if it is Three-Outputs
	bound  float64       // output range [-bound, bound]
	v1, v2 float64       // coefficients of |x| and x² in the variance
}

var _ interface {
	Mechanism
	Variancer
	Continuous
	Mixture
	Atoms
} = (*Hybrid)(nil)

// hmThreshold is the budget above which HM mixes in PM (Wang et al.,
// ICDE 2019).
const hmThreshold = 0.61

// HMAlpha returns HM's probability of PM: α = 1 - e^{-ε/2} if ε > 0.61,
// else 0 (Wang et al.). For ε > 0.61 it makes HM's variance constant in x.
func HMAlpha(eps float64) float64 {
	a, _ := hmAlpha(eps)
	return a
}

// hmAlpha returns α and 1 - α.
func hmAlpha(eps float64) (alpha, alphaC float64) {
	if eps > hmThreshold {
		return -math.Expm1(-eps / 2), math.Exp(-eps / 2)
	}
	return 0, 1
}

// NewHM returns Wang et al.'s hybrid mechanism HM (ICDE 2019), registered
// as "hm": PM ([NewPM]) with probability [HMAlpha](eps), otherwise Duchi's
// mechanism ([NewDuchi]). For ε ≤ 0.61 it is Duchi's mechanism (α = 0);
// above, its variance is constant in x, (s+3)/(3s(s-1)) + (e+1)²/(s(e-1)²)
// with s = e^{ε/2}.
func NewHM(eps float64) (*Hybrid, error) {
	if err := checkEpsilon("hm", eps); err != nil {
		return nil, err
	}
	pm, err := NewPM(eps)
	if err != nil {
		return nil, err
	}
	d, err := NewDuchi(eps)
	if err != nil {
		return nil, err
	}
	alpha, alphaC := hmAlpha(eps)
	return newHybrid("hm", eps, alpha, alphaC, pm, d, 0), nil
}

// hmtpStar is ε* of eq. (151): below it HM-TP is Three-Outputs alone.
var hmtpStar = hmtpEpsStar()

// hmtpEpsStar returns ε* = 3·ln x, x the root of 3x⁵ - 2x³ + 3x² - 5x - 3
// in [1.2, 1.25] (≈ 1.22588, eq. (151)), by bisection to adjacent floats.
// (The quintic is -0.671 at 1.2 and 0.686 at 1.25.) Equivalently, ε* is
// where PM-SUB's variance at x = 0 equals Duchi's C², with t = e^{ε/3}:
// 3t(t³+1)² = (1+t²)t(2t²+3t+3) reduces to t·(the quintic) = 0.
func hmtpEpsStar() float64 {
	p := func(x float64) float64 { return (((3*x*x-2)*x+3)*x-5)*x - 3 }
	lo, hi := bisectAdjacent(1.2, 1.25, func(x float64) bool { return p(x) < 0 })
	return 3 * math.Log(lo+(hi-lo)/2)
}

// HMTPEpsStar returns ε* ≈ 0.610986 of eq. (151), the budget below which
// HM-TP uses Three-Outputs alone (β = 0).
func HMTPEpsStar() float64 { return hmtpStar }

// HMTPBeta returns HM-TP's probability of PM-SUB, β of eq. (150) as
// corrected (E3.5), with c = e^ε, t = e^{ε/3} and a = [ThreeOutputsA](eps):
//
//   - β = 0 for ε < ε* ([HMTPEpsStar]);
//   - β = β1 = (c-1)/(c+t) for ε* ≤ ε < ln 2 (a = 0 there; it makes the
//     variance constant in x);
//   - β = β3 = (c - 1 - √(B/A))/(c + t) for ε ≥ ln 2, with A of eq. (154)
//     and B of eq. (155) (both negative), clamped to [0, 1].
//
// The paper prints √(A/β) in eq. (150) (and √(B/A + c - 1) in Appendix M);
// both give a worse β (E3.5). A and B are evaluated multiplied by (c-1)
// and with the ratios ρ = (c+1)/(c-a), c/(c+t) and c/(c-1), so that no
// power of e^ε overflows; B/A is unchanged by the common factor. Note that
// B = -(1+t)²·A1, A1 the first term of A.
func HMTPBeta(eps float64) float64 {
	to, err := NewThreeOutputs(eps)
	if err != nil {
		return math.NaN()
	}
	b, _ := hmtpBeta(eps, to)
	return b
}

// hmtpBeta returns β and 1 - β for HM-TP at eps, given its Three-Outputs
// component (for a and 1 - a).
func hmtpBeta(eps float64, to *ThreeOutputs) (beta, betaC float64) {
	if eps < hmtpStar {
		return 0, 1
	}
	em := math.Exp(-eps)   // 1/c
	t := math.Exp(eps / 3) // t
	den := 1 + t*em        // (c+t)/c
	if eps < math.Ln2 {    // a = 0: β1 = (c-1)/(c+t)
		return -math.Expm1(-eps) / den, (t + 1) * em / den
	}
	a := to.a
	oneMinusA := 2 * to.half0
	rho := (1 + em) / (1 - a*em) // (c+1)/(c-a)
	cct := 1 / den               // c/(c+t)
	cc1 := 1 / -math.Expm1(-eps) // c/(c-1)
	t1 := t + 1
	a1 := a * a * rho * rho * rho * rho * cct * cct / 4 // (c-1)·A1
	a2 := (t1*t1*t1/math.Expm1(eps) + 1) / (3 * t * t)  // (c-1)·A2
	a3 := oneMinusA * rho * rho * cct * cc1             // (c-1)·A3
	A := -a1 + a2 - a3                                  // (c-1)·A
	B := -t1 * t1 * a1                                  // (c-1)·B
	s := math.Sqrt(B / A)
	if B == 0 { // a = 0 at ε = ln 2 exactly: β3 = β1
		s = 0
	}
	beta = (1 - em - s*em) / den
	betaC = (t1 + s) * em / den
	if !(beta > 0) {
		return 0, 1
	}
	if beta >= 1 {
		return 1, 0
	}
	return beta, betaC
}

// NewHMTP returns Zhao et al.'s HM-TP (Section V-E), registered as "hm-tp":
// PM-SUB ([NewPMSub]) with probability [HMTPBeta](eps), otherwise
// Three-Outputs ([NewThreeOutputs]).
//
// Its worst case is the exact maximum of Lemma 11: for ε ≥ ln 2 it lies at
// an interior x*, above the variance at x = 1 that Appendix R uses as the
// worst case (E3.15).
func NewHMTP(eps float64) (*Hybrid, error) {
	if err := checkEpsilon("hm-tp", eps); err != nil {
		return nil, err
	}
	sub, err := NewPMSub(eps)
	if err != nil {
		return nil, err
	}
	to, err := NewThreeOutputs(eps)
	if err != nil {
		return nil, err
	}
	beta, betaC := hmtpBeta(eps, to)
	return newHybrid("hm-tp", eps, beta, betaC, sub, to, to.slope), nil
}

// newHybrid builds the mixture; slope is the coefficient of |x| in the
// discrete component's variance (0 for Duchi, C²b for Three-Outputs).
func newHybrid(name string, eps, w, wc float64, pw *Piecewise, d hybridDiscrete, slope float64) *Hybrid {
	_, a := pw.OutputRange()
	outs := d.Outputs()
	bound := max(a, -outs[0], outs[len(outs)-1])
	tw := pw.T()
	duchi, _ := d.(*Duchi)
	three, _ := d.(*ThreeOutputs)
	return &Hybrid{
		duchi: duchi,
		three: three,
		name:  name,
		eps:   eps,
		w:     w,
		wc:    wc,
		pw:    pw,
		disc:  d,
		bound: bound,
		v1:    wc * slope,
		v2:    w*(tw+1)/math.Expm1(eps) - wc, // eq. (31)'s x² term; -1 for the discrete ones
	}
}

// Name returns the registry name.
func (m *Hybrid) Name() string { return m.name }

// Epsilon returns the privacy budget.
func (m *Hybrid) Epsilon() float64 { return m.eps }

// Domain returns [-1, 1].
func (m *Hybrid) Domain() (lo, hi float64) { return -1, 1 }

// Weight returns the probability of the piecewise component (α for HM, β
// for HM-TP).
func (m *Hybrid) Weight() float64 { return m.w }

// Components returns the piecewise (continuous) component, the discrete
// one and the probability w of the former ([Mixture]).
func (m *Hybrid) Components() (continuous, discrete Mechanism, pContinuous float64) {
	return m.pw, m.disc, m.w
}

// Perturb returns one report of x: the piecewise component's with
// probability w, else the discrete component's.
func (m *Hybrid) Perturb(x float64, rng *rand.Rand) float64 {
	if rng.Float64() < m.w {
		return m.pw.Perturb(x, rng)
	}
	return m.disc.Perturb(x, rng)
}

// PerturbBatch writes a report of xs[i] to dst[i]; dst may be xs.
//
// It makes the reports of Perturb from the same uniforms, without a call
// per report: the uniforms are drawn ahead (mixDraw), and a report takes
// its component's choice u0 < w, its piecewise report from u1 and 2·u2 or
// its discrete report from u1, and moves on by the uniforms it used (three
// for the piecewise component, two for the discrete one), as Perturb draws
// them. The components' report methods are inlined into the loop. When
// the choice is hard to predict (mixBranchFree), both reports are made and
// one is selected without a branch.
func (m *Hybrid) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	if err := checkInputs(m.name, xs, -1, 1); err != nil {
		return err
	}
	dst = batchDst(dst, len(xs))
	if m.duchi == nil && m.three == nil { // not built by NewHM or NewHMTP
		for i, x := range xs {
			dst[i] = m.Perturb(x, rng)
		}
		return nil
	}
	pw, w := m.pw, m.w
	branchFree := mixBranchFree(w)
	var buf [mixBlock]float64
	var us []float64
	for len(xs) > 0 {
		us = mixDraw(&buf, us, len(xs), rng)
		if len(us) < 3 {
			// The last report, with its first two uniforms drawn.
			dst[0] = m.perturbFrom(xs[0], us[0], us[1], rng)
			return nil
		}
		i := 0
		x := xs[:min(len(xs), len(dst))]
		switch d, t := m.duchi, m.three; {
		case d != nil && branchFree:
			for ; i < len(x) && len(us) >= 3; i++ {
				c := us[0] < w
				dst[i] = choose(c, pw.report(x[i], us[1], 2*us[2]), d.report(x[i], us[1]))
				us = us[2+b2i(c):]
			}
		case d != nil:
			for ; i < len(x) && len(us) >= 3; i++ {
				if us[0] < w {
					dst[i] = pw.report(x[i], us[1], 2*us[2])
					us = us[3:]
				} else {
					dst[i] = d.report(x[i], us[1])
					us = us[2:]
				}
			}
		case branchFree:
			for ; i < len(x) && len(us) >= 3; i++ {
				c := us[0] < w
				far, cum := t.cuts(math.Abs(x[i]))
				dst[i] = choose(c, pw.report(x[i], us[1], 2*us[2]), t.pick(x[i], us[1], far, cum))
				us = us[2+b2i(c):]
			}
		default:
			for ; i < len(x) && len(us) >= 3; i++ {
				if us[0] < w {
					dst[i] = pw.report(x[i], us[1], 2*us[2])
					us = us[3:]
				} else {
					far, cum := t.cuts(math.Abs(x[i]))
					dst[i] = t.pick(x[i], us[1], far, cum)
					us = us[2:]
				}
			}
		}
		xs, dst = xs[i:], dst[i:]
	}
	return nil
}

// perturbFrom returns the report of x whose first two uniforms are u0 and
// u1, drawing the third if it takes one: the last report of a batch.
func (m *Hybrid) perturbFrom(x, u0, u1 float64, rng *rand.Rand) float64 {
	if u0 < m.w {
		return m.pw.report(x, u1, 2*rng.Float64())
	}
	if m.duchi != nil {
		return m.duchi.report(x, u1)
	}
	far, cum := m.three.cuts(math.Abs(x))
	return m.three.pick(x, u1, far, cum)
}

// mixBranchFree reports whether a mixture's batch, whose reports choose
// their component with probability w, should make both components'
// reports and select one without a branch. A branch on the choice is
// mispredicted about min(w, 1-w) of the time, at the cost of a few
// reports; making both costs one more report every time. Measured on
// HM and HM-TP at ε = 1 (w = 0.39, 0.16), the select wins from about a
// quarter on.
func mixBranchFree(w float64) bool { return min(w, 1-w) >= 0.25 }

// mixBlock is the number of uniforms a mixture's batch draws ahead (see
// mixDraw).
const mixBlock = 96

// mixDraw returns the uniforms for the next reports of a batch of a
// mixture ([Hybrid], [HMNP]) whose reports take two or three uniforms each,
// in the order of Perturb's draws: us, the uniforms drawn before and not
// yet used (fewer than three), moved to the front of buf, followed by new
// ones, as many as fit in buf and as the next reports (there are reports
// of them) are sure to use, two each. So a batch draws exactly what its
// reports use, as the same sequence of Perturb calls, and leaves the
// generator where they leave it. With one report left, fewer than three
// uniforms may come back (two); the caller draws the third if it takes
// one. Drawing ahead, in a loop of its own (see batchBlock), keeps the
// generator's calls out of the reports' loop and lets it choose the
// component without a branch: a report reads three uniforms and moves on
// by two or three.
func mixDraw(buf *[mixBlock]float64, us []float64, reports int, rng *rand.Rand) []float64 {
	n := copy(buf[:], us)
	k := min(mixBlock, 2*reports)
	drawUniforms(buf[n:k], rng)
	return buf[:k]
}

// Variance returns w·Var_pw(x) + (1-w)·Var_d(x).
func (m *Hybrid) Variance(x float64) float64 {
	return m.w*m.pw.Variance(x) + m.wc*m.disc.Variance(x)
}

// WorstCaseVariance returns the largest of the variance at |x| = 0, at
// |x| = 1 and, when the variance is concave in |x|, at its vertex clipped
// to [0, 1]: the exact maximum of a quadratic in |x| over [0, 1].
func (m *Hybrid) WorstCaseVariance() float64 {
	v := max(m.Variance(0), m.Variance(1))
	if m.v2 < 0 && m.v1 > 0 {
		v = max(v, m.Variance(min(-m.v1/(2*m.v2), 1)))
	}
	return v
}

// WorstCaseInput returns the |x| in [0, 1] at which the variance is
// largest (the smaller one on a tie).
func (m *Hybrid) WorstCaseInput() float64 {
	best, arg := m.Variance(0), 0.0
	if v := m.Variance(1); v > best {
		best, arg = v, 1
	}
	if m.v2 < 0 && m.v1 > 0 {
		x := min(-m.v1/(2*m.v2), 1)
		if v := m.Variance(x); v > best {
			arg = x
		}
	}
	return arg
}

// OutputRange returns [-B, B], B the larger of the piecewise component's
// A and the discrete component's largest output.
func (m *Hybrid) OutputRange() (lo, hi float64) { return -m.bound, m.bound }

// AtomOutputs returns the discrete component's outputs. The slice belongs
// to the mechanism.
func (m *Hybrid) AtomOutputs() []float64 { return m.disc.Outputs() }

// AtomProbabilities writes (1-w)·P_d[o | x] for every output o of the
// discrete component to dst.
func (m *Hybrid) AtomProbabilities(x float64, dst []float64) {
	n := len(m.disc.Outputs())
	m.disc.Probabilities(x, dst[:n])
	for i := range dst[:n] {
		dst[i] *= m.wc
	}
}

// Density returns w times the piecewise component's density: the density
// of the continuous part of the report ([Atoms]).
func (m *Hybrid) Density(y, x float64) float64 {
	return m.w * m.pw.Density(y, x)
}

// CDF returns Pr[Y ≤ y | x], atoms included.
func (m *Hybrid) CDF(y, x float64) float64 {
	var ps [3]float64
	outs := m.disc.Outputs()
	m.disc.Probabilities(x, ps[:len(outs)])
	atoms := 0.0
	for i, o := range outs {
		if o <= y {
			atoms += ps[i]
		}
	}
	return m.w*m.pw.CDF(y, x) + m.wc*atoms
}

// BucketGivenBin returns Pr[ylo < Y ≤ yhi] for x uniform on [xlo, xhi],
// exactly, atoms included.
func (m *Hybrid) BucketGivenBin(ylo, yhi, xlo, xhi float64) float64 {
	if !(ylo < yhi) {
		return 0
	}
	outs := m.disc.Outputs()
	n := len(outs)
	// The discrete probabilities are linear on each side of 0: their bin
	// average is the value at the midpoint of each side, weighted by its
	// length.
	var avg, ps [3]float64
	side := func(lo, hi, weight float64) {
		m.disc.Probabilities(lo+(hi-lo)/2, ps[:n])
		for i := range n {
			avg[i] += weight * ps[i]
		}
	}
	if xlo < 0 && xhi > 0 {
		side(xlo, 0, -xlo/(xhi-xlo))
		side(0, xhi, xhi/(xhi-xlo))
	} else {
		side(xlo, xhi, 1)
	}
	atoms := 0.0
	for i, o := range outs {
		if o > ylo && o <= yhi {
			atoms += avg[i]
		}
	}
	p := m.wc * atoms
	if m.w > 0 {
		p += m.w * m.pw.BucketGivenBin(ylo, yhi, xlo, xhi)
	}
	return p
}
