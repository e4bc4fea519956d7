package audit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
)

// Method says how an audited ε was obtained.
type Method string

const (
	// MethodExact is the enumeration of a finite output law over the input
	// grid: the audited ε is the exact privacy loss of the mechanism over
	// that grid (refined around each extremum).
	MethodExact Method = "exact"
	// MethodDensity is the ratio of output densities (and point masses, and
	// bucket probabilities) over the input grid and a fine output grid:
	// a lower bound on the privacy loss that equals it when the log
	// density ratio attains its supremum on an interval longer than the
	// output grid's step (every piecewise-constant and Laplace density).
	MethodDensity Method = "density"
	// MethodMonteCarlo is a black-box lower bound from samples of Perturb with
	// Clopper–Pearson bounds: it holds with probability at least 1 - alpha
	// and can prove a violation, never privacy.
	MethodMonteCarlo Method = "montecarlo"
)

// Verdicts.
const (
	Pass      = "pass"
	Violation = "VIOLATION"
)

// RelTol is the relative slack of a verdict: a mechanism passes when its
// audited ε ≤ claimed·(1 + RelTol). It covers the rounding of probabilities
// computed in floating point (ratios of order e^ε carry errors of a few
// ulps), and nothing more.
const RelTol = 1e-9

// Input is one input of an audited mechanism: the value V and, for a group
// mechanism over (g, v), the group G. G is -1 for a one-dimensional
// mechanism.
type Input struct {
	G int
	V float64
}

// String writes x=V, or (g=G, v=V) for a group input.
func (in Input) String() string {
	v := strconv.FormatFloat(in.V, 'g', 10, 64)
	if in.G < 0 {
		return "x=" + v
	}
	return fmt.Sprintf("(g=%d, v=%s)", in.G, v)
}

// Finding is the result of one audit of one mechanism: the audited ε and
// where it was found.
type Finding struct {
	Method Method
	// Epsilon is the audited ε: the log of the largest ratio found,
	// Pr[E | X0]/Pr[E | X1] (or the density ratio) for the worst output E.
	// +Inf when an output is possible under one input and impossible under
	// another, or when the law is not a probability law. For MonteCarlo it
	// is a lower bound that holds with probability ≥ 1 - Alpha (0 when no
	// event separates the two inputs).
	Epsilon float64
	// X0 and X1 are the worst input pair: X0 makes the output most likely.
	X0, X1 Input
	// Output describes the worst output or output event.
	Output string
	// Samples is the number of Monte Carlo reports drawn at each input
	// (excluding the pilot that chose the events); 0 for exact methods.
	Samples int
	// Events is the number of output events the Monte Carlo bound was
	// taken over (its Bonferroni correction); 0 for exact methods.
	Events int
	// Alpha is the Monte Carlo bound's error probability; 0 for exact
	// methods.
	Alpha float64
	// Note explains anything unusual: an invalid law, a ratio still rising
	// at the edge of the output window.
	Note string
}

// Verdict returns Pass when the audited ε is at most claimed·(1+RelTol),
// else Violation. For a Monte Carlo finding Violation is a proof (at
// confidence 1 - Alpha) and Pass only the absence of evidence.
func (f Finding) Verdict(claimed float64) string {
	if f.Epsilon <= claimed*(1+RelTol) {
		return Pass
	}
	return Violation
}

// Joint is a mechanism over a group and a value, (g, v) ↦ (g′, v′), with
// g ∈ {0, …, D()-1} and v ∈ [-1, 1] (or Domain() when it has one). Package
// mechanisms/group's mechanisms satisfy it; so does any test double.
type Joint interface {
	Name() string
	// D is the number of groups.
	D() int
	// ClaimedEpsilon is the ε the mechanism's paper claims for it: the
	// value the audit holds it to.
	ClaimedEpsilon() float64
	// Perturb returns one report (g′, v′) of (g, v).
	Perturb(g int, v float64, rng *rand.Rand) (int, float64)
}

// JointDiscrete is a [Joint] whose value report takes finitely many values.
type JointDiscrete interface {
	Joint
	// ValueOutputs returns the values v′ can take, or nil when v′ is
	// continuous.
	ValueOutputs() []float64
	// JointProbabilities writes Pr[g′ = h, v′ = outs[j] | g, v] to
	// dst[h*len(outs)+j], outs = ValueOutputs().
	JointProbabilities(g int, v float64, dst []float64)
}

// JointContinuous is a [Joint] whose value report has a density.
type JointContinuous interface {
	Joint
	// JointDensity returns the density of (g′ = gOut, v′ = y) given
	// (g, v): Pr[g′ = gOut | g, v] times the density of v′ given that.
	JointDensity(gOut int, y float64, g int, v float64) float64
}

// domainer is implemented by mechanisms with an explicit input interval.
type domainer interface{ Domain() (lo, hi float64) }

// jointDomain returns the value domain of a group mechanism: its Domain()
// when it has one, else [-1, 1] (Raab et al. Section 3).
func jointDomain(m Joint) (lo, hi float64) {
	if d, ok := m.(domainer); ok {
		return d.Domain()
	}
	return -1, 1
}

// checkEps refuses a claimed ε that no audit can compare with.
func checkEps(name string, eps float64) error {
	if math.IsNaN(eps) || math.IsInf(eps, 0) || eps <= 0 {
		return fmt.Errorf("%s: claimed ε = %v: must be finite and > 0", name, eps)
	}
	return nil
}
