package estimators

import (
	"fmt"
	"math"
)

// GroupTheory describes one group g of the group method (Algorithm 3 of
// Raab et al.) for the error theory of [GroupCounts], [GroupSums] and
// [GroupMean]. The paper proves unbiasedness and privacy only; the variances
// below are our derivation (delta method for the mean), checked against
// exact enumeration and simulation in group_theory_test.go.
//
// Values are on the mechanisms' [−1, 1] scale (after [GroupToUnit]).
// M2(u) = E[v′² | u] is the value mechanism's second moment at input u (at
// ε2), c its scale, E[v′ | u] = c·u:
//
//	Laplace    c = 1                     M2(u) = u² + 8/ε2²
//	Bernoulli  c = (e^ε2 − 1)/(e^ε2 + 1)  M2(u) = 1
//	Piecewise  c = 1                     M2(u) = u² + u²/(e^{ε2/2} − 1) + (e^{ε2/2} + 3)/(3(e^{ε2/2} − 1)²)
//	NPRR(k)    c = (e^ε2 − 1)/(e^ε2 + k)  M2(u) = S_k/(e^ε2 + k) + c·(u² + (4/k²)θ(1 − θ)),
//	           S_k = (k + 1)(k + 2)/(3k), θ = frac(k(u + 1)/2)
//
// M2Neutral is E[v′²] of a mover's report: M2(0) when the neutral value
// goes through the mechanism (all four methods as printed), (k + 2)/(3k)
// for NPRR's uniform-grid neutral (E2.1). Either way the mover's report has
// mean 0, which is all the covariance needs.
//
// # Derivation
//
// Let B_i = 1{g′_i = g} and Y_i = B_i·v′_i, so C_g = Σ_i B_i and
// Sum_g = Σ_i Y_i, the users independent. A user of g keeps its group,
// B_i = 1, with probability a, and then its input is v_i:
//
//	E[Y_i] = a·c·v_i,  E[Y_i²] = a·M2(v_i).
//
// A user of another group reaches g with probability q, and then the
// neutral input:
//
//	E[Y_i] = q·c·0 = 0,  E[Y_i²] = q·M2₀.
//
// Summing the independent users' variances,
//
//	Var(C_g)   = n_g·a(1 − a) + (n − n_g)·q(1 − q)
//	Var(Sum_g) = a·Σ_{i∈g} M2(v_i) − a²c²·Σ_{i∈g} v_i² + (n − n_g)·q·M2₀
//
// and since B_i² = B_i, Cov(Y_i, B_i) = E[Y_i] − E[Y_i]·E[B_i] =
// E[Y_i](1 − E[B_i]): a·c·v_i·(1 − a) for a user of g, 0 for the others, so
//
//	Cov(Sum_g, C_g) = a·c·(1 − a)·s_g.
//
// n̂_g = (C_g − n·q)/(a − q) and ŝ_g = Sum_g/(a·c) divide these by
// (a − q)², (a·c)² and (a·c)(a − q): [GroupTheory.VarCount],
// [GroupTheory.VarSum] and
//
//	Cov(ŝ_g, n̂_g) = (1 − a)·s_g/(a − q).
//
// The covariance is the same for all four methods (and both NPRR
// neutrals): it involves only first moments, the stayers' a·c·v_i, whose c
// cancels against the 1/(a·c) of ŝ_g, and the movers' 0; the mechanisms'
// second moments never enter it. It is positive for s_g > 0: a stayer
// raises C_g and adds its value; a user lost to another group lowers both.
type GroupTheory struct {
	N, NG     int     // n, all users; n_g, the users of group g (1 ≤ n_g ≤ n)
	A, Q      float64 // GRR at ε1: a = P[g′ = g | g], q = P[g′ = h | g] for each h ≠ g
	C         float64 // E[v′ | u] = C·u, the value mechanism at ε2
	S         float64 // s_g = Σ_{i∈g} v_i
	SumV2     float64 // Σ_{i∈g} v_i²
	SumM2     float64 // Σ_{i∈g} M2(v_i)
	M2Neutral float64 // M2₀, E[v′²] of a mover's report
}

