package centraldp

import (
	"math"
	"testing"
)

// TestClipperConventions: Clip(num/den) under both zero-denominator
// conventions (E1.17), exactly: IEEE sends ±x/0 to the end on x's side
// and 0/0 (and any NaN quotient, e.g. Inf/Inf) to the midpoint;
// "midpoint" sends every zero denominator to the midpoint; negative
// denominators are clipped as printed (no flooring). Catches math.Max/Min
// letting a NaN through, −0 treated as nonzero, and a swapped end.
func TestClipperConventions(t *testing.T) {
	inf := math.Inf(1)
	negZero := math.Copysign(0, -1)
	cases := []struct {
		num, den       float64
		ieee, midpoint float64
	}{
		{0.3, 1, 0.3, 0.3},
		{2, 1, 1, 1},
		{-2, 1, 0, 0},
		{1, 0, 1, 0.5},
		{-1, 0, 0, 0.5},
		{1, negZero, 0, 0.5},
		{0, 0, 0.5, 0.5},
		{inf, inf, 0.5, 0.5},
		{0.3, -1, 0, 0},
		{-0.3, -1, 0.3, 0.3},
		{math.NaN(), 1, 0.5, 0.5},
	}
	for _, c := range cases {
		ie := clipper{lo: 0, hi: 1, mid: 0.5}
		mp := clipper{lo: 0, hi: 1, mid: 0.5, midpoint: true}
		if got := ie.ratio(c.num, c.den); got != c.ieee {
			t.Errorf("ieee: Clip(%v/%v) = %v, want %v", c.num, c.den, got, c.ieee)
		}
		if got := mp.ratio(c.num, c.den); got != c.midpoint {
			t.Errorf("midpoint: Clip(%v/%v) = %v, want %v", c.num, c.den, got, c.midpoint)
		}
	}
}

// dpCheck returns max |log f(z + δ) − log f(z)| over z in zs and δ in
// shifts, for a log-density lf on the estimator's query space.
func dpCheck(lf func(z1, z2 float64) float64, zs [][2]float64, shifts [][2]float64) float64 {
	worst := 0.0
	for _, z := range zs {
		base := lf(z[0], z[1])
		for _, d := range shifts {
			worst = max(worst, math.Abs(lf(z[0]+d[0], z[1]+d[1])-base))
		}
	}
	return worst
}

// TestEstimatorNoiseIsDP: each estimator's noise, as the estimator holds
// it, is ε-DP for its query's add-remove changes, by the exact density
// ratio: max over a grid of noise points z and over the changes δ of the
// query (add or remove one value x ∈ [l, u]) of |log f(z + δ) − log f(z)|
// equals ε to 1e−12 (never more, and attained):
//   - Alg. 1: (Σx, n) changes by ±(x, 1), noise Lap(2W/ε) × Lap(2/ε);
//   - Alg. 2: (Σ(x − m), n) changes by ±(x − m, 1), Lap(w/ε) × Lap(2/ε);
//   - Alg. 3: (s1, s2) changes by ±(x′, 1 − x′), x′ = (x − l)/w ∈ [0, 1];
//     Laplace Lap(1/ε)², the 2-D staircase (Δ = 1), and the hourglass on
//     (z1, line k) where the change moves the line by ±1;
//   - swap reference: Σx changes by x − x′ ∈ [−w, w] (n public),
//     staircase(Δ = w).
//
// On [−3, 2] (W = 3 ≠ w = 5 ≠ w/2) so that W, w and w/2 cannot be mixed
// up (E1.11) without the ratio moving off ε. Catches every wrong noise
// scale or sensitivity, e.g. Alg. 2 with Lap(2w/ε) on the sum (ratio
// 0.75ε: not attained) or Lap(w/(2ε)) (1.5ε).
func TestEstimatorNoiseIsDP(t *testing.T) {
	const l, u = -3.0, 2.0
	const w = u - l
	var xs []float64 // data values
	for i := 0; i <= 20; i++ {
		xs = append(xs, l+w*float64(i)/20)
	}
	grid := func(lo, hi float64, n int) [][2]float64 {
		var zs [][2]float64
		for i := 0; i <= n; i++ {
			for j := 0; j <= n; j++ {
				zs = append(zs, [2]float64{lo + (hi-lo)*float64(i)/float64(n), lo + (hi-lo)*float64(j)/float64(n)})
			}
		}
		return zs
	}
	addRemove := func(f func(x float64) [2]float64) [][2]float64 {
		var ds [][2]float64
		for _, x := range xs {
			d := f(x)
			ds = append(ds, d, [2]float64{-d[0], -d[1]})
		}
		return ds
	}
	lap := func(z, b float64) float64 { return -math.Abs(z)/b - math.Log(2*b) }
	for _, eps := range []float64{0.5, 1, 3} {
		for _, name := range EstimatorNames() {
			e, err := NewEstimator(name, eps, Options{L: l, U: u})
			if err != nil {
				t.Fatal(err)
			}
			var worst float64
			switch e := e.(type) {
			case *alg1:
				lf := func(z1, z2 float64) float64 { return lap(z1, e.sScale) + lap(z2, e.nScale) }
				worst = dpCheck(lf, grid(-30, 30, 60), addRemove(func(x float64) [2]float64 { return [2]float64{x, 1} }))
			case *alg2:
				lf := func(z1, z2 float64) float64 { return lap(z1, e.sScale) + lap(z2, e.nScale) }
				worst = dpCheck(lf, grid(-30, 30, 60), addRemove(func(x float64) [2]float64 { return [2]float64{x - e.m, 1} }))
			case *alg3Lap:
				lf := func(z1, z2 float64) float64 { return lap(z1, e.scale) + lap(z2, e.scale) }
				worst = dpCheck(lf, grid(-6, 6, 60), addRemove(func(x float64) [2]float64 { return [2]float64{(x - e.l) / e.w, 1 - (x-e.l)/e.w} }))
			case *alg3TwoD:
				lf := func(z1, z2 float64) float64 { return math.Log(e.noise.Density(z1, z2)) }
				worst = dpCheck(lf, grid(-6, 6, 97), addRemove(func(x float64) [2]float64 { return [2]float64{(x - e.l) / e.w, 1 - (x-e.l)/e.w} }))
			case *alg3HG:
				// (z1, k) coordinates: a change (x′, 1 − x′) moves z1 by x′
				// and the line index by 1.
				for zi := -600; zi <= 600; zi++ {
					z1 := float64(zi) / 97
					for k := -8; k <= 8; k++ {
						base := math.Log(e.noise.Density(z1, k))
						for _, x := range xs {
							d := (x - e.l) / e.w
							worst = max(worst,
								math.Abs(math.Log(e.noise.Density(z1+d, k+1))-base),
								math.Abs(math.Log(e.noise.Density(z1-d, k-1))-base))
						}
					}
				}
			case *swapStair:
				lf := func(z1, _ float64) float64 { return math.Log(e.noise.Density(z1)) }
				var ds [][2]float64
				for _, x := range xs {
					for _, x2 := range xs {
						ds = append(ds, [2]float64{x - x2, 0})
					}
				}
				var zs [][2]float64
				for i := -2000; i <= 2000; i++ {
					zs = append(zs, [2]float64{float64(i) * w / 199, 0})
				}
				worst = dpCheck(lf, zs, ds)
			default:
				t.Fatalf("%s: no DP check for %T", name, e)
			}
			if math.Abs(worst-eps) > 1e-12 {
				t.Errorf("%s ε = %g: max log density ratio on the sensitivity set %.15g, want ε", name, eps, worst)
			}
		}
	}
}
