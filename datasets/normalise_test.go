package datasets

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestNormalisationString(t *testing.T) {
	tests := []struct {
		n    Normalisation
		want string
	}{
		{Normalisation{Rule: RuleMinMax, Lo: 4.2835, Hi: 334.177}, "minmax[lo=4.2835,hi=334.177]"},
		{Normalisation{Rule: RuleFixed, Lo: 0, Hi: 1}, "fixed[lo=0,hi=1]"},
		{Normalisation{Rule: RuleFixed, Lo: -1, Hi: 1}, "fixed[lo=-1,hi=1]"},
		{Normalisation{Rule: RuleFixed, Lo: 0, Hi: 100, Clip: true, Clipped: 12}, "fixed[lo=0,hi=100,clipped=12]"},
		{Normalisation{Rule: RuleMinMax, Lo: 1.0 / 3, Hi: 1e21}, "minmax[lo=0.3333333333333333,hi=1e+21]"},
		{None(), "none"},
		{Normalisation{}, `invalid-rule("")`},
	}
	for _, tt := range tests {
		if got := tt.n.String(); got != tt.want {
			t.Errorf("String() = %s, want %s", got, tt.want)
		}
	}
}

func TestNormalisationApplyInvert(t *testing.T) {
	tests := []struct {
		n        Normalisation
		raw, out float64
	}{
		{Normalisation{Rule: RuleFixed, Lo: 0, Hi: 1}, 0, -1},
		{Normalisation{Rule: RuleFixed, Lo: 0, Hi: 1}, 0.75, 0.5},
		{Normalisation{Rule: RuleFixed, Lo: 0, Hi: 1}, 1, 1},
		{Normalisation{Rule: RuleMinMax, Lo: 4.2835, Hi: 334.177}, 4.2835, -1},
		{Normalisation{Rule: RuleMinMax, Lo: 4.2835, Hi: 334.177}, 334.177, 1},
		{Normalisation{Rule: RuleFixed, Lo: 180, Hi: 260}, 200, -0.5},
		{Normalisation{Rule: RuleFixed, Lo: 180, Hi: 260, Clip: true}, 300, 1},
		{Normalisation{Rule: RuleFixed, Lo: 180, Hi: 260, Clip: true}, 100, -1},
		// Bounds [-1, 1] and rule none are the identity, bit for bit.
		{Normalisation{Rule: RuleFixed, Lo: -1, Hi: 1}, 1e-300, 1e-300},
		{None(), -0.123456789, -0.123456789},
	}
	for _, tt := range tests {
		if got := tt.n.Apply(tt.raw); got != tt.out {
			t.Errorf("%s.Apply(%v) = %.17g, want %v", tt.n, tt.raw, got, tt.out)
		}
		if tt.raw >= tt.n.Lo && tt.raw <= tt.n.Hi {
			if back := tt.n.Invert(tt.out); math.Abs(back-tt.raw) > 1e-13*math.Max(1, math.Abs(tt.raw)) {
				t.Errorf("%s.Invert(%v) = %.17g, want %v", tt.n, tt.out, back, tt.raw)
			}
		}
	}
}

func TestNormalisationTransform(t *testing.T) {
	raw := []float64{3, 5, 7}
	n, err := MinMax(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Transform(raw); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(raw, []float64{-1, 0, 1}) || n.String() != "minmax[lo=3,hi=7]" {
		t.Errorf("minmax: %v %s", raw, n)
	}

	// Out of range without clip: error naming the index, nothing modified.
	f, err := Fixed(0, 10, false)
	if err != nil {
		t.Fatal(err)
	}
	vals := []float64{0, 10, 10.5}
	if err := f.Transform(vals); err == nil || !strings.Contains(err.Error(), "value 2: value 10.5 is outside the fixed range [0, 10]") {
		t.Errorf("err = %v", err)
	}
	if !slices.Equal(vals, []float64{0, 10, 10.5}) {
		t.Errorf("failed Transform modified the values: %v", vals)
	}
	// With clip: clipped and counted.
	f.Clip = true
	if err := f.Transform(vals); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(vals, []float64{-1, 1, 1}) || f.Clipped != 1 {
		t.Errorf("clip: %v, clipped %d", vals, f.Clipped)
	}
	// Non-finite values are an error even with clip.
	if err := f.Transform([]float64{math.NaN()}); err == nil {
		t.Error("NaN: no error")
	}
	// none checks [-1, 1].
	nn := None()
	if err := nn.Transform([]float64{0.5, -1.5}); err == nil || !strings.Contains(err.Error(), "value 1") {
		t.Errorf("none: err = %v", err)
	}
	bad := Normalisation{Rule: "zscore"}
	if err := bad.Transform([]float64{0}); err == nil {
		t.Error("unknown rule: no error")
	}
}

func TestNormalisationConstructorErrors(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"minmax constant", second(MinMax([]float64{2, 2, 2})), "all values equal 2 (max == min)"},
		{"minmax empty", second(MinMax(nil)), "no values"},
		{"minmax NaN", second(MinMax([]float64{1, math.NaN()})), "value 1 is NaN"},
		{"minmax overflow", second(MinMax([]float64{-math.MaxFloat64, math.MaxFloat64})), "overflows"},
		{"fixed reversed", second(Fixed(1, 0, false)), "need finite lo < hi, got lo=1 hi=0"},
		{"fixed infinite", second(Fixed(0, math.Inf(1), false)), "need finite lo < hi"},
	}
	for _, tt := range tests {
		if tt.err == nil || !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, tt.err, tt.want)
		}
	}
}

func second(_ Normalisation, err error) error { return err }

// TestApplyStaysInDomain: for raw values in [Lo, Hi] the mapped value is in
// [-1, 1] even at awkward bounds, without a final clamp.
func TestApplyStaysInDomain(t *testing.T) {
	for _, n := range []Normalisation{
		{Rule: RuleFixed, Lo: 0.1, Hi: 0.7},
		{Rule: RuleMinMax, Lo: -3.3, Hi: 1e-300},
		{Rule: RuleMinMax, Lo: 4.2835, Hi: 334.177},
	} {
		for _, x := range []float64{n.Lo, math.Nextafter(n.Lo, n.Hi), (n.Lo + n.Hi) / 2, math.Nextafter(n.Hi, n.Lo), n.Hi} {
			if y := n.Apply(x); y < -1 || y > 1 {
				t.Errorf("%s.Apply(%v) = %v outside [-1, 1]", n, x, y)
			}
		}
		if n.Apply(n.Lo) != -1 || n.Apply(n.Hi) != 1 {
			t.Errorf("%s: bounds map to %v, %v", n, n.Apply(n.Lo), n.Apply(n.Hi))
		}
	}
}
