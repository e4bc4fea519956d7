package mechanisms

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSampleKofDFixedK checks that the fixed-k constructor reports exactly k
// coordinates at ε/k, scaled by d/k, and that its variance is eq. (162) at
// that k. Catches a k taken from eq. (36) instead of the argument (at ε = 5
// eq. (36) gives 2, the test asks 1 and 3) and a budget not divided by k.
func TestSampleKofDFixedK(t *testing.T) {
	for _, tc := range []struct{ d, k int }{{7, 1}, {7, 3}, {5, 5}} {
		v, err := NewSampleKofDFixedK("pm-sub", wrap(NewPMSub), tc.d, tc.k, 5)
		if err != nil {
			t.Fatal(err)
		}
		if v.K() != tc.k || v.Inner().Epsilon() != 5/float64(tc.k) {
			t.Fatalf("d=%d k=%d: got k=%d inner ε=%v", tc.d, tc.k, v.K(), v.Inner().Epsilon())
		}
		x := make([]float64, tc.d)
		dst := make([]float64, tc.d)
		rng := rand.New(rand.NewPCG(1, 2))
		for range 100 {
			if err := v.PerturbVector(dst, x, rng); err != nil {
				t.Fatal(err)
			}
			nz := 0
			for _, y := range dst {
				if y != 0 {
					nz++
				}
			}
			if nz != tc.k {
				t.Fatalf("d=%d k=%d: %d coordinates reported", tc.d, tc.k, nz)
			}
		}
		want := float64(tc.d)/float64(tc.k)*(v.Inner().Variance(0.5)+0.25) - 0.25
		if got := v.CoordinateVariance(0.5); math.Abs(got-want) > 1e-12*want {
			t.Errorf("d=%d k=%d: variance %v, want %v", tc.d, tc.k, got, want)
		}
	}
	for _, k := range []int{0, 8} {
		if _, err := NewSampleKofDFixedK("pm-sub", wrap(NewPMSub), 7, k, 5); err == nil {
			t.Errorf("k=%d accepted for d=7", k)
		}
	}
}
