package mechanisms

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// NOutput is Baek & Chung's N-output mechanism (Section 3): an input x in
// [-1, 1] is reported as one of N outputs
//
//	Ω = {-a_n, …, -a_1, a_1, …, a_n}          N = 2n,
//	Ω = {-a_n, …, -a_1, 0, a_1, …, a_n}       N = 2n+1,
//
// 0 < a_1 < … < a_n. With e = e^ε, a free p0 in [0, p] (0 for even N),
// p = (1-p0)/(e+2n-1), p* = ((e+1)p - (e-1)p0)/2 and t = (e-1)p, the knots
// are x_j = t·a_j (a_n = 1/t, so x_n = 1; ERRATA E0.1: not t²·a_j) and, for
// 0 ≤ x in [x_{j-1}, x_j] (eqs. (10)–(11)),
//
//	P[a_j | x]     = p + (x - x_{j-1})/(a_j - a_{j-1})     j ≥ 2,
//	P[a_{j-1} | x] = p + (x_j - x)/(a_j - a_{j-1}),
//
// every other nonzero output p and 0 (odd N) p0; on [0, x_1] for odd N
// P[±a_1 | x] and P[0 | x] move linearly from p*, p*, e·p0 at x = 0 to e·p,
// p, p0 at x_1, and for even N one piece [-x_1, x_1] joins a_{-1} and a_1;
// negative x by symmetry, P[a_i | x] = P[a_{-i} | -x]. Every probability of
// a nonzero output lies in [p, e·p] and that of 0 in [p0, e·p0], each
// attaining both ends, so the mechanism is ε-LDP with the ratio attained
// (Theorem 1); the report is unbiased for any increasing a (the
// probabilities sum to 1 and the mean is x at every knot, and both are
// linear in between).
//
// The law has a useful split, used by the sampler and by [NOutput.Variance]:
// with probability 1 - t = 2n·p + p0 the report is drawn from the flat part
// (each nonzero output with weight p, 0 with weight p0), and with
// probability t from an input-dependent part that, on a piece j ≥ 2 (or the
// even piece around 0), rounds x/t at random to a_{j-1} or a_j with the
// weights that make it unbiased. So a report costs one uniform, and the
// variance is a sum of non-negative terms Σ_i P[a_i|x]·(a_i - x)², which
// keeps its relative accuracy where it is small (large ε, where
// -x² + (a_{i-1}+a_i)x - t·a_{i-1}a_i + 2p·Σa_j² of Section 3.4's
// Var_i[Y|x] cancels).
//
// On every piece the variance is a concave quadratic (coefficient of x² is
// -1), so the worst case is the largest of the pieces' values at their
// vertices clamped to the piece: exact, never a grid search.
//
// [NewNOutput] chooses N, Ω and p0 for ε by Algorithm 2 (corrected, E0.7):
// N = 2 is Duchi et al.'s mechanism, N = 3 Three-Outputs with the p0 that
// minimises its worst case, and every N from 4 up to the last for which
// Theorem 4 gives an increasing sequence contributes its Theorem 4
// configuration (odd N with p0 from eq. (12)) and its Theorem 5
// configuration (stable recurrence, E0.9), each scored by its exact worst
// case. [NewNOutputN] fixes N. Reports are elements of [NOutput.Outputs];
// [NOutput.PerturbIndex] returns the index instead, the ⌈log2 N⌉-bit symbol
// a client would send ([NOutput.Bits]).
type NOutput struct {
	name string
	eps  float64
	cfg  noConfig

	outs  []float64 // Ω, increasing, len N
	knots []float64 // x_1 … x_n, knots[n-1] = 1 exactly
	// tw[j-1] = t/(x_j - x_{j-1}) = 1/(a_j - a_{j-1}) (t/(2x_1) for the
	// even piece around 0): the extra mass on a_{j-1} is (x_j - x)·tw.
	tw   []float64
	off  int // outs[off+j] = a_j (j ≥ 1): n for odd N, n-1 for even
	base float64
	invP float64
	// Odd N, piece 1: the extra masses of a_{-1} and 0 are
	// cOpp·(x_1-x) and cZero·(x_1-x); the rest of t goes to a_1.
	cOpp, cZero float64
	// lut[c] is the first piece whose right knot is ≥ c/len(lut-1): the
	// piece of x in [c/M, (c+1)/M) is found by a short scan from it.
	lut  []int32
	lutM float64
	// The sampler's tables (see index): pcs[j-1] describes piece j, and
	// flat[k] is the index of the flat part's k-th output (of its last
	// one for every k beyond); its length is a power of two above the
	// number of outputs, and flatMask that length - 1.
	pcs      []noPiece
	flat     []int32
	flatMask int
	last     int // N - 1

	worst, worstX float64
}

