package mechanisms

import (
	"math"
	"math/rand/v2"
	"sort"
)

// HMNP is Baek & Chung's hybrid HM-NP (Section 4.1): with probability α the
// N-output mechanism ([NOutput]), otherwise PM-SUB ([NewPMSub]), both at
// the full ε, chosen independently of the input. Like [Hybrid] it is ε-LDP
// (a mixture of two ε-LDP mechanisms with an input-independent weight) and
// unbiased, with variance
//
//	Var_H(x) = α·Var_N(x) + (1-α)·(A·x² + B),
//
// A = (e^{ε/3}+1)/(e^ε-1) and B PM-SUB's coefficients in
// Var_φ[Y|x] = Ax² + B (Section 4.1). On every piece of the N-output
// mechanism this is a quadratic, so the worst case is exact: the largest of
// its values at the pieces' ends and, where it is concave, at its vertex
// inside the piece.
//
// α comes from Theorem 8 with the clamp that the paper omits (ERRATA
// E0.10): with x_n* the vertex and b the constant of the last piece's
// variance -x² + 2x_n*·x + b, D = Var_N(1) - (A+B),
// γ1 = (x_n*² + (1+A)(b-B))/(1+A)², γ2 = (A·x_n*/(1+A))²,
// α1 = A/(A + 1 - x_n*) (Lemma 7 as in the PDF, E0.11) and
// α2 = (√(γ2/γ1) + A)/(1+A), α = 0 if D > 0, else 1 if γ1 ≤ 0, else
// min(1, max(α1, α2)). Written with the last piece's own coefficients this
// covers N = 2 too, where it gives the rule of the authors' code (α = 1
// below ε ≈ 0.610986, else A/(1+A)), and N = 3, where HM-NP is HM-TP.
// [NewHMNP] chooses N and α together: every configuration that Algorithm 2
// considers ([NewNOutput]) gets its Theorem 8 α, and the pair with the
// smallest exact worst case wins (ties within 1e-9 relative go to the
// smaller N).
//
// It implements [Continuous] with the N-output reports as point masses
// ([Atoms]) and is a [Mixture] (continuous component PM-SUB); [NewDiscretized]
// rejects it, since the N-output variance is not one quadratic per side of 0.
// A report costs on average α·⌈log2 N⌉ + (1-α)·F bits for F-bit floats
// ([HMNP.AverageBits], E0.12).
type HMNP struct {
	name          string
	eps           float64
	alpha, alphaC float64 // probability of the N-output component, and 1 - α
	no            *NOutput
	pm            *Piecewise
	bound         float64
	worst, worstX float64
}

var _ interface {
	Mechanism
	Variancer
	Continuous
	Atoms
	Mixture
} = (*HMNP)(nil)

// hmnpAlpha returns Theorem 8's α (corrected, E0.10) for configuration c
// and PM-SUB's A and B, and 1 - α.
func hmnpAlpha(c *noConfig, pmA, pmB float64) (alpha, alphaC float64) {
	n := c.n
	xs := c.vertex(n)
	vn := c.varPiece(n, xs)
	b := vn - xs*xs
	d := c.varPiece(n, 1) - (pmA + pmB)
	if d > 0 {
		return 0, 1
	}
	a1p := 1 + pmA
	g1 := (xs*xs + a1p*(b-pmB)) / (a1p * a1p)
	if g1 <= 0 || xs >= 1 {
		return 1, 0
	}
	g2 := pmA * xs / a1p
	g2 *= g2
	alpha1 := pmA / (pmA + 1 - xs)
	alpha2 := (math.Sqrt(g2/g1) + pmA) / a1p
	alpha = min(1, max(alpha1, alpha2))
	// 1 - α = (1 - β*)/(1+A) for α = α2, (1 - x_n*)/(A + 1 - x_n*) for α1.
	switch alpha {
	case 1:
		return 1, 0
	case alpha1:
		return alpha, (1 - xs) / (pmA + 1 - xs)
	}
	return alpha, (1 - math.Sqrt(g2/g1)) / a1p
}

// hmnpWorst returns the exact maximum over [0, 1] of
// α·Var_N(x) + (1-α)·Var_P(x) for configuration c and PM-SUB pm, and where
// it is attained. On piece i the sum is q2·x² + q1·x + q0 with
// q2 = (1-α)A - α and q1 = α·b_i (b_i = 2·vertex): its maximum is at an end
// or, when q2 < 0, at the vertex -q1/(2q2) if inside.
func hmnpWorst(c *noConfig, alpha, alphaC float64, pm *Piecewise, pmA float64) (w, wx float64) {
	v := func(i int, x float64) float64 {
		s := pm.Variance(x) * alphaC
		if alpha > 0 {
			s += alpha * c.varPiece(i, x)
		}
		return s
	}
	w, wx = math.Inf(-1), 0
	q2 := alphaC*pmA - alpha
	for i := 1; i <= c.n; i++ {
		lo, hi := c.knot(i-1), c.knot(i)
		for _, x := range [2]float64{lo, hi} {
			if f := v(i, x); f > w {
				w, wx = f, x
			}
		}
		if q2 < 0 {
			if x := alpha * 2 * c.vertex(i) / (-2 * q2); x > lo && x < hi {
				if f := v(i, x); f > w {
					w, wx = f, x
				}
			}
		}
	}
	return w, wx
}

