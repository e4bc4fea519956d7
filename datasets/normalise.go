package datasets

import (
	"fmt"
	"math"
	"strconv"
)

// Normalisation rules, the values of [Normalisation.Rule] and of the
// "normalise" key of a [Spec].
const (
	// RuleMinMax maps the data's own [min, max] onto [-1, 1].
	RuleMinMax = "minmax"
	// RuleFixed maps a-priori bounds [lo, hi] onto [-1, 1].
	RuleFixed = "fixed"
	// RuleNone keeps values that already lie in [-1, 1].
	RuleNone = "none"
)

// Normalisation records how raw values x were mapped onto [-1, 1]:
//
//	minmax, fixed:  y = 2(x − Lo)/(Hi − Lo) − 1
//	none:           y = x            (Lo = −1, Hi = 1)
//
// For "minmax" Lo and Hi are the data's own minimum and maximum; for "fixed"
// they are a-priori bounds, and values outside them are an error unless Clip
// is set, in which case they are clipped to [Lo, Hi] first and counted in
// Clipped. Every result row records [Normalisation.String].
type Normalisation struct {
	Rule    string  // RuleMinMax, RuleFixed or RuleNone
	Lo, Hi  float64 // bounds mapped to −1 and +1
	Clip    bool    // fixed only: clip out-of-range values instead of failing
	Clipped int     // number of values clipped by the last Transform
}

// MinMax returns the "minmax" normalisation of raw: Lo and Hi are its minimum
// and maximum. It fails on an empty slice, a non-finite value or a constant
// slice (max == min), which has no min–max map.
func MinMax(raw []float64) (Normalisation, error) {
	if len(raw) == 0 {
		return Normalisation{}, fmt.Errorf("minmax: no values")
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, x := range raw {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return Normalisation{}, fmt.Errorf("minmax: value %d is %v", i, x)
		}
		lo = math.Min(lo, x)
		hi = math.Max(hi, x)
	}
	return minMaxFrom(lo, hi)
}

func minMaxFrom(lo, hi float64) (Normalisation, error) {
	if !(hi > lo) {
		return Normalisation{}, fmt.Errorf("minmax: all values equal %v (max == min); a constant column cannot be min-max normalised", lo)
	}
	if math.IsInf(hi-lo, 0) {
		return Normalisation{}, fmt.Errorf("minmax: range [%v, %v] overflows", lo, hi)
	}
	return Normalisation{Rule: RuleMinMax, Lo: lo, Hi: hi}, nil
}

// Fixed returns the "fixed" normalisation with a-priori bounds [lo, hi]. They
// must be finite with lo < hi.
func Fixed(lo, hi float64, clip bool) (Normalisation, error) {
	if err := checkRange(lo, hi); err != nil {
		return Normalisation{}, fmt.Errorf("fixed: %v", err)
	}
	return Normalisation{Rule: RuleFixed, Lo: lo, Hi: hi, Clip: clip}, nil
}

// None returns the identity normalisation for values already in [-1, 1].
func None() Normalisation { return Normalisation{Rule: RuleNone, Lo: -1, Hi: 1} }

func checkRange(lo, hi float64) error {
	if !finite(lo) || !finite(hi) || !(lo < hi) || math.IsInf(hi-lo, 0) {
		return fmt.Errorf("need finite lo < hi, got lo=%v hi=%v", lo, hi)
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// String returns the rule and bounds in the form recorded in result rows:
// "minmax[lo=4.2835,hi=334.177]", "fixed[lo=0,hi=1]",
// "fixed[lo=0,hi=100,clipped=12]" (Clip set) or "none". Bounds are printed
// in the shortest form that round-trips exactly.
func (n Normalisation) String() string {
	switch n.Rule {
	case RuleNone:
		return RuleNone
	case RuleMinMax, RuleFixed:
		s := n.Rule + "[lo=" + fmtFloat(n.Lo) + ",hi=" + fmtFloat(n.Hi)
		if n.Clip {
			s += ",clipped=" + strconv.Itoa(n.Clipped)
		}
		return s + "]"
	default:
		return fmt.Sprintf("invalid-rule(%q)", n.Rule)
	}
}

func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// identity reports whether the map is the identity (rule none, or bounds
// exactly [-1, 1]); Apply and Invert then return their argument unchanged,
// bit for bit.
func (n Normalisation) identity() bool {
	return n.Rule == RuleNone || (n.Lo == -1 && n.Hi == 1)
}

// Apply maps one raw value onto [-1, 1]. With Clip set it first clips x to
// [Lo, Hi]; otherwise it does not check the range (see Transform). For x in
// [Lo, Hi] the result lies in [-1, 1] exactly, because every floating-point
// step of 2(x − Lo)/(Hi − Lo) − 1 is monotone.
func (n Normalisation) Apply(x float64) float64 {
	if n.Clip {
		x = math.Max(n.Lo, math.Min(n.Hi, x))
	}
	if n.identity() {
		return x
	}
	return 2*(x-n.Lo)/(n.Hi-n.Lo) - 1
}

// Invert maps a value on [-1, 1] back to the raw data domain:
// Lo + (y + 1)(Hi − Lo)/2. Estimates are reported on the data domain this
// way (Raab et al., App. C).
func (n Normalisation) Invert(y float64) float64 {
	if n.identity() {
		return y
	}
	return n.Lo + (y+1)*(n.Hi-n.Lo)/2
}

// Transform maps raw values onto [-1, 1] in place. Values outside [Lo, Hi]
// (or non-finite values) are an error naming the 0-based index, and then
// nothing is modified; with Clip set, out-of-range finite values are clipped
// and counted in n.Clipped instead.
func (n *Normalisation) Transform(values []float64) error {
	if n.Rule != RuleNone && n.Rule != RuleMinMax && n.Rule != RuleFixed {
		return fmt.Errorf("normalise: unknown rule %q", n.Rule)
	}
	clipped := 0
	for i, x := range values {
		if err := n.check(x); err != nil {
			return fmt.Errorf("normalise: value %d: %v", i, err)
		}
		if x < n.Lo || x > n.Hi {
			clipped++
		}
	}
	for i, x := range values {
		values[i] = n.Apply(x)
	}
	n.Clipped = clipped
	return nil
}

// check returns an error if x cannot be mapped: not finite, or outside
// [Lo, Hi] without Clip.
func (n Normalisation) check(x float64) error {
	if !finite(x) {
		return fmt.Errorf("value %v is not finite", x)
	}
	if !n.Clip && (x < n.Lo || x > n.Hi) {
		hint := ""
		if n.Rule == RuleFixed {
			hint = " (set clip = true to clip)"
		}
		return fmt.Errorf("value %v is outside the %s range [%v, %v]%s", x, n.Rule, n.Lo, n.Hi, hint)
	}
	return nil
}
