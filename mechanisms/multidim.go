package mechanisms

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"
)

// Vector is an ε-LDP randomiser for a point of [-1, 1]^d whose report is an
// unbiased estimate of the point (Zhao et al. Section VI): what a collector
// averages per coordinate.
type Vector interface {
	// Name names the method ("pm" for Algorithm 6 over PM, "duchi-md",
	// "laplace-split").
	Name() string
	// Epsilon is the budget of one report of the whole vector.
	Epsilon() float64
	// Dim is d, the number of coordinates.
	Dim() int
	// PerturbVector writes one report of x to dst[:Dim()]. x must have
	// Dim() coordinates, each in [-1, 1]: otherwise it returns an error (an
	// *InputError naming the coordinate for a value outside [-1, 1] or
	// NaN) before drawing anything. It panics if len(dst) < Dim(). dst may
	// be x. It does not allocate, and a Vector holds no per-report state, so
	// one value may serve concurrent callers with their own generators.
	PerturbVector(dst, x []float64, rng *rand.Rand) error
	// CoordinateVariance returns Var[Y_j | x], the exact variance of a
	// coordinate's report when that coordinate's input is x; for every
	// mechanism here it does not depend on the other coordinates.
	CoordinateVariance(x float64) float64
}

// NewVector returns the d-dimensional mechanism that the specs call method
// at budget eps (Zhao et al.'s Algorithm 6 and the baselines of their
// Section VII):
//
//	"duchi"    Duchi et al.'s multi-dimensional mechanism ([NewDuchiMD])
//	"laplace"  Lap(2d/ε) on every coordinate ([NewLaplaceSplit])
//	any other  Algorithm 6 ([NewSampleKofD]) over the registered 1-D
//	           mechanism of that name (pm, hm, pm-sub, three-outputs, hm-tp,
//	           sw through its unbiased [-1, 1] estimate, ...)
func NewVector(method string, d int, eps float64) (Vector, error) {
	switch method {
	case "duchi":
		return NewDuchiMD(d, eps)
	case "laplace":
		return NewLaplaceSplit(d, eps)
	}
	info, ok := Lookup(method)
	if !ok {
		return nil, fmt.Errorf("unknown mechanism %q (valid: %s)", method, strings.Join(Names(), ", "))
	}
	return NewSampleKofD(method, info.New, d, eps)
}

// checkVector validates the arguments of PerturbVector.
func checkVector(name string, d int, dst, x []float64) error {
	if len(x) != d {
		return fmt.Errorf("%s: input has %d coordinates, want d = %d", name, len(x), d)
	}
	if len(dst) < d {
		panic(fmt.Sprintf("%s: PerturbVector: len(dst) = %d < d = %d", name, len(dst), d))
	}
	return checkInputs(name, x, -1, 1)
}

func checkDim(name string, d int) error {
	if d < 1 {
		return &ParamError{Mechanism: name, Param: "d", Value: float64(d), Reason: "must be ≥ 1"}
	}
	return nil
}

// SampleK returns the number of coordinates that Algorithm 6 reports,
// k = max{1, min{d, ⌊ε/2.5⌋}} (eq. (36)): k = 1 for every ε < 5.
func SampleK(d int, eps float64) int {
	k := math.Floor(eps / 2.5)
	if k >= float64(d) {
		return d
	}
	return max(1, int(k))
}

// SampleKofD is Wang et al.'s and Zhao et al.'s Algorithm 6 (Section VI): a
// user samples k = SampleK(d, ε) distinct coordinates uniformly without
// replacement, reports each through a 1-D mechanism at ε/k (ε-LDP by basic
// composition), multiplied by d/k, and reports 0 on the other coordinates.
// Every coordinate's report is unbiased with variance (eq. (162))
//
//	Var[Y_j | x_j] = (d/k)·(Var_M(x_j) + x_j²) - x_j²,  Var_M at ε/k,
//
// and Y lies in [-(d/k)A, (d/k)A]^d for a 1-D output bound A (ERRATA
// E3.19). The 1-D reports are the unbiased [-1, 1] estimates of
// [Unbiased]; a discretised inner mechanism ([NewDiscretized]) rounds before
// the d/k scaling.
type SampleKofD struct {
	name  string
	eps   float64
	d, k  int
	scale float64 // d/k
	inner Estimate
}

var _ Vector = (*SampleKofD)(nil)

