package mechanisms_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/mechtest"
)

// nMC is the number of reports per Monte Carlo check.
const nMC = 200_000

// epsGrid is the budget grid of the statistical tests.
var epsGrid = []float64{0.5, 1, 4}

// xGrid is the input grid on [-1, 1] (p3 spec §10); inputs on [0, 1] are
// mapped by (x+1)/2.
var xGrid = []float64{-1, -0.4, 0, 0.7, 1}

// newRNG returns a fixed-seed generator for test number seed.
func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 2)) }

// relClose reports |got - want| ≤ tol·|want|.
func relClose(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Abs(want)
}

// mustNew builds a registered mechanism or fails the test.
func mustNew(t testing.TB, name string, eps float64) mechanisms.Mechanism {
	t.Helper()
	m, err := mechanisms.New(name, eps)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// domainGrid maps xGrid onto m's domain.
func domainGrid(m mechanisms.Mechanism) []float64 {
	lo, hi := m.Domain()
	xs := make([]float64, len(xGrid))
	for i, x := range xGrid {
		xs[i] = lo + (x+1)/2*(hi-lo)
	}
	return xs
}

// checkMoments runs mechtest.Unbiased and mechtest.Variance at every x.
func checkMoments(t *testing.T, m mechanisms.Mechanism, xs []float64, rng *rand.Rand) {
	t.Helper()
	for _, x := range xs {
		if err := mechtest.Unbiased(m, x, nMC, rng, mechtest.DefaultAlpha); err != nil {
			t.Error(err)
		}
		if err := mechtest.Variance(m, x, nMC, rng, mechtest.DefaultAlpha); err != nil {
			t.Error(err)
		}
	}
}

// TestMoments: every registered mechanism is unbiased (after de-biasing)
// with its closed-form variance, on a grid that includes both ends and the
// middle of its domain, at every ε of epsGrid; and so is its [-1, 1]
// estimate from mechanisms.Unbiased (for SW: ×4 variance, E4.5).
func TestMoments(t *testing.T) {
	seed := uint64(0)
	for _, name := range mechanisms.Names() {
		for _, eps := range epsGrid {
			seed++
			rng := newRNG(seed)
			t.Run(fmt.Sprintf("%s/eps=%v", name, eps), func(t *testing.T) {
				t.Parallel()
				m := mustNew(t, name, eps)
				checkMoments(t, m, domainGrid(m), rng)
				u, err := mechanisms.Unbiased(m)
				if err != nil {
					t.Fatal(err)
				}
				if u != m {
					checkMoments(t, u, xGrid, rng)
				}
			})
		}
	}
}

// TestFit: the histogram of the raw reports fits the exact output law
// (Probabilities or BucketGivenBin at a point) by a chi-square test, which
// checks the sampler's whole distribution, not only its moments.
func TestFit(t *testing.T) {
	seed := uint64(100)
	for _, name := range mechanisms.Names() {
		for _, eps := range epsGrid {
			seed++
			rng := newRNG(seed)
			t.Run(fmt.Sprintf("%s/eps=%v", name, eps), func(t *testing.T) {
				t.Parallel()
				m := mustNew(t, name, eps)
				for _, x := range domainGrid(m) {
					var err error
					switch mm := m.(type) {
					case mechanisms.Discrete:
						err = mechtest.DiscreteFit(m, x, nMC, rng, mechtest.DefaultAlpha)
					case mechanisms.Continuous:
						err = mechtest.ContinuousFit(m, x, fitEdges(mm, 40), nMC, rng, mechtest.DefaultAlpha)
					default:
						t.Fatalf("%s is neither Discrete nor Continuous", name)
					}
					if err != nil {
						t.Error(err)
					}
				}
			})
		}
	}
}

// fitEdges returns k equal buckets over the output range, or for Laplace
// noise over [-1-3b, 1+3b] plus two tails (expected counts ≥ 5 at n = 2e5).
func fitEdges(m mechanisms.Continuous, k int) []float64 {
	lo, hi := m.OutputRange()
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		w := 1 + 3*m.(*mechanisms.Laplace).Scale()
		e := mechtest.Grid(-w, w, k)
		return slices.Concat([]float64{math.Inf(-1)}, e, []float64{math.Inf(1)})
	}
	return mechtest.Grid(lo, hi, k)
}

