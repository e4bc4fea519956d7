package emkernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// naiveScan is the inclusive scan written as the definition: one running
// sum from the left.
func naiveScan(x []float64) []float64 {
	out := make([]float64, len(x))
	var acc float64
	for i, v := range x {
		acc += v
		out[i] = acc
	}
	return out
}

// inclusiveScan and prefixSum against the definition for every length 0 to
// 300: below 64 (the plain loop), at and above it (four interleaved chains
// over the quarters and a tail loop for the n mod 4 elements past them:
// every residue mod 4 is covered, lengths 64–67, 100–103, … included).
//
// Two inputs per length:
//
//   - integers in [-1000, 1000]: every partial sum is an integer of
//     magnitude below 2^53, so every addition is exact in either order and
//     the results must be EQUAL (no tolerance at all);
//   - reals in [-1, 1): the two orders round differently. Element i of the
//     fast scan is a chain sum of at most q+1 terms (q = n/4) plus at most
//     4 offsets, the naive one a chain of i+1 terms; each is within
//     γ_k·Σ_{j≤i}|x_j| of the exact sum (Higham, Accuracy and Stability,
//     (4.4), γ_k = k·u/(1 − k·u), u = 2^-53, k the number of additions on
//     the path), so |fast − naive| ≤ 2·γ_n·Σ_{j≤i}|x_j|: a bound, not a
//     tolerance.
func TestInclusiveScanMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const u = 0x1p-53
	for n := 0; n <= 300; n++ {
		for _, integers := range []bool{true, false} {
			x := make([]float64, n)
			for i := range x {
				if integers {
					x[i] = float64(rng.IntN(2001) - 1000)
				} else {
					x[i] = 2*rng.Float64() - 1
				}
			}
			want := naiveScan(x)
			gamma := float64(n) * u / (1 - float64(n)*u)
			abs := make([]float64, n) // Σ_{j≤i} |x_j|
			var s float64
			for i, v := range x {
				s += math.Abs(v)
				abs[i] = s
			}
			check := func(what string, got []float64) {
				t.Helper()
				for i := range want {
					bound := 0.0
					if !integers {
						bound = 2 * gamma * abs[i] * (1 + 2*gamma) // the last factor covers the rounding of abs itself
					}
					if d := math.Abs(got[i] - want[i]); !(d <= bound) {
						t.Fatalf("%s, n = %d (integers %v): element %d = %v, the running sum is %v (|diff| %g > bound %g)",
							what, n, integers, i, got[i], want[i], d, bound)
					}
				}
			}
			got := append([]float64(nil), x...)
			inclusiveScan(got)
			check("inclusiveScan", got)
			// prefixSum: dst[0] = 0, dst[i+1] = the running sum to i, and
			// src untouched.
			src := append([]float64(nil), x...)
			dst := make([]float64, n+1)
			for i := range dst {
				dst[i] = math.NaN()
			}
			prefixSum(dst, src)
			if dst[0] != 0 {
				t.Fatalf("prefixSum, n = %d: dst[0] = %v", n, dst[0])
			}
			check("prefixSum", dst[1:])
			for i := range x {
				if src[i] != x[i] {
					t.Fatalf("prefixSum, n = %d: src[%d] changed", n, i)
				}
			}
		}
	}
}
