package estimators_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/mechtest"
)

// values returns n values on [-1, 1], skewed so that the mean is not 0:
// x_i = 2·(i/n)² - 1 over a fixed permutation.
func values(n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		f := float64(i) / float64(n)
		xs[i] = 2*f*f - 1
	}
	rand.New(rand.NewPCG(3, 4)).Shuffle(n, func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
	return xs
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// estimates returns every registered mechanism that serves as an unbiased
// estimate on [-1, 1] at budget eps.
func estimates(t testing.TB, eps float64) []mechanisms.Estimate {
	var ests []mechanisms.Estimate
	for _, name := range mechanisms.Names() {
		m, err := mechanisms.New(name, eps)
		if err != nil {
			t.Fatal(err)
		}
		if e, err := mechanisms.Unbiased(m); err == nil {
			ests = append(ests, e)
		}
	}
	if len(ests) == 0 {
		t.Fatal("no registered mechanism serves as an estimate")
	}
	return ests
}

// TestMeanOfReportsUnbiased: the estimate is within z_{1-α/2}·√MSE of the
// true mean, MSE = ExpectedMeanMSE, for every registered estimate.
//
// False-failure probability: α = 1e-6 per mechanism and budget under the
// normal approximation of the mean of n = 200 000 independent reports with
// the exact variance (see mechtest.Unbiased for the size of the error of
// that approximation); the seed is fixed, so a run is reproducible.
func TestMeanOfReportsUnbiased(t *testing.T) {
	xs := values(200_000)
	truth := mean(xs)
	buf := make([]float64, estimators.ChunkSize)
	z := mechtest.Z(mechtest.DefaultAlpha)
	for _, eps := range []float64{0.5, 2} {
		for i, m := range estimates(t, eps) {
			rng := rand.New(rand.NewPCG(uint64(i)+1, 2))
			got, err := estimators.MeanOfReports(m, xs, rng, buf)
			if err != nil {
				t.Fatal(err)
			}
			tol := z * math.Sqrt(estimators.ExpectedMeanMSE(m, xs))
			if math.Abs(got-truth) > tol {
				t.Errorf("%s ε=%v: estimate %v, true mean %v: error %v > %v", m.Name(), eps, got, truth, got-truth, tol)
			}
		}
	}
}

// batchIsPerturbSequence reports whether m's PerturbBatch gives the reports
// of Perturb called on each value in turn (true of every registered
// mechanism but laplace, whose batch shares one sign word among 64 reports).
func batchIsPerturbSequence(m mechanisms.Mechanism) bool {
	xs := values(200)
	a, b := rand.New(rand.NewPCG(3, 4)), rand.New(rand.NewPCG(3, 4))
	out := make([]float64, len(xs))
	if err := m.PerturbBatch(out, xs, a); err != nil {
		panic(err)
	}
	for i, x := range xs {
		if m.Perturb(x, b) != out[i] {
			return false
		}
	}
	return true
}

// TestMeanOfReportsChunking: with a buf of ChunkSize, as the harness passes,
// the estimate is the same for the same generator state (reproducible), and
// when the mechanism's batch equals a sequence of Perturb calls it is, bit
// for bit, the average of those reports summed in blocks of ChunkSize, for
// every length of buf: the length changes how the values are cut into
// batches, not the reports or the order of the sum.
func TestMeanOfReportsChunking(t *testing.T) {
	const seed = 9
	sequential := 0
	for _, n := range []int{1, 7, estimators.ChunkSize, 3*estimators.ChunkSize + 5} {
		xs := values(n)
		for _, m := range estimates(t, 1) {
			first, _ := estimators.MeanOfReports(m, xs, rand.New(rand.NewPCG(seed, 2)), make([]float64, estimators.ChunkSize))
			again, _ := estimators.MeanOfReports(m, xs, rand.New(rand.NewPCG(seed, 2)), make([]float64, estimators.ChunkSize))
			if math.Float64bits(first) != math.Float64bits(again) {
				t.Errorf("%s n=%d: the same generator state gave %v and %v", m.Name(), n, first, again)
			}
			if !batchIsPerturbSequence(m) {
				continue
			}
			sequential++
			// The reference: one Perturb per value; blocks of ChunkSize
			// reports, each summed in order, then the block sums in order.
			rng := rand.New(rand.NewPCG(seed, 2))
			var sum, s float64
			for i, x := range xs {
				s += m.Perturb(x, rng)
				if (i+1)%estimators.ChunkSize == 0 || i == n-1 {
					sum += s
					s = 0
				}
			}
			want := sum / float64(n)
			next := rng.Uint64()

			for _, size := range []int{1, 7, 4096, 5000} {
				rng := rand.New(rand.NewPCG(seed, 2))
				got, err := estimators.MeanOfReports(m, xs, rng, make([]float64, size))
				if err != nil {
					t.Fatal(err)
				}
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Errorf("%s n=%d buf=%d: estimate %v, want %v", m.Name(), n, size, got, want)
				}
				if rng.Uint64() != next {
					t.Errorf("%s n=%d buf=%d: the generator is not where n Perturb calls leave it", m.Name(), n, size)
				}
			}
		}
	}
	if sequential == 0 {
		t.Fatal("no mechanism's batch equals its Perturb sequence: the bit-for-bit check never ran")
	}
}