var _ interface {
	Mechanism
	Variancer
	Discrete
} = (*NOutput)(nil)

// noPiece holds what the sampler needs of one piece j (see
// [NOutput.index]): its right knot x_j, the index hi of the output that
// takes the input-dependent mass not below the thresholds, and the
// coefficients of the thresholds c1·r + c2·r and c3·r, r = x_j - |x|,
// below which it takes one output less each.
type noPiece struct {
	knot       float64
	c1, c2, c3 float64
	hi         int
}

// noConfig is one configuration of the N-output mechanism: N, p0 and the
// positive outputs a_1 … a_n.
type noConfig struct {
	N, n  int
	odd   bool
	em1   float64 // e^ε - 1
	p0, p float64
	t     float64 // (e-1)p
	dStar float64 // p* - p = (e-1)(p - p0)/2, ≥ 0
	a     []float64
	s2    float64 // Σ_{j=1}^n a_j²
	// how the outputs were found: "duchi" (N = 2), "three-outputs"
	// (N = 3), "theorem 4" or "theorem 5".
	how           string
	worst, worstX float64
}

// newConfig returns the configuration with N outputs, p0 (0 for even N)
// and no outputs yet: p, t and p* - p from eqs. (7)–(11) and the sum
// conditions of Section 3.3.
func newConfig(em1 float64, N int, p0 float64) noConfig {
	n := N / 2
	odd := N%2 == 1
	if !odd {
		p0 = 0
	}
	// p = (1-p0)/(e+2n-1) = (1-p0)/(em1+2n); t = em1·p, written so that it
	// stays finite (→ 1-p0) when em1 overflows.
	c := noConfig{N: N, n: n, odd: odd, em1: em1, p0: p0}
	c.p = (1 - p0) / (em1 + float64(2*n))
	if odd && p0 >= 1/(em1+float64(N)) {
		// p0 = p = 1/(e+N-1) exactly, so that p* = p and no probability
		// falls below p by rounding.
		c.p0 = 1 / (em1 + float64(N))
		c.p = c.p0
		p0 = c.p0
	}
	c.t = (1 - p0) / (1 + float64(2*n)/em1)
	c.dStar = em1 * (c.p - p0) / 2
	return c
}

// knot returns x_j (x_0 = 0, x_n = 1).
func (c *noConfig) knot(j int) float64 {
	switch {
	case j <= 0:
		return 0
	case j >= c.n:
		return 1
	}
	return c.t * c.a[j-1]
}

// extras returns, for 0 ≤ x in piece i, the input-dependent masses (those
// above the flat p or p0): on a_{i-1} (a_{-1} for i = 1), on 0 (odd N,
// i = 1; else 0) and on a_i. They are non-negative and sum to t.
func (c *noConfig) extras(i int, x float64) (lo, zero, hi float64) {
	switch {
	case i == 1 && c.odd:
		x1 := c.knot(1)
		r := (x1 - x) / x1 // 1 - x/x_1
		s := x / x1
		lo = c.dStar * r
		zero = c.em1 * c.p0 * r
		hi = c.dStar*r + c.t*s
	default:
		// (x_i - x)/(a_i - a_{i-1}) and (x - x_{i-1})/(a_i - a_{i-1}), with
		// a_i - a_{i-1} written as (x_i - x_{i-1})/t: then lo + hi = t and
		// the ends (lo, hi) = (t, 0) and (0, t) hold to rounding even when
		// a piece is narrow, so every probability stays in [p, e^ε·p]. (The
		// mean is then off by about ulp·a_n²/(a_i - a_{i-1}), far below any
		// statistical error.) For even N, i = 1 is one piece [-x_1, x_1].
		xl, xh := c.pieceEnds(i)
		k := c.t / (xh - xl)
		lo = (xh - x) * k
		hi = (x - xl) * k
	}
	return lo, zero, hi
}

