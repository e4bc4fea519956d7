package mechtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// DiscreteFit draws n raw reports of x from m, which must also implement
// [mechanisms.Discrete], and tests their counts against Probabilities(x)
// with Pearson's chi-square test. A report outside Outputs() fails at once.
//
// False-failure probability: alpha under the chi-square approximation of
// Pearson's statistic, good when every expected count is large (≥ 5 here is
// required, or the check returns an error).
func DiscreteFit(m mechanisms.Mechanism, x float64, n int, rng *rand.Rand, alpha float64) error {
	d, ok := m.(mechanisms.Discrete)
	if !ok {
		return fmt.Errorf("%s: not a Discrete mechanism", m.Name())
	}
	outs := d.Outputs()
	ps := make([]float64, len(outs))
	d.Probabilities(x, ps)
	ys, err := raw(m, x, n, rng)
	if err != nil {
		return err
	}
	counts := make([]float64, len(outs))
	for _, y := range ys {
		i := sort.SearchFloat64s(outs, y)
		if i == len(outs) || outs[i] != y {
			return fmt.Errorf("%s: report %v of x = %v is not an output", name(m), y, x)
		}
		counts[i]++
	}
	return chiSquare(m, x, counts, ps, outs, n, alpha)
}

// ContinuousFit draws n raw reports of x from m, which must also implement
// [mechanisms.Continuous], bins them into the buckets (yEdges[j],
// yEdges[j+1]] (which must cover the output range; reports equal to the
// lowest edge go to the first bucket) and tests the counts against
// BucketGivenBin(·, ·, x, x) with Pearson's chi-square test.
//
// False-failure probability: as for [DiscreteFit]; choose buckets with
// expected counts ≥ 5.
func ContinuousFit(m mechanisms.Mechanism, x float64, yEdges []float64, n int, rng *rand.Rand, alpha float64) error {
	c, ok := m.(mechanisms.Continuous)
	if !ok {
		return fmt.Errorf("%s: not a Continuous mechanism", m.Name())
	}
	if err := checkEdges("output", yEdges); err != nil {
		return err
	}
	lo, hi := c.OutputRange()
	if yEdges[0] > lo || yEdges[len(yEdges)-1] < hi {
		return fmt.Errorf("%s: output edges [%v, %v] do not cover the range [%v, %v]", name(m), yEdges[0], yEdges[len(yEdges)-1], lo, hi)
	}
	k := len(yEdges) - 1
	ps := make([]float64, k)
	for j := range ps {
		ps[j] = c.BucketGivenBin(yEdges[j], yEdges[j+1], x, x)
	}
	ys, err := raw(m, x, n, rng)
	if err != nil {
		return err
	}
	counts := make([]float64, k)
	for _, y := range ys {
		// First edge ≥ y; bucket (e[j-1], e[j]].
		j := sort.SearchFloat64s(yEdges, y)
		switch {
		case j == 0 && y == yEdges[0]:
			j = 1
		case j == 0 || j > k || math.IsNaN(y):
			return fmt.Errorf("%s: report %v of x = %v outside the buckets [%v, %v]", name(m), y, x, yEdges[0], yEdges[k])
		}
		counts[j-1]++
	}
	return chiSquare(m, x, counts, ps, yEdges[1:], n, alpha)
}

// raw draws n raw reports of x through PerturbBatch.
func raw(m mechanisms.Mechanism, x float64, n int, rng *rand.Rand) ([]float64, error) {
	ys := make([]float64, n)
	for i := range ys {
		ys[i] = x
	}
	if err := m.PerturbBatch(ys, ys, rng); err != nil {
		return nil, err
	}
	return ys, nil
}

// chiSquare runs Pearson's test of counts against probabilities ps.
// Cells of probability 0 must be empty and do not count as degrees of
// freedom. labels name the cells in messages.
func chiSquare(m any, x float64, counts, ps, labels []float64, n int, alpha float64) error {
	if !(alpha > 0 && alpha < 1) {
		return fmt.Errorf("%s: alpha = %v, need 0 < alpha < 1", name(m), alpha)
	}
	stat := 0.0
	cells := 0
	for i, p := range ps {
		e := p * float64(n)
		if p <= 0 {
			if counts[i] > 0 {
				return fmt.Errorf("%s: %v reports of x = %v in cell %v of probability %v", name(m), counts[i], x, labels[i], p)
			}
			continue
		}
		if e < 5 {
			return fmt.Errorf("%s: expected count %.3g < 5 in cell %v at x = %v: use fewer cells or more reports", name(m), e, labels[i], x)
		}
		stat += (counts[i] - e) * (counts[i] - e) / e
		cells++
	}
	if cells < 2 {
		return nil // a single possible cell: nothing to test
	}
	pv := distuv.ChiSquared{K: float64(cells - 1)}.Survival(stat)
	if !(pv >= alpha) {
		return fmt.Errorf("%s: reports of x = %v do not fit the exact law: chi-square %.4g on %d degrees of freedom, p-value %.3g < alpha %g",
			name(m), x, stat, cells-1, pv, alpha)
	}
	return nil
}
