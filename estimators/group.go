package estimators

import (
	"fmt"
	"math"
)

// The collector's side of the group method of Raab et al., "Estimating
// Group Means Under Local Differential Privacy" (PoPETs 2025): every user
// sends (g′, v′), the group through GRR at ε1 and the value (replaced by the
// neutral 0 when g′ ≠ g) through a value mechanism at ε2 with E[v′ | u] = c·u
// (Algorithm 3). The collector keeps, per reported group, the raw count
// C_g = #{g′ = g} and the raw sum Σ v′ over those reports, and turns them
// into counts, sums and means with the three functions below (the paper's
// estimators of Section 4: Defs 4–8, App. C). The functions take plain
// numbers, so that they serve any tally, and write into caller slices:
// nothing is allocated.

// GroupMode selects how [GroupMean] turns an estimated count and sum into a
// mean.
type GroupMode int

const (
	// GroupAsPrinted is the paper's ratio m̂_g = ŝ_g/n̂_g with no guard: a
	// count estimate near 0 or negative gives an arbitrarily large mean,
	// outside [lo, hi] and of either sign, and n̂_g = 0 with ŝ_g ≠ 0 gives
	// ±Inf. This is what Tables 3–5 and 8–10 measure (E2.13); use it to
	// reproduce them.
	GroupAsPrinted GroupMode = iota
	// GroupRobust floors the count at one user, n̂_g ← max(n̂_g, 1), and
	// clips the mean to [lo, hi] (E2.13's named robust mode): the error is
	// then at most hi − lo, at the price of a bias towards the range.
	GroupRobust
)

// String returns the mode's name as a spec writes it: "as-printed" or
// "robust".
func (m GroupMode) String() string {
	switch m {
	case GroupAsPrinted:
		return "as-printed"
	case GroupRobust:
		return "robust"
	}
	return fmt.Sprintf("GroupMode(%d)", int(m))
}

// ParseGroupMode is the inverse of [GroupMode.String].
func ParseGroupMode(s string) (GroupMode, error) {
	switch s {
	case "as-printed":
		return GroupAsPrinted, nil
	case "robust":
		return GroupRobust, nil
	}
	return 0, fmt.Errorf("group mode %q: must be \"as-printed\" or \"robust\"", s)
}

// GroupCounts writes the estimated group sizes into dst:
//
//	n̂_g = (C_g − n·q)/(a − q)
//
// (Definition 4, eq. (5)), from the raw counts C_g = #{reports with g′ = g},
// the number of reports n = Σ_g C_g, and GRR's probabilities at ε1 of
// keeping the group, a = e^{ε1}/(e^{ε1} + d − 1), and of reporting one given
// other group, q = 1/(e^{ε1} + d − 1). E[C_g] = n_g·a + (n − n_g)·q =
// n_g·(a − q) + n·q, so the estimate is unbiased; it is subtracted n·q, not
// (n − n_g)·q, because the collector does not know n_g. It can be negative
// and is not guarded (E2.13).
//
// It panics unless len(dst) == len(counts) and 0 ≤ q < a ≤ 1.
func GroupCounts(dst, counts []float64, n int, a, q float64) {
	groupCheckLen("GroupCounts", "counts", len(dst), len(counts))
	groupCheckGRR("GroupCounts", a, q)
	nq := float64(n) * q
	for g, c := range counts {
		dst[g] = (c - nq) / (a - q)
	}
}

// GroupSums writes the estimated group sums, on the [−1, 1] scale, into dst:
//
//	ŝ_g = Sum_g/(a·c)
//
// from the raw sums Sum_g = Σ v′ over the reports with g′ = g (Definitions
// 5–8, eqs (6)–(9)). A user of g reports g with probability a and then sends
// an unbiased-up-to-c report of v (mean a·c·v); a user of another group
// reports g with probability q and then sends the neutral value, whose
// report has mean c·0 = 0 for all four methods. So E[Sum_g] = a·c·s_g.
// c is 1 for Laplace and Piecewise, (e^{ε2} − 1)/(e^{ε2} + 1) for
// Bernoulli, (e^{ε2} − 1)/(e^{ε2} + k) for NPRR.
//
// It panics unless len(dst) == len(sums), 0 < a ≤ 1 and c > 0 is finite.
func GroupSums(dst, sums []float64, a, c float64) {
	groupCheckLen("GroupSums", "sums", len(dst), len(sums))
	if !(a > 0 && a <= 1) {
		panic(fmt.Sprintf("estimators: GroupSums: a = %v: must be in (0, 1]", a))
	}
	if !(c > 0) || math.IsInf(c, 1) {
		panic(fmt.Sprintf("estimators: GroupSums: c = %v: must be finite and > 0", c))
	}
	for g, s := range sums {
		dst[g] = s / (a * c)
	}
}

