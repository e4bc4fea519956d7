package datasets

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

var errNilRand = errors.New("nil *rand.Rand: generators need a caller-seeded source")

// Beta returns n samples u ~ Beta(a, b) on [0, 1], drawn exactly with gonum's
// distuv.Beta (a ratio of Marsaglia–Tsang gamma variates) using rng as its
// source. a and b must be finite and > 0. The fixed map of the spec turns them
// into x = 2u − 1.
func Beta(n int, a, b float64, rng *rand.Rand) ([]float64, error) {
	if err := checkN(n, rng); err != nil {
		return nil, err
	}
	if err := checkShape(a, b); err != nil {
		return nil, err
	}
	out := make([]float64, n)
	d := distuv.Beta{Alpha: a, Beta: b, Src: rng}
	for i := range out {
		u, err := betaDraw(d)
		if err != nil {
			return nil, err
		}
		out[i] = u
	}
	return out, nil
}

// betaDraw draws one Beta variate and rejects the NaN that G1/(G1+G2)
// produces when both gamma variates underflow to 0 (only for shape
// parameters far below 1).
func betaDraw(d distuv.Beta) (float64, error) {
	u := d.Rand()
	if !(u >= 0 && u <= 1) {
		return 0, fmt.Errorf("beta(a=%v,b=%v): sampler returned %v (gamma variates underflowed; shape parameters too small)", d.Alpha, d.Beta, u)
	}
	return u, nil
}

func checkShape(a, b float64) error {
	if !finite(a) || !(a > 0) {
		return fmt.Errorf("beta: a must be finite and > 0, got %v", a)
	}
	if !finite(b) || !(b > 0) {
		return fmt.Errorf("beta: b must be finite and > 0, got %v", b)
	}
	return nil
}

func checkN(n int, rng *rand.Rand) error {
	if n <= 0 {
		return fmt.Errorf("n must be > 0, got %d", n)
	}
	if rng == nil {
		return errNilRand
	}
	return nil
}
