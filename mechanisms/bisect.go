package mechanisms

// bisectAdjacent narrows the bracket [lo, hi] by bisection until no
// float64 lies strictly between its ends, and returns the ends. below(x)
// reports whether x lies on lo's side of the point sought (a root, or
// where a condition starts to hold): the midpoint then replaces lo, and
// otherwise hi. So below(x) = g(x) < 0 finds where an increasing g
// crosses 0, with g < 0 at the returned lo and g ≥ 0 at hi.
//
// Its callers want the point exact to rounding, not to a tolerance: a
// threshold or parameter that is a few ulps off shows (in HM-NP's worst
// case, or in a comparison against a printed constant), and a tolerance
// would have to suit every magnitude. They choose between the two ends
// themselves (the one with the smaller residual, or the midpoint).
//
// below is called only strictly inside the initial bracket, never at lo or
// hi, so a caller checks the ends itself; a caller that needs the values
// behind the last calls keeps them in below, knowing that a call at x that
// returns true makes x the new lo and one that returns false the new hi.
//
// lo < hi and hi - lo must be finite. The midpoint is lo + (hi-lo)/2; for
// such a bracket it is strictly inside whenever a float64 is, so the ends
// returned are adjacent: hi = math.Nextafter(lo, +Inf). Every step puts an
// end strictly inside, so the loop ends; the width halves, so a bracket
// within [-2, 2] takes at most about 1080 steps (down to the subnormals),
// and one within a binade about 53.
func bisectAdjacent(lo, hi float64, below func(float64) bool) (float64, float64) {
	for {
		mid := lo + (hi-lo)/2
		if !(mid > lo && mid < hi) {
			return lo, hi
		}
		if below(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
}