// pieceEnds returns the ends of piece i: [x_{i-1}, x_i], or [-x_1, x_1]
// for i = 1 of even N.
func (c *noConfig) pieceEnds(i int) (lo, hi float64) {
	if i == 1 && !c.odd {
		return -c.knot(1), c.knot(1)
	}
	return c.knot(i - 1), c.knot(i)
}

// lower returns the output below piece i's upper output: a_{i-1}, or
// -a_1 for i = 1.
func (c *noConfig) lower(i int) float64 {
	if i == 1 {
		return -c.a[0]
	}
	return c.a[i-2]
}

// varPiece returns Var[Y | x] for 0 ≤ x in piece i, as
// Σ_k P[a_k|x]·(a_k - x)²: the flat part p·(2Σa_j² + 2n·x²) + p0·x², plus
// the extra masses times their squared distances. No term is negative.
func (c *noConfig) varPiece(i int, x float64) float64 {
	lo, zero, hi := c.extras(i, x)
	v := c.p*(2*c.s2+float64(2*c.n)*x*x) + c.p0*x*x
	ai := c.a[i-1]
	d1, d2 := c.lower(i)-x, ai-x
	if i == 1 && c.odd {
		d1 = -ai - x
	}
	return v + lo*d1*d1 + zero*x*x + hi*d2*d2
}

// vertex returns the maximiser of piece i's variance, a concave quadratic
// -x² + b_i·x + k_i: b_i/2 with b_i = a_{i-1} + a_i (i ≥ 2), 0 (even N,
// i = 1) and a_1·p0/p (odd N, i = 1: a_1(e·p + p - 2p*)/((e-1)p), x_1* of
// Theorem 4).
func (c *noConfig) vertex(i int) float64 {
	switch {
	case i >= 2:
		return (c.a[i-2] + c.a[i-1]) / 2
	case c.odd:
		return c.a[0] * c.p0 / (2 * c.p)
	}
	return 0
}

// pieceMax returns the maximum of the variance over piece i and where it
// is attained: the vertex clamped to the piece.
func (c *noConfig) pieceMax(i int) (v, x float64) {
	x = min(max(c.vertex(i), c.knot(i-1)), c.knot(i))
	return c.varPiece(i, x), x
}

// score sets the exact worst case: the largest piece maximum.
func (c *noConfig) score() {
	c.worst, c.worstX = math.Inf(-1), 0
	for i := 1; i <= c.n; i++ {
		if v, x := c.pieceMax(i); v > c.worst {
			c.worst, c.worstX = v, x
		}
	}
}

// NewNOutput returns the N-output mechanism at budget eps with N, Ω and p0
// chosen to minimise the worst-case variance (Algorithm 2 corrected, E0.7),
// registered as "n-output". N is 2 (Duchi) for ε up to about ln 2, 3
// (Three-Outputs) up to about 2.5, and grows with ε (Table 2; [NOutputMaxN]
// caps it).
func NewNOutput(eps float64) (*NOutput, error) {
	if err := checkEpsilon("n-output", eps); err != nil {
		return nil, err
	}
	return newNOutput("n-output", eps, bestConfig(nOutputCandidates(eps, 0, NOutputMaxN))), nil
}

