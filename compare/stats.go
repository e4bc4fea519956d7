package compare

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// The two-sided tests of `ldpbench regress`. Each returns a p-value and the
// statistic; ok is false when the data cannot be tested (too few trials,
// a zero or negative mean where a ratio is needed). A test whose data has
// no spread (a closed form, a deterministic metric) is an exact
// comparison: p = 1 when the values agree to relTol, else 0.

// relTol is the agreement of two deterministic values that counts as equal:
// a closed form recomputed in another order moves in the last few bits.
const relTol = 1e-9

func sameValue(a, b float64) bool {
	return math.Abs(a-b) <= relTol*max(math.Abs(a), math.Abs(b), 1e-300)
}

func exactP(a, b float64) float64 {
	if sameValue(a, b) {
		return 1
	}
	return 0
}

func twoSided(cdf, survival float64) float64 {
	return min(1, 2*min(cdf, survival))
}

// noSpread reports an SD that is rounding error of identical values.
func noSpread(mean, sd float64) bool { return sd <= 1e-12*math.Abs(mean) }

func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

// chi2Theory tests squared errors against their expected value theory:
// Σx/theory is χ² with k degrees of freedom when each x is the square of a
// N(0, theory) error, the model of the summary's chi2 interval.
func chi2Theory(xs []float64, theory float64) (p, stat float64, ok bool) {
	if theory <= 0 || slices.ContainsFunc(xs, func(x float64) bool { return x < 0 }) {
		return 0, 0, false
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	s /= theory
	chi := distuv.ChiSquared{K: float64(len(xs))}
	return twoSided(chi.CDF(s), chi.Survival(s)), s, true
}

// tTheory is Student's t test of the mean of xs against theory; logScale
// tests log(mean) by the delta method (the summary's t-logmean interval).
func tTheory(xs []float64, theory float64, logScale bool) (p, stat float64, ok bool) {
	k := len(xs)
	m, sd := meanSD(xs)
	if k < 2 {
		return 0, 0, false
	}
	if noSpread(m, sd) {
		return exactP(m, theory), 0, true
	}
	se := sd / math.Sqrt(float64(k))
	t := (m - theory) / se
	if logScale {
		if m <= 0 || theory <= 0 {
			return 0, 0, false
		}
		t = math.Log(m/theory) / (se / m)
	}
	st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(k - 1)}
	return twoSided(st.CDF(t), st.Survival(t)), t, true
}

// pairedT tests the trial-by-trial differences of two runs drawn from the
// same seeds: an unchanged computation gives identical values, to the
// 1e-9 of a stored baseline's ten digits (p = 1); a
// change that keeps the law but not the random stream gives differences of
// two independent draws of it, symmetric about 0, which Student's t
// handles well even where one run's values are skewed.
func pairedT(xs, base []float64) (p, stat float64, ok bool) {
	k := len(xs)
	if k != len(base) || k == 0 {
		return 0, 0, false
	}
	d := make([]float64, k)
	same := true
	for i := range xs {
		d[i] = xs[i] - base[i]
		same = same && sameValue(xs[i], base[i])
	}
	if same {
		return 1, 0, true
	}
	if k < 2 {
		return 0, 0, false
	}
	m, sd := meanSD(d)
	if sd == 0 {
		return 0, math.Inf(int(math.Copysign(1, m))), true
	}
	t := m / (sd / math.Sqrt(float64(k)))
	st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(k - 1)}
	return twoSided(st.CDF(t), st.Survival(t)), t, true
}

// fRatio tests the ratio of two means of squared errors: each mean is
// σ²χ²_k/k under the chi2 model, so under no change their ratio is
// F(k_new, k_base) distributed (exact, where Welch's t would be skewed).
func fRatio(xs, base []float64) (p, stat float64, ok bool) {
	m1, _ := meanSD(xs)
	m0, _ := meanSD(base)
	if m1 <= 0 || m0 <= 0 || slices.ContainsFunc(xs, func(x float64) bool { return x < 0 }) || slices.ContainsFunc(base, func(x float64) bool { return x < 0 }) {
		return 0, 0, false
	}
	r := m1 / m0
	f := distuv.F{D1: float64(len(xs)), D2: float64(len(base))}
	return twoSided(f.CDF(r), f.Survival(r)), r, true
}

// welch is Welch's unequal-variance t test of two means, with the
// Welch–Satterthwaite degrees of freedom.
func welch(xs, base []float64) (p, stat float64, ok bool) {
	k1, k0 := len(xs), len(base)
	m1, s1 := meanSD(xs)
	m0, s0 := meanSD(base)
	if k1 == 0 || k0 == 0 {
		return 0, 0, false
	}
	if noSpread(m1, s1) && noSpread(m0, s0) {
		// No spread on either side (one trial each, or a deterministic
		// metric): equal values are no change; unequal ones are a change
		// only when both sides show that the metric is deterministic.
		if sameValue(m1, m0) {
			return 1, 0, true
		}
		if k1 >= 2 && k0 >= 2 {
			return 0, 0, true
		}
		return 0, 0, false
	}
	if k1 < 2 || k0 < 2 {
		return 0, 0, false
	}
	v1, v0 := s1*s1/float64(k1), s0*s0/float64(k0)
	t := (m1 - m0) / math.Sqrt(v1+v0)
	df := (v1 + v0) * (v1 + v0) / (v1*v1/float64(k1-1) + v0*v0/float64(k0-1))
	st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	return twoSided(st.CDF(t), st.Survival(t)), t, true
}

// Holm returns Holm's step-down adjusted p-values: reject test i at
// family-wise error α when adjusted[i] ≤ α. It controls the probability of
// any false alarm among the tests at α under any dependence between them.
func Holm(p []float64) []float64 {
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return 0
	})
	adj := make([]float64, m)
	running := 0.0
	for rank, i := range order {
		running = max(running, min(1, float64(m-rank)*p[i]))
		adj[i] = running
	}
	return adj
}
