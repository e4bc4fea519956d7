package estimators

import (
	"math"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// ChunkSize is how many reports MeanOfReports perturbs per batch call: large
// enough to amortise the call, small enough to stay in L1/L2 cache.
const ChunkSize = 4096

// sumBlock is how many consecutive reports MeanOfReports adds up on their
// own, in order, before adding their sum to the total: block sums keep the
// rounding error at n = 10⁷ far below the statistical error. It is fixed,
// whatever the length of buf, so that the order of the additions, and so
// the estimate, does not depend on buf; with buf of length ChunkSize the
// blocks are the batches, so the estimate is, bit for bit, the one of the
// earlier chunk-by-chunk sum.
const sumBlock = ChunkSize

// MeanOfReports simulates n = len(xs) users each sending one report of its
// value through m, and returns the collector's estimate of the mean: the
// average of the reports. m must be unbiased on the values' domain (see
// mechanisms.Unbiased). buf is scratch of any length ≥ 1 (ChunkSize is a
// good choice); nothing is allocated. n = 0 gives NaN.
//
// The estimate is determined by m, xs, the state of rng and len(buf) (which
// sets where xs is cut into batches); the harness always passes ChunkSize.
// When m's PerturbBatch equals the same sequence of Perturb calls, as for
// every registered mechanism but laplace (whose batch shares one sign word
// among 64 reports), it does not depend on len(buf) either, since the sum
// is formed in a fixed order (see sumBlock).
//
// A value outside m's domain gives its *mechanisms.InputError. It is found
// when its batch is reached, so the reports of the values before it have
// been drawn from rng by then.
func MeanOfReports(m mechanisms.Mechanism, xs []float64, rng *rand.Rand, buf []float64) (float64, error) {
	n := len(xs)
	if len(buf) == 0 && n > 0 {
		panic("estimators: MeanOfReports: empty buf")
	}
	var sum, s float64 // the total of the completed blocks; the current block's sum
	inBlock := 0       // reports in the current block
	for len(xs) > 0 {
		// Batches are cut at block ends.
		k := min(len(buf), len(xs), sumBlock-inBlock)
		out := buf[:k]
		if err := m.PerturbBatch(out, xs[:k], rng); err != nil {
			return 0, err
		}
		for _, y := range out {
			s += y
		}
		inBlock += k
		if inBlock == sumBlock {
			sum += s
			s, inBlock = 0, 0
		}
		xs = xs[k:]
	}
	if inBlock > 0 {
		sum += s
	}
	return sum / float64(n), nil
}

// ExpectedMeanMSE returns the exact expected squared error of the average of
// one unbiased report per value: (1/n²)·Σᵢ Var(Y | xᵢ), over the dataset's
// own values. The variances are asked in batches when v is a
// mechanisms.VarianceBatcher (an external program: one request per 16,384
// values, not one per value), with the same sum, bit for bit; a batch that
// fails gives NaN, and ExpectedMeanMSEErr its error.
func ExpectedMeanMSE(v mechanisms.Variancer, xs []float64) float64 {
	mse, err := ExpectedMeanMSEErr(v, xs)
	if err != nil {
		return math.NaN()
	}
	return mse
}

// ExpectedMeanMSEErr is ExpectedMeanMSE with the error of a failed batch of
// variances (an external program's refusal, crash or malformed reply).
func ExpectedMeanMSEErr(v mechanisms.Variancer, xs []float64) (float64, error) {
	var s float64
	err := eachVariances([]mechanisms.Variancer{v}, xs, func(_ int, vars [][]float64) {
		for _, q := range vars[0] {
			s += q
		}
	})
	if err != nil {
		return math.NaN(), err
	}
	n := float64(len(xs))
	return s / (n * n), nil
}
