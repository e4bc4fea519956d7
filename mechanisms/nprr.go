package mechanisms

import (
	"math"
	"math/rand/v2"
)

// NPRR is the simplified NPRR of Raab et al. (Section 3.2.4, Algorithm 2;
// Waudby-Smith et al.'s mechanism, App. B) with discretisation k ≥ 1.
//
// An input v in [-1, 1] is mapped to s = k(v+1)/2 ∈ [0, k] and rounded
// stochastically to the grid index y = ⌊s⌋ + Bernoulli(s - ⌊s⌋), so that
// E[y] = s exactly; y is reported through GRR over the k+1 indices at
// budget ε, and the index z becomes the report 2z/k - 1 ∈ {-1, -1+2/k, …, 1}.
// Indices are integers throughout (the authors' code passes float indices,
// E2.16), and the rounding is never round() or truncation, which bias every
// input off the grid (the test TestNPRRRoundTrap shows by how much).
//
// With e = e^ε, GRR keeps the index with p = e/(e+k) and moves it to each
// other index with q = 1/(e+k); equivalently it keeps it with c = p - q =
// (e-1)/(e+k) and otherwise draws an index uniformly from all k+1. So
// E[Y | v] = c·v ([NPRR.Debias] divides by c), and
//
//	E[Y² | v] = S_k·q + c·(v² + (4/k²)·θ(1-θ)),  S_k = (k+1)(k+2)/(3k),
//
// θ = s - ⌊s⌋ (the rounding adds the variance (4/k²)θ(1-θ) of a scaled
// Bernoulli(θ)). k = 1 is exactly the [Bernoulli] mechanism.
type NPRR struct {
	eps       float64
	k         int
	half      float64 // k/2: s = (v+1)·k/2
	c, p, q   float64
	invQ      float64 // 1/q = e^ε+k, for the GRR offset
	oneMinusC float64 // 1 - c = (k+1)q
	m2k       float64 // S_k·q: the part of E[Y²] that the uniform draw gives
	out       []float64
	worst     float64
}

var _ interface {
	Mechanism
	Variancer
	Discrete
	Debiaser
} = (*NPRR)(nil)

// NewNPRR returns simplified NPRR with discretisation k ≥ 1 at budget eps.
// The registry's "nprr" is k = 8, the authors' default.
func NewNPRR(eps float64, k int) (*NPRR, error) {
	if err := checkEpsilon("nprr", eps); err != nil {
		return nil, err
	}
	if k < 1 {
		return nil, &ParamError{Mechanism: "nprr", Param: "k", Value: float64(k), Reason: "must be ≥ 1"}
	}
	kf := float64(k)
	// q = 1/(e+k) = e^{-ε}/(1+k·e^{-ε}) and c = (1-e^{-ε})/(1+k·e^{-ε}):
	// no overflow, and no cancellation as ε → 0.
	em := math.Exp(-eps)
	den := 1 + kf*em
	m := &NPRR{
		eps:  eps,
		k:    k,
		half: kf / 2,
		c:    -math.Expm1(-eps) / den,
		p:    1 / den,
		q:    em / den,
		invQ: math.Exp(eps) + kf,
		out:  make([]float64, k+1),
	}
	m.m2k = (kf + 1) * (kf + 2) / (3 * kf) * m.q
	m.oneMinusC = (kf + 1) * m.q
	for j := range m.out {
		// 2j - k is exact: one rounding, the same value everywhere the
		// index becomes a report.
		m.out[j] = float64(2*j-k) / kf
	}
	m.worst = m.worstCaseVariance()
	return m, nil
}

// Name returns "nprr" (whatever k; see [NPRR.K]).
func (m *NPRR) Name() string { return "nprr" }

// Epsilon returns the privacy budget.
func (m *NPRR) Epsilon() float64 { return m.eps }

// Domain returns [-1, 1].
func (m *NPRR) Domain() (lo, hi float64) { return -1, 1 }

// K returns the discretisation k: the grid has k+1 points.
func (m *NPRR) K() int { return m.k }

// C returns the slope c = (e^ε-1)/(e^ε+k) of E[Y | v] = c·v.
func (m *NPRR) C() float64 { return m.c }

// P returns GRR's probability of keeping the rounded index, e^ε/(e^ε+k).
func (m *NPRR) P() float64 { return m.p }

// Q returns GRR's probability of moving the rounded index to one given
// other index, 1/(e^ε+k).
func (m *NPRR) Q() float64 { return m.q }

// Position returns s = k(v+1)/2 ∈ [0, k], the input's position on the
// index scale: the stochastic rounding reports ⌊s⌋ + 1 with probability
// s - ⌊s⌋ and ⌊s⌋ otherwise (its Cell).
func (m *NPRR) Position(v float64) float64 { return (v + 1) * m.half }

// Cell returns the grid cell f = ⌊s⌋ of v and the probability θ = s - f
// that the stochastic rounding moves it up to f+1, s = k(v+1)/2. For v in
// [-1, 1], s is in [0, k] and θ in [0, 1); at v = 1, f = k and θ = 0.
// [NPRR.RoundIndex] is f + 1{u < θ}.
func (m *NPRR) Cell(v float64) (f int, theta float64) { return m.split(v) }

