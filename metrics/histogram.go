package metrics

import "math"

// validRange reports whether lo < hi and the width hi − lo is finite.
func validRange(lo, hi float64) bool {
	return lo < hi && !math.IsInf(hi-lo, 0)
}

// edge returns the left edge of bin i of bins equal bins on [lo, hi], computed
// as NumPy's linspace does: lo + i·((hi − lo)/bins), with the last edge exactly
// hi. The conversion keeps the product from being fused into the addition.
func edge(lo, hi, step float64, i, bins int) float64 {
	if i >= bins {
		return hi
	}
	return lo + float64(float64(i)*step)
}

// Histogram counts values into bins equal bins on [lo, hi], writing the counts
// to dst (overwriting, not accumulating). Bin i holds the values v with
// edge_i ≤ v < edge_{i+1}, where edge_i = lo + i·(hi − lo)/bins; the last bin
// also holds v = hi. Bin membership follows the computed edges exactly, with
// the same edges and rule as NumPy's histogram with equal bins, so a value on
// an edge always goes to the bin on its right.
//
// Unlike NumPy, values outside [lo, hi] are not dropped: values below lo
// (including −Inf) are counted in bin 0 and values above hi (including +Inf)
// in the last bin, so the total is the number of values. NaN values are
// skipped: the counts then sum to the number of non-NaN values.
//
// It panics if bins ≤ 0, len(dst) ≠ bins, or lo, hi do not satisfy lo < hi
// with a finite width.
func Histogram(values []float64, lo, hi float64, bins int, dst []float64) {
	if bins <= 0 {
		panic("metrics: Histogram with bins ≤ 0")
	}
	if len(dst) != bins {
		panic("metrics: Histogram dst length differs from bins")
	}
	if !validRange(lo, hi) {
		panic("metrics: Histogram range needs lo < hi with a finite width")
	}
	clear(dst)
	norm := float64(bins) / (hi - lo)
	step := (hi - lo) / float64(bins)
	last := bins - 1
	for _, v := range values {
		var i int
		switch {
		case v != v: // NaN
			continue
		case v <= lo:
			i = 0
		case v >= hi:
			i = last
		default:
			i = min(int((v-lo)*norm), last)
			// The index may be off by one within an ulp of an edge; the
			// edges decide.
			if v < edge(lo, hi, step, i, bins) {
				i--
			} else if i < last && v >= edge(lo, hi, step, i+1, bins) {
				i++
			}
		}
		dst[i]++
	}
}

// histMean returns the total of p and the mean of its bin midpoints on
// [lo, hi], or ok = false for an invalid histogram or range.
func histMean(p []float64, lo, hi float64) (total, mean float64, ok bool) {
	if !validRange(lo, hi) {
		return 0, 0, false
	}
	total, ok = mass(p)
	if !ok {
		return 0, 0, false
	}
	w := (hi - lo) / float64(len(p))
	var s float64
	for i, v := range p {
		s += v * (lo + (float64(i)+0.5)*w)
	}
	return total, s / total, true
}

// HistogramVariance returns the variance of the distribution that puts the
// mass of each bin of p at the bin's midpoint, p having len(p) equal bins on
// [lo, hi] and being normalised by its sum:
//
//	Var = Σ_i P_i (c_i − μ)²,  μ = Σ_i P_i c_i,  c_i = lo + (i + ½)(hi − lo)/len(p).
//
// The midpoint rule discretises: for the uniform histogram with d bins of
// width Δ it gives (hi − lo)²/12 − Δ²/12, Sheppard's correction below the
// continuous value. It is computed in two passes (no cancellation from
// E[X²] − E[X]²). It returns NaN for an invalid histogram or range.
func HistogramVariance(p []float64, lo, hi float64) float64 {
	total, mean, ok := histMean(p, lo, hi)
	if !ok {
		return math.NaN()
	}
	w := (hi - lo) / float64(len(p))
	var s float64
	for i, v := range p {
		d := lo + (float64(i)+0.5)*w - mean
		s += v * d * d
	}
	return s / total
}