// NewNOutputN returns the N-output mechanism with N outputs at budget eps
// (for the figures that sweep N), registered name "n-output": for N = 2
// Duchi's, for N = 3 Three-Outputs with its optimal p0, and for N ≥ 4 the
// better of its Theorem 4 and Theorem 5 configurations. It is an error if
// neither is valid (N too large for ε: the outputs would not increase).
func NewNOutputN(eps float64, N int) (*NOutput, error) {
	if err := checkEpsilon("n-output", eps); err != nil {
		return nil, err
	}
	if N < 2 || N > 1<<16 {
		return nil, &ParamError{Mechanism: "n-output", Param: "N", Value: float64(N), Reason: "must be an integer in [2, 65536]"}
	}
	cs := nOutputCandidates(eps, N, N)
	if len(cs) == 0 {
		return nil, &ParamError{Mechanism: "n-output", Param: "N", Value: float64(N),
			Reason: fmt.Sprintf("no valid configuration at ε = %v: neither Theorem 4 nor Theorem 5 gives increasing outputs (N too large for ε)", eps)}
	}
	return newNOutput("n-output", eps, bestConfig(cs)), nil
}

// newNOutput builds the mechanism and its sampling tables from a scored
// configuration.
func newNOutput(name string, eps float64, c noConfig) *NOutput {
	n := c.n
	m := &NOutput{name: name, eps: eps, cfg: c, worst: c.worst, worstX: c.worstX}
	m.off = n - 1
	if c.odd {
		m.off = n
	}
	m.outs = make([]float64, c.N)
	for j := 1; j <= n; j++ {
		m.outs[m.off+j] = c.a[j-1]
		m.outs[n-j] = -c.a[j-1]
	}
	m.knots = make([]float64, n)
	m.tw = make([]float64, n)
	for j := 1; j <= n; j++ {
		m.knots[j-1] = c.knot(j)
		xl, xh := c.pieceEnds(j)
		m.tw[j-1] = c.t / (xh - xl) // unused for j = 1 of odd N
	}
	if c.odd {
		x1 := c.knot(1)
		m.cOpp = c.dStar / x1
		m.cZero = c.em1 * c.p0 / x1
	}
	m.base = float64(2*n)*c.p + c.p0
	m.invP = 1 / c.p
	m.last = c.N - 1
	// A piece j ≥ 2 (or the even piece around 0) gives a_{j-1} below
	// the threshold r·tw and a_j above: c1 = tw, c2 = 0 (r·tw + 0·r is
	// r·tw, as r ≥ 0) and c3 = 0 (v < 0·r = 0 never holds for u ≥ 1-t).
	// The odd piece 1 gives a_{-1} below cOpp·r, 0 below cOpp·r + cZero·r
	// and a_1 above.
	m.pcs = make([]noPiece, n)
	for j := 1; j <= n; j++ {
		m.pcs[j-1] = noPiece{knot: m.knots[j-1], c1: m.tw[j-1], hi: m.off + j}
	}
	if c.odd {
		m.pcs[0] = noPiece{knot: m.knots[0], c1: m.cOpp, c2: m.cZero, c3: m.cOpp, hi: n + 1}
	}
	// The flat part: the nonzero outputs in order, then (odd N) 0. For
	// u < 1-t, ⌊u·(1/p)⌋ ≤ N - 1 but for rounding (u·(1/p) < 2n + p0/p
	// ≤ N), which may give N (or 2n for even N): those are clamped to the
	// last entry.
	flat := make([]int32, 0, c.N)
	for k := 0; k < c.N; k++ {
		if !c.odd || k != n {
			flat = append(flat, int32(k))
		}
	}
	if c.odd {
		flat = append(flat, int32(n))
	}
	size := 1 << bits.Len(uint(len(flat))) // > len(flat)
	m.flat = make([]int32, size)
	for k := range m.flat {
		m.flat[k] = flat[min(k, len(flat)-1)]
	}
	m.flatMask = size - 1
	// The lookup table: 2n cells (at least 16), each pointing at the piece
	// of its left end.
	cells := max(16, 2*n)
	m.lutM = float64(cells)
	m.lut = make([]int32, cells+1)
	j := 0
	for k := range m.lut {
		x := float64(k) / m.lutM
		for j < n-1 && x > m.knots[j] {
			j++
		}
		m.lut[k] = int32(j)
	}
	return m
}

