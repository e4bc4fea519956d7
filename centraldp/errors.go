package centraldp

import (
	"fmt"
	"math"
)

// ParamError reports an invalid constructor parameter: what rejected it,
// the parameter's name and value, and why.
type ParamError struct {
	Where  string
	Param  string
	Value  any
	Reason string
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("%s: %s = %v: %s", e.Where, e.Param, e.Value, e.Reason)
}

// Limits on ε for the staircase family (staircase, 2-D staircase,
// hourglass and the estimators built on them).
//
// Above maxEps, b = e^{−ε} is within a few hundred binades of underflow
// (it underflows at ε ≈ 745, where P(B = 0) becomes 0/0). Below minEps, a
// geometric draw ⌊E/ε⌋ could exceed the 2^52 at which it is clamped
// (E ≤ 45 in practice) and its integer step index would lose meaning.
const (
	minEps = 1e-9
	maxEps = 700
)

func checkStairEps(where string, eps float64) error {
	if !(eps >= minEps && eps <= maxEps) {
		return &ParamError{Where: where, Param: "epsilon", Value: eps, Reason: fmt.Sprintf("must be in [%g, %g]", float64(minEps), float64(maxEps))}
	}
	return nil
}

func checkLaplaceEps(where string, eps float64) error {
	if math.IsNaN(eps) || math.IsInf(eps, 0) || eps <= 0 {
		return &ParamError{Where: where, Param: "epsilon", Value: eps, Reason: "must be finite and > 0"}
	}
	return nil
}

func checkDelta(where string, delta float64) error {
	if math.IsNaN(delta) || math.IsInf(delta, 0) || delta <= 0 {
		return &ParamError{Where: where, Param: "delta", Value: delta, Reason: "must be finite and > 0"}
	}
	return nil
}

// checkGamma accepts γ in [lo, 1]; lo is 0 for the staircases and just
// above 0 (open) for the hourglass.
func checkGamma(where string, gamma float64, openAtZero bool) error {
	ok := gamma >= 0 && gamma <= 1
	reason := "must be in [0, 1]"
	if openAtZero {
		ok = gamma > 0 && gamma <= 1
		reason = "must be in (0, 1]"
	}
	if !ok {
		return &ParamError{Where: where, Param: "gamma", Value: gamma, Reason: reason}
	}
	return nil
}

// checkStairParams checks a staircase's ε in [1e−9, 700], γ in [0, 1] and
// Δ > 0 (the 1-D and the 2-D staircase take the same).
func checkStairParams(where string, eps, gamma, delta float64) error {
	if err := checkStairEps(where, eps); err != nil {
		return err
	}
	if err := checkGamma(where, gamma, false); err != nil {
		return err
	}
	return checkDelta(where, delta)
}