// TestWorstCaseIsMaximum: WorstCaseVariance equals the maximum of
// Variance over a dense grid of the domain to 1e-9 relative (p3 spec §10),
// and is never below it.
func TestWorstCaseIsMaximum(t *testing.T) {
	for _, name := range mechanisms.Names() {
		for _, eps := range []float64{0.01, 0.5, 1, 2, 3, 4, 5, 8, 16} {
			m := mustNew(t, name, eps)
			v := m.(mechanisms.Variancer)
			lo, hi := m.Domain()
			best, arg := math.Inf(-1), lo
			for _, x := range mechtest.Grid(lo, hi, 20000) {
				if vx := v.Variance(x); vx > best {
					best, arg = vx, x
				}
			}
			// A maximum between grid points (the interior vertex of
			// Three-Outputs and HM-TP) is missed by up to (h/2)²·|Var''|/2,
			// ~1e-8 relative: refine it by golden section over the two
			// cells around the best grid point.
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
			if !relClose(w, best, 1e-9) || w < best*(1-1e-14) {
				t.Errorf("%s ε=%v: WorstCaseVariance %v, grid maximum %v", name, eps, w, best)
			}
		}
	}
}

// TestParamErrors: every constructor rejects a budget that is not finite
// and positive with a *ParamError, and the registry returns a nil
// Mechanism (not a nil pointer in a non-nil interface) with it.
func TestParamErrors(t *testing.T) {
	bad := []float64{0, -1, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1)}
	ctors := map[string]func(float64) (any, error){
		"laplace": func(e float64) (any, error) { return mechanisms.NewLaplace(e) },
		"duchi":   func(e float64) (any, error) { return mechanisms.NewDuchi(e) },
		"pm":      func(e float64) (any, error) { return mechanisms.NewPM(e) },
		"sw":      func(e float64) (any, error) { return mechanisms.NewSquareWave(e) },
		"piecewise": func(e float64) (any, error) {
			return mechanisms.NewPiecewise("pm-sub", e, 2)
		},
	}
	for name, ctor := range ctors {
		for _, eps := range bad {
			_, err := ctor(eps)
			var pe *mechanisms.ParamError
			if !errors.As(err, &pe) || pe.Param != "epsilon" || !(pe.Value == eps || math.IsNaN(eps)) {
				t.Errorf("%s(%v): error %v, want a *ParamError on epsilon", name, eps, err)
			}
		}
	}
	for _, name := range mechanisms.Names() {
		for _, eps := range bad {
			m, err := mechanisms.New(name, eps)
			if err == nil || m != nil {
				t.Errorf("New(%q, %v) = %v, %v; want nil, error", name, eps, m, err)
			}
		}
		if _, err := mechanisms.New(name, 1); err != nil {
			t.Errorf("New(%q, 1): %v", name, err)
		}
	}
	for _, tw := range []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, err := mechanisms.NewPiecewise("pm-x", 1, tw)
		var pe *mechanisms.ParamError
		if !errors.As(err, &pe) || pe.Param != "t" || pe.Mechanism != "pm-x" {
			t.Errorf("NewPiecewise(t = %v): error %v, want a *ParamError on t", tw, err)
		}
	}
}

