package group

import (
	"math"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/internal/binomial"
)

// The exact samplers Simulate aggregates with besides binomial.Sample
// (package internal/binomial, whose doc says why not gonum's
// distuv.Binomial): uniform multinomials as conditional binomials, and
// Gamma(m, 1) for the Laplace method's sums of noise.

// spread adds to dst[idx(0)], …, dst[idx(m-1)] the counts of n items
// placed independently and uniformly in m ≥ 1 cells: a multinomial drawn
// as m-1 conditional binomials (the j-th cell takes Binomial(rest,
// 1/(m-j)) of the items the earlier cells left), exactly.
func spread(rng *rand.Rand, n, m int, dst []int, idx func(j int) int) {
	for j := 0; j < m-1 && n > 0; j++ {
		left := float64(m - j)
		x := binomial.Sample(rng, n, 1/left, (left-1)/left)
		dst[idx(j)] += x
		n -= x
	}
	if n > 0 {
		dst[idx(m-1)] += n
	}
}

// gammaInt returns a draw of Gamma(shape, 1) for an integer shape ≥ 1, by
// Marsaglia and Tsang's method ("A simple method for generating gamma
// variables", ACM TOMS 26(3), 2000): exact rejection, with the squeeze
// and the logarithmic acceptance test of the paper, about 1.05 normal and
// uniform pairs a draw. The normals are math/rand/v2's ziggurat. shape 0
// gives 0 (an empty sum).
func gammaInt(rng *rand.Rand, shape int) float64 {
	if shape <= 0 {
		return 0
	}
	d := float64(shape) - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		x2 := x * x
		if u < 1-0.0331*x2*x2 || math.Log(u) < 0.5*x2+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
