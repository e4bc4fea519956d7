package datasets

import (
	"fmt"
	"math/rand/v2"
)

// Uniform returns n samples uniform on [lo, hi], computed as lo + (hi − lo)·U
// with U = rng.Float64() ∈ [0, 1) (rounding can reach hi, never beyond it).
// lo and hi must be finite with lo < hi.
func Uniform(n int, lo, hi float64, rng *rand.Rand) ([]float64, error) {
	if err := checkN(n, rng); err != nil {
		return nil, err
	}
	if err := checkRange(lo, hi); err != nil {
		return nil, fmt.Errorf("uniform: %v", err)
	}
	out := make([]float64, n)
	w := hi - lo
	for i := range out {
		x := lo + w*rng.Float64()
		if x > hi { // rounding guard
			x = hi
		}
		out[i] = x
	}
	return out, nil
}
