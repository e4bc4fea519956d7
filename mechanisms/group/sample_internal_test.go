package group

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// alpha is the false-failure probability of each statistical check.
const alpha = 1e-6

// zAlpha is the two-sided normal critical value at alpha, 4.8916.
var zAlpha = distuv.UnitNormal.Quantile(1 - alpha/2)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 7)) }

// TestGammaInt: Gamma(m, 1) draws have mean m and variance m (z-tests at
// alpha 1e-6, the variance's SE from the fourth central moment 3m² + 6m),
// and a fit of the distribution function at its quartiles (chi-square on
// 4 cells) for m = 1, 2, 7, 1000. Catches d = m - 1 instead of m - 1/3
// (a biased mean) and a missing logarithmic acceptance test (the squeeze
// alone, a distorted shape).
func TestGammaInt(t *testing.T) {
	const draws = 200_000
	rng := newRNG(3)
	for _, m := range []int{1, 2, 7, 1000} {
		g := distuv.Gamma{Alpha: float64(m), Beta: 1}
		q := []float64{g.Quantile(0.25), g.Quantile(0.5), g.Quantile(0.75)}
		cells := make([]float64, 4)
		sum, sum2 := 0.0, 0.0
		mf := float64(m)
		for range draws {
			x := gammaInt(rng, m)
			sum += x
			sum2 += (x - mf) * (x - mf)
			c := 0
			for _, e := range q {
				if x > e {
					c++
				}
			}
			cells[c]++
		}
		if se := math.Sqrt(mf / draws); math.Abs(sum/draws-mf) > zAlpha*se {
			t.Errorf("m=%d: mean %v (se %.3g)", m, sum/draws, se)
		}
		if se := math.Sqrt((3*mf*mf + 6*mf - mf*mf) / draws); math.Abs(sum2/draws-mf) > zAlpha*se {
			t.Errorf("m=%d: variance %v (se %.3g)", m, sum2/draws, se)
		}
		stat := 0.0
		for _, o := range cells {
			e := draws / 4.0
			stat += (o - e) * (o - e) / e
		}
		if pv := (distuv.ChiSquared{K: 3}).Survival(stat); pv < alpha {
			t.Errorf("m=%d: quartile counts %v, p-value %.3g", m, cells, pv)
		}
	}
	if gammaInt(rng, 0) != 0 {
		t.Error("gammaInt(0) != 0")
	}
}

// TestSpread: spread's counts sum to n, and each cell's count has the
// multinomial's mean n/m within z·SE, over repeated draws with m not a
// power of two. Catches the last cell taking the wrong remainder.
func TestSpread(t *testing.T) {
	rng := newRNG(4)
	const reps = 20_000
	for _, c := range []struct{ n, m int }{{7, 3}, {1000, 7}, {50, 1}, {0, 5}} {
		sums := make([]float64, c.m)
		for range reps {
			dst := make([]int, c.m)
			spread(rng, c.n, c.m, dst, func(j int) int { return j })
			tot := 0
			for j, x := range dst {
				tot += x
				sums[j] += float64(x)
			}
			if tot != c.n {
				t.Fatalf("n=%d m=%d: counts %v sum to %d", c.n, c.m, dst, tot)
			}
		}
		p := 1 / float64(c.m)
		se := math.Sqrt(float64(c.n) * p * (1 - p) / reps)
		for j, s := range sums {
			if math.Abs(s/reps-float64(c.n)*p) > zAlpha*se+1e-12 {
				t.Errorf("n=%d m=%d: cell %d mean %v, want %v", c.n, c.m, j, s/reps, float64(c.n)*p)
			}
		}
	}
}
