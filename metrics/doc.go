// Package metrics defines, once for the whole project, the error metrics that
// the harness records per trial and the statistics they are computed from.
//
// # Per-trial metrics and summaries
//
// Every function here returns the value of one metric for one trial. Means,
// spreads and confidence intervals over trials are formed later, by package
// results. Root-mean metrics are derived there and never averaged per trial:
//
//	MSE  = mean over trials of SquaredError(est, truth)
//	RMSE = sqrt(MSE)                      (not the mean of per-trial |errors|)
//
// The same holds for the variance and quantile errors: a trial records
// VarianceSquaredError or QuantileSquaredError (for quantiles, the squared
// error already averaged over the chosen levels, e.g. the nine deciles), and
// the RMSE is the square root of their mean over trials (ERRATA E0.3). The
// table Derived lists these derived names; RMSE gives the arithmetic.
//
// # Distribution metrics
//
// Distribution metrics compare two histograms over one common grid of equal
// bins. Inputs are non-negative weights (counts or probabilities) and are
// normalised internally by their sums, without allocation, so counts and
// probabilities give the same value.
//
//   - Wasserstein1 is the earth mover's distance on the data domain,
//     Σ_i |CDF_p(i) − CDF_q(i)|·Δ. It is NOT SciPy's wasserstein_distance
//     applied to the two probability vectors, which treats the bin heights as
//     sample values (ERRATA E0.2); that quantity is kept, for reproducing
//     published magnitudes only, as Wasserstein1Authors ("w1-authors").
//   - JSDivergence is ½KL(P‖M) + ½KL(Q‖M), M = (P+Q)/2, natural logarithm, in
//     [0, ln 2]; JSDistance is its square root, a metric. The authors of the
//     multi-service paper compute the divergence and print the distance
//     (ERRATA E4.1); metric names "js-div" and "js-dist" say which.
//   - KL is the Kullback–Leibler divergence, natural logarithm, +Inf when q
//     has no mass where p has.
//
// Histogram bins the data; HistogramVariance and HistogramQuantile compute
// statistics of a histogram on [lo, hi].
//
// # Invalid input
//
// Shape errors are programming errors and panic: histograms of different
// lengths where a common grid is required, and, in Histogram, bins ≤ 0,
// len(dst) ≠ bins or an invalid range. Invalid numerical input makes the
// metric NaN, so that a bad trial shows up in the rows rather than stopping a
// sweep: a NaN argument, a negative or NaN histogram entry, a histogram whose
// total is zero or not finite, a scale or bin width that is not positive and
// finite, a range with lo ≥ hi, a probability outside [0, 1].
//
// # Names
//
// Names lists the per-trial metric names the harness accepts and Describe
// gives a one-line description of each, so the command line and the
// experiment-spec validation share one list.
//
// No function in this package allocates, except Deciles (a fresh slice) and
// Wasserstein1Authors when it is given too little scratch space.
package metrics
