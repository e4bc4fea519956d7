package estimators

import "math"

// Statistics from an estimated histogram (Baek & Chung Fig. 4, Sec. 5.2).
// The plain variance and the quantiles at bin centres are
// metrics.HistogramVariance and metrics.HistogramQuantileBinCentre; the
// truth is the same statistic of the true histogram of the data in the
// same bins.

// HistVarianceWithMean returns Σ_i p_i c_i² − mean² with c_i the centre of
// bin i of len(p) equal bins of [lo, hi] and p normalised by its sum: the
// HM-NP rule of the authors' code, where mean is the mean estimated from
// the HM-NP reports themselves (unbiased) rather than the histogram's.
// With mean = Σ p_i c_i it is the plain histogram variance. NaN for an
// empty or non-positive histogram.
func HistVarianceWithMean(p []float64, lo, hi, mean float64) float64 {
	var tot, s float64
	w := (hi - lo) / float64(len(p))
	for i, v := range p {
		c := lo + (float64(i)+0.5)*w
		tot += v
		s += v * c * c
	}
	if !(tot > 0) || math.IsInf(tot, 0) {
		return math.NaN()
	}
	return s/tot - mean*mean
}