func TestRegistry(t *testing.T) {
	names := mechanisms.Names()
	if !slices.IsSorted(names) {
		t.Errorf("Names() = %v, not sorted", names)
	}
	for _, want := range []string{"duchi", "laplace", "pm", "sw"} {
		if !slices.Contains(names, want) {
			t.Errorf("Names() = %v, missing %q", names, want)
		}
	}
	for _, name := range names {
		m := mustNew(t, name, 1.5)
		if m.Name() != name || m.Epsilon() != 1.5 {
			t.Errorf("New(%q, 1.5) has Name %q, Epsilon %v", name, m.Name(), m.Epsilon())
		}
		if _, ok := m.(mechanisms.Variancer); !ok {
			t.Errorf("%s has no closed-form variance", name)
		}
		_, d := m.(mechanisms.Discrete)
		_, c := m.(mechanisms.Continuous)
		if d == c {
			t.Errorf("%s: Discrete %v, Continuous %v; want exactly one", name, d, c)
		}
	}
	_, err := mechanisms.New("no-such", 1)
	if err == nil || !strings.Contains(err.Error(), strings.Join(names, ", ")) {
		t.Errorf("New(unknown): %v, want an error listing %v", err, names)
	}
}

// TestDomains: the domains the specs give, and reports inside the output
// range.
func TestDomains(t *testing.T) {
	want := map[string][2]float64{"laplace": {-1, 1}, "duchi": {-1, 1}, "pm": {-1, 1}, "sw": {0, 1}}
	for name, d := range want {
		m := mustNew(t, name, 1)
		if lo, hi := m.Domain(); lo != d[0] || hi != d[1] {
			t.Errorf("%s: Domain() = [%v, %v], want %v", name, lo, hi, d)
		}
	}
	rng := newRNG(7)
	for _, name := range mechanisms.Names() {
		for _, eps := range []float64{0.01, 1, 8} {
			m := mustNew(t, name, eps)
			for _, x := range domainGrid(m) {
				for range 20000 {
					y := m.Perturb(x, rng)
					ok := !math.IsNaN(y) && !math.IsInf(y, 0)
					switch mm := m.(type) {
					case mechanisms.Continuous:
						lo, hi := mm.OutputRange()
						ok = ok && y >= lo && y <= hi
					case mechanisms.Discrete:
						ok = ok && slices.Contains(mm.Outputs(), y)
					}
					if !ok {
						t.Fatalf("%s ε=%v: report %v of x = %v outside the output range", name, eps, y, x)
					}
				}
			}
		}
	}
}

// TestPerturbBatch: a batch equals the same sequence of Perturb calls (for
// Laplace, whose batch draws the signs of 64 reports from one word, the
// reports its PerturbBatch comment states), separately or in place; a bad
// input gives an *InputError with its index before any draw; a short dst
// panics.
func TestPerturbBatch(t *testing.T) {
	for _, name := range mechanisms.Names() {
		m := mustNew(t, name, 1)
		xs := domainGrid(m)
		want := make([]float64, len(xs))
		rng := newRNG(11)
		if lap, ok := m.(*mechanisms.Laplace); ok {
			signs := rng.Uint64() // len(xs) ≤ 64: one word of signs
			for i, x := range xs {
				e := lap.Scale() * rng.ExpFloat64()
				want[i] = x + e
				if signs>>i&1 == 1 {
					want[i] = x - e
				}
			}
		} else {
			for i, x := range xs {
				want[i] = m.Perturb(x, rng)
			}
		}
		got := make([]float64, len(xs))
		if err := m.PerturbBatch(got, xs, newRNG(11)); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: PerturbBatch %v, Perturb %v", name, got, want)
		}
		inPlace := slices.Clone(xs)
		if err := m.PerturbBatch(inPlace, inPlace, newRNG(11)); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(inPlace, want) {
			t.Errorf("%s: in-place PerturbBatch %v, Perturb %v", name, inPlace, want)
		}

		lo, hi := m.Domain()
		for _, bad := range []float64{math.NaN(), lo - 1e-9, hi + 1e-9, math.Inf(1)} {
			in := slices.Clone(xs)
			in[2] = bad
			r1, r2 := newRNG(5), newRNG(5)
			err := m.PerturbBatch(make([]float64, len(in)), in, r1)
			var ie *mechanisms.InputError
			if !errors.As(err, &ie) || ie.Index != 2 || ie.Lo != lo || ie.Hi != hi {
				t.Errorf("%s: input %v gives error %v, want *InputError at index 2", name, bad, err)
			}
			if r1.Uint64() != r2.Uint64() {
				t.Errorf("%s: a rejected batch drew from the generator", name)
			}
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: PerturbBatch with a short dst did not panic", name)
				}
			}()
			_ = m.PerturbBatch(make([]float64, len(xs)-1), xs, newRNG(1))
		}()
	}
}