// NewGroupTheory returns the theory of the group whose users hold values
// (on [−1, 1]), among n users in all, for GRR probabilities a, q, the value
// mechanism's scale c and second moment m2, and the movers' second moment
// m2Neutral. It returns [GroupTheory.Validate]'s error.
func NewGroupTheory(n int, a, q, c float64, values []float64, m2 func(u float64) float64, m2Neutral float64) (GroupTheory, error) {
	t := GroupTheory{N: n, NG: len(values), A: a, Q: q, C: c, M2Neutral: m2Neutral}
	for _, v := range values {
		t.S += v
		t.SumV2 += v * v
		t.SumM2 += m2(v)
	}
	return t, t.Validate()
}

// Validate returns an error naming the first field out of its domain:
// 1 ≤ NG ≤ N, 0 ≤ Q < A ≤ 1, C > 0 finite, |S| ≤ NG, SumV2, SumM2 and
// M2Neutral finite and ≥ 0. The methods assume a valid GroupTheory.
func (t GroupTheory) Validate() error {
	switch {
	case t.NG < 1 || t.NG > t.N:
		return fmt.Errorf("group theory: n_g = %d, n = %d: need 1 ≤ n_g ≤ n", t.NG, t.N)
	case !(t.Q >= 0 && t.Q < t.A && t.A <= 1):
		return fmt.Errorf("group theory: a = %v, q = %v: need 0 ≤ q < a ≤ 1", t.A, t.Q)
	case !(t.C > 0) || math.IsInf(t.C, 1):
		return fmt.Errorf("group theory: c = %v: must be finite and > 0", t.C)
	case !(math.Abs(t.S) <= float64(t.NG)*(1+1e-12)):
		return fmt.Errorf("group theory: s_g = %v: must be within ±n_g = %d (values on [−1, 1])", t.S, t.NG)
	case !(t.SumV2 >= 0) || math.IsInf(t.SumV2, 1):
		return fmt.Errorf("group theory: Σv² = %v: must be finite and ≥ 0", t.SumV2)
	case !(t.SumM2 >= 0) || math.IsInf(t.SumM2, 1):
		return fmt.Errorf("group theory: ΣM2 = %v: must be finite and ≥ 0", t.SumM2)
	case !(t.M2Neutral >= 0) || math.IsInf(t.M2Neutral, 1):
		return fmt.Errorf("group theory: M2₀ = %v: must be finite and ≥ 0", t.M2Neutral)
	}
	return nil
}

// Mean returns the true group mean m_g = s_g/n_g on [−1, 1].
func (t GroupTheory) Mean() float64 { return t.S / float64(t.NG) }

// VarCount returns the exact Var(n̂_g) = [n_g·a(1 − a) + (n − n_g)·q(1 − q)]/(a − q)².
func (t GroupTheory) VarCount() float64 {
	ng, out := float64(t.NG), float64(t.N-t.NG)
	k := t.A - t.Q
	return (ng*t.A*(1-t.A) + out*t.Q*(1-t.Q)) / (k * k)
}

// VarSum returns the exact Var(ŝ_g) =
// [a·ΣM2(v_i) − a²c²·Σv_i² + (n − n_g)·q·M2₀]/(a·c)².
func (t GroupTheory) VarSum() float64 {
	ac := t.A * t.C
	out := float64(t.N - t.NG)
	return (t.A*t.SumM2 - ac*ac*t.SumV2 + out*t.Q*t.M2Neutral) / (ac * ac)
}

// CovSumCount returns the exact Cov(ŝ_g, n̂_g) = (1 − a)·s_g/(a − q), the
// same for the four methods (see the derivation on [GroupTheory]).
func (t GroupTheory) CovSumCount() float64 {
	return (1 - t.A) * t.S / (t.A - t.Q)
}