// NewHMNP returns HM-NP at budget eps with N, Ω and α chosen together to
// minimise the worst-case variance, registered as "hm-np".
func NewHMNP(eps float64) (*HMNP, error) {
	if err := checkEpsilon("hm-np", eps); err != nil {
		return nil, err
	}
	return newHMNP(eps, nOutputCandidates(eps, 0, NOutputMaxN))
}

// NewHMNPN returns HM-NP with an N-output component of N outputs (the
// configuration of [NewNOutputN] that, with its Theorem 8 α, has the
// smaller worst case) at budget eps. N = 3 is HM-TP.
func NewHMNPN(eps float64, N int) (*HMNP, error) {
	if err := checkEpsilon("hm-np", eps); err != nil {
		return nil, err
	}
	if _, err := NewNOutputN(eps, N); err != nil {
		return nil, err
	}
	return newHMNP(eps, nOutputCandidates(eps, N, N))
}

func newHMNP(eps float64, cs []noConfig) (*HMNP, error) {
	pm, err := NewPMSub(eps)
	if err != nil {
		return nil, err
	}
	pmA := (pm.T() + 1) / math.Expm1(eps)
	pmB := pm.Variance(0)
	bi := -1
	var best struct{ w, wx, alpha, alphaC float64 }
	for i := range cs {
		c := &cs[i]
		alpha, alphaC := hmnpAlpha(c, pmA, pmB)
		w, wx := hmnpWorst(c, alpha, alphaC, pm, pmA)
		better := bi < 0 || w < best.w*(1-1e-9) ||
			(w <= best.w*(1+1e-9) && (c.N < cs[bi].N || (c.N == cs[bi].N && w < best.w)))
		if better {
			bi = i
			best.w, best.wx, best.alpha, best.alphaC = w, wx, alpha, alphaC
		}
	}
	no := newNOutput("n-output", eps, cs[bi])
	_, a := pm.OutputRange()
	bound := a
	if top := no.outs[len(no.outs)-1]; top >= bound {
		bound = math.Nextafter(top, math.Inf(1)) // atoms strictly inside
	}
	return &HMNP{
		name: "hm-np", eps: eps,
		alpha: best.alpha, alphaC: best.alphaC,
		no: no, pm: pm, bound: bound,
		worst: best.w, worstX: best.wx,
	}, nil
}

// Name returns "hm-np".
func (m *HMNP) Name() string { return m.name }

// Epsilon returns the privacy budget.
func (m *HMNP) Epsilon() float64 { return m.eps }

// Domain returns [-1, 1].
func (m *HMNP) Domain() (lo, hi float64) { return -1, 1 }

// Alpha returns α, the probability of the N-output component.
func (m *HMNP) Alpha() float64 { return m.alpha }

// NOutput returns the N-output component.
func (m *HMNP) NOutput() *NOutput { return m.no }

// PMSub returns the PM-SUB component.
func (m *HMNP) PMSub() *Piecewise { return m.pm }

// AverageBits returns the mean length of a report when an N-output report
// takes ⌈log2 N⌉ bits and a PM-SUB report floatBits (32 or 64):
// α·⌈log2 N⌉ + (1-α)·floatBits (the formula of Section 4.1 as corrected,
// E0.12; 23 bits at ε = 4 with 32-bit floats, as Section 4.1 states).
func (m *HMNP) AverageBits(floatBits float64) float64 {
	return m.alpha*float64(m.no.Bits()) + m.alphaC*floatBits
}

// Components returns PM-SUB (continuous), the N-output mechanism
// (discrete) and the probability 1-α of the former ([Mixture]).
func (m *HMNP) Components() (continuous, discrete Mechanism, pContinuous float64) {
	return m.pm, m.no, m.alphaC
}

// Perturb returns one report of x: with probability α the N-output
// mechanism's (one more uniform), else PM-SUB's (two more).
func (m *HMNP) Perturb(x float64, rng *rand.Rand) float64 {
	if rng.Float64() < m.alpha {
		return m.no.Perturb(x, rng)
	}
	return m.pm.Perturb(x, rng)
}

