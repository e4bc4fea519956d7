package metrics

import (
	"math"
	"slices"
)

// mass returns the total of the histogram p and whether p is a valid
// histogram: every entry non-negative and not NaN, the total positive and
// finite.
func mass(p []float64) (float64, bool) {
	var s float64
	for _, v := range p {
		if !(v >= 0) { // negative or NaN
			return 0, false
		}
		s += v
	}
	return s, s > 0 && !math.IsInf(s, 1)
}

func checkLen(p, q []float64) {
	if len(p) != len(q) {
		panic("metrics: histograms of different lengths")
	}
}

// Wasserstein1 returns the Wasserstein-1 (earth mover's) distance between the
// histograms p and q on a common grid of equal bins of width binWidth:
//
//	W1 = Σ_i |CDF_p(i) − CDF_q(i)| · binWidth,
//
// with CDF_p(i) the mass of bins 0..i after normalising p by its sum (the last
// term is 0 and is skipped). This is the distance between the two
// distributions on the data domain: moving all mass from bin 0 to bin 3 costs
// 3·binWidth. It is at most (len(p) − 1)·binWidth, less than the width of the
// domain. It equals SciPy's wasserstein_distance called with the bin centres
// as values and p, q as weights, and not SciPy's function called on p and q
// themselves (ERRATA E0.2; see Wasserstein1Authors).
//
// It panics if len(p) ≠ len(q), and returns NaN for an invalid histogram or a
// binWidth that is not positive and finite.
func Wasserstein1(p, q []float64, binWidth float64) float64 {
	checkLen(p, q)
	sp, okp := mass(p)
	sq, okq := mass(q)
	if !okp || !okq || !(binWidth > 0) || math.IsInf(binWidth, 1) {
		return math.NaN()
	}
	var cp, cq, s float64
	for i := 0; i < len(p)-1; i++ {
		cp += p[i] / sp
		cq += q[i] / sq
		s += math.Abs(cp - cq)
	}
	return s * binWidth
}

// Wasserstein1Authors returns the quantity the authors of the N-output paper
// plot as the Wasserstein distance (metric "w1-authors", ERRATA E0.2): SciPy's
// wasserstein_distance(p, q) with the probability vectors passed as sample
// values, which is the mean absolute difference of the sorted normalised bin
// probabilities,
//
//	(1/d) Σ_i |sort(p)_i − sort(q)_i|,  d = len(p).
//
// It measures how alike the two sets of bin heights are, not how far apart the
// distributions are: two histograms that are mirror images have value 0. Use it
// only to reproduce published magnitudes; Wasserstein1 is the metric.
//
// scratch is used for sorting when len(scratch) ≥ 2·len(p); otherwise the
// function allocates. Validation is as for Wasserstein1.
func Wasserstein1Authors(p, q, scratch []float64) float64 {
	checkLen(p, q)
	sp, okp := mass(p)
	sq, okq := mass(q)
	if !okp || !okq {
		return math.NaN()
	}
	n := len(p)
	if len(scratch) < 2*n {
		scratch = make([]float64, 2*n)
	}
	a, b := scratch[:n], scratch[n:2*n]
	for i := range p {
		a[i] = p[i] / sp
		b[i] = q[i] / sq
	}
	slices.Sort(a)
	slices.Sort(b)
	var s float64
	for i := range a {
		s += math.Abs(a[i] - b[i])
	}
	return s / float64(n)
}

// JSDivergence returns the Jensen–Shannon divergence of the histograms p and q
// (metric "js-div"), with natural logarithms:
//
//	JS = ½ KL(P‖M) + ½ KL(Q‖M),  M = (P + Q)/2,
//
// after normalising p and q by their sums, with 0·log 0 = 0. It is symmetric,
// 0 for equal distributions and ln 2 for disjoint supports; rounding is
// clamped into [0, ln 2]. This is what the multi-service authors' code
// computes; the paper prints its square root, JSDistance (ERRATA E4.1).
//
// It panics if len(p) ≠ len(q) and returns NaN for an invalid histogram.
func JSDivergence(p, q []float64) float64 {
	checkLen(p, q)
	sp, okp := mass(p)
	sq, okq := mass(q)
	if !okp || !okq {
		return math.NaN()
	}
	var s float64
	for i := range p {
		a, b := p[i]/sp, q[i]/sq
		m := a + b // twice the mixture
		if a > 0 {
			s += a * math.Log(2*a/m)
		}
		if b > 0 {
			s += b * math.Log(2*b/m)
		}
	}
	return min(max(s/2, 0), math.Ln2)
}

// JSDistance returns the Jensen–Shannon distance sqrt(JSDivergence(p, q))
// (metric "js-dist"), natural logarithms, in [0, sqrt(ln 2)]. Unlike the
// divergence it satisfies the triangle inequality. This is the d_JS printed in
// the multi-service paper (ERRATA E4.1).
func JSDistance(p, q []float64) float64 {
	return math.Sqrt(JSDivergence(p, q))
}

// KL returns the Kullback–Leibler divergence KL(P‖Q) = Σ_i P_i ln(P_i/Q_i)
// (metric "kl") after normalising p and q by their sums, with 0·log 0 = 0. It
// is +Inf when some bin has P_i > 0 and Q_i = 0; it is not symmetric. Rounding
// below 0 is clamped to 0. The metric "kl" is KL(truth, estimate).
//
// It panics if len(p) ≠ len(q) and returns NaN for an invalid histogram.
func KL(p, q []float64) float64 {
	checkLen(p, q)
	sp, okp := mass(p)
	sq, okq := mass(q)
	if !okp || !okq {
		return math.NaN()
	}
	var s float64
	for i := range p {
		a := p[i] / sp
		if a == 0 {
			continue
		}
		b := q[i] / sq
		if b == 0 {
			return math.Inf(1)
		}
		s += a * math.Log(a/b)
	}
	return max(s, 0)
}