// TestNoAllocs: Perturb and PerturbBatch (also in place, also through
// mechanisms.Unbiased) do not allocate.
func TestNoAllocs(t *testing.T) {
	for _, name := range mechanisms.Names() {
		m := mustNew(t, name, 1)
		u, err := mechanisms.Unbiased(m)
		if err != nil {
			t.Fatal(err)
		}
		rng := newRNG(3)
		lo, hi := m.Domain()
		xs := mechtest.Grid(lo, hi, 255)
		dst := make([]float64, len(xs))
		us := mechtest.Grid(-1, 1, 255)
		sink := 0.0
		cases := map[string]func(){
			"Perturb":             func() { sink += m.Perturb(xs[7], rng) },
			"PerturbBatch":        func() { _ = m.PerturbBatch(dst, xs, rng) },
			"PerturbBatchInPlace": func() { copy(dst, xs); _ = m.PerturbBatch(dst, dst, rng) },
			"UnbiasedPerturb":     func() { sink += u.Perturb(us[9], rng) },
			"UnbiasedBatch":       func() { _ = u.PerturbBatch(dst, us, rng) },
		}
		for what, f := range cases {
			if a := testing.AllocsPerRun(100, f); a != 0 {
				t.Errorf("%s: %s allocates %v times per run", name, what, a)
			}
		}
		_ = sink
	}
}

// TestContinuousExact runs the exact checks of every Continuous mechanism:
// density ratio ≤ e^ε and attained, buckets summing to one over bins and
// points, BucketGivenBin against a numerical double integral of the
// density (1e-9), and the CDF consistent with both.
func TestContinuousExact(t *testing.T) {
	for _, name := range mechanisms.Names() {
		for _, eps := range []float64{0.01, 0.5, 1, 4, 16} {
			m := mustNew(t, name, eps)
			c, ok := m.(mechanisms.Continuous)
			if !ok {
				continue
			}
			lo, hi := m.Domain()
			xs := mechtest.Grid(lo, hi, 200)
			ylo, yhi := c.OutputRange()
			if math.IsInf(ylo, 0) {
				ylo, yhi = -1-10*m.(*mechanisms.Laplace).Scale(), 1+10*m.(*mechanisms.Laplace).Scale()
			}
			// Output points off the grid of kinks: midpoints of 997 cells.
			g := mechtest.Grid(ylo, yhi, 997)
			ys := make([]float64, len(g)-1)
			for i := range ys {
				ys[i] = (g[i] + g[i+1]) / 2
			}
			// A law with point masses (HM, HM-TP) has a density only for its
			// continuous part: check the atoms' and the density's ratios
			// together, and the continuous part's buckets against its
			// density (mechtest/mixture.go).
			mixed, hasAtoms := m.(mechtest.MixedMechanism)
			dense := c
			if hasAtoms {
				if err := mechtest.MixedLDPTight(mixed, xs, ys, eps, 1e-9); err != nil {
					t.Error(err)
				}
				cont, err := mechtest.ContinuousPart(m.(mechanisms.Mixture))
				if err != nil {
					t.Fatal(err)
				}
				dense = cont
			} else if err := mechtest.DensityLDPTight(c, xs, ys, eps, 1e-9); err != nil {
				t.Error(err)
			}
			yEdges := fitEdges(c, 13)
			xEdges := mechtest.Grid(lo, hi, 5)
			// At ε = 16 the densities reach e^16·q ≈ 6e5 (SW) and the
			// rounding of a window edge near 1 moves ~1e-11 of probability.
			tol := 1e-12
			if eps > 4 {
				tol = 1e-9
			}
			if err := mechtest.BucketsSumToOne(c, yEdges, xEdges, tol); err != nil {
				t.Error(err)
			}
			// The numerical integral cannot see windows narrower than about
			// 1/128 of a bucket (PM and SW at ε = 16); the families' own
			// tests compare those with literal reference values.
			if eps <= 4 {
				if err := mechtest.BucketsMatchDensity(dense, yEdges, xEdges, 1e-9); err != nil {
					t.Error(err)
				}
			}
			if err := mechtest.CDFConsistent(c, mechtest.Grid(lo, hi, 7), g, tol); err != nil {
				t.Error(err)
			}
		}
	}
}

