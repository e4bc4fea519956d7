package central_test

import (
	"math"
	"testing"

	"github.com/ldpbench/ldpbench/central"
)

// TestTwoSidedGeometricFits: 4·10⁵ draws fit ((1−r)/(1+r))r^{|d|} on
// cells d = −D..D plus two tails (p ≥ 1e−6), and the mean of D² is within
// 4.9 SE of 2r/(1−r)². Catches "sign × geometric" (P(0) = 1 − r instead of
// (1−r)/(1+r)), ratio r² (geometric from ⌊E/(2ε)⌋), and an off-by-one
// geometric on {1, 2, ...}.
func TestTwoSidedGeometricFits(t *testing.T) {
	const n = 400000
	for i, eps := range []float64{0.2, 1, 3} {
		r := math.Exp(-eps)
		rng := newRNG(uint64(300 + i))
		pd := func(d int) float64 { return (1 - r) / (1 + r) * math.Pow(r, math.Abs(float64(d))) }
		tailAbove := func(D int) float64 { return r / (1 + r) * math.Pow(r, float64(D)) } // P(d > D)
		D := 0
		for tailAbove(D+1)*n >= 20 && pd(D+1)*n >= 20 {
			D++
		}
		counts := make([]int, 2*D+3) // index 0: d < −D, 2D+2: d > D
		ps := make([]float64, 2*D+3)
		for d := -D; d <= D; d++ {
			ps[d+D+1] = pd(d)
		}
		tail := tailAbove(D)
		ps[0], ps[2*D+2] = tail, tail
		var m2 moments
		for range n {
			d := central.TwoSidedGeometric(r, rng)
			m2.add(float64(d * d))
			switch {
			case d < -D:
				counts[0]++
			case d > D:
				counts[2*D+2]++
			default:
				counts[d+D+1]++
			}
		}
		if p := chiSquare(t, "two-sided geometric", counts, ps, n); p < alpha {
			t.Errorf("ε = %g: draws do not fit the two-sided geometric: p = %.3g", eps, p)
		}
		checkMean(t, "E[D²]", &m2, 2*r/((1-r)*(1-r)))
	}
	if central.TwoSidedGeometric(0, newRNG(1)) != 0 {
		t.Error("TwoSidedGeometric(0) != 0")
	}
	for _, r := range []float64{1, -0.1, math.NaN()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("TwoSidedGeometric(%v) did not panic", r)
				}
			}()
			central.TwoSidedGeometric(r, newRNG(1))
		}()
	}
}

// TestLaplace: 4·10⁵ draws of Lap(b) have mean 0 and E|Z| = b, E[Z²] = 2b²
// within 4.9 SE (scale, not rate: E1.10), and half of them are negative
// (binomial, 4.9 SE). Catches a rate parameterisation (E|Z| = 1/b), a
// one-sided draw and a biased sign.
func TestLaplace(t *testing.T) {
	for i, b := range []float64{0.5, 2} {
		rng := newRNG(uint64(400 + i))
		var m1, ma, m2, neg moments
		for range 400000 {
			z := central.Laplace(b, rng)
			m1.add(z)
			ma.add(math.Abs(z))
			m2.add(z * z)
			if z < 0 {
				neg.add(1)
			} else {
				neg.add(0)
			}
		}
		checkMean(t, "E[Z]", &m1, 0)
		checkMean(t, "E|Z|", &ma, b)
		checkMean(t, "E[Z²]", &m2, 2*b*b)
		checkMean(t, "P(Z < 0)", &neg, 0.5)
	}
}