// Name returns the registry name.
func (m *NOutput) Name() string { return m.name }

// Epsilon returns the privacy budget.
func (m *NOutput) Epsilon() float64 { return m.eps }

// Domain returns [-1, 1].
func (m *NOutput) Domain() (lo, hi float64) { return -1, 1 }

// N returns the number of outputs.
func (m *NOutput) N() int { return m.cfg.N }

// Bits returns ⌈log2 N⌉, the length of a report's index in a fixed-length
// code (Table 2 prints ⌊log2 N⌋+1, one more when N is a power of two,
// ERRATA E0.14).
func (m *NOutput) Bits() int { return bits.Len(uint(m.cfg.N - 1)) }

// P returns p, the smallest probability of a nonzero output.
func (m *NOutput) P() float64 { return m.cfg.p }

// P0 returns p0, the smallest probability of the output 0 (0 for even N).
func (m *NOutput) P0() float64 { return m.cfg.p0 }

// T returns t = (e^ε-1)p, the probability of the input-dependent part.
func (m *NOutput) T() float64 { return m.cfg.t }

// Construction returns how Ω was found: "duchi" (N = 2), "three-outputs"
// (N = 3), "theorem 4" or "theorem 5".
func (m *NOutput) Construction() string { return m.cfg.how }

// Knots returns the inputs at which the output probabilities have kinks,
// in increasing order: ±x_j = ±t·a_j for j = 1 … n (x_n = 1) and 0 (odd N).
// Every output's probability attains its extremes (p and e^ε·p, or p0 and
// e^ε·p0) at some of them, so an exact ε-LDP check needs them in its input
// grid.
func (m *NOutput) Knots() []float64 {
	k := make([]float64, 0, 2*len(m.knots)+1)
	for j := len(m.knots) - 1; j >= 0; j-- {
		k = append(k, -m.knots[j])
	}
	if m.cfg.odd {
		k = append(k, 0)
	}
	return append(k, m.knots...)
}

// piece returns the piece j (1 … n) of ax in [0, 1]: the smallest j with
// ax ≤ x_j.
func (m *NOutput) piece(ax float64) int { return m.pieceIndex(ax) + 1 }

// pieceIndex returns piece(ax) - 1. It costs a lookup and a scan that
// rarely moves.
func (m *NOutput) pieceIndex(ax float64) int {
	j := int(m.lut[int(ax*m.lutM)])
	for ax > m.knots[j] {
		j++
	}
	return j
}

// index returns the index in Outputs() of the report of x for the uniform
// u in [0, 1): u < 1-t draws from the flat part (index ⌊u/p⌋ among the
// nonzero outputs, or 0 for odd N), the rest from the input-dependent part
// of x's piece j = pieceIndex(|x|) + 1, with v = u - (1-t):
//
//	j ≥ 2, or even N:  a_{j-1} if v < (x_j - |x|)·tw, else a_j;
//	odd N, j = 1:      a_{-1} if v < cOpp·r, 0 if v < cOpp·r + cZero·r,
//	                   else a_1, r = x_1 - |x|;
//
// mirrored for x < 0. Both parts' indices are computed (flatPart,
// extraPart) and one is selected without a branch (the case split is
// random and a mispredicted branch costs as much as a report); only the
// scan for the piece branches, and it rarely moves.
//
// Perturb, PerturbIndex, the batches and [HMNP]'s batch all make a report
// so; the batch loops inline the parts (go build -gcflags=-m says "can
// inline" for pieceIndex, flatPart, extraPart, mirror and pickPart).
func (m *NOutput) index(x, u float64) int {
	ax := math.Abs(x)
	return m.pickPart(u, m.flatPart(u), m.mirror(x, m.extraPart(ax, u, m.pieceIndex(ax))))
}