// TestDiscreteExact runs the exact checks of every Discrete mechanism.
func TestDiscreteExact(t *testing.T) {
	for _, name := range mechanisms.Names() {
		for _, eps := range []float64{0.01, 0.5, 1, 4, 16} {
			m := mustNew(t, name, eps)
			d, ok := m.(mechanisms.Discrete)
			if !ok {
				continue
			}
			lo, hi := m.Domain()
			xs := mechtest.Grid(lo, hi, 1000)
			if err := mechtest.ProbabilitiesSumToOne(d, xs, 1e-12); err != nil {
				t.Error(err)
			}
			if err := mechtest.DiscreteLDPTight(d, xs, eps, 1e-9); err != nil {
				t.Error(err)
			}
		}
	}
}

// countingSource counts the 64-bit draws of a generator; rng.Float64 is one
// draw.
type countingSource struct {
	src rand.Source
	n   int
}

func (c *countingSource) Uint64() uint64 { c.n++; return c.src.Uint64() }

// drawsPerReport measures the mean number of 64-bit draws one Perturb
// consumes over m's input grid.
func drawsPerReport(m mechanisms.Mechanism) float64 {
	src := &countingSource{src: rand.NewPCG(9, 9)}
	rng := rand.New(src)
	lo, hi := m.Domain()
	xs := mechtest.Grid(lo, hi, 255)
	const reps = 4
	for range reps {
		for _, x := range xs {
			m.Perturb(x, rng)
		}
	}
	return float64(src.n) / float64(reps*len(xs))
}

// batchDrawsPerReport measures the mean number of 64-bit draws a report
// consumes in a PerturbBatch of xs. It equals drawsPerReport for the
// mechanisms whose batch is a sequence of Perturb calls, not for Laplace.
func batchDrawsPerReport(m mechanisms.Mechanism, xs []float64) float64 {
	src := &countingSource{src: rand.NewPCG(9, 9)}
	rng := rand.New(src)
	dst := make([]float64, len(xs))
	const reps = 4
	for range reps {
		if err := m.PerturbBatch(dst, xs, rng); err != nil {
			panic(err)
		}
	}
	return float64(src.n) / float64(reps*len(xs))
}

// wordsFixed are the 64-bit words one report takes, in Perturb and in
// PerturbBatch alike, for the mechanisms that take the same number every
// time, read from their samplers (rng.Float64 is one rng.Uint64, math/rand/v2
// rand.go):
//
//	duchi          1  Duchi.report(x, rng.Float64()), by inversion
//	sw             1  SquareWave.report(s, rng.Float64()), by inversion
//	three-outputs  1  pick(x, rng.Float64(), cuts(|x|))
//	n-output       1  outs[index(x, rng.Float64())]
//	pm, pm-sub,    2  Piecewise: u = rng.Float64() chooses the window,
//	pm-opt            w = 2·rng.Float64() places the report (p3 §2.6)
var wordsFixed = map[string]int{
	"duchi": 1, "sw": 1, "three-outputs": 1, "n-output": 1,
	"pm": 2, "pm-sub": 2, "pm-opt": 2, "bernoulli": 1, "nprr": 2,
}

// wordsCoin are the words the mixtures' coin takes: Hybrid.Perturb (hm,
// hm-tp) and HMNP.Perturb (hm-np) draw one rng.Float64() to choose the
// component, then make the chosen component's report.
var wordsCoin = map[string]int{"hm": 1, "hm-tp": 1, "hm-np": 1}

