// Package binomial draws Binomial(n, p) variates exactly and without
// allocating, for the simulators that replace n Bernoulli trials by one
// count: mechanisms.OUE's support counts and mechanisms/group's tallies.
//
// [Sample] takes the success probability p together with its complement
// pc = 1 − p, computed accurately by the caller (for GRR's keep
// probability a, 1 − a is (d − 1)q; for OUE's q = e^{−ε}/(1 + e^{−ε}),
// 1 − q is 1/(1 + e^{−ε})), so that whichever of the two is small keeps
// its relative accuracy when the other is near 1.
//
// Why not gonum's distuv.Binomial, which mechanisms.OUE used before: it
// evaluates its acceptance ratios with a Stirling series cut after one
// term and, for n ≥ 25 below n·p = 1, a Padé approximant of log(1 + x),
// so its law is binomial only to within those truncations; and it takes
// about 5 words a draw where Sample takes 2.3 (BTRS) or 1 (inversion), at
// 5–6 times Sample's time on OUE's shapes (BenchmarkGonum against
// BenchmarkSample; below n·p = 1 it is the faster, Sample's inversion
// paying an exp and a log1p a draw). Computed exactly from its code (its proposal law times
// its acceptance probability, for every k), its n·p < 1 branch is within
// 6.8·10⁻⁷ of the binomial in total variation at worst (n = 25, p just
// below 1/25), a χ² noncentrality of 3.3·10⁻¹¹ per draw: some 10¹² draws
// would be needed to see it, so no test of feasible size can; its
// Cauchy-proposal branch (n·p ≥ 1) is exact, its acceptance ratio staying
// below 0.98 under the bound 1. It builds a rand.Rand per call, but the
// compiler keeps it on the stack: neither sampler allocates. Sample's law
// departs from the binomial by floating-point rounding only, and it is
// the one sampler the simulators share.
package binomial