// HistogramQuantile returns the quantile at level prob of the distribution
// that spreads the mass of each bin of p uniformly over the bin (len(p) equal
// bins on [lo, hi], p normalised by its sum): the smallest x with F(x) = prob,
// where F is the CDF interpolated linearly within each bin. Level 0 gives the
// left edge of the first bin with mass, level 1 the right edge of the last bin
// with mass. For the uniform histogram it is lo + prob·(hi − lo).
//
// It returns NaN for an invalid histogram or range or prob outside [0, 1].
// HistogramQuantileBinCentre is the coarser convention of the N-output
// paper's code.
func HistogramQuantile(p []float64, lo, hi, prob float64) float64 {
	if !validRange(lo, hi) || !(prob >= 0 && prob <= 1) {
		return math.NaN()
	}
	total, ok := mass(p)
	if !ok {
		return math.NaN()
	}
	w := (hi - lo) / float64(len(p))
	target := prob * total
	var cum float64
	for i, v := range p {
		if v == 0 {
			continue
		}
		next := cum + v
		if next >= target {
			f := min(max((target-cum)/v, 0), 1)
			return lo + (float64(i)+f)*w
		}
		cum = next
	}
	// Not reached: the running sum ends at total ≥ target.
	return hi
}

// HistogramQuantileBinCentre returns the quantile at level prob by the
// convention of the N-output paper's code (Fig. 4; docs/noutput-dist.md):
// the centre of the first bin at which the running sum of the normalised
// histogram, p_i / Σp accumulated in bin order, is ≥ prob. If rounding keeps
// the running sum below prob (prob near 1), it returns the last bin's centre.
// It is a step function of prob with resolution one bin width. Validation is
// as for HistogramQuantile.
func HistogramQuantileBinCentre(p []float64, lo, hi, prob float64) float64 {
	if !validRange(lo, hi) || !(prob >= 0 && prob <= 1) {
		return math.NaN()
	}
	total, ok := mass(p)
	if !ok {
		return math.NaN()
	}
	w := (hi - lo) / float64(len(p))
	var cum float64
	for i, v := range p {
		cum += v / total
		if cum >= prob {
			return lo + (float64(i)+0.5)*w
		}
	}
	return lo + (float64(len(p))-0.5)*w
}

// VarianceSquaredError returns the per-trial value of the metric "var-mse":
// (HistogramVariance(pEst) − HistogramVariance(pTrue))², both on [lo, hi].
// The two histograms may have different numbers of bins. The variance RMSE
// is the square root of its mean over trials.
//
// When the truth is the data's own variance rather than that of its
// histogram, record SquaredError(HistogramVariance(pEst, lo, hi), dataVar)
// instead, under the same name, and say so in the experiment spec.
func VarianceSquaredError(pEst, pTrue []float64, lo, hi float64) float64 {
	return SquaredError(HistogramVariance(pEst, lo, hi), HistogramVariance(pTrue, lo, hi))
}

// QuantileSquaredError returns the per-trial value of the metric
// "quantile-mse": the mean over the levels probs of the squared difference
// between the HistogramQuantile of pEst and of pTrue, both on [lo, hi] (they
// may have different numbers of bins). With probs = Deciles() the quantile
// RMSE of the N-output paper is the square root of its mean over trials:
// averaged over the levels, then over trials, then the root (ERRATA E0.3).
//
// It returns NaN if probs is empty or any level or histogram is invalid.
func QuantileSquaredError(pEst, pTrue []float64, lo, hi float64, probs []float64) float64 {
	return quantileSquaredError(HistogramQuantile, pEst, pTrue, lo, hi, probs)
}

// QuantileSquaredErrorBinCentre is QuantileSquaredError with the quantiles of
// HistogramQuantileBinCentre (metric "quantile-mse-centre"), for reproducing
// the N-output paper's decile errors.
func QuantileSquaredErrorBinCentre(pEst, pTrue []float64, lo, hi float64, probs []float64) float64 {
	return quantileSquaredError(HistogramQuantileBinCentre, pEst, pTrue, lo, hi, probs)
}

func quantileSquaredError(quantile func(p []float64, lo, hi, prob float64) float64,
	pEst, pTrue []float64, lo, hi float64, probs []float64) float64 {
	if len(probs) == 0 {
		return math.NaN()
	}
	var s float64
	for _, pr := range probs {
		s += SquaredError(quantile(pEst, lo, hi, pr), quantile(pTrue, lo, hi, pr))
	}
	return s / float64(len(probs))
}

// Deciles returns a new slice holding the levels 0.1, 0.2, …, 0.9.
func Deciles() []float64 {
	return []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}
}