// flatPart returns the index of the report from the flat part for the
// uniform u: flat[⌊u/p⌋], the index clamped to the outputs (u·(1/p) may
// round up to their number). For u ≥ 1-t, where the flat part is not used,
// ⌊u/p⌋ may be anything, even beyond the int range; the mask keeps it in
// the table, without a branch.
func (m *NOutput) flatPart(u float64) int {
	return int(m.flat[int(u*m.invP)&m.flatMask])
}

// extraPart returns the index of the report of |x| = ax, in piece j+1,
// from the input-dependent part, for the uniform u ≥ 1-t (see index). The
// float64 conversions forbid the compiler to fuse a product and a sum into
// one FMA (see [Piecewise.report]).
func (m *NOutput) extraPart(ax, u float64, j int) int {
	p := &m.pcs[j]
	r := p.knot - ax
	v := u - m.base
	return p.hi - b2i(v < float64(p.c1*r)+float64(p.c2*r)) - b2i(v < float64(p.c3*r))
}

// mirror returns N-1-i, the index of -Outputs()[i], if x < 0, else i,
// without a branch.
func (m *NOutput) mirror(x float64, i int) int {
	s := -b2i(x < 0) // all ones if x < 0
	return (i ^ s) - s + m.last&s
}

// pickPart returns flat if u < 1-t and extra otherwise, without a branch.
func (m *NOutput) pickPart(u float64, flat, extra int) int {
	return extra ^ (extra^flat)&-b2i(u < m.base)
}

// PerturbIndex returns the index in Outputs() of one report of x: the
// symbol a client sends. It draws one uniform.
func (m *NOutput) PerturbIndex(x float64, rng *rand.Rand) int {
	return m.index(x, rng.Float64())
}

// Perturb returns one report of x, an element of Outputs(), drawing one
// uniform.
func (m *NOutput) Perturb(x float64, rng *rand.Rand) float64 {
	return m.outs[m.index(x, rng.Float64())]
}

// PerturbBatch writes a report of xs[i] to dst[i]; dst may be xs.
func (m *NOutput) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	if err := checkInputs(m.name, xs, -1, 1); err != nil {
		return err
	}
	dst = batchDst(dst, len(xs))
	var us [batchBlock]float64
	var js [batchBlock]int32
	for len(xs) > 0 {
		k := min(len(xs), batchBlock)
		u, x, d, j := us[:k], xs[:k], dst[:k], js[:k]
		drawUniforms(u, rng)
		m.pieces(j, x)
		for i, x := range x {
			// index(x, u[i]), written out so that its parts are inlined.
			d[i] = m.outs[m.pickPart(u[i], m.flatPart(u[i]), m.mirror(x, m.extraPart(math.Abs(x), u[i], int(j[i]))))]
		}
		xs, dst = xs[k:], dst[k:]
	}
	return nil
}

// pieces sets js[i] = pieceIndex(|xs[i]|) for every i < len(js), in a loop
// of its own, so that the lookups of a block overlap; with one piece
// (N ≤ 3) they are all 0.
func (m *NOutput) pieces(js []int32, xs []float64) {
	if len(m.pcs) == 1 {
		clear(js)
		return
	}
	xs = xs[:len(js)]
	for i, x := range xs {
		js[i] = int32(m.pieceIndex(math.Abs(x)))
	}
}

// PerturbIndexBatch writes the output index of a report of xs[i] to
// dst[i], drawing exactly what PerturbBatch draws (so the indices are
// those of PerturbBatch's reports).
func (m *NOutput) PerturbIndexBatch(dst []int, xs []float64, rng *rand.Rand) error {
	if err := checkInputs(m.name, xs, -1, 1); err != nil {
		return err
	}
	if len(dst) < len(xs) {
		panic("mechanisms: PerturbIndexBatch: dst is shorter than xs")
	}
	var us [batchBlock]float64
	var js [batchBlock]int32
	for len(xs) > 0 {
		k := min(len(xs), batchBlock)
		u, x, d, j := us[:k], xs[:k], dst[:k], js[:k]
		drawUniforms(u, rng)
		m.pieces(j, x)
		for i, x := range x {
			// index(x, u[i]), written out so that its parts are inlined.
			d[i] = m.pickPart(u[i], m.flatPart(u[i]), m.mirror(x, m.extraPart(math.Abs(x), u[i], int(j[i]))))
		}
		xs, dst = xs[k:], dst[k:]
	}
	return nil
}

