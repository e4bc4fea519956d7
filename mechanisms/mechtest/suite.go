package mechtest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Suite runs every check of [Checks] on the mechanism info builds, as
// subtests of t named check/eps=ε: the checks every registered mechanism
// passes (package mechanisms runs it over the registry), which a user's
// own mechanism runs in its own test after [mechanisms.Register]:
//
//	func TestMine(t *testing.T) {
//		unregister, err := mechanisms.Register(mechanisms.Info{Name: "mine", New: newMine})
//		if err != nil {
//			t.Fatal(err)
//		}
//		defer unregister()
//		info, _ := mechanisms.Lookup("mine")
//		mechtest.Suite(t, info)
//	}
//
// What a mechanism must be to pass: it implements [mechanisms.Variancer]
// and exactly one of [mechanisms.Discrete] and [mechanisms.Continuous]
// (with [mechanisms.TailQuantiler] if its output range is infinite); it is
// unbiased after de-biasing, with its closed-form variance; its law is
// what its reports follow; it is ε-LDP with the ratio e^ε attained; its
// batch is its Perturb calls (or says otherwise, [mechanisms.BatchOrder]);
// it does not allocate; and it takes the words it states
// ([mechanisms.WordCounter]; a mechanism that states none has its batch's
// words compared with Perturb's only). Each check's doc says what it
// checks and its false-failure probability.
//
// The Monte Carlo checks (moments, fit) run in parallel with each other
// after Suite returns to t's function, the others one after the other
// first; under -short the Monte Carlo checks run at ε = 1 only. The
// allocation check counts the process's allocations: do not run Suite
// from a test that runs in parallel with others (t.Parallel).
func Suite(t *testing.T, info mechanisms.Info) {
	t.Helper()
	for ci, c := range Checks() {
		t.Run(c.Name, func(t *testing.T) {
			if c.Parallel {
				t.Parallel()
			}
			budgets := c.Budgets
			if c.Parallel && testing.Short() {
				budgets = shortBudgets
			}
			for ei, eps := range budgets {
				rng := rand.New(rand.NewPCG(uint64(1000*(ci+1)+ei), 2))
				t.Run(fmt.Sprintf("eps=%v", eps), func(t *testing.T) {
					if c.Parallel {
						t.Parallel()
					}
					if err := c.Run(info, eps, rng); err != nil {
						t.Fatal(err)
					}
				})
			}
		})
	}
}

// Check is one check of the suite.
type Check struct {
	// Name names the check's subtest.
	Name string
	// Budgets are the ε it runs at, one subtest each.
	Budgets []float64
	// Parallel marks the Monte Carlo checks, which Suite runs in parallel
	// (and at ε = 1 alone under -short).
	Parallel bool
	// Run checks the mechanism info.New(eps), drawing what it needs from
	// rng; it returns nil, or every failure it found joined in one error
	// naming the mechanism. A test can call it directly to show that a
	// broken mechanism is caught.
	Run func(info mechanisms.Info, eps float64, rng *rand.Rand) error
}

// NMC is the number of reports per Monte Carlo check of the suite.
const NMC = 200_000

// The budgets of the suite's checks.
var (
	// mcBudgets: the Monte Carlo checks (moments, fit, words).
	mcBudgets = []float64{0.5, 1, 4}
	// exactBudgets: the exact checks, from a nearly useless budget to a
	// nearly useless privacy.
	exactBudgets = []float64{0.01, 0.5, 1, 4, 16}
	// shortBudgets: the Monte Carlo checks under -short.
	shortBudgets = []float64{1}
)

// XGrid is the input grid on [-1, 1] of the suite's Monte Carlo checks
// (both ends, the middle and two points between); a domain
// [lo, hi] takes lo + (x+1)(hi-lo)/2.
var XGrid = []float64{-1, -0.4, 0, 0.7, 1}

// Checks returns the suite's checks in the order [Suite] runs them.
func Checks() []Check {
	return []Check{
		{"interfaces", []float64{1.5}, false, checkInterfaces},
		{"params", []float64{1}, false, checkParams},
		{"worst-case", []float64{0.01, 0.5, 1, 2, 3, 4, 5, 8, 16}, false, checkWorstCase},
		{"range", []float64{0.01, 1, 8}, false, checkRange},
		{"batch", []float64{1}, false, checkBatch},
		{"noallocs", []float64{1}, false, checkNoAllocs},
		{"words", mcBudgets, false, checkWords},
		{"exact", exactBudgets, false, checkExact},
		{"moments", mcBudgets, true, checkMoments},
		{"fit", mcBudgets, true, checkFit},
	}
}