// GroupMean returns one group's mean in original units from its raw count
// C_g, its estimated count n̂_g and its estimated sum ŝ_g on the [−1, 1]
// scale (App. C):
//
//	m̂_g = (hi − lo)/2 · ŝ_g/n̂_g + (hi + lo)/2
//
// with mode's treatment of n̂_g (see [GroupMode]). When no report names the
// group (C_g = 0) the mean is the midpoint (hi + lo)/2 in both modes: the
// authors' code sets the sum to 0 there (E2.16). Without this rule the
// as-printed ratio would give the midpoint anyway (ŝ_g = 0 and
// n̂_g = −n·q/(a − q) < 0), except in the degenerate case n̂_g = 0, where
// 0/0 would be NaN.
//
// The mean is a ratio estimator: biased and, when the coefficient of
// variation of n̂_g is not small, heavy-tailed (E2.13; see
// [GroupTheory.BiasMean] and [GroupTheory.CVCount]).
func GroupMean(count, nHat, sHat, lo, hi float64, mode GroupMode) float64 {
	mid := (hi + lo) / 2
	if count == 0 {
		return mid
	}
	if mode == GroupRobust {
		nHat = max(nHat, 1)
	}
	m := (hi-lo)/2*(sHat/nHat) + mid
	if mode == GroupRobust {
		m = min(max(m, lo), hi)
	}
	return m
}

// GroupMeans writes [GroupMean] of every group into dst, from the raw counts
// (only their zeros are used) and the outputs of [GroupCounts] and
// [GroupSums].
//
// It panics unless the four slices have the same length, lo < hi are
// finite and mode is GroupAsPrinted or GroupRobust.
func GroupMeans(dst, counts, nHat, sHat []float64, lo, hi float64, mode GroupMode) {
	groupCheckLen("GroupMeans", "counts", len(dst), len(counts))
	groupCheckLen("GroupMeans", "nHat", len(dst), len(nHat))
	groupCheckLen("GroupMeans", "sHat", len(dst), len(sHat))
	groupCheckRange("GroupMeans", lo, hi)
	if mode != GroupAsPrinted && mode != GroupRobust {
		panic(fmt.Sprintf("estimators: GroupMeans: mode = %v: must be GroupAsPrinted or GroupRobust", mode))
	}
	for g := range dst {
		dst[g] = GroupMean(counts[g], nHat[g], sHat[g], lo, hi, mode)
	}
}

// GroupToUnit maps a raw value onto the mechanisms' [−1, 1] scale, clipping
// it to [lo, hi] first (App. C; the authors' client clips):
//
//	T(x) = 2(x − lo)/(hi − lo) − 1.
//
// It is, bit for bit, datasets.Fixed(lo, hi, true).Apply(x) for lo, hi ≠
// −1, 1. lo < hi is the caller's to ensure; NaN stays NaN.
func GroupToUnit(x, lo, hi float64) float64 {
	x = max(lo, min(hi, x))
	return 2*(x-lo)/(hi-lo) - 1
}

// GroupMeanFromUnit maps a mean m on the [−1, 1] scale back to original
// units: (hi − lo)/2 · m + (hi + lo)/2, the inverse of T for means (App. C).
// No clipping: an estimate outside [−1, 1] stays outside [lo, hi].
func GroupMeanFromUnit(m, lo, hi float64) float64 {
	return (hi-lo)/2*m + (hi+lo)/2
}

// GroupSumFromUnit maps an estimated sum ŝ on the [−1, 1] scale of a group
// of estimated size n̂ back to original units:
//
//	T̄(ŝ) = (hi − lo)/2 · ŝ + n̂·(hi + lo)/2
//
// (App. C): the inverse of T summed over n̂ users.
func GroupSumFromUnit(s, nHat, lo, hi float64) float64 {
	return (hi-lo)/2*s + nHat*(hi+lo)/2
}

func groupCheckLen(fn, name string, nDst, n int) {
	if nDst != n {
		panic(fmt.Sprintf("estimators: %s: len(%s) = %d, len(dst) = %d: must be equal", fn, name, n, nDst))
	}
}

func groupCheckGRR(fn string, a, q float64) {
	if !(q >= 0 && q < a && a <= 1) {
		panic(fmt.Sprintf("estimators: %s: a = %v, q = %v: need 0 ≤ q < a ≤ 1", fn, a, q))
	}
}

func groupCheckRange(fn string, lo, hi float64) {
	if !(lo < hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		panic(fmt.Sprintf("estimators: %s: lo = %v, hi = %v: need finite lo < hi", fn, lo, hi))
	}
}
