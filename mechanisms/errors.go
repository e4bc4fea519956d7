package mechanisms

import (
	"fmt"
	"math"
)

// ParamError reports an invalid constructor parameter.
type ParamError struct {
	Mechanism string
	Param     string
	Value     float64
	Reason    string
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("%s: parameter %s = %v: %s", e.Mechanism, e.Param, e.Value, e.Reason)
}

// InputError reports an input outside a mechanism's domain.
type InputError struct {
	Mechanism string
	Index     int
	Value     float64
	Lo, Hi    float64
}

func (e *InputError) Error() string {
	return fmt.Sprintf("%s: input %d = %v is outside the domain [%v, %v]", e.Mechanism, e.Index, e.Value, e.Lo, e.Hi)
}

// checkEpsilon is the validation every constructor starts with.
func checkEpsilon(mech string, eps float64) error {
	if math.IsNaN(eps) || math.IsInf(eps, 0) || eps <= 0 {
		return &ParamError{Mechanism: mech, Param: "epsilon", Value: eps, Reason: "must be finite and > 0"}
	}
	return nil
}

// checkInputs validates a batch before any randomness is drawn, so that a
// failed batch leaves the generator untouched.
//
// A batch sampler makes a report in a few nanoseconds, so the scan matters.
// On a domain [-h, h] or [0, h] a batch of 16 or more inputs is scanned
// with a few integer operations per input and no branch (inRange), about
// half the cost of a compare and branch per bound; only a batch with a bad
// input, a short one, one on another domain (or on [0, h] with a -0) goes
// through the loop below, which finds the first bad input.
func checkInputs(mech string, xs []float64, lo, hi float64) error {
	if len(xs) >= 16 && (lo == -hi || lo == 0) && hi >= 0 && inRange(xs, lo == 0, hi) {
		return nil
	}
	for i, x := range xs {
		// !(x >= lo) also catches NaN.
		if !(x >= lo) || x > hi {
			return &InputError{Mechanism: mech, Index: i, Value: x, Lo: lo, Hi: hi}
		}
	}
	return nil
}

// inRange reports whether every x is in [-h, h], or in [0, h] if nonNeg,
// and none is NaN; h ≥ 0 and is not NaN. It may also report false for a
// batch on [0, h] that holds a -0; checkInputs then finds the batch valid
// by its compares.
//
// It works on bit patterns, without a branch. The bits of a float64 ≥ +0,
// read as an unsigned integer below 2^63, increase with its value; those
// of a negative float64 (and of -0) have the top bit set, and those of a
// NaN with the top bit cleared are above the bits hb of every h. So for
// b < 2^63, hb - b has its top bit set exactly when b > hb, and the scan
// ORs these differences and looks at the top bit once. For [-h, h], b is
// the bits of |x|; for [0, h], b itself is ORed in as well, so that a
// negative x sets the top bit.
func inRange(xs []float64, nonNeg bool, h float64) bool {
	hb := math.Float64bits(h)
	// Four accumulators, so that consecutive inputs do not wait on each
	// other.
	var a0, a1, a2, a3 uint64
	if nonNeg {
		for len(xs) >= 4 {
			b0, b1 := math.Float64bits(xs[0]), math.Float64bits(xs[1])
			b2, b3 := math.Float64bits(xs[2]), math.Float64bits(xs[3])
			a0 |= b0 | (hb - b0)
			a1 |= b1 | (hb - b1)
			a2 |= b2 | (hb - b2)
			a3 |= b3 | (hb - b3)
			xs = xs[4:]
		}
		for _, x := range xs {
			b := math.Float64bits(x)
			a0 |= b | (hb - b)
		}
	} else {
		const abs = 1<<63 - 1
		for len(xs) >= 4 {
			a0 |= hb - math.Float64bits(xs[0])&abs
			a1 |= hb - math.Float64bits(xs[1])&abs
			a2 |= hb - math.Float64bits(xs[2])&abs
			a3 |= hb - math.Float64bits(xs[3])&abs
			xs = xs[4:]
		}
		for _, x := range xs {
			a0 |= hb - math.Float64bits(x)&abs
		}
	}
	return (a0|a1|a2|a3)>>63 == 0
}