// NewSampleKofD returns Algorithm 6 over the 1-D mechanism that newInner
// builds (it is called once, at budget eps/k), named name. eps must be
// finite and > 0, d ≥ 1, and the inner mechanism must have a closed-form
// variance ([Unbiased]).
func NewSampleKofD(name string, newInner func(eps float64) (Mechanism, error), d int, eps float64) (*SampleKofD, error) {
	if err := checkEpsilon(name, eps); err != nil {
		return nil, err
	}
	if err := checkDim(name, d); err != nil {
		return nil, err
	}
	k := SampleK(d, eps)
	m, err := newInner(eps / float64(k))
	if err != nil {
		return nil, err
	}
	est, err := Unbiased(m)
	if err != nil {
		return nil, err
	}
	return &SampleKofD{name: name, eps: eps, d: d, k: k, scale: float64(d) / float64(k), inner: est}, nil
}

// Name returns the name given to the constructor.
func (s *SampleKofD) Name() string { return s.name }

// Epsilon returns the budget of one report of the vector.
func (s *SampleKofD) Epsilon() float64 { return s.eps }

// Dim returns d.
func (s *SampleKofD) Dim() int { return s.d }

// K returns the number of coordinates reported.
func (s *SampleKofD) K() int { return s.k }

// Inner returns the 1-D estimate, at budget ε/k.
func (s *SampleKofD) Inner() Estimate { return s.inner }

// maskWords bounds the d for which the sampled set is kept in a bit mask on
// the stack; larger d use selection sampling.
const maskWords = 16

