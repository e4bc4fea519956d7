package binomial

import (
	"math"
	"math/rand/v2"
)

// Sample returns a draw of Binomial(n, p); pc must be 1 − p, computed
// accurately by the caller (see the package doc). n ≤ 0 or p ≤ 0 gives 0,
// pc ≤ 0 gives n.
//
// For n·min(p, 1−p) < 10 it inverts the CDF by sequential search from 0
// (one uniform, expected n·p + 1 steps); otherwise it uses Hörmann's BTRS
// (transformed rejection with squeeze, "The generation of binomial random
// variates", J. Stat. Comput. Simul. 46, 1993; two uniforms an attempt,
// about 1.15 attempts a draw), whose acceptance test evaluates the
// binomial ratio f(k)/f(m) through the Stirling tails of k!, (n−k)!, m!,
// (n−m)!: a table below 16 and a four-term series above, which is within
// 7e−15 of the tail (mpmath), so the test decides as the exact ratio would
// except on a set of probability about 1e−14 per draw. Both are exact
// samplers in the sense that matters here: the law differs from the
// binomial by rounding only. It does not allocate.
func Sample(rng *rand.Rand, n int, p, pc float64) int {
	switch {
	case n <= 0 || p <= 0:
		return 0
	case pc <= 0:
		return n
	case p > pc:
		return n - sampleSmall(rng, n, pc, p)
	}
	return sampleSmall(rng, n, p, pc)
}

// sampleSmall is Sample for 0 < p ≤ 1/2.
func sampleSmall(rng *rand.Rand, n int, p, pc float64) int {
	if float64(n)*p < 10 {
		return inversion(rng, n, p, pc)
	}
	return btrs(rng, n, p, pc)
}

// inversion returns the smallest k with u < F(k), F the CDF, building the
// probabilities by f(k) = f(k−1)·(n−k+1)/k·p/(1−p) from f(0) = (1−p)^n.
// With n·p < 10 and p ≤ 1/2, f(0) ≥ e^{−10·1.39}, far from underflow. If
// rounding leaves u above the computed total mass (a chance of order
// 1e−16) the draw is repeated: the search stops when the terms underflow
// or k passes n.
func inversion(rng *rand.Rand, n int, p, pc float64) int {
	r := p / pc
	f0 := math.Exp(float64(n) * math.Log1p(-p))
	for {
		u := rng.Float64()
		f := f0
		for k := 0; k <= n; k++ {
			if u < f {
				return k
			}
			u -= f
			f *= r * float64(n-k) / float64(k+1)
			if f == 0 {
				break
			}
		}
	}
}

// stirlingTail[k] is ln k! − ((k+½)ln(k+1) − (k+1) + ½ln 2π), from mpmath
// at 40 digits.
var stirlingTail = [16]float64{
	0.08106146679532725822, 0.041340695955409294094, 0.027677925684998339149, 0.020790672103765093112,
	0.016644691189821192163, 0.013876128823070747999, 0.011896709945891770095, 0.010411265261972096497,
	0.0092554621827127329177, 0.0083305634333628712565, 0.007573675487951840795, 0.0069428401072095298657,
	0.0064089941880042070684, 0.0059513701127588477356, 0.005554733551962801371, 0.0052076559196096404407,
}

// stirlingTailOf returns the Stirling tail of k! for k ≥ 0: the table, or
// the series 1/(12x) − 1/(360x³) + 1/(1260x⁵) − 1/(1680x⁷), x = k+1, whose
// error is below 1/(1188x⁹) (7e−15 at k = 16).
func stirlingTailOf(k float64) float64 {
	if k < 16 {
		return stirlingTail[int(k)]
	}
	x := k + 1
	x2 := x * x
	return (1.0/12 - (1.0/360-(1.0/1260-1.0/(1680*x2))/x2)/x2) / x
}

// btrs is Hörmann's BTRS for n·p ≥ 10, p ≤ 1/2.
func btrs(rng *rand.Rand, n int, p, pc float64) int {
	nf := float64(n)
	spq := math.Sqrt(nf * p * pc)
	b := 1.15 + 2.53*spq
	a := -0.0873 + 0.0248*b + 0.01*p
	c := nf*p + 0.5
	vr := 0.92 - 4.2/b
	alpha := (2.83 + 5.1/b) * spq
	r := p / pc
	m := math.Floor((nf + 1) * p)
	// The terms of log f(m) that do not depend on k, f the binomial pmf.
	hm := (m+0.5)*math.Log((m+1)/(r*(nf-m+1))) + stirlingTailOf(m) + stirlingTailOf(nf-m)
	for {
		u := rng.Float64() - 0.5
		v := rng.Float64()
		us := 0.5 - math.Abs(u)
		if us == 0 {
			continue
		}
		k := math.Floor((2*a/us+b)*u + c)
		if k < 0 || k > nf {
			continue
		}
		if us >= 0.07 && v <= vr {
			return int(k)
		}
		// Accept when v·alpha/(a/us² + b) ≤ f(k)/f(m). log f(k)/f(m) is
		// written as in Hörmann's paper (and TensorFlow's BTRS): Stirling's
		// formula for the four factorials, arranged so that every term is
		// a small logarithm times a count, not a difference of two large
		// log-factorials (which would lose ~1e−11 at n = 1e4).
		lv := math.Log(v * alpha / (a/(us*us) + b))
		bound := hm + (nf+1)*math.Log((nf-m+1)/(nf-k+1)) + (k+0.5)*math.Log(r*(nf-k+1)/(k+1)) -
			stirlingTailOf(k) - stirlingTailOf(nf-k)
		if lv <= bound {
			return int(k)
		}
	}
}
