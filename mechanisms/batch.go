package mechanisms

// LawBatcher is implemented by mechanisms for which one call that answers
// many questions about their law costs much less than one call per
// question: an external program's (package external), where each call is a
// request over a pipe. Code that evaluates a law on a grid (the audit's
// exact scan) uses it when it is there; its answers are those of
// Density and BucketGivenBin, point by point.
type LawBatcher interface {
	// DensitiesAt writes the density at ys[i] given x to dst[i].
	DensitiesAt(dst, ys []float64, x float64) error
	// BucketsAt writes Pr[edges[i] < Y ≤ edges[i+1]] for an input
	// uniform on [xlo, xhi] to dst[i], for the len(edges)-1 buckets.
	BucketsAt(dst, edges []float64, xlo, xhi float64) error
}
