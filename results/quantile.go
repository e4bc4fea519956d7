package results

import (
	"math"
	"slices"
)

// Quantile returns the p-quantile (0 ≤ p ≤ 1) of sorted, ascending values
// by linear interpolation between order statistics: Hyndman and Fan's type
// 7, numpy.quantile's default method ("linear") and R's default. With n
// values, h = (n−1)·p and the quantile is x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] −
// x[⌊h⌋]), so p = 0 and 1 give the minimum and maximum, and one value is
// every quantile. NaN for no values. The interpolation is numpy's: from
// the lower value below the middle of the gap and from the upper one
// above it, so that it is exact at both ends.
func Quantile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 || math.IsNaN(p) || p < 0 || p > 1 {
		return math.NaN()
	}
	h := float64(n-1) * p
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return sorted[n-1]
	}
	a, b, t := sorted[lo], sorted[lo+1], h-float64(lo)
	if t == 0 || a == b { // also ±Inf at both, where b − a is NaN
		return a
	}
	if t < 0.5 {
		return a + (b-a)*t
	}
	return b - (b-a)*(1-t)
}

// quartiles returns the minimum, quartiles, median and maximum of xs
// (type 7, Quantile), all NaN when xs is empty or holds a NaN (whose
// place in the order is undefined; the mean is NaN too).
func quartiles(xs []float64) (min, q25, median, q75, max Float) {
	if len(xs) == 0 || slices.ContainsFunc(xs, math.IsNaN) {
		nan := Float(math.NaN())
		return nan, nan, nan, nan, nan
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	q := func(p float64) Float { return Float(Quantile(s, p)) }
	return Float(s[0]), q(0.25), q(0.5), q(0.75), Float(s[len(s)-1])
}

// tukey returns the ends of a Tukey box plot's whiskers and the values
// beyond them, given the quartiles q25 and q75 of xs: the fences are
// q25 − 1.5·IQR and q75 + 1.5·IQR (IQR = q75 − q25); the low whisker ends
// at the least value at or above the low fence and the high whisker at
// the greatest value at or below the high fence, each at its quartile
// instead when that value would fall inside the box (a type-7 quartile
// interpolates between order statistics, so no value need lie between it
// and its fence: matplotlib's rule); the outliers are the values beyond
// the fences, ascending. All unknown (NaN, nil) when the quartiles are.
func tukey(xs []float64, q25, q75 Float) (lo, hi Float, outliers Floats) {
	if !q25.Known() || !q75.Known() {
		nan := Float(math.NaN())
		return nan, nan, nil
	}
	a, b := float64(q25), float64(q75)
	iqr := b - a
	if math.IsNaN(iqr) { // both quartiles the same infinity
		iqr = 0
	}
	loFence, hiFence := a-1.5*iqr, b+1.5*iqr
	wlo, whi := a, b
	for _, x := range xs {
		switch {
		case x < loFence || x > hiFence:
			outliers = append(outliers, x)
		case x < wlo:
			wlo = x
		case x > whi:
			whi = x
		}
	}
	slices.Sort(outliers)
	return Float(wlo), Float(whi), outliers
}
