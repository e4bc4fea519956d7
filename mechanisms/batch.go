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

// VarianceBatcher is implemented by mechanisms for which one call that
// answers the variance at many inputs costs much less than one call per
// input: an external program's (package external), where each call is a
// request over a pipe. Its answers are Variance's, input by input, bit for
// bit. Code that evaluates the variance at every user's value (the exact
// expected MSE of a mean) asks through [Variances], which uses it when it
// is there.
type VarianceBatcher interface {
	// VarianceBatch writes Var[Y | xs[i]] to dst[i].
	VarianceBatch(dst, xs []float64) error
}

// Variances writes v.Variance(xs[i]) to dst[i]: in one VarianceBatch call
// when v is a [VarianceBatcher], else input by input (which cannot fail).
// dst must hold len(xs) values.
func Variances(v Variancer, dst, xs []float64) error {
	dst = dst[:len(xs)]
	if b, ok := v.(VarianceBatcher); ok {
		return b.VarianceBatch(dst, xs)
	}
	for i, x := range xs {
		dst[i] = v.Variance(x)
	}
	return nil
}

// Failer is implemented by mechanisms whose Perturb can fail (an external
// program's, each report a request over a pipe): Perturb cannot return an
// error, so it returns NaN and Err says why. Code that draws reports one
// by one and can return an error (SampleKofD.PerturbVector) asks Err after
// drawing, so that a failed program is reported as itself, not as a NaN
// met later.
type Failer interface {
	Err() error
}

// Err reports the wrapped mechanism's failure ([Failer]), nil when it has
// none.
func (r *rescaled) Err() error {
	if f, ok := r.m.(Failer); ok {
		return f.Err()
	}
	return nil
}