// TestMeanOfReportsErrors: a value outside the domain gives its
// *mechanisms.InputError; an empty buf panics (it used to loop for ever);
// no values give NaN.
func TestMeanOfReportsErrors(t *testing.T) {
	m, err := mechanisms.NewPM(1)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	xs := values(10)
	xs[7] = 1.5
	_, err = estimators.MeanOfReports(m, xs, rng, make([]float64, 4))
	var ie *mechanisms.InputError
	if !errors.As(err, &ie) || ie.Index != 3 || ie.Value != 1.5 {
		t.Errorf("value 1.5 at index 7 (batch index 3): error %v", err)
	}
	if got, err := estimators.MeanOfReports(m, nil, rng, nil); err != nil || !math.IsNaN(got) {
		t.Errorf("no values: %v, %v; want NaN, nil", got, err)
	}
	defer func() {
		if recover() == nil {
			t.Error("an empty buf did not panic")
		}
	}()
	_, _ = estimators.MeanOfReports(m, values(3), rng, nil)
}

// TestExpectedMeanMSE against values by hand.
func TestExpectedMeanMSE(t *testing.T) {
	// Duchi at e^ε = 3: C = (3+1)/(3-1) = 2 and Var(x) = C² - x², so for
	// xs = {-1, 0, 1/2} the MSE is (3·4 - 1 - 0 - 1/4)/3² = 43/36.
	d, err := mechanisms.NewDuchi(math.Log(3))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := estimators.ExpectedMeanMSE(d, []float64{-1, 0, 0.5}), 43.0/36; math.Abs(got-want) > 1e-14*want {
		t.Errorf("duchi: %v, want 43/36 = %v", got, want)
	}
	// Laplace at ε = 2: Var = 8/ε² = 2 for every x; four values: 4·2/4².
	l, err := mechanisms.NewLaplace(2)
	if err != nil {
		t.Fatal(err)
	}
	if got := estimators.ExpectedMeanMSE(l, []float64{-1, 0.25, 0.5, 1}); math.Abs(got-0.5) > 1e-15 {
		t.Errorf("laplace: %v, want 0.5", got)
	}
}

func ExampleMeanOfReports() {
	pm, err := mechanisms.NewPM(1)
	if err != nil {
		panic(err)
	}
	// 100 000 users hold values on [-1, 1] with mean 0.3.
	xs := make([]float64, 100_000)
	for i := range xs {
		xs[i] = 0.3 + 0.5*math.Sin(float64(i))
	}
	var buf [estimators.ChunkSize]float64
	rng := rand.New(rand.NewPCG(1, 2))
	est, err := estimators.MeanOfReports(pm, xs, rng, buf[:])
	if err != nil {
		panic(err)
	}
	fmt.Printf("true mean %.4f, estimate %.4f, expected error ±%.4f\n",
		mean(xs), est, math.Sqrt(estimators.ExpectedMeanMSE(pm, xs)))
	// Output:
	// true mean 0.3000, estimate 0.2993, expected error ±0.0063
}

// BenchmarkMeanOfReports is the end-to-end cost of one mean estimate: n =
// 10⁶ values through PM at ε = 1 with a ChunkSize buffer, that is the
// reports (PerturbBatch) and their sum.
func BenchmarkMeanOfReports(b *testing.B) {
	const n = 1_000_000
	m, err := mechanisms.NewPM(1)
	if err != nil {
		b.Fatal(err)
	}
	xs := values(n)
	var buf [estimators.ChunkSize]float64
	rng := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := estimators.MeanOfReports(m, xs, rng, buf[:]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/report")
}
