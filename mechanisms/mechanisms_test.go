package mechanisms_test

import (
	"errors"
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

// xGrid is the input grid on [-1, 1]; inputs on [0, 1] are
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

// TestSuite runs the registry-wide suite (mechtest.Suite: unbiasedness,
// variance against the closed form, the law's fit, ε-LDP, the worst case,
// the batch, allocations, words per report) on every registered mechanism,
// built-in or added by Register: what a mechanism has to pass to be one of
// the registry's, stated once, in mechtest, and reading what it needs of a
// mechanism from the mechanism's own methods (never from its name). Each
// check's doc says which bug it catches.
func TestSuite(t *testing.T) {
	for _, name := range mechanisms.Names() {
		info, ok := mechanisms.Lookup(name)
		if !ok {
			t.Fatalf("Names() lists %q, Lookup does not find it", name)
		}
		t.Run(name, func(t *testing.T) { mechtest.Suite(t, info) })
	}
}

// fitEdges returns the suite's chi-square buckets of m (mechtest.FitEdges),
// or nil, which ContinuousFit refuses, if m has none.
func fitEdges(m mechanisms.Mechanism, k int) []float64 {
	e, _ := mechtest.FitEdges(m, k)
	return e
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
	_, err := mechanisms.New("no-such", 1)
	if err == nil || !strings.Contains(err.Error(), strings.Join(names, ", ")) {
		t.Errorf("New(unknown): %v, want an error listing %v", err, names)
	}
}

// TestDomains: the domains the papers give, and reports inside the output
// range.
func TestDomains(t *testing.T) {
	want := map[string][2]float64{"laplace": {-1, 1}, "duchi": {-1, 1}, "pm": {-1, 1}, "sw": {0, 1}}
	for name, d := range want {
		m := mustNew(t, name, 1)
		if lo, hi := m.Domain(); lo != d[0] || hi != d[1] {
			t.Errorf("%s: Domain() = [%v, %v], want %v", name, lo, hi, d)
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

// b2i returns 1 if c, else 0.
func b2i(c bool) int {
	if c {
		return 1
	}
	return 0
}