// laplaceSignWords are the words Laplace spends on the sign of a report
// besides its exponential, rng.ExpFloat64 (ziggurat: one word, more on its
// slow steps): one rng.Uint64() in Perturb; in PerturbBatch one
// rng.Uint64() for the signs of each run of up to 64 reports.
const laplaceSignWords = 1

// wordsPerReport returns the expected number of words one report of m
// takes, and the variance of that number. It is wordsFixed[name], with
// variance 0, or, for a mixture, the coin's words plus the words of the
// component the coin chooses: with p the continuous component's probability
// (Components) and c_c, c_d the components' fixed words, K = coin + c_d +
// B·(c_c - c_d), B ~ Bernoulli(p), so
//
//	E[K] = coin + p·c_c + (1-p)·c_d,  Var[K] = p(1-p)(c_c - c_d)²,
//
// which is 0 when p is 0 or 1 (at ε = 0.5 all three: hm and hm-tp are
// their discrete component alone below ε ≈ 0.61, hm-np has α = 1). HM: PM (2)
// with α, else Duchi (1): 2 + α; HM-TP: PM-SUB (2) with β, else
// Three-Outputs (1): 2 + β; HM-NP: PM-SUB (2) with 1 - α, else N-output
// (1): 3 - α.
func wordsPerReport(t *testing.T, m mechanisms.Mechanism) (mean, variance float64) {
	t.Helper()
	if c, ok := wordsFixed[m.Name()]; ok {
		return float64(c), 0
	}
	coin, ok := wordsCoin[m.Name()]
	mix, isMix := m.(mechanisms.Mixture)
	if !ok || !isMix {
		t.Fatalf("%s: no word count stated for it (wordsFixed, wordsCoin)", m.Name())
	}
	cont, disc, p := mix.Components()
	cc, vc := wordsPerReport(t, cont)
	cd, vd := wordsPerReport(t, disc)
	if vc != 0 || vd != 0 {
		t.Fatalf("%s: a component's words are random", m.Name())
	}
	return float64(coin) + p*cc + (1-p)*cd, p * (1 - p) * (cc - cd) * (cc - cd)
}

// zMax bounds the z-score of a measured mean word count that is random: a
// standard normal exceeds it in absolute value with probability
// 2Φ(-4.9) = 9.6e-7, the false-failure probability of each such check
// (the measured means are sums of thousands of independent counts, well
// within the normal approximation's reach at this level for counts that
// are bounded or, the ziggurat's, have a geometric tail).
const zMax = 4.9

// checkZ reports an error unless got, a mean word count whose sampling
// variance is v, is want within zMax standard errors; v = 0, a count that
// is not random, requires got == want exactly.
func checkZ(t *testing.T, what string, got, want, v float64) {
	t.Helper()
	if v == 0 {
		if got != want {
			t.Errorf("%s: %v words per report, want exactly %v", what, got, want)
		}
		return
	}
	if z := (got - want) / math.Sqrt(v); !(math.Abs(z) < zMax) {
		t.Errorf("%s: %v words per report, want %v: z = %.2f (se %.3g), beyond ±%v",
			what, got, want, z, math.Sqrt(v), zMax)
	}
}

// perturbWords returns the words each Perturb of xs[i] takes, in order,
// from a PCG seeded with seed.
func perturbWords(m mechanisms.Mechanism, xs []float64, seed uint64) []int {
	src := &countingSource{src: rand.NewPCG(seed, 11)}
	rng := rand.New(src)
	ws := make([]int, len(xs))
	for i, x := range xs {
		n := src.n
		m.Perturb(x, rng)
		ws[i] = src.n - n
	}
	return ws
}

// batchWords returns the words one PerturbBatch of xs takes from a PCG
// seeded with seed.
func batchWords(m mechanisms.Mechanism, xs []float64, seed uint64) int {
	src := &countingSource{src: rand.NewPCG(seed, 11)}
	dst := make([]float64, len(xs))
	if err := m.PerturbBatch(dst, xs, rand.New(src)); err != nil {
		panic(err)
	}
	return src.n
}