// CVCount returns the coefficient of variation of the count estimate,
// √Var(n̂_g)/n_g, which says whether the delta-method figures below hold.
// Measured: at CV ≈ 0.015 they match simulation within its noise (0.7 %);
// the expected scaled absolute error, pooled over the four synthetic
// datasets with population moments, is within 0.97–1.03 of every cell of
// the paper's Tables 3 and 4 (Group Piecewise, d = 2 and 8) where the
// largest CV is ≤ 0.15, 0.65–0.96 of the cells with CV 0.16–0.35, and
// 3 to 50 times too small beyond: there n̂_g comes near 0 in a visible
// fraction of runs, the ratio m̂_g has heavy tails, and the delta method
// underestimates its error (E2.13).
func (t GroupTheory) CVCount() float64 {
	return math.Sqrt(t.VarCount()) / float64(t.NG)
}

// VarMean returns the delta-method variance of m̂_g = ŝ_g/n̂_g on [−1, 1]:
// the exact variance of its linearisation about (s_g, n_g),
// m̂_g ≈ m_g + (ŝ_g − m_g·n̂_g)/n_g (gradient (1/n_g, −m_g/n_g)):
//
//	Var(m̂_g) ≈ [Var(ŝ_g) − 2m_g·Cov(ŝ_g, n̂_g) + m_g²·Var(n̂_g)]/n_g².
//
// Multiply by ((hi − lo)/2)² for original units. Approximate: see
// [GroupTheory.CVCount].
func (t GroupTheory) VarMean() float64 {
	m := t.Mean()
	ng := float64(t.NG)
	return (t.VarSum() - 2*m*t.CovSumCount() + m*m*t.VarCount()) / (ng * ng)
}

// BiasMean returns the second-order bias of the ratio estimator on
// [−1, 1], E[m̂_g] − m_g ≈ (m_g·Var(n̂_g) − Cov(ŝ_g, n̂_g))/n_g², from the
// second-order Taylor expansion of ŝ/n̂ about (s_g, n_g) (its Hessian has
// ∂²/∂n̂² = 2s_g/n_g³, ∂²/∂ŝ∂n̂ = −1/n_g², ∂²/∂ŝ² = 0). Approximate: the
// neglected terms are of relative order CV(n̂_g)², and the expansion fails
// where CV(n̂_g) is large, where the mean of m̂_g is dominated by runs with
// n̂_g near 0.
func (t GroupTheory) BiasMean() float64 {
	ng := float64(t.NG)
	return (t.Mean()*t.VarCount() - t.CovSumCount()) / (ng * ng)
}

// MeanAbsScaledError returns the expected scaled absolute error of m̂_g,
// E|m̂_g − m_g|/(hi − lo) in original units (the paper's metric,
// Section 5.2), for a normal error of variance VarMean: √(2/π)·√VarMean/2,
// the /2 being the width of [−1, 1]. The bias, of order CV² relative to the
// error, is neglected. Approximate where the delta method is (see VarMean).
func (t GroupTheory) MeanAbsScaledError() float64 {
	return math.Sqrt(2/math.Pi) * math.Sqrt(t.VarMean()) / 2
}

// StdAbsScaledError returns the standard deviation of the scaled absolute
// error for a normal error: √(π/2 − 1) times MeanAbsScaledError, since
// |Z|, Z ~ N(0, σ²), has mean σ√(2/π) and variance σ²(1 − 2/π). An
// observed std/mean well above √(π/2 − 1) ≈ 0.7555 is the sign of the ratio
// estimator's heavy tails.
func (t GroupTheory) StdAbsScaledError() float64 {
	return math.Sqrt(math.Pi/2-1) * t.MeanAbsScaledError()
}

// GroupErrorRatio returns the expected fraction of users whose reported
// group is wrong, 1 − a: #{g′_i ≠ g_i} ~ Binomial(n, 1 − a) exactly, so the
// per-run ratio #{g′_i ≠ g_i}/n has this mean for every group and dataset.
func (t GroupTheory) GroupErrorRatio() float64 { return 1 - t.A }

// GroupErrorRatioStd returns the exact standard deviation of the per-run
// group error ratio, √(a(1 − a)/n).
func (t GroupTheory) GroupErrorRatioStd() float64 {
	return math.Sqrt(t.A * (1 - t.A) / float64(t.N))
}
