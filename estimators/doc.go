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
// Raab et al., "Estimating Group Means Under Local Differential Privacy"
// (PoPETs 2025): each user sends its group through GRR and its value, or
// the neutral 0 when the group moved, through a value mechanism.
//
//   - The aggregator: GroupCounts (n̂_g by GRR inversion), GroupSums (ŝ_g),
//     GroupMeans and GroupMean (m̂_g = ŝ_g/n̂_g in original units, unguarded
//     as printed or in the named GroupRobust mode, E2.13), and the App. C
//     transforms GroupToUnit, GroupMeanFromUnit, GroupSumFromUnit. They take
//     a tally's plain counts and sums and write into caller slices.
//   - The theory (our derivation; the paper has none): GroupTheory gives the
//     exact Var(n̂_g), Var(ŝ_g) and Cov(ŝ_g, n̂_g), the delta-method variance,
//     bias and expected scaled absolute error of m̂_g, valid where CVCount
//     is small, and the group error ratio 1 − a.
//
// The EM loop and its E-step kernels (bucketing and deduplication, the
// dense reference route, the fast route's pair, grid, grouped and compiled
// kernels with their AVX2 assembly) are in the internal package
// estimators/internal/emkernel; this package checks the inputs and the
// options and documents them.
//
// It may import mechanisms; it never imports the harness or the kinds.
package estimators
