package centraldp_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ldpbench/ldpbench/mechanisms/mechtest"
)

// alpha is the false-failure probability of one statistical check; zCrit
// its two-sided normal critical value (4.89), the "4.9 SE" of the checks.
const alpha = 1e-6

var zCrit = mechtest.Z(alpha)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

// moments accumulates a sample's mean and the standard error of the mean,
// with compensated sums (10⁶ terms lose no digits that matter).
type moments struct {
	n            int
	sum, sumSq   float64
	cSum, cSumSq float64
}

func (m *moments) add(v float64) {
	m.n++
	m.sum, m.cSum = kahanAdd(m.sum, m.cSum, v)
	m.sumSq, m.cSumSq = kahanAdd(m.sumSq, m.cSumSq, v*v)
}

func kahanAdd(s, c, v float64) (float64, float64) {
	y := v - c
	t := s + y
	return t, (t - s) - y
}

func (m *moments) mean() float64 { return m.sum / float64(m.n) }

// se returns the standard error of the mean, from the sample variance.
func (m *moments) se() float64 {
	n := float64(m.n)
	mu := m.mean()
	v := (m.sumSq/n - mu*mu) * n / (n - 1)
	return math.Sqrt(max(v, 0) / n)
}

// checkMean fails t unless the sample mean is within zCrit standard errors
// of want.
func checkMean(t *testing.T, what string, m *moments, want float64) {
	t.Helper()
	if d := m.mean() - want; math.Abs(d) > zCrit*m.se() {
		t.Errorf("%s: mean %.6g, want %.6g: off by %.2f SE (SE %.3g, %d draws)", what, m.mean(), want, d/m.se(), m.se(), m.n)
	}
}

// chiSquare returns the p-value of Pearson's statistic for counts against
// probabilities ps (which sum to 1), failing t if an expected count is
// below 5 or a cell of probability 0 holds a draw.
func chiSquare(t *testing.T, what string, counts []int, ps []float64, n int) float64 {
	t.Helper()
	stat, cells := 0.0, 0
	for i, p := range ps {
		e := p * float64(n)
		if p == 0 {
			if counts[i] > 0 {
				t.Fatalf("%s: %d draws in cell %d of probability 0", what, counts[i], i)
			}
			continue
		}
		if e < 5 {
			t.Fatalf("%s: expected count %.3g < 5 in cell %d", what, e, i)
		}
		d := float64(counts[i]) - e
		stat += d * d / e
		cells++
	}
	return distuv.ChiSquared{K: float64(cells - 1)}.Survival(stat)
}

// relErr returns |got − want|/|want|.
func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

// integrate is mechtest.Integrate with panels of at most width h, so that
// no step narrower than 4h is missed.
func integrate(f func(float64) float64, a, b, h, tol float64) float64 {
	return mechtest.Integrate(f, a, b, int(math.Ceil((b-a)/h)), tol)
}