// build returns info.New(eps), or an error naming the mechanism.
func build(info mechanisms.Info, eps float64) (mechanisms.Mechanism, error) {
	if info.New == nil {
		return nil, fmt.Errorf("%s: no constructor (Info.New)", info.Name)
	}
	m, err := info.New(eps)
	if err != nil {
		return nil, fmt.Errorf("%s: New(%v): %w", info.Name, eps, err)
	}
	if m == nil {
		return nil, fmt.Errorf("%s: New(%v) returned a nil mechanism without an error", info.Name, eps)
	}
	return m, nil
}

// domainGrid maps XGrid onto m's domain.
func domainGrid(m mechanisms.Mechanism) []float64 {
	lo, hi := m.Domain()
	xs := make([]float64, len(XGrid))
	for i, x := range XGrid {
		xs[i] = lo + (x+1)/2*(hi-lo)
	}
	return xs
}

// checkInterfaces: the mechanism is named and budgeted as registered, has
// a closed-form variance, exactly one of a discrete law and a density, and
// the tail quantiles if its output is unbounded. Catches a constructor that
// ignores ε or copies another mechanism's name, and a mechanism the other
// checks could not examine (they would refuse it one by one).
func checkInterfaces(info mechanisms.Info, eps float64, _ *rand.Rand) error {
	m, err := build(info, eps)
	if err != nil {
		return err
	}
	var errs []error
	if m.Name() != info.Name || m.Epsilon() != eps {
		errs = append(errs, fmt.Errorf("%s: New(%v) has Name %q, Epsilon %v", info.Name, eps, m.Name(), m.Epsilon()))
	}
	if lo, hi := m.Domain(); !(lo < hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		errs = append(errs, fmt.Errorf("%s: Domain() = [%v, %v], want a finite interval", info.Name, lo, hi))
	}
	if _, ok := m.(mechanisms.Variancer); !ok {
		errs = append(errs, fmt.Errorf("%s: no closed-form variance (Variance and WorstCaseVariance, mechanisms.Variancer)", info.Name))
	}
	_, d := m.(mechanisms.Discrete)
	c, isC := m.(mechanisms.Continuous)
	if d == isC {
		errs = append(errs, fmt.Errorf("%s: Discrete %v, Continuous %v; want exactly one (the law the fit and exact checks test)", info.Name, d, isC))
	}
	if isC && !d {
		if _, err := window(m, c, 1e-3); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// checkParams: a budget that is not finite and positive is refused with a
// nil Mechanism (not a nil pointer in a non-nil interface) and an error,
// and ε = 1 is accepted. Catches a constructor that builds a mechanism at
// ε = 0 or NaN (whose reports would be NaN or unbounded).
func checkParams(info mechanisms.Info, _ float64, _ *rand.Rand) error {
	var errs []error
	for _, eps := range []float64{0, -1, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1)} {
		if info.New == nil {
			break
		}
		m, err := info.New(eps)
		if err == nil || m != nil {
			errs = append(errs, fmt.Errorf("%s: New(%v) = %v, %v; want nil, an error", info.Name, eps, m, err))
		}
	}
	if _, err := build(info, 1); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// checkWorstCase: WorstCaseVariance equals the maximum of Variance over a
// dense grid of the domain, refined by golden section around the best grid
// point, to 1e-9 relative, and is never below it. Catches a
// worst case at the wrong input (x = 0 where the maximum is at |x| = 1, or
// an interior vertex missed).
func checkWorstCase(info mechanisms.Info, eps float64, _ *rand.Rand) error {
	m, err := build(info, eps)
	if err != nil {
		return err
	}
	v, ok := m.(mechanisms.Variancer)
	if !ok {
		return fmt.Errorf("%s: no closed-form variance (mechanisms.Variancer)", info.Name)
	}
	lo, hi := m.Domain()
	best, arg := math.Inf(-1), lo
	for _, x := range Grid(lo, hi, 20000) {
		if vx := v.Variance(x); vx > best {
			best, arg = vx, x
		}
	}
	// A maximum between grid points (the interior vertex of Three-Outputs
	// and HM-TP) is missed by up to (h/2)²·|Var''|/2, ~1e-8 relative:
	// refine it by golden section over the two cells around the best grid
	// point.
	h := (hi - lo) / 20000
	a, b := max(lo, arg-h), min(hi, arg+h)
	g := (math.Sqrt(5) - 1) / 2
	for range 60 {
		if c, d := b-g*(b-a), a+g*(b-a); v.Variance(c) > v.Variance(d) {
			b = d
		} else {
			a = c
		}
	}
	best = max(best, v.Variance((a+b)/2))
	w := v.WorstCaseVariance()
	if !(math.Abs(w-best) <= 1e-9*math.Abs(best)) || w < best*(1-1e-14) {
		return fmt.Errorf("%s (ε = %v): WorstCaseVariance %v, grid maximum %v", info.Name, eps, w, best)
	}
	return nil
}

// checkRange: 20,000 reports of each input of the grid are finite and in
// the output range (a discrete mechanism's alphabet). Catches a report
// beyond ±C at an end of the domain, and a NaN.
func checkRange(info mechanisms.Info, eps float64, rng *rand.Rand) error {
	m, err := build(info, eps)
	if err != nil {
		return err
	}
	for _, x := range domainGrid(m) {
		for range 20000 {
			y := m.Perturb(x, rng)
			ok := !math.IsNaN(y) && !math.IsInf(y, 0)
			switch mm := m.(type) {
			case mechanisms.Discrete:
				ok = ok && slices.Contains(mm.Outputs(), y)
			case mechanisms.Continuous:
				lo, hi := mm.OutputRange()
				ok = ok && y >= lo && y <= hi
			}
			if !ok {
				return fmt.Errorf("%s (ε = %v): report %v of x = %v outside the output range", info.Name, eps, y, x)
			}
		}
	}
	return nil
}

// checkNoAllocs: Perturb and PerturbBatch (also in place, also through
// mechanisms.Unbiased) do not allocate. Catches a batch that makes a
// scratch slice per call.
func checkNoAllocs(info mechanisms.Info, eps float64, rng *rand.Rand) error {
	m, err := build(info, eps)
	if err != nil {
		return err
	}
	u, err := mechanisms.Unbiased(m)
	if err != nil {
		return err
	}
	lo, hi := m.Domain()
	xs := Grid(lo, hi, 255)
	dst := make([]float64, len(xs))
	us := Grid(-1, 1, 255)
	sink := 0.0
	cases := []struct {
		what string
		f    func()
	}{
		{"Perturb", func() { sink += m.Perturb(xs[7], rng) }},
		{"PerturbBatch", func() { _ = m.PerturbBatch(dst, xs, rng) }},
		{"PerturbBatchInPlace", func() { copy(dst, xs); _ = m.PerturbBatch(dst, dst, rng) }},
		{"UnbiasedPerturb", func() { sink += u.Perturb(us[9], rng) }},
		{"UnbiasedBatch", func() { _ = u.PerturbBatch(dst, us, rng) }},
	}
	var errs []error
	for _, c := range cases {
		if a := testing.AllocsPerRun(100, c.f); a != 0 {
			errs = append(errs, fmt.Errorf("%s: %s allocates %v times per run", info.Name, c.what, a))
		}
	}
	_ = sink
	return errors.Join(errs...)
}

// checkMoments runs [Unbiased] and [Variance] with [NMC] reports at each
// input of the grid, for the mechanism and for its [-1, 1] estimate from
// mechanisms.Unbiased when that is a wrapper (×4 variance for Square Wave,
// E4.5): false-failure probability DefaultAlpha per check (their docs).
// Catches a wrong de-biasing factor, a variance formula off by a factor
// or a term, and a sampler with the right support but the wrong weights.
func checkMoments(info mechanisms.Info, eps float64, rng *rand.Rand) error {
	m, err := build(info, eps)
	if err != nil {
		return err
	}
	var errs []error
	moments := func(m mechanisms.Mechanism, xs []float64) {
		for _, x := range xs {
			errs = append(errs, Unbiased(m, x, NMC, rng, DefaultAlpha), Variance(m, x, NMC, rng, DefaultAlpha))
		}
	}
	moments(m, domainGrid(m))
	u, err := mechanisms.Unbiased(m)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	if u != m {
		moments(u, XGrid)
	}
	return errors.Join(errs...)
}

// checkFit: the histogram of [NMC] raw reports of each input of the grid
// fits the exact law (Probabilities, or BucketGivenBin at a point on 40
// buckets over the output range, or for an unbounded one over its window
// (see window) plus the two tails) by Pearson's chi-square test
// ([DiscreteFit], [ContinuousFit]): false-failure probability DefaultAlpha
// per input. Catches a sampler whose law is not the stated one though its
// moments agree (a window placed wrong, weights swapped between outputs).
func checkFit(info mechanisms.Info, eps float64, rng *rand.Rand) error {
	m, err := build(info, eps)
	if err != nil {
		return err
	}
	var errs []error
	for _, x := range domainGrid(m) {
		switch mm := m.(type) {
		case mechanisms.Discrete:
			errs = append(errs, DiscreteFit(m, x, NMC, rng, DefaultAlpha))
		case mechanisms.Continuous:
			edges, err := fitEdges(m, mm, 40, fitTail)
			if err != nil {
				return err
			}
			errs = append(errs, ContinuousFit(m, x, edges, NMC, rng, DefaultAlpha))
		default:
			return fmt.Errorf("%s is neither Discrete nor Continuous", info.Name)
		}
	}
	return errors.Join(errs...)
}

// The tail probabilities beyond the windows of an unbounded output. For
// Laplace noise of scale b they put the window at [-1-3b, 1+3b] for the
// fit (expected counts ≥ 5 in every bucket at NMC reports: the far tail at
// x = ∓1 keeps e^{-3-2/b}/2 ≥ 4.6e-4 of the mass up to ε = 4) and at
// [-1-10b, 1+10b] for the exact checks, as the registry's tests did before
// the window was a capability.
var (
	fitTail   = math.Exp(-3) / 2
	exactTail = math.Exp(-10) / 2
)

// window returns the finite window of m's output range: the range itself
// if it is finite, else, on an infinite side, the min over the inputs of
// Quantile(q, x) (below) or the max of Quantile(1-q, x) (above), which
// needs mechanisms.TailQuantiler. The error names the mechanism and the
// method it lacks.
func window(m mechanisms.Mechanism, c mechanisms.Continuous, q float64) ([2]float64, error) {
	lo, hi := c.OutputRange()
	if !math.IsInf(lo, 0) && !math.IsInf(hi, 0) {
		return [2]float64{lo, hi}, nil
	}
	tq, ok := m.(mechanisms.TailQuantiler)
	if !ok {
		return [2]float64{}, fmt.Errorf("%s (ε = %v): its output range [%v, %v] is unbounded and it has no method Quantile(p, x float64) float64 (mechanisms.TailQuantiler), which the fit and exact checks need to place finite buckets", m.Name(), m.Epsilon(), lo, hi)
	}
	dlo, dhi := m.Domain()
	wlo, whi := math.Inf(1), math.Inf(-1)
	for _, x := range Grid(dlo, dhi, 16) {
		wlo = min(wlo, tq.Quantile(q, x))
		whi = max(whi, tq.Quantile(1-q, x))
	}
	if !math.IsInf(lo, 0) {
		wlo = lo
	}
	if !math.IsInf(hi, 0) {
		whi = hi
	}
	if !(wlo < whi) || math.IsInf(wlo, 0) || math.IsInf(whi, 0) {
		return [2]float64{}, fmt.Errorf("%s (ε = %v): its tail quantiles give the window [%v, %v], not a finite interval", m.Name(), m.Epsilon(), wlo, whi)
	}
	return [2]float64{wlo, whi}, nil
}

// FitEdges returns the output buckets of the suite's chi-square fit of m,
// which must be [mechanisms.Continuous]: k equal buckets over its output
// range, or, if that is unbounded, over the window its tail quantiles give
// ([mechanisms.TailQuantiler]; e^{-3}/2 of the mass beyond each side at the
// input farthest from it; [-1-3b, 1+3b] for Laplace noise of scale b) and
// the two infinite tails beyond. The error names the mechanism and what it
// lacks.
func FitEdges(m mechanisms.Mechanism, k int) ([]float64, error) {
	c, ok := m.(mechanisms.Continuous)
	if !ok {
		return nil, fmt.Errorf("%s: not a Continuous mechanism", m.Name())
	}
	return fitEdges(m, c, k, fitTail)
}

// fitEdges returns k equal buckets over the window of m's output range
// (tail probability q), and the infinite tails beyond it if the range is
// unbounded.
func fitEdges(m mechanisms.Mechanism, c mechanisms.Continuous, k int, q float64) ([]float64, error) {
	w, err := window(m, c, q)
	if err != nil {
		return nil, err
	}
	e := Grid(w[0], w[1], k)
	if lo, hi := c.OutputRange(); math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		if math.IsInf(lo, 0) {
			e = slices.Concat([]float64{lo}, e)
		}
		if math.IsInf(hi, 0) {
			e = append(e, hi)
		}
	}
	return e, nil
}

// checkExact runs the exact checks, which have no false-failure
// probability. A Discrete mechanism: probabilities in [0, 1] summing to 1
// with an unbiased mean ([ProbabilitiesSumToOne], 1e-12) and the privacy
// ratio e^ε, attained ([DiscreteLDPTight], 1e-9), on 1,001 inputs. A
// Continuous one: the density ratio ≤ e^ε and attained (with the atoms of
// a mixed law, [MixedLDPTight]) on 201 inputs and 996 outputs off the grid
// of kinks, buckets summing to one over bins and points, BucketGivenBin
// against a numerical double integral of the density (1e-9, ε ≤ 4) and the
// CDF consistent with both. Catches a mechanism run at another ε than it
// states, and a transition matrix that is not its sampler's.
func checkExact(info mechanisms.Info, eps float64, _ *rand.Rand) error {
	m, err := build(info, eps)
	if err != nil {
		return err
	}
	lo, hi := m.Domain()
	if d, ok := m.(mechanisms.Discrete); ok {
		xs := Grid(lo, hi, 1000)
		return errors.Join(ProbabilitiesSumToOne(d, xs, 1e-12), DiscreteLDPTight(d, xs, eps, 1e-9))
	}
	c, ok := m.(mechanisms.Continuous)
	if !ok {
		return fmt.Errorf("%s is neither Discrete nor Continuous", info.Name)
	}
	xs := Grid(lo, hi, 200)
	w, err := window(m, c, exactTail)
	if err != nil {
		return err
	}
	// Output points off the grid of kinks: midpoints of 997 cells.
	g := Grid(w[0], w[1], 997)
	ys := make([]float64, len(g)-1)
	for i := range ys {
		ys[i] = (g[i] + g[i+1]) / 2
	}
	var errs []error
	// A law with point masses (HM, HM-TP) has a density only for its
	// continuous part: check the atoms' and the density's ratios together,
	// and the continuous part's buckets against its density (mixture.go).
	dense := c
	if mixed, ok := m.(MixedMechanism); ok {
		errs = append(errs, MixedLDPTight(mixed, xs, ys, eps, 1e-9))
		mix, ok := m.(mechanisms.Mixture)
		if !ok {
			return errors.Join(append(errs, fmt.Errorf("%s: point masses (mechanisms.Atoms) but not a mechanisms.Mixture: its density's buckets cannot be checked", info.Name))...)
		}
		cont, err := ContinuousPart(mix)
		if err != nil {
			return errors.Join(append(errs, err)...)
		}
		dense = cont
	} else {
		errs = append(errs, DensityLDPTight(c, xs, ys, eps, 1e-9))
	}
	yEdges, err := fitEdges(m, c, 13, fitTail)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	xEdges := Grid(lo, hi, 5)
	// At ε = 16 the densities reach e^16·q ≈ 6e5 (SW) and the rounding of
	// a window edge near 1 moves ~1e-11 of probability.
	tol := 1e-12
	if eps > 4 {
		tol = 1e-9
	}
	errs = append(errs, BucketsSumToOne(c, yEdges, xEdges, tol))
	// The numerical integral cannot see windows narrower than about 1/128
	// of a bucket (PM and SW at ε = 16); the families' own tests compare
	// those with literal reference values.
	if eps <= 4 {
		errs = append(errs, BucketsMatchDensity(dense, yEdges, xEdges, 1e-9))
	}
	errs = append(errs, CDFConsistent(c, Grid(lo, hi, 7), g, tol))
	return errors.Join(errs...)
}
