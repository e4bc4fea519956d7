package estimators

import (
	"math/rand/v2"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// paperServices returns the paper's four mean services [SR, Laplace, PM, SW]
// at the given budgets.
func paperServices(tb testing.TB, eps ...float64) []mechanisms.Mechanism {
	tb.Helper()
	names := []string{"duchi", "laplace", "pm", "sw"}
	out := make([]mechanisms.Mechanism, len(eps))
	for j, e := range eps {
		m, err := mechanisms.New(names[j%4], e)
		if err != nil {
			tb.Fatal(err)
		}
		out[j] = m
	}
	return out
}

// betaInputs returns n values of 2·Beta(2,5) - 1, Beta(2,5) drawn as
// G2/(G2+G5) with Gk the sum of k standard exponentials (a Gamma(k, 1)).
func betaInputs(n int, rng *rand.Rand) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		a := rng.ExpFloat64() + rng.ExpFloat64()
		b := 0.0
		for range 5 {
			b += rng.ExpFloat64()
		}
		xs[i] = 2*a/(a+b) - 1
	}
	return xs
}

// perturbAll draws every service's report of every input, service-major,
// into reports (m slices of len(xs)).
func perturbAll(tb testing.TB, services []mechanisms.Mechanism, xs []float64, rng *rand.Rand, reports [][]float64) {
	tb.Helper()
	for j, m := range services {
		u, err := NewUnbiaser(m)
		if err != nil {
			tb.Fatal(err)
		}
		in := reports[j][:len(xs)]
		for i, x := range xs {
			in[i] = u.Input(x)
		}
		if err := m.PerturbBatch(in, in, rng); err != nil {
			tb.Fatal(err)
		}
	}
}

func newReports(m, n int) [][]float64 {
	r := make([][]float64, m)
	for j := range r {
		r[j] = make([]float64, n)
	}
	return r
}

// BenchmarkUWA is UWA over n = 10⁶ users of the paper's four services at
// ε = 0.1 each (Table 1's m = 4, n = 1M row: 3.45 s on the authors' GPU).
// The time per op is the aggregation of 10⁶ users, tables included.
func BenchmarkUWA(b *testing.B) {
	const n = 1_000_000
	rng := rand.New(rand.NewPCG(1, 2))
	svcs := paperServices(b, 0.1, 0.1, 0.1, 0.1)
	xs := betaInputs(n, rng)
	reports := newReports(len(svcs), n)
	perturbAll(b, svcs, xs, rng, reports)
	b.ResetTimer()
	for b.Loop() {
		u, err := NewUWA(svcs, UWAOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := u.Estimate(reports); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/user")
}

// BenchmarkUWASingleThread is BenchmarkUWA on one goroutine.
func BenchmarkUWASingleThread(b *testing.B) {
	const n = 1_000_000
	rng := rand.New(rand.NewPCG(1, 2))
	svcs := paperServices(b, 0.1, 0.1, 0.1, 0.1)
	xs := betaInputs(n, rng)
	reports := newReports(len(svcs), n)
	perturbAll(b, svcs, xs, rng, reports)
	b.ResetTimer()
	for b.Loop() {
		u, err := NewUWA(svcs, UWAOptions{Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := u.Estimate(reports); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/user")
}

// The test-sized check of BenchmarkUWA: UWA allocates per call (its tables'
// scratch and one sum per block of users), never per user, and a user costs
// well under 10 µs on one goroutine (about 0.3 µs on an idle 2-core Xeon;
// the bound only catches a pathological regression, such as work
// quadratic in h, on a loaded machine).
func TestUWACost(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	svcs := paperServices(t, 0.1, 0.1, 0.1, 0.1)
	allocs := func(n int) float64 {
		xs := betaInputs(n, rng)
		reports := newReports(len(svcs), n)
		perturbAll(t, svcs, xs, rng, reports)
		u, err := NewUWA(svcs, UWAOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		return testing.AllocsPerRun(2, func() {
			if _, err := u.Estimate(reports); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := allocs(uwaBlock), allocs(20*uwaBlock)
	if large > small+4 { // two slices grow with the number of blocks
		t.Errorf("UWA allocates %v times for %d users and %v for %d: allocation per user", small, uwaBlock, large, 20*uwaBlock)
	}
	const n = 200_000
	xs := betaInputs(n, rng)
	reports := newReports(len(svcs), n)
	perturbAll(t, svcs, xs, rng, reports)
	u, _ := NewUWA(svcs, UWAOptions{Workers: 1})
	res := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			if _, err := u.Estimate(reports); err != nil {
				b.Fatal(err)
			}
		}
	})
	perUser := float64(res.NsPerOp()) / n
	t.Logf("UWA, m = 4, one goroutine: %.0f ns per user", perUser)
	if perUser > 10_000 {
		t.Errorf("UWA costs %.0f ns per user", perUser)
	}
}