// split is Cell; the guard keeps f ≤ k for an input beyond the domain.
func (m *NPRR) split(v float64) (f int, theta float64) {
	s := m.Position(v)
	f = int(s) // s ≥ 0: truncation is ⌊s⌋
	theta = s - float64(f)
	if f >= m.k {
		f, theta = m.k, 0
	}
	return f, theta
}

// RoundIndex returns Algorithm 2's stochastic rounding of v for the
// uniform u in [0, 1): ⌊s⌋ + 1 if u < θ, else ⌊s⌋, with s = k(v+1)/2 and
// θ = s - ⌊s⌋. So Pr[index = ⌊s⌋ + 1] = θ and the mean index is s.
func (m *NPRR) RoundIndex(v, u float64) int {
	f, theta := m.split(v)
	return f + b2i(u < theta)
}

// ReportIndex returns GRR's report, over the k+1 indices, of the index y
// for the uniform u in [0, 1): y if u < p, else y + J mod (k+1) with J
// uniform on {1, …, k} (see [GRR.Perturb]).
func (m *NPRR) ReportIndex(y int, u float64) int {
	return grrReport(y, m.k+1, m.p, m.invQ, u)
}

// Value returns the report 2z/k - 1 of the index z: Outputs()[z].
func (m *NPRR) Value(z int) float64 { return m.out[z] }

// Perturb returns one report of x from two uniforms: the first rounds x to
// an index ([NPRR.RoundIndex]), the second reports it by GRR
// ([NPRR.ReportIndex]).
func (m *NPRR) Perturb(x float64, rng *rand.Rand) float64 {
	y := m.RoundIndex(x, rng.Float64())
	return m.out[m.ReportIndex(y, rng.Float64())]
}

// PerturbBatch writes a report of xs[i] to dst[i]; dst may be xs. It equals
// the same sequence of Perturb calls.
func (m *NPRR) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	if err := checkInputs("nprr", xs, -1, 1); err != nil {
		return err
	}
	dst = batchDst(dst, len(xs))
	for i, x := range xs {
		y := m.RoundIndex(x, rng.Float64())
		dst[i] = m.out[m.ReportIndex(y, rng.Float64())]
	}
	return nil
}

// Debias returns y/c, an unbiased estimate of the input.
func (m *NPRR) Debias(y float64) float64 { return y / m.c }

// SecondMoment returns E[Y² | x] of the raw report,
// S_k·q + c·(x² + (4/k²)θ(1-θ)) (derived; the paper gives no moments).
func (m *NPRR) SecondMoment(x float64) float64 {
	_, theta := m.split(x)
	r := theta * (1 - theta) / (m.half * m.half) // (4/k²)θ(1-θ)
	return m.m2k + m.c*(x*x+r)
}

// Variance returns the variance of the de-biased report,
// (E[Y² | x] - c²x²)/c², written with 1 - c = (k+1)q as
// (S_k·q + c((k+1)q·x² + (4/k²)θ(1-θ)))/c²: a sum of non-negative terms,
// without the cancellation of E[Y²] - c²x² at large ε.
func (m *NPRR) Variance(x float64) float64 {
	_, theta := m.split(x)
	r := theta * (1 - theta) / (m.half * m.half)
	return (m.m2k + m.c*(m.oneMinusC*x*x+r)) / (m.c * m.c)
}

// WorstCaseVariance returns the maximum of Variance over [-1, 1].
func (m *NPRR) WorstCaseVariance() float64 { return m.worst }

// worstCaseVariance maximises Variance exactly. In s = k(v+1)/2 ∈ [0, k],
// c²·Variance is, up to a constant,
//
//	F(s) = c(1-c)(2s/k - 1)² + c(4/k²)(s - f)(f + 1 - s)
//
// on the cell [f, f+1]: a quadratic in s with leading coefficient
// (4c/k²)((1-c) - 1) = -4c²/k² < 0, so concave on each cell, with its
// vertex at s* = (2f + 1 - (1-c)k)/(2c). The maximum over a cell is at s*
// clamped to the cell, and the maximum over [-1, 1] is the largest of
// these k candidates (F is continuous across cells, as θ(1-θ) vanishes at
// both ends). For k = 1 the one candidate is s* = 1/2, v = 0: 1/c², the
// Bernoulli mechanism's.
func (m *NPRR) worstCaseVariance() float64 {
	kf := float64(m.k)
	best := math.Inf(-1)
	for f := range m.k {
		s := (2*float64(f) + 1 - (1-m.c)*kf) / (2 * m.c)
		s = min(max(s, float64(f)), float64(f+1))
		v := min(max(s/m.half-1, -1), 1)
		best = max(best, m.Variance(v))
	}
	return best
}

// Outputs returns the grid {2j/k - 1 : j = 0, …, k}. The slice belongs to
// the mechanism.
func (m *NPRR) Outputs() []float64 { return m.out }

// Probabilities writes Pr[Y = Outputs()[j] | x] to dst[j]: q everywhere,
// plus c(1-θ) at the index ⌊s⌋ and cθ at ⌊s⌋+1.
func (m *NPRR) Probabilities(x float64, dst []float64) {
	dst = dst[:m.k+1]
	for j := range dst {
		dst[j] = m.q
	}
	f, theta := m.split(x)
	dst[f] += m.c * (1 - theta)
	if theta > 0 {
		dst[f+1] += m.c * theta
	}
}