// PerturbBatch writes a report of xs[i] to dst[i]; dst may be xs.
//
// It makes the reports of Perturb from the same uniforms, without a call
// per report, as [Hybrid.PerturbBatch] does: a report takes its choice
// u0 < α, its N-output report from u1 or its PM-SUB report from u1 and
// 2·u2, and moves on by two or three uniforms. The pieces of a block of
// inputs are looked up first ([NOutput.pieces]). The choice is a branch
// even where it is hard to predict: the N-output report costs more than
// the mispredictions (at ε = 1, α = 0.58, making both reports and
// selecting one is about 20% slower).
func (m *HMNP) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	if err := checkInputs(m.name, xs, -1, 1); err != nil {
		return err
	}
	dst = batchDst(dst, len(xs))
	no, pm, a := m.no, m.pm, m.alpha
	var buf [mixBlock]float64
	var js [mixBlock / 2]int32
	var us []float64
	for len(xs) > 0 {
		us = mixDraw(&buf, us, len(xs), rng)
		if len(us) < 3 {
			// The last report, with its first two uniforms drawn.
			dst[0] = m.perturbFrom(xs[0], us[0], us[1], rng)
			return nil
		}
		// The reports of these uniforms: at most one for every two.
		x := xs[:min(len(xs), len(dst), len(us)/2)]
		j := js[:len(x)]
		no.pieces(j, x)
		i := 0
		for ; i < len(x) && len(us) >= 3; i++ {
			if us[0] < a {
				// no.index(x[i], us[1]), written out so that its parts
				// are inlined.
				k := no.pickPart(us[1], no.flatPart(us[1]), no.mirror(x[i], no.extraPart(math.Abs(x[i]), us[1], int(j[i]))))
				dst[i] = no.outs[k]
				us = us[2:]
			} else {
				dst[i] = pm.report(x[i], us[1], 2*us[2])
				us = us[3:]
			}
		}
		xs, dst = xs[i:], dst[i:]
	}
	return nil
}

// perturbFrom returns the report of x whose first two uniforms are u0 and
// u1, drawing the third if it takes one: the last report of a batch.
func (m *HMNP) perturbFrom(x, u0, u1 float64, rng *rand.Rand) float64 {
	if u0 < m.alpha {
		return m.no.outs[m.no.index(x, u1)]
	}
	return m.pm.report(x, u1, 2*rng.Float64())
}

// Variance returns α·Var_N(x) + (1-α)·Var_P(x).
func (m *HMNP) Variance(x float64) float64 {
	v := m.alphaC * m.pm.Variance(x)
	if m.alpha > 0 {
		v += m.alpha * m.no.Variance(x)
	}
	return v
}

// WorstCaseVariance returns the exact maximum of Variance over [-1, 1].
func (m *HMNP) WorstCaseVariance() float64 { return m.worst }

// WorstCaseInput returns an |x| in [0, 1] at which the variance is largest.
func (m *HMNP) WorstCaseInput() float64 { return m.worstX }

// OutputRange returns [-B, B], B the larger of PM-SUB's A and (just above)
// the largest N-output value.
func (m *HMNP) OutputRange() (lo, hi float64) { return -m.bound, m.bound }

// AtomOutputs returns the N-output values. The slice belongs to the
// mechanism.
func (m *HMNP) AtomOutputs() []float64 { return m.no.outs }

// AtomProbabilities writes α·P_N[o | x] for every N-output value o to dst.
func (m *HMNP) AtomProbabilities(x float64, dst []float64) {
	n := len(m.no.outs)
	m.no.Probabilities(x, dst[:n])
	for i := range dst[:n] {
		dst[i] *= m.alpha
	}
}

// Density returns (1-α) times PM-SUB's density: the density of the
// continuous part ([Atoms]).
func (m *HMNP) Density(y, x float64) float64 { return m.alphaC * m.pm.Density(y, x) }

// CDF returns Pr[Y ≤ y | x], atoms included.
func (m *HMNP) CDF(y, x float64) float64 {
	outs := m.no.outs
	k := sort.Search(len(outs), func(i int) bool { return outs[i] > y })
	atoms := 0.0
	for i := range k {
		atoms += m.no.ProbabilityOf(i, x)
	}
	return m.alphaC*m.pm.CDF(y, x) + m.alpha*atoms
}

// BucketGivenBin returns Pr[ylo < Y ≤ yhi] for x uniform on [xlo, xhi],
// exactly, atoms included: PM-SUB's own exact bucket probability and the
// N-output values in the bucket by [NOutput.AverageProbability].
func (m *HMNP) BucketGivenBin(ylo, yhi, xlo, xhi float64) float64 {
	if !(ylo < yhi) {
		return 0
	}
	outs := m.no.outs
	i0 := sort.Search(len(outs), func(i int) bool { return outs[i] > ylo })
	i1 := sort.Search(len(outs), func(i int) bool { return outs[i] > yhi })
	atoms := 0.0
	for i := i0; i < i1; i++ {
		atoms += m.no.AverageProbability(i, xlo, xhi)
	}
	p := m.alpha * atoms
	if m.alphaC > 0 {
		p += m.alphaC * m.pm.BucketGivenBin(ylo, yhi, xlo, xhi)
	}
	return p
}
