package centraldp_test

import (
	"math"
	"testing"

	"github.com/ldpbench/ldpbench/centraldp"
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
			d := centraldp.TwoSidedGeometric(r, rng)
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
	if centraldp.TwoSidedGeometric(0, newRNG(1)) != 0 {
		t.Error("TwoSidedGeometric(0) != 0")
	}
	for _, r := range []float64{1, -0.1, math.NaN()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("TwoSidedGeometric(%v) did not panic", r)
				}
			}()
			centraldp.TwoSidedGeometric(r, newRNG(1))
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
			z := centraldp.Laplace(b, rng)
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

// TestGeometric2: PMF sums to 1 over ℤ (1e−14) and equals the law of
// TwoSidedGeometric; 4·10⁵ draws of Sample fit it (p ≥ 1e−6). Catches a
// kept 1/ε that is not 1/ε (ratio b² or √b) and a PMF without the
// (1−b)/(1+b) normaliser.
func TestGeometric2(t *testing.T) {
	for i, eps := range []float64{0.3, 2} {
		g, err := centraldp.NewGeometric2(eps)
		if err != nil {
			t.Fatal(err)
		}
		total := 0.0
		for d := -2000; d <= 2000; d++ {
			total += g.PMF(d)
		}
		if math.Abs(total-1) > 1e-14 {
			t.Errorf("ε = %g: Σ PMF = %.17g", eps, total)
		}
		const n = 400000
		D := 0
		for g.PMF(D+1)*n >= 40 {
			D++
		}
		counts := make([]int, 2*D+2) // last: |d| > D
		ps := make([]float64, 2*D+2)
		rest := 1.0
		for d := -D; d <= D; d++ {
			ps[d+D] = g.PMF(d)
			rest -= g.PMF(d)
		}
		ps[2*D+1] = rest
		rng := newRNG(uint64(450 + i))
		for range n {
			d := g.Sample(rng)
			if d < -D || d > D {
				counts[2*D+1]++
			} else {
				counts[d+D]++
			}
		}
		if p := chiSquare(t, "geometric2", counts, ps, n); p < alpha {
			t.Errorf("ε = %g: Geometric2 draws do not fit the PMF: p = %.3g", eps, p)
		}
	}
	if _, err := centraldp.NewGeometric2(0); err == nil {
		t.Error("NewGeometric2(0) accepted")
	}
}

// TestExtremeEpsilon: at the ends of the accepted range, ε = 1e−9 and
// ε = 700 (b = e^{−700} ≈ 1e−304, near underflow), every sampler returns
// finite values, the moments are finite and positive, γ* and γ̃* are in
// [0, 1], and every estimator returns a finite value in [l, u]. Catches 0/0
// in P(B = 0) at large ε and int overflow of a geometric at tiny ε.
func TestExtremeEpsilon(t *testing.T) {
	rng := newRNG(460)
	for _, eps := range []float64{1e-9, 700} {
		st := mustStaircase(t, eps, centraldp.GammaStar(eps), 1)
		s2 := mustStaircase2D(t, eps, centraldp.Staircase2DGamma(eps), 1)
		h := mustHourglass(t, eps, centraldp.GammaStar(eps), 1)
		for _, v := range []float64{centraldp.GammaStar(eps), centraldp.Staircase2DGamma(eps)} {
			if !(v >= 0 && v <= 1) {
				t.Errorf("ε = %g: γ = %v", eps, v)
			}
		}
		for _, v := range []float64{st.SecondMoment(), s2.SecondMoment(), centraldp.SigmaSq(eps)} {
			if !(v > 0) || math.IsInf(v, 0) {
				t.Errorf("ε = %g: moment %v", eps, v)
			}
		}
		for range 10000 {
			x, _, j := st.Sample(rng)
			a, b := s2.Sample(rng)
			z1, z2, _ := h.Sample(rng)
			for _, v := range []float64{x, a, b, z1, z2} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("ε = %g: sample %v", eps, v)
				}
			}
			if j < 0 {
				t.Fatalf("ε = %g: J = %d", eps, j)
			}
		}
		for _, name := range centraldp.EstimatorNames() {
			e := mustEstimator(t, name, eps, centraldp.Options{L: 2, U: 5})
			for range 1000 {
				if v := e.Estimate(7, 20, rng); !(v >= 2 && v <= 5) {
					t.Fatalf("%s ε = %g: estimate %v outside [2, 5]", name, eps, v)
				}
			}
		}
	}
}
