// Package audit measures the privacy loss of a mechanism from its
// behaviour — the output law it exposes, or its reports alone — and
// compares it with the ε the mechanism claims, never with its own ε
// formula.
//
// Three methods, each named in every result:
//
//   - exact ([AuditLaw] for a [mechanisms.Discrete], [AuditJointLaw] for a
//     [JointDiscrete] group mechanism over (g, v)): every output's
//     probability at every input of a fine grid (1001 points with both
//     endpoints and 0; every group), refined around each extremum to
//     1/1024 of a grid step. The audited ε is
//     max over outputs of ln(max_x P[y|x] / min_x P[y|x]).
//   - density (a [mechanisms.Continuous], with its [mechanisms.Atoms]; a
//     [JointContinuous]): the densities on an output grid that holds the
//     midpoints of 4000 cells and every breakpoint the mechanism exposes
//     ± 1e-9 of the window, the point masses as a discrete law, and the
//     probabilities of 400 buckets at point inputs. Each ratio is a lower
//     bound on the loss; for piecewise-constant densities (constant on
//     windows whose worst pair, the domain's endpoints, is far apart) and
//     for Laplace (ratio constant beyond the domain) the largest equals
//     it, which the tests confirm to 1e-13 for every registered mechanism.
//     A ratio still rising at the edge of the output window is reported:
//     the loss then grows with the window (Juarez–Korolova's two-scale
//     Laplace, p2 Prop. 2).
//   - montecarlo ([MonteCarlo], [MonteCarloJoint]): reports at two inputs
//     from Perturb alone, events chosen on a separate pilot, one-sided
//     Clopper–Pearson bounds with a Bonferroni correction over the events
//     (as StatDP and LDP-Auditor). The result is a lower bound that holds
//     with probability 1 - alpha: it can prove a violation, never privacy.
//
// A mechanism passes when its audited ε ≤ claimed·(1 + 1e-9) ([RelTol]).
// [Targets] turns names into [Target]s (a registered mechanism at each ε;
// "group-<method>" in each configuration of [GroupTargets]), and [Run]
// audits them in parallel; [WriteCSVFile] and
// [WriteFigure] write the report (the CSV atomically), [Summary] a
// human-readable digest, and [Unexpected] the violations not documented
// as a known erratum (for CI).
//
// The auditor finds on its own that the p2 paper's Group NPRR spends
// ε + ln((e^ε + k)/(k + 1)) instead of ε for k ≥ 2 (ERRATA E2.1), and
// catches the deliberately broken mechanisms of the tests: PM run at 2ε
// while claiming ε, the N-output authors' knots (E0.1: negative
// probabilities, so no ε holds), and Juarez–Korolova's neutral-value
// Laplace of scale k/ε2 (unbounded for k ≠ 2).
//
// Group mechanisms are audited through the small [Joint],
// [JointDiscrete] and [JointContinuous] interfaces, which package
// mechanisms/group's mechanisms satisfy; ClaimedEpsilon is what they are
// held to, and a TrueEpsilon they state is printed beside the audit as a
// cross-check, never used for a verdict.
package audit
