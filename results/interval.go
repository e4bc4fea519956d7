package results

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ldpbench/ldpbench/metrics"
)

// interval returns the 95% confidence interval of the mean of the k =
// len(xs) ≥ 2 trial values xs (mean and standard error se) by method, and
// the method it used (metrics.Interval gives each one's derivation):
//
//   - IntervalT: mean ± t(0.975, k−1)·se.
//   - IntervalChi2: [k·mean/χ²_k(0.975), k·mean/χ²_k(0.025)], exact when
//     each value is one squared N(0, σ²) error; unless the values are
//     significantly less dispersed than that (lessDispersedThanChi2One, at
//     the 1% level: the per-coordinate mse of a d-dimensional mean, or a
//     large bias), where this interval would be needlessly wide, and the
//     t-logmean interval is used (and named) instead.
//   - IntervalLogMean: mean·exp(±t(0.975, k−1)·se/mean); [0, 0] when every
//     value is 0.
//
// A mean or se that is not finite (a kl of +Inf) gives NaN bounds.
func interval(method metrics.Interval, xs []float64, mean, se float64) (lo, hi float64, used metrics.Interval) {
	k := len(xs)
	if math.IsInf(mean, 0) || math.IsNaN(mean) || math.IsNaN(se) {
		return math.NaN(), math.NaN(), method
	}
	if method == metrics.IntervalChi2 && lessDispersedThanChi2One(xs, mean) {
		method = metrics.IntervalLogMean
	}
	switch method {
	case metrics.IntervalChi2:
		// Σ err²/σ² ~ χ²_k: k·mean/σ² lies between the 2.5% and 97.5%
		// quantiles with probability 95%, so σ² between k·mean over each.
		chi := distuv.ChiSquared{K: float64(k)}
		return float64(k) * mean / chi.Quantile(0.975), float64(k) * mean / chi.Quantile(0.025), method
	case metrics.IntervalLogMean:
		if mean == 0 { // every trial 0 (the values are ≥ 0)
			return 0, 0, method
		}
		// Var(log m̂) ≈ (se/m)²: the t interval of log m, exponentiated.
		f := math.Exp(studentT975(k) * se / mean)
		return mean / f, mean * f, method
	}
	t := studentT975(k)
	return mean - t*se, mean + t*se, metrics.IntervalT
}

// studentT975 is the 97.5% quantile of Student's t with k−1 degrees of
// freedom.
func studentT975(k int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(k - 1)}.Quantile(0.975)
}

// dispersionLevel is the false-rejection probability of
// lessDispersedThanChi2One when the values are squared N(0, σ²) errors.
const dispersionLevel = 0.01

// lessDispersedThanChi2One reports whether the positive values xs are
// significantly (at dispersionLevel, one-sided) less dispersed than k
// independent σ²·χ²₁ values, the law under which the χ² interval is exact.
//
// The statistic is A = ln(mean) − mean(ln x) ≥ 0, the log ratio of the
// arithmetic to the geometric mean: scale-free, the sufficient statistic
// of a gamma law's shape, large for one squared normal per trial (A → 1.27
// as k grows) and small for an average of d of them (about 1/d). Under
// H0 (σ²χ²₁ values, gamma of shape ½) xᵢ/Σx is Dirichlet(½, …, ½),
// independent of Σx, and Σ ln xᵢ = Σ ln(xᵢ/Σx) + k·ln Σx, so the cumulants
// of A are exact in polygamma functions (ψ⁽ʳ⁾, r = 0, 1, 2):
//
//	κ₁ = ψ(k/2) − ψ(½) − ln k
//	κ₂ = ψ′(½)/k − ψ′(k/2)
//	κ₃ = −ψ″(½)/k² + ψ″(k/2)
//
// For k ≥ 10 the critical value is the dispersionLevel quantile of the
// Pearson type III (shifted gamma) law with these three cumulants: against
// a simulation of 2e5 samples per k, its rejection rate under H0 is
// 0.87–1.02% for k = 10–300. Below 10 that approximation is too low (it
// rejected 0.1% at k = 4 and never at k ≤ 3), so a quick run of two or
// three batch trials that agree to 0.7% (kind central-mean: each trial a
// batch of 10⁵ releases) kept a χ² interval of [0.27·m, 39·m]. There the
// critical values are exact at k = 2 and simulated for k = 3–9
// (smallKDispersion). A value of 0 (A = +∞) never rejects.
func lessDispersedThanChi2One(xs []float64, mean float64) bool {
	k := len(xs)
	if k < 2 || !(mean > 0) {
		return false
	}
	var logs float64
	for _, x := range xs {
		if !(x > 0) {
			return false
		}
		logs += math.Log(x)
	}
	a := math.Log(mean) - logs/float64(k)
	return a < chi2OneDispersionCritical(k)
}