// b2i returns 1 if c, else 0.
func b2i(c bool) int {
	if c {
		return 1
	}
	return 0
}

// meanVar returns the mean and the unbiased variance of ws.
func meanVar(ws []float64) (mean, variance float64) {
	for _, w := range ws {
		mean += w
	}
	mean /= float64(len(ws))
	for _, w := range ws {
		variance += (w - mean) * (w - mean)
	}
	return mean, variance / float64(len(ws)-1)
}

// TestUniformsPerReport: every registered mechanism takes from the
// generator the number of 64-bit words its sampler's code gives
// (wordsPerReport), in Perturb and in PerturbBatch.
//
//   - Fixed counts (wordsFixed) are checked exactly, report by report.
//   - A mixture's count is random: each report must take coin + c_d or
//     coin + c_c words, and the mean over 4096 reports must be
//     wordsPerReport's mean within zMax standard errors
//     (√(p(1-p)/4096)·|c_c - c_d|), at each ε of epsGrid (exactly at
//     ε = 0.5, where every mixture's p is 0).
//   - Every batch but Laplace's makes the reports of the same sequence of
//     Perturb calls from the same uniforms, so from the same seed it takes
//     exactly as many words, at every batch length (the lengths straddle
//     the samplers' smallBatch, batchBlock and mixBlock).
//
// Laplace is checked apart (testLaplaceWords).
func TestUniformsPerReport(t *testing.T) {
	lengths := []int{1, 2, 3, 4, 5, 31, 32, 33, 47, 48, 49, 95, 96, 97, 1000}
	for ie, eps := range epsGrid {
		for in, name := range mechanisms.Names() {
			if name == "laplace" {
				continue
			}
			m := mustNew(t, name, eps)
			what := fmt.Sprintf("%s (ε = %v)", name, eps)
			mean, v := wordsPerReport(t, m)
			lo, hi := m.Domain()
			xs := mechtest.Grid(lo, hi, 4095) // 4096 reports
			seed := uint64(100*ie + in)
			ws := perturbWords(m, xs, seed)
			total, bad := 0, -1
			for i, w := range ws {
				total += w
				if bad < 0 && !slices.Contains(allowedWords(m), w) {
					bad = i
				}
			}
			if bad >= 0 {
				t.Errorf("%s: Perturb(%v) took %d words, want one of %v", what, xs[bad], ws[bad], allowedWords(m))
			}
			checkZ(t, what+" Perturb", float64(total)/float64(len(xs)), mean, v/float64(len(xs)))
			if b := batchWords(m, xs, seed); b != total {
				t.Errorf("%s: a batch of %d took %d words, the same Perturb calls %d", what, len(xs), b, total)
			}
			for _, n := range lengths {
				ys := make([]float64, n)
				for i := range ys {
					ys[i] = xs[(i*997+n)%len(xs)]
				}
				seed := seed<<16 | uint64(n)
				want := 0
				for _, w := range perturbWords(m, ys, seed) {
					want += w
				}
				if b := batchWords(m, ys, seed); b != want || (v == 0 && float64(b) != mean*float64(n)) {
					t.Errorf("%s: a batch of %d took %d words, the same Perturb calls %d (%v a report)", what, n, b, want, mean)
				}
			}
		}
	}
	testLaplaceWords(t)
}

// allowedWords returns the counts one report of m may take: its fixed
// count, or a mixture's coin plus either component's.
func allowedWords(m mechanisms.Mechanism) []int {
	if c, ok := wordsFixed[m.Name()]; ok {
		return []int{c}
	}
	cont, disc, _ := m.(mechanisms.Mixture).Components()
	coin := wordsCoin[m.Name()]
	return []int{coin + wordsFixed[cont.Name()], coin + wordsFixed[disc.Name()]}
}

