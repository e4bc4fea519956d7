// Package compare sets the measured results of a run beside what a paper
// states: a spec's [[claims]] (harness.Claim, plain data in the spec) name a
// metric, a method, the methods it is compared with and the paper's range of
// improvement; Evaluate computes the improvement in every matching cell from
// rows.csv, with a delta-method standard error (paired across trials where
// the kind pairs its methods), and Report writes claims.csv beside the rows.
// `ldpbench compare DIR` re-evaluates them without re-running anything.
//
// Regress tests every cell and metric of a run against the kind's exact
// theory and against a stored Baseline (`ldpbench regress`, baselines in
// baselines/<spec>.csv), in the manner of benchstat's comparison layer over
// x/perf's benchfmt records: the test is the dual of the summary's
// confidence interval (χ² for squared errors, t or t on the log of the
// mean), paired t where the baseline was drawn from the same seed, else F
// on a ratio of mean squared errors or Welch's t, and Holm's step-down
// correction holds the probability of any false alarm of a spec at its α.
package compare
