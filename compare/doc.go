// Package compare sets the measured results of a run beside what a paper
// states: a spec's [[claims]] (harness.Claim, plain data in the spec) name a
// metric, a method, the methods it is compared with and the paper's range of
// improvement; Evaluate computes the improvement in every matching cell from
// rows.csv, with a delta-method standard error (paired across trials where
// the kind pairs its methods), and Report writes claims.csv beside the rows.
// `ldpbench compare DIR` re-evaluates them without re-running anything.
//
// Regression of error curves against theory and stored baselines (`ldpbench
// regress`) is to live here too, in the manner of benchstat's comparison
// layer over x/perf's benchfmt records.
package compare
