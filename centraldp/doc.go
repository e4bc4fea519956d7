// Package centraldp holds central differential privacy for the mean of a
// dataset under the add-remove neighbour relation (Kulesza, Suresh and
// Wang, "Mean estimation in the add-remove model of differential privacy",
// ICML 2024; docs/ and the p1 errata E1.x).
//
// A trusted curator holds the whole dataset and releases one noisy mean;
// the size |D| is itself private. This is not a per-user randomiser, so the
// package does not import mechanisms: its noise is added once to the
// dataset's (sum, count) pair.
//
// Noise primitives: [Laplace], [TwoSidedGeometric], the univariate
// staircase ([Staircase], Geng–Viswanath) with its MSE-optimal step
// [GammaStar], the two-dimensional ℓ1 staircase ([Staircase2D], Geng et
// al. 2015) with its numerically optimal step [Staircase2DGamma], and the
// paper's hourglass ([Hourglass]) whose marginals are staircases. Every
// sampler takes a math/rand/v2 generator as its only randomness and does
// not allocate.
//
// Estimators ([NewEstimator], names in [EstimatorNames]) see a dataset only
// through its size n and its sum (of values the caller has clamped to the
// data range [l, u]), so one release costs O(1). [LeadingConstant] and
// [LowerBound] give the leading-order theory, in the paper's normalisation
// n²ε²·MSE/(2w²) (w = u − l), that the experiment kind draws beside the
// measurement.
//
// Where the paper prints a formula wrongly the code implements the
// corrected one and cites the erratum id (E1.1, E1.2, ...).
package centraldp
