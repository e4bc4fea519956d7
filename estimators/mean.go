package estimators

import (
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// ChunkSize is how many reports MeanOfReports perturbs per batch call: large
// enough to amortise the call, small enough to stay in L1/L2 cache.
const ChunkSize = 4096

// MeanOfReports simulates n = len(xs) users each sending one report of its
// value through m, and returns the collector's estimate of the mean: the
// average of the reports. m must be unbiased on the values' domain (see
// mechanisms.Unbiased). buf is scratch of any length ≥ 1 (ChunkSize is a
// good choice); nothing is allocated.
func MeanOfReports(m mechanisms.Mechanism, xs []float64, rng *rand.Rand, buf []float64) (float64, error) {
	var sum float64
	for start := 0; start < len(xs); start += len(buf) {
		chunk := xs[start:min(start+len(buf), len(xs))]
		out := buf[:len(chunk)]
		if err := m.PerturbBatch(out, chunk, rng); err != nil {
			return 0, err
		}
		// Sum each chunk on its own first: pairwise-ish summation keeps the
		// rounding error at n = 10⁷ far below the statistical error.
		var s float64
		for _, y := range out {
			s += y
		}
		sum += s
	}
	return sum / float64(len(xs)), nil
}

// ExpectedMeanMSE returns the exact expected squared error of the average of
// one unbiased report per value: (1/n²)·Σᵢ Var(Y | xᵢ), over the dataset's
// own values.
func ExpectedMeanMSE(v mechanisms.Variancer, xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += v.Variance(x)
	}
	n := float64(len(xs))
	return s / (n * n)
}