// PerturbVector writes one report of x to dst.
//
// For d ≤ 1024 the k coordinates are drawn by Floyd's algorithm (k draws
// of rng.IntN, a uniform k-subset; the set is a bit mask on the stack, so
// there is no scratch to share between workers); for larger d by selection
// sampling (Knuth's Algorithm S, d draws). Both sample without replacement.
// With k = d every coordinate is reported and no index is drawn.
func (s *SampleKofD) PerturbVector(dst, x []float64, rng *rand.Rand) error {
	if err := checkVector(s.name, s.d, dst, x); err != nil {
		return err
	}
	d, k := s.d, s.k
	dst = dst[:d]
	switch {
	case k == d:
		for j, xj := range x {
			dst[j] = s.scale * s.inner.Perturb(xj, rng)
		}
	case d <= 64*maskWords:
		var mask [maskWords]uint64
		// Every chosen t is distinct, so x[t] is read before dst[t] is
		// written and never after: dst may be x.
		for j := d - k; j < d; j++ {
			t := rng.IntN(j + 1)
			if mask[t>>6]&(1<<(t&63)) != 0 {
				t = j
			}
			mask[t>>6] |= 1 << (t & 63)
			dst[t] = s.scale * s.inner.Perturb(x[t], rng)
		}
		for j := range dst {
			if mask[j>>6]&(1<<(j&63)) == 0 {
				dst[j] = 0
			}
		}
	default:
		need := k
		for j := range dst {
			// Coordinate j is chosen with probability need/(d-j).
			if need > 0 && rng.IntN(d-j) < need {
				dst[j] = s.scale * s.inner.Perturb(x[j], rng)
				need--
			} else {
				dst[j] = 0
			}
		}
	}
	// A report that failed (an external program) is NaN: say why.
	if f, ok := s.inner.(Failer); ok {
		if err := f.Err(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

// CoordinateVariance returns eq. (162), (d/k)·(Var_M(x) + x²) - x² with
// Var_M the inner variance at ε/k.
func (s *SampleKofD) CoordinateVariance(x float64) float64 {
	return s.scale*(s.inner.Variance(x)+x*x) - x*x
}

// LaplaceSplit is the paper's multi-dimensional Laplace baseline
// (Zhao et al. Section VII-A): every coordinate gets ε/d, i.e. Lap(2d/ε)
// noise, with variance 8d²/ε².
type LaplaceSplit struct {
	eps float64
	d   int
	lap *Laplace
}

var _ Vector = (*LaplaceSplit)(nil)

// NewLaplaceSplit returns the Laplace baseline for d coordinates at budget
// eps.
func NewLaplaceSplit(d int, eps float64) (*LaplaceSplit, error) {
	if err := checkEpsilon("laplace-split", eps); err != nil {
		return nil, err
	}
	if err := checkDim("laplace-split", d); err != nil {
		return nil, err
	}
	lap, err := NewLaplace(eps / float64(d))
	if err != nil {
		return nil, err
	}
	return &LaplaceSplit{eps: eps, d: d, lap: lap}, nil
}

// Name returns "laplace-split".
func (l *LaplaceSplit) Name() string { return "laplace-split" }

// Epsilon returns the budget of one report of the vector.
func (l *LaplaceSplit) Epsilon() float64 { return l.eps }

// Dim returns d.
func (l *LaplaceSplit) Dim() int { return l.d }

// PerturbVector writes x + Lap(2d/ε) noise to dst, coordinate by
// coordinate.
func (l *LaplaceSplit) PerturbVector(dst, x []float64, rng *rand.Rand) error {
	if err := checkVector("laplace-split", l.d, dst, x); err != nil {
		return err
	}
	for j, xj := range x {
		dst[j] = l.lap.Perturb(xj, rng)
	}
	return nil
}

// CoordinateVariance returns 8d²/ε².
func (l *LaplaceSplit) CoordinateVariance(x float64) float64 { return l.lap.Variance(x) }

// DuchiMD is Duchi et al.'s multi-dimensional mechanism for [-1, 1]^d
// (a baseline of Zhao et al. Section VII), with the ties of even d split
// evenly between T+ and T-:
//
//  1. draw v ∈ {-1, 1}^d with P[v_j = 1] = (1 + x_j)/2, independently;
//  2. report z ∈ {-B, B}^d with
//     P[z | v] = 2^{1-d}·(σ if z·v > 0, 1-σ if z·v < 0, 1/2 if z·v = 0),
//     σ = e^ε/(e^ε+1).
//
// For odd d there are no ties and this is "with probability σ a uniform
// point of T+ = {z·v > 0}, otherwise one of T- = {z·v < 0}". For even d a
// tie belongs to both sets with half the weight of the other points, which
// keeps the privacy ratio at σ/(1-σ) = e^ε. The two other readings are
// wrong (ERRATA E3.20 and beyond it): the common split "z·v > 0 vs
// otherwise" is biased and not ε-LDP; and ties counted fully in both sets
// (uniform on T+ = {z·v ≥ 0} or on T- = {z·v ≤ 0}), which is unbiased with
// the textbook even-d constant C_d = (2^{d-1} + binom(d, d/2)/2)/binom(d-1,
// d/2), gives a tie probability 1/|T+| against (1-σ)/|T+| for the
// opposite points, a privacy ratio of e^ε + 1 (exact enumeration in the
// tests). Here the report is unbiased with
//
//	B = ((e^ε+1)/(e^ε-1))·C_d,  C_d = 2^{d-1}/binom(d-1, ⌊d/2⌋)
//
// (Duchi et al.'s constant for odd d; for even d it is the textbook one
// minus 1: C_1 = 1, C_2 = 2, C_3 = 2, C_4 = 8/3), because ties contribute
// nothing to E[z]. Every coordinate of a report is ±B, so
// Var[Y_j | x] = B² - x_j², and C_d ≈ √(πd/2): the noise does not vanish as
// ε grows.
//
// Sampling: z = s·B·(v ⊙ w) with s = +1 with probability σ (else -1) and w
// uniform on {±1}^d, negated when Σw < 0. The negation gives every w with
// Σw > 0 probability 2^{1-d} and every tie 2^{-d}, the law above, with no
// rejection.
type DuchiMD struct {
	eps   float64
	d     int
	cd, b float64
	sig   float64 // e^ε/(e^ε+1)
	sigc  float64 // 1/(e^ε+1)
}

var _ Vector = (*DuchiMD)(nil)

// NewDuchiMD returns Duchi et al.'s multi-dimensional mechanism for d
// coordinates at budget eps.
func NewDuchiMD(d int, eps float64) (*DuchiMD, error) {
	if err := checkEpsilon("duchi-md", eps); err != nil {
		return nil, err
	}
	if err := checkDim("duchi-md", d); err != nil {
		return nil, err
	}
	cd := DuchiMDConstant(d)
	return &DuchiMD{
		eps:  eps,
		d:    d,
		cd:   cd,
		b:    cd / math.Tanh(eps/2),
		sig:  1 / (1 + math.Exp(-eps)),
		sigc: 1 / (1 + math.Exp(eps)),
	}, nil
}

// DuchiMDConstant returns C_d = 2^{d-1}/binom(d-1, ⌊d/2⌋), the constant of
// [DuchiMD]: from exact integer binomials for d ≤ 60, from log-gamma above
// (the binomials reach about 1e29 at d = 100).
func DuchiMDConstant(d int) float64 {
	if d <= 60 {
		return math.Ldexp(1, d-1) / float64(binomU64(d-1, d/2))
	}
	return math.Exp(float64(d-1)*math.Ln2 - logBinom(d-1, d/2))
}

// binomU64 returns binom(n, k) exactly for n ≤ 61 (every intermediate
// product stays below 2^64).
func binomU64(n, k int) uint64 {
	k = min(k, n-k)
	c := uint64(1)
	for i := 1; i <= k; i++ {
		// c·(n-k+i) is divisible by i: c·(n-k+i)/i = binom(n-k+i, i).
		c = c * uint64(n-k+i) / uint64(i)
	}
	return c
}

// logBinom returns log binom(n, k) from log-gamma.
func logBinom(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// Name returns "duchi-md".
func (m *DuchiMD) Name() string { return "duchi-md" }

// Epsilon returns the budget of one report of the vector.
func (m *DuchiMD) Epsilon() float64 { return m.eps }

// Dim returns d.
func (m *DuchiMD) Dim() int { return m.d }

// B returns the output magnitude ((e^ε+1)/(e^ε-1))·C_d.
func (m *DuchiMD) B() float64 { return m.b }

// PerturbVector writes one report of x to dst: every coordinate is ±B.
// For d ≤ 64, w is one masked rng.Uint64; for larger d its number of +1s K
// is the popcount of d fair bits (d - K when that is larger) and their
// positions a uniform K-subset by selection sampling.
func (m *DuchiMD) PerturbVector(dst, x []float64, rng *rand.Rand) error {
	if err := checkVector("duchi-md", m.d, dst, x); err != nil {
		return err
	}
	d := m.d
	dst = dst[:d]
	s := choose(rng.Float64() < m.sig, m.b, -m.b)
	if d <= 64 {
		w := rng.Uint64()
		if d < 64 {
			w &= 1<<d - 1
		}
		if 2*bits.OnesCount64(w) < d {
			w = ^w // bits beyond d are never read
		}
		for j, xj := range x {
			vPos := rng.Float64() < (1+xj)/2
			wPos := w>>j&1 == 1
			dst[j] = choose(vPos == wPos, s, -s)
		}
		return nil
	}
	k := 0 // number of +1s of w
	for left := d; left > 0; left -= 64 {
		u := rng.Uint64()
		if left < 64 {
			u &= 1<<left - 1
		}
		k += bits.OnesCount64(u)
	}
	if 2*k < d {
		k = d - k
	}
	for j, xj := range x {
		wPos := rng.IntN(d-j) < k
		if wPos {
			k--
		}
		vPos := rng.Float64() < (1+xj)/2
		dst[j] = choose(vPos == wPos, s, -s)
	}
	return nil
}

// CoordinateVariance returns B² - x².
func (m *DuchiMD) CoordinateVariance(x float64) float64 { return m.b*m.b - x*x }

// Probability returns the exact P[Y = z | x] for z ∈ {-B, B}^d (only the
// signs of z are read): with u_j = z_j·v_j/B, independent with
// P[u_j = 1] = (1 + sgn(z_j)·x_j)/2, and S = Σu_j,
//
//	P[z | x] = 2^{1-d}·(σ·P[S > 0] + (1-σ)·P[S < 0] + P[S = 0]/2),
//
// P[S] from the Poisson-binomial recursion in O(d²). It allocates; it is
// meant for tests and audits, not for sampling.
func (m *DuchiMD) Probability(z, x []float64) float64 {
	d := m.d
	if len(z) != d || len(x) != d {
		panic(fmt.Sprintf("duchi-md: Probability needs %d coordinates, got z %d, x %d", d, len(z), len(x)))
	}
	// q[c] = P[c of the u_j seen so far are +1].
	q := make([]float64, d+1)
	q[0] = 1
	for j := range d {
		p := (1 + math.Copysign(1, z[j])*x[j]) / 2
		for c := j + 1; c >= 1; c-- {
			q[c] = q[c]*(1-p) + q[c-1]*p
		}
		q[0] *= 1 - p
	}
	var pos, neg, tie float64
	for c, qc := range q {
		switch s := 2*c - d; {
		case s > 0:
			pos += qc
		case s < 0:
			neg += qc
		default:
			tie += qc
		}
	}
	return math.Ldexp(m.sig*pos+m.sigc*neg+tie/2, 1-d)
}