// Variance returns Var[Y | x] = Σ_i P[a_i|x]·(a_i - x)², the noise variance
// of Section 3.4 (Var_i[Y|x]) in a form without cancellation.
func (m *NOutput) Variance(x float64) float64 {
	ax := min(math.Abs(x), 1)
	return m.cfg.varPiece(m.piece(ax), ax)
}

// WorstCaseVariance returns max over [-1, 1] of Variance: the largest of
// the pieces' maxima, each at its vertex clamped to the piece.
func (m *NOutput) WorstCaseVariance() float64 { return m.worst }

// WorstCaseInput returns an |x| in [0, 1] at which the variance is largest.
func (m *NOutput) WorstCaseInput() float64 { return m.worstX }

// Outputs returns Ω in increasing order. The slice belongs to the
// mechanism.
func (m *NOutput) Outputs() []float64 { return m.outs }

// Probabilities writes P[Outputs()[i] | x] to dst[i] (eqs. (10)–(11)).
func (m *NOutput) Probabilities(x float64, dst []float64) {
	m.probabilities(x, m.piece(min(math.Abs(x), 1)), dst)
}

// probabilities writes the law of the report of x given its piece j.
func (m *NOutput) probabilities(x float64, j int, dst []float64) {
	c := &m.cfg
	N, n := c.N, c.n
	dst = dst[:N]
	for i := range dst {
		dst[i] = c.p
	}
	if c.odd {
		dst[n] = c.p0
	}
	ax := math.Abs(x)
	lo, zero, hi := c.extras(j, ax)
	iHi := m.off + j
	iLo := iHi - 1
	if j == 1 && c.odd {
		iLo = n - 1
		dst[n] += zero
	}
	if x < 0 {
		iHi, iLo = N-1-iHi, N-1-iLo
	}
	dst[iLo] += lo
	dst[iHi] += hi
}

// ProbabilityOf returns P[Outputs()[i] | x].
func (m *NOutput) ProbabilityOf(i int, x float64) float64 {
	c := &m.cfg
	N, n := c.N, c.n
	if x < 0 {
		x, i = -x, N-1-i
	}
	ax := min(x, 1)
	j := m.piece(ax)
	lo, zero, hi := c.extras(j, ax)
	iHi := m.off + j
	iLo := iHi - 1
	if j == 1 && c.odd {
		iLo = n - 1
		if i == n {
			return c.p0 + zero
		}
	}
	switch {
	case i == iHi:
		return c.p + hi
	case i == iLo:
		return c.p + lo
	case c.odd && i == n:
		return c.p0
	}
	return c.p
}

// AverageProbability returns the average of P[Outputs()[i] | x] over x
// uniform on [xlo, xhi] (the value at xlo when xlo = xhi), exactly: the
// probability is linear between the knots, so the average is the
// length-weighted sum of its values at the midpoints of the pieces of
// [xlo, xhi] cut at the knots where it can bend (those next to output i
// and 0). This is Θ^N of the paper's eq. (21) (ERRATA E0.19).
func (m *NOutput) AverageProbability(i int, xlo, xhi float64) float64 {
	if !(xhi > xlo) {
		return m.ProbabilityOf(i, xlo)
	}
	n := m.cfg.n
	// The output's magnitude index j: Outputs()[i] = ±a_j (j = 0 for the
	// output 0 of odd N).
	var j int
	switch {
	case i > m.off:
		j = i - m.off
	case m.cfg.odd && i == n:
		j = 0
	default:
		j = n - i
	}
	var cuts [8]float64
	k := 0
	add := func(x float64) {
		if x > xlo && x < xhi {
			cuts[k] = x
			k++
		}
	}
	add(0)
	for _, jj := range [3]int{j - 1, j, j + 1} {
		if jj >= 1 && jj <= n {
			add(m.knots[jj-1])
			add(-m.knots[jj-1])
		}
	}
	// Even N: a_{±1} bend at ∓x_1 as well (covered above with jj = 1).
	cs := cuts[:k]
	slices.Sort(cs)
	sum, prev := 0.0, xlo
	for _, c := range cs {
		sum += (c - prev) * m.ProbabilityOf(i, prev+(c-prev)/2)
		prev = c
	}
	sum += (xhi - prev) * m.ProbabilityOf(i, prev+(xhi-prev)/2)
	return sum / (xhi - xlo)
}

