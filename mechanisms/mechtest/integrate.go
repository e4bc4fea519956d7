package mechtest

import "math"

// Integrate returns ∫_a^b f by adaptive Simpson quadrature: [a, b] is cut
// into panels equal panels, and each is bisected until the Simpson
// estimates of a piece and of its two halves differ by at most 15·tol (or
// by 1e-14 relative, the level of rounding), or to a depth of 50 (and at
// most 2^20 bisections in all).
//
// The tolerance is absolute per piece and not halved on bisection, so that
// jumps (piecewise constant densities) and kinks converge: a piece holding
// a jump of height J stops at a width of about 15·tol/J, and the total error
// is about tol times the number of pieces next to a jump or kink (a few
// hundred), while Simpson is exact on the constant and linear pieces. A
// feature narrower than a quarter of a panel can be missed.
func Integrate(f func(float64) float64, a, b float64, panels int, tol float64) float64 {
	if a == b {
		return 0
	}
	panels = max(panels, 1)
	h := (b - a) / float64(panels)
	sum := 0.0
	// A cap on the number of bisections, against an integrand that is
	// rough everywhere at the scale of tol (it bounds the cost, and the
	// result is then less accurate than tol).
	budget := 1 << 20
	for i := range panels {
		lo := a + float64(i)*h
		hi := a + float64(i+1)*h
		if i == panels-1 {
			hi = b
		}
		mid := (lo + hi) / 2
		flo, fmid, fhi := f(lo), f(mid), f(hi)
		whole := (hi - lo) / 6 * (flo + 4*fmid + fhi)
		sum += simpson(f, lo, hi, flo, fmid, fhi, whole, tol, 50, &budget)
	}
	return sum
}

func simpson(f func(float64) float64, a, b, fa, fm, fb, whole, tol float64, depth int, budget *int) float64 {
	m := (a + b) / 2
	lm, rm := (a+m)/2, (m+b)/2
	flm, frm := f(lm), f(rm)
	left := (m - a) / 6 * (fa + 4*flm + fm)
	right := (b - m) / 6 * (fm + 4*frm + fb)
	d := left + right - whole
	// Accept at tol, or when the two estimates agree to rounding (else a
	// tol below the rounding of the values would bisect to full depth
	// everywhere), or when the piece cannot be split further.
	if depth <= 0 || *budget <= 0 || math.Abs(d) <= 15*tol || math.Abs(d) <= 1e-14*(math.Abs(left)+math.Abs(right)) || !(lm > a && rm < b) {
		return left + right + d/15
	}
	*budget--
	return simpson(f, a, m, fa, flm, fm, left, tol, depth-1, budget) +
		simpson(f, m, b, fm, frm, fb, right, tol, depth-1, budget)
}