// smallKDispersion[k] is the 1% quantile of A under H0 for k = 3–9, from
// 2·10⁷ simulated k-tuples of χ²₁ values per k (numpy, two independent
// runs agreeing to 0.6% at k = 3 and 0.2% above); TestDispersionSmallK
// checks the rejection rate they give.
var smallKDispersion = [10]float64{3: 0.0100, 4: 0.0419, 5: 0.0853, 6: 0.1307, 7: 0.1746, 8: 0.2154, 9: 0.2529}

// chi2OneDispersionCritical returns the critical value of
// lessDispersedThanChi2One for k values (see there).
func chi2OneDispersionCritical(k int) float64 {
	switch {
	case k < 2:
		return 0
	case k == 2:
		// Exact: with D = x₁/(x₁+x₂) ~ Beta(½, ½), A = −½·ln(4D(1−D)),
		// and P(A < a) = (2/π)·φ where 4D(1−D) = cos²φ, so the level-α
		// quantile is −ln cos(πα/2) (1.23375e-4 at 1%).
		return -math.Log(math.Cos(math.Pi * dispersionLevel / 2))
	case k < len(smallKDispersion):
		return smallKDispersion[k]
	}
	const zeta3 = 1.2020569031595942
	kf := float64(k)
	h0 := -0.5772156649015329 - 2*math.Ln2 // ψ(½) = −γ − 2 ln 2
	h1 := math.Pi * math.Pi / 2            // ψ′(½)
	h2 := -14 * zeta3                      // ψ″(½)
	q0, q1, q2 := polygamma012(kf / 2)
	k1 := q0 - h0 - math.Log(kf)
	k2 := h1/kf - q1
	k3 := -h2/(kf*kf) + q2
	// Pearson III: shift + scale·Gamma(shape), skewness 2/√shape.
	skew := k3 / math.Pow(k2, 1.5)
	shape := 4 / (skew * skew)
	scale := math.Sqrt(k2 / shape)
	c := k1 - shape*scale + scale*distuv.Gamma{Alpha: shape, Beta: 1}.Quantile(dispersionLevel)
	return math.Max(0, c)
}

// polygamma012 returns ψ(x), ψ′(x) and ψ″(x) for x > 0: the recurrences
// ψ⁽ʳ⁾(x) = ψ⁽ʳ⁾(x+1) − (−1)ʳ r!/x^(r+1) up to x ≥ 20, then the asymptotic
// series to x⁻⁸ (ψ), x⁻⁹ (ψ′) and x⁻¹⁰ (ψ″): the first term left out is
// below 1e-15 there.
func polygamma012(x float64) (p0, p1, p2 float64) {
	for x < 20 {
		p0 -= 1 / x
		p1 += 1 / (x * x)
		p2 -= 2 / (x * x * x)
		x++
	}
	x2 := x * x
	x4 := x2 * x2
	x8 := x4 * x4
	p0 += math.Log(x) - 1/(2*x) - 1/(12*x2) + 1/(120*x4) - 1/(252*x4*x2) + 1/(240*x8)
	p1 += 1/x + 1/(2*x2) + 1/(6*x2*x) - 1/(30*x4*x) + 1/(42*x4*x2*x) - 1/(30*x8*x)
	p2 += -1/x2 - 1/(x2*x) - 1/(2*x4) + 1/(6*x4*x2) - 1/(6*x8) + 3/(10*x8*x2)
	return
}