// testLaplaceWords checks Laplace's words (TestUniformsPerReport). A report
// takes its sign word(s) and the words of one rng.ExpFloat64, whose
// ziggurat takes one word, and on its slow steps (about 3% of calls) one or
// more pairs besides: a random count with a geometric tail and no closed
// form here. Its law is measured instead, on the generator itself: the
// reference is the mean μ_r and variance v_r of the words of 2^20 calls of
// ExpFloat64 on a fixed seed. Then, with independent seeds,
//
//   - Perturb, over 2^16 reports: each takes at least 1 + 1 words, and the
//     mean of (words - 1) is μ_r within zMax standard errors,
//     √(v_p/2^16 + v_r/2^20), v_p the reports' own variance;
//   - PerturbBatch, in 512 batches of 128 (two runs of 64 reports): each
//     batch takes at least 2 + 128 words, and the mean over the batches of
//     (words - 2)/128 is μ_r within zMax standard errors,
//     √(v_b/512 + v_r/2^20), v_b the variance of (words - 2)/128 over the
//     batches (511 degrees of freedom: Student's t exceeds 4.9 with
//     probability 1.3e-6);
//   - Perturb and the batch differ by the sign words alone: the means of
//     their words per report differ by 1 - 1/64 = 63/64 within zMax
//     standard errors √(v_p/2^16 + v_b/512);
//   - a batch of one input is a Perturb: the same words from the same seed.
func testLaplaceWords(t *testing.T) {
	const (
		nRef   = 1 << 20
		nRep   = 1 << 16
		runLen = 64 // laplaceSignBits
		bLen   = 2 * runLen
		nBatch = nRep / bLen
	)
	// The reference: rand.ExpFloat64 alone.
	src := &countingSource{src: rand.NewPCG(77, 1)}
	rng := rand.New(src)
	ref := make([]float64, nRef)
	for i := range ref {
		n := src.n
		rng.ExpFloat64()
		ref[i] = float64(src.n - n)
	}
	muR, vR := meanVar(ref)

	m, _ := mechanisms.NewLaplace(1)
	xs := mechtest.Grid(-1, 1, nRep-1)

	single := make([]float64, nRep)
	few := 0
	for i, w := range perturbWords(m, xs, 78) {
		few += b2i(w < laplaceSignWords+1)
		single[i] = float64(w - laplaceSignWords)
	}
	if few > 0 {
		t.Errorf("laplace: %d of %d Perturb calls took fewer than %d words", few, nRep, laplaceSignWords+1)
	}
	muP, vP := meanVar(single)
	checkZ(t, "laplace Perturb, less its sign word (the ziggurat's cost)", muP, muR, vP/nRep+vR/nRef)

	signs := laplaceSignWords * (bLen + runLen - 1) / runLen // one word per run
	batch := make([]float64, nBatch)
	few = 0
	for b := range batch {
		w := batchWords(m, xs[b*bLen:(b+1)*bLen], 79+uint64(b))
		few += b2i(w < signs+bLen)
		batch[b] = float64(w-signs) / bLen
	}
	if few > 0 {
		t.Errorf("laplace: %d of %d batches of %d took fewer than %d words", few, nBatch, bLen, signs+bLen)
	}
	muB, vB := meanVar(batch)
	checkZ(t, "laplace batch, less its sign words (the ziggurat's cost)", muB, muR, vB/nBatch+vR/nRef)

	// Per report: Perturb takes 1 + μ, the batch 1/64 + μ.
	perReportP := muP + laplaceSignWords
	perReportB := muB + float64(signs)/bLen
	checkZ(t, "laplace Perturb less batch words per report", perReportP-perReportB,
		1-1.0/runLen, vP/nRep+vB/nBatch)

	for seed := range uint64(8) {
		x := xs[seed*997]
		if p, b := perturbWords(m, []float64{x}, seed)[0], batchWords(m, []float64{x}, seed); p != b {
			t.Errorf("laplace: a batch of one took %d words, Perturb %d", b, p)
		}
	}
	t.Logf("laplace: ExpFloat64 takes %.5f words a call (variance %.4f); Perturb %.5f, batch %.5f words a report",
		muR, vR, perReportP, perReportB)
}
