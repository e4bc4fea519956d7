// Package group holds the group mechanisms of Raab et al., "Estimating
// Group Means Under Local Differential Privacy" (PoPETs 2025): each user
// holds a group g in {0, …, d-1} and a value v in [-1, 1], both private,
// and reports (g′, v′) by Algorithm 3:
//
//	g′ ← GRR(g, d, ε1)
//	if g′ ≠ g: v ← 0 (the neutral value)
//	v′ ← M(v, ε2)
//
// with M one of Laplace, Bernoulli (Algorithm 1), simplified NPRR
// (Algorithm 2) or Piecewise (PM), or any registered unbiased mechanism
// ("value"). The neutral value is never sent as it is: it goes through M.
// The aggregator counts C_g = #{g′ = g} and sums the v′ of the users who
// report g ([Tally]); n̂_g = (C_g - n·q)/(a - q) and ŝ_g = Σv′/(a·c) are
// unbiased, with a, q the GRR constants at ε1 ([Mechanism.Keep]) and c the
// value mechanism's slope ([Mechanism.Scale]). Package estimators computes
// them, and the means.
//
// # Budgets
//
// [New] splits the target ε as the paper does (Theorems 1–3,
// Proposition 6): Laplace ε1 = ε/2, ε2 = ε; Bernoulli ε2 = ε,
// ε1 = ln((e^ε+1)/2); NPRR ε2 = ε, ε1 = ln((e^ε+k)/(k+1)); Piecewise
// ε1 + ε2 = ε by a split (half by default); value ε1 = r·ε, ε2 = (1-r)·ε.
// [Mechanism.ClaimedEpsilon] is the paper's theorem at (ε1, ε2), ε for
// every method; [Mechanism.TrueEpsilon] is the real worst case, proved in
// the comment of epsilons and confirmed by exact enumeration in the tests.
//
// Erratum E2.1: Group NPRR as published (neutral = nprr0: the neutral 0
// goes through NPRR) is not ε-LDP for k ≥ 2. A user whose group changed
// reports NPRR(0), which puts only q2 = 1/(e^{ε2}+k) on the grid value +1,
// while a user of the reported group with v = 1 puts e^{ε2}/(e^{ε2}+k) on
// it: the ratio [a·e^{ε2}/(e^{ε2}+k)]/[q/(e^{ε2}+k)] = e^{ε1+ε2}, so the
// true level is ε + ln((e^ε+k)/(k+1)) at the paper's allocation, not ε.
// k = 1 (Group Bernoulli) is unaffected, as NPRR(0) is then uniform on ±1.
// The fix, neutral = uniform-grid, reports a uniform grid value instead:
// its mean is 0, so the estimator is unchanged, and Theorem 3's bound then
// holds.
// Reproductions of the paper use nprr0 and report both levels.
//
// The Juarez–Korolova variant that perturbs the neutral value with another
// Laplace scale (Prop. 2) is not LDP and is deliberately not implemented.
//
// # Simulate: exact and cheap
//
// [Mechanism.Simulate] produces the tally of n users with exactly the law
// of the tally of n independent [Mechanism.Perturb] calls, at the cost of
// about one uniform draw per user: the paper's grids make some 2·10^11
// reports. The argument is the same for every method: the tally depends on
// the users only through counts of users in a few classes (group, grid
// index, kept or moved, destination), and each class's count is a sum of
// independent Bernoulli trials with a common probability, so it can be
// drawn as one binomial (or a multinomial, as conditional binomials)
// instead of trial by trial. What differs from user to user is drawn per
// user:
//
//   - Bernoulli and NPRR: the stochastic rounding of v (its probability θ
//     depends on v); the group's GRR, the index's GRR (which keeps an index
//     with probability c = p2 - q2 and otherwise draws one uniformly from
//     all k+1), the movers' destinations and the neutral reports are drawn
//     for the counts.
//   - Laplace: whether each user keeps the group, and the sum of the kept
//     users' values; the noise of the C_h reports at group h is a sum of
//     C_h i.i.d. Laplace(2/ε2) draws, which is (2/ε2)(G1 - G2) with
//     G1, G2 ~ Gamma(C_h, 1).
//   - Piecewise: one uniform per user decides keep or move and the PM
//     report (of v, or of the neutral 0 for a mover; rescaled uniforms, see
//     simulatePW); the movers' destinations are multinomial counts, and
//     each group's arrivals take the next of the movers' reports.
//   - value: a keep coin per user, the value report of a user who keeps
//     its group (a block's in one PerturbBatch), multinomial arrivals and
//     one neutral report per arrival (no aggregate law to draw from).
//
// The per-user coins of Bernoulli, NPRR and Laplace take half a 64-bit
// word each, with ties resolved by a fresh uniform, which makes them
// closer to their probability than a comparison with rng.Float64 (coin.go).
// The binomials are exact (inversion below n·p = 10, Hörmann's BTRS
// above), as is the Gamma sampler (Marsaglia and Tsang). The tests compare
// Simulate with the exact law of one report (n = 1, chi-square against
// [Mechanism.JointProbabilities], or buckets of [Mechanism.JointDensity])
// and its means, variances and covariances over many runs with the
// derived closed forms (the paper has none), for Simulate and for per-user
// Perturb alike.
//
// # Exact law
//
// For the ε auditor: [Mechanism.ValueOutputs] and
// [Mechanism.JointProbabilities] give the law of (g′, v′) when v′ is
// discrete, [Mechanism.JointDensity] its density when v′ is continuous.
package group
