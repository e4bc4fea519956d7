package mechanisms

// Helpers for exact bucket-given-bin probabilities of mechanisms whose
// density is piecewise constant in y with breakpoints that move linearly
// with x (the piecewise family, Square Wave).
//
// For such a mechanism Pr[ylo < Y ≤ yhi | x] is a weighted sum of lengths
// |[ylo, yhi] ∩ [a(x), b(x)]| with a, b affine in x, so it is continuous and
// piecewise linear in x, with kinks only where a breakpoint crosses ylo or
// yhi. Averaging it over an input bin is then exact with the trapezoid rule
// on each linear piece.

// overlap returns the length of [a, b] ∩ [c, d] (0 if they are disjoint).
func overlap(a, b, c, d float64) float64 {
	lo, hi := max(a, c), min(b, d)
	if hi > lo {
		return hi - lo
	}
	return 0
}

// windowOverlap returns the length of [lo, hi] ∩ [c-h, c+h], h ≥ 0, as
// 2h minus the parts of the window outside [lo, hi], so that a window
// inside the bucket counts exactly 2h even when h is far below the spacing
// of floats near c (Square Wave at large ε: [s-b, s+b] rounds to a point).
// lo may be -Inf and hi +Inf.
func windowOverlap(lo, hi, c, h float64) float64 {
	v := 2*h - max(0, lo-(c-h)) - max(0, (c+h)-hi)
	return min(max(v, 0), hi-lo)
}

// avgPiecewiseLinear returns (1/(hi-lo))∫_lo^hi f for f continuous on
// [lo, hi] and linear between consecutive kinks; kinks outside (lo, hi) are
// ignored and their order does not matter. lo == hi gives f(lo).
func avgPiecewiseLinear(f func(float64) float64, lo, hi float64, kinks [4]float64) float64 {
	if lo == hi {
		return f(lo)
	}
	// Insertion sort of four values; no allocation.
	for i := 1; i < len(kinks); i++ {
		for j := i; j > 0 && kinks[j] < kinks[j-1]; j-- {
			kinks[j], kinks[j-1] = kinks[j-1], kinks[j]
		}
	}
	sum := 0.0
	a, fa := lo, f(lo)
	for _, k := range kinks {
		if !(k > a && k < hi) { // also skips NaN and ±Inf
			continue
		}
		fk := f(k)
		sum += (fa + fk) / 2 * (k - a)
		a, fa = k, fk
	}
	fb := f(hi)
	sum += (fa + fb) / 2 * (hi - a)
	return sum / (hi - lo)
}
