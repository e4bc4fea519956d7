// Package estimators is the collector's side of the benchmark: what a
// collector computes from the reports it receives, and the exact theory of
// each estimator's error where there is one.
//
// The mean of one mechanism's reports, for the mean experiments of every
// paper's mechanisms (the shared baselines, Zhao et al.'s LDP-FL
// mechanisms, Baek and Chung's N-output mechanism):
//
//   - MeanOfReports simulates one report per user and averages them;
//   - ExpectedMeanMSE is the exact expected squared error of that average.
//
// Du et al., "Privacy for Free" (VLDB 2025): m services each hold one
// report per user, linked by user (reports[j][i], NaN where user i did not
// report to service j).
//
//   - The mean: UA, the average of the de-biased reports (Unbiaser),
//     with its exact error UAExpectedMSE; ServiceMean and
//     ServiceExpectedMSE, one service alone; UWA (NewUWA), the average
//     weighted by a per-user posterior (NewPosterior), and OracleUWA, its
//     diagnostic with the true inputs; UserGroup describes subset
//     collections; TrueMean is the mean of the inputs, compensated, the
//     truth the errors are measured against.
//   - The distribution: a Service (NewService, NewServices) is a
//     mechanism's transition matrix; ULE runs EM on the users' linked
//     reports, EMS and EMSHistogram on one service's reports alone (the
//     baseline), configured by EMOptions and described by EMInfo. They
//     take a context.Context first, checked once per EM iteration.
//
// The EM loop and its E-step kernels (bucketing and deduplication, the
// dense reference route, the fast route's pair, grid, grouped and compiled
// kernels with their AVX2 assembly) are in the internal package
// estimators/internal/emkernel; this package checks the inputs and the
// options and documents them.
//
// It may import mechanisms; it never imports the harness or the kinds.
package estimators
