package mechanisms

import "math/rand/v2"

// Mechanism is an ε-LDP randomiser for one number.
type Mechanism interface {
	// Name is the registry name ("pm", "duchi", ...).
	Name() string
	// Epsilon is the privacy budget the mechanism was built with.
	Epsilon() float64
	// Domain is the closed input interval; [-1, 1] unless the paper says
	// otherwise (Square Wave takes [0, 1]).
	Domain() (lo, hi float64)
	// Perturb returns one report of x, which must lie in Domain(); an input
	// outside it gives an unspecified report. Perturb does not allocate.
	Perturb(x float64, rng *rand.Rand) float64
	// PerturbBatch writes a report of xs[i] to dst[i] for every i. It
	// returns an *InputError, before drawing anything, if an input is NaN
	// or outside Domain(), and it panics if len(dst) < len(xs). It does not
	// allocate.
	PerturbBatch(dst, xs []float64, rng *rand.Rand) error
}

// Variancer is implemented by mechanisms with a closed-form variance.
//
// The variance is that of the unbiased estimate of x: the report itself for
// unbiased mechanisms, the de-biased report for biased ones (see [Debiaser]).
type Variancer interface {
	// Variance returns Var[x̂ | x] for x in the domain.
	Variance(x float64) float64
	// WorstCaseVariance returns max over the domain of Variance, computed
	// exactly (closed form or a proven maximiser), never by a grid search.
	WorstCaseVariance() float64
}

// Discrete is implemented by mechanisms with a finite output alphabet.
type Discrete interface {
	// Outputs returns the output alphabet in increasing order. The slice
	// belongs to the mechanism; do not modify it.
	Outputs() []float64
	// Probabilities writes Pr[Y = Outputs()[i] | x] to dst[i].
	Probabilities(x float64, dst []float64)
}

// Continuous is implemented by mechanisms whose report has a density.
type Continuous interface {
	// OutputRange is the support of the report; it may be infinite.
	OutputRange() (lo, hi float64)
	// Density returns the density of the report at y given input x.
	Density(y, x float64) float64
	// CDF returns Pr[Y ≤ y | x].
	CDF(y, x float64) float64
	// BucketGivenBin returns Pr[ylo < Y ≤ yhi] for an input drawn uniformly
	// from [xlo, xhi], computed exactly (xlo == xhi gives the value at that
	// input). These are the entries of the transition matrix used by
	// EM-type estimators.
	BucketGivenBin(ylo, yhi, xlo, xhi float64) float64
}

// Debiaser is implemented by biased mechanisms whose expected report is an
// affine function of the input.
type Debiaser interface {
	// Debias maps a report to an unbiased estimate of the input.
	Debias(y float64) float64
}
