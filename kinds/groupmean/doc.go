// Package groupmean holds kind groupmean: the mean of every group when both
// a user's group and value are private (Raab et al., "Estimating Group Means
// Under Local Differential Privacy", PoPETs 2025).
//
//	kind       type  serves
//	groupmean  Kind  E1 Figs 1, 2, 7, 8 (runs/groupmean-e1.toml: NPRR's k);
//	                 E2 Tables 3–5, 8–10 (groupmean-e2.toml: Piecewise split);
//	                 E3 Figs 3, 4, 9, 10 (groupmean-e3.toml: the methods and
//	                 input ranges); E4 Figs 5, 11 (groupmean-e4.toml:
//	                 imbalance); the real-data panels on stand-ins and UCI
//	                 data (groupmean-real.toml)
//
// Each user reports (g′, v′) through a group mechanism of package
// mechanisms/group (Algorithm 3: the group by GRR at ε1, the value, or the
// neutral 0 when the group was changed, by a value mechanism at ε2); the
// collector estimates n̂_g, ŝ_g and m̂_g (package estimators; Section 4 of
// the paper), as printed, with no guard, or in a named robust mode
// (params.mode).
//
// Methods (described once in Methods: ldpbench list kinds -v,
// docs/kinds.md): laplace, bernoulli, nprr, pw and value:<name>. Options go
// inline in the method name ("nprr(k=16)", "pw(split=ratio:0.3)") or on the
// params axis for every method.
//
// Data: synthetic grouped datasets (source = "group-uniform", "group-normal",
// "group-constant", "group-extremum", with lo and hi) are drawn per cell
// with n users per group, params.groups groups and params.imbalance, once
// per configuration from the master seed (only the mechanism varies over
// the runs, the paper's protocol); a dataset with a group column (a UCI file
// with group_column, a MIMIC-IV stand-in) gives its own groups, and a cell
// uses its first n rows. Values are mapped onto [−1, 1] with the dataset's
// fixed range (App. C); the truth is the raw data's group means.
//
// Metrics (package metrics describes each): scaled_abs_error (the mean over
// the groups, or over params.group alone, of |m̂_g − m_g|/(hi − lo)),
// scaled_abs_error_sq (its companion mean of squares, for the SD over runs ×
// groups that the paper's bands and Tables 8–10 show), group_error_ratio,
// order_correct and mean_diff (groups 0 and 1), group_mean (params.group).
// Theory: 1 − a for the group error ratio, exact; the delta method
// (derived; the paper has none) for the errors where every group's
// CV(n̂_g) ≤ 0.15, and none beyond, where the ratio estimator's tails make
// it wrong (E2.13). docs/groupmeans.md has the paper's numbers beside ours.
package groupmean
