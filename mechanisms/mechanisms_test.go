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

// TestUniformsPerReport: the samplers draw the number of uniforms the specs
// give (one by inversion for Duchi and SW; two for the piecewise family, p3
// §2.6), every time, in Perturb and in PerturbBatch alike. Laplace draws an
// exponential by the ziggurat (one word, on about 3% of calls more) and a
// sign: a word of its own in Perturb, a bit of a word shared by 64 reports
// in PerturbBatch; so about 2.03 words per Perturb and 1.05 per report in a
// batch, and never fewer than 2 and 1 + 1/64.
func TestUniformsPerReport(t *testing.T) {
	want := map[string]float64{"duchi": 1, "pm": 2, "sw": 1}
	for _, name := range mechanisms.Names() {
		m := mustNew(t, name, 1)
		got := drawsPerReport(m)
		lo, hi := m.Domain()
		batch := batchDrawsPerReport(m, mechtest.Grid(lo, hi, 255))
		if w, ok := want[name]; ok && (got != w || batch != w) {
			t.Errorf("%s: %v uniforms per report, %v in a batch, want %v", name, got, batch, w)
		}
	}

	// Laplace, over 2^16 reports. The ziggurat takes 0.0335 extra words a
	// call on average (measured over 1e7 calls), here with a standard error
	// of about 7e-4: the bounds allow it [0.02, 0.05].
	m, _ := mechanisms.NewLaplace(1)
	xs := mechtest.Grid(-1, 1, 1<<14-1) // 2^14 inputs, 2^8 runs of 64
	single := batchDrawsPerReport(perturbOnly{m}, xs)
	batch := batchDrawsPerReport(m, xs)
	if !(single >= 2.02 && single <= 2.05) {
		t.Errorf("laplace: %v words per Perturb, want 2 and the ziggurat's ~0.034", single)
	}
	if !(batch >= 1+1.0/64+0.02 && batch <= 1+1.0/64+0.05) {
		t.Errorf("laplace: %v words per report in a batch, want 1 + 1/64 and the ziggurat's ~0.034", batch)
	}
	// Both pay the same ziggurat: they differ by the sign words alone, up
	// to the sampling noise of the extra words (sd ~1e-3 each).
	if d := single - batch - (1 - 1.0/64); math.Abs(d) > 0.01 {
		t.Errorf("laplace: Perturb %v and batch %v words per report differ by %v beyond the sign words", single, batch, d)
	}

	p, _ := mechanisms.NewPiecewise("pm-sub", 1, math.Exp(1.0/3))
	if got := drawsPerReport(p); got != 2 {
		t.Errorf("pm-sub: %v uniforms per report, want 2", got)
	}
}
