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
func checkInputs(mech string, xs []float64, lo, hi float64) error {
	for i, x := range xs {
		// !(x >= lo) also catches NaN.
		if !(x >= lo) || x > hi {
			return &InputError{Mechanism: mech, Index: i, Value: x, Lo: lo, Hi: hi}
		}
	}
	return nil
}