// NOutputAuthorsKnots is a deliberately broken N-output mechanism, kept
// only to show that the checks catch it: it is the mechanism of
// [NewNOutputN] with the piece of an input chosen by the breakpoints
// t·x_j = t²·a_j instead of x_j = t·a_j, as in the authors' public code
// (n_output.py, prob_x; ERRATA E0.1), while the piece formulas keep the
// correct knots. For N ≥ 4 an input then falls into a higher piece whose
// formula is extrapolated: some "probabilities" are negative or exceed
// e^ε·p, the reports are not ε-LDP, and inverse-CDF sampling from that
// vector (clamped at the last output, as a cumulative search does) is
// biased. For N ≤ 3 there is one piece and nothing changes. It is not
// registered; its Variance is the correct mechanism's (what the code
// claims).
type NOutputAuthorsKnots struct {
	*NOutput
	bad []float64 // the breakpoints t·x_j used to pick the piece
}

// NewNOutputAuthorsKnots returns the broken compat variant of
// NewNOutputN(eps, N), named "n-output-authors-knots".
func NewNOutputAuthorsKnots(eps float64, N int) (*NOutputAuthorsKnots, error) {
	m, err := NewNOutputN(eps, N)
	if err != nil {
		return nil, err
	}
	m.name = "n-output-authors-knots"
	bad := make([]float64, len(m.knots))
	for j, x := range m.knots {
		bad[j] = m.cfg.t * x
	}
	return &NOutputAuthorsKnots{NOutput: m, bad: bad}, nil
}

// badPiece is the authors' piece of ax: the first j with ax ≤ t·x_j, else
// the last.
func (m *NOutputAuthorsKnots) badPiece(ax float64) int {
	if j := slices.IndexFunc(m.bad, func(b float64) bool { return ax <= b }); j >= 0 {
		return j + 1
	}
	return len(m.bad)
}

// Probabilities writes the authors' vector: the formulas of the wrong
// piece.
func (m *NOutputAuthorsKnots) Probabilities(x float64, dst []float64) {
	m.probabilities(x, m.badPiece(min(math.Abs(x), 1)), dst)
}

// Perturb samples the authors' vector by inverse CDF on one uniform (the
// first output whose cumulative sum exceeds u, else the last).
func (m *NOutputAuthorsKnots) Perturb(x float64, rng *rand.Rand) float64 {
	u := rng.Float64()
	var buf [64]float64
	ps := buf[:0]
	if m.N() > len(buf) {
		ps = make([]float64, m.N())
	} else {
		ps = buf[:m.N()]
	}
	m.Probabilities(x, ps)
	cum := 0.0
	for i, p := range ps {
		cum += p
		if u < cum {
			return m.outs[i]
		}
	}
	return m.outs[len(m.outs)-1]
}

// PerturbBatch writes a report of xs[i] to dst[i].
func (m *NOutputAuthorsKnots) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	if err := checkInputs(m.name, xs, -1, 1); err != nil {
		return err
	}
	dst = batchDst(dst, len(xs))
	for i, x := range xs {
		dst[i] = m.Perturb(x, rng)
	}
	return nil
}
