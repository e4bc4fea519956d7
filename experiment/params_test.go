package experiment

import (
	"math"
	"strings"
	"testing"
)

var testParams = ParamSet{
	IntParam("h", 2, 100, "buckets"),
	FloatParam("v", -1, 1, "input"),
	PositiveParam("tol", "tolerance"),
	BoolParam("smooth", "smoothing"),
	EnumParam("stop", []string{"authors", "converged"}, "rule"),
	StringParam("services", "list"),
}

// Parse accepts every value inside its declared type and bounds, the
// bounds included, and refuses the rest with an error naming the spec key:
// each case is one plausible off-by-one or missing check.
func TestParseBounds(t *testing.T) {
	for _, tc := range []struct {
		raw  map[string]string
		want string // "" = accepted; else a substring of the error
	}{
		{nil, ""},
		{map[string]string{"h": "2"}, ""},
		{map[string]string{"h": "100"}, ""},
		{map[string]string{"h": " 7 "}, ""},
		{map[string]string{"h": "1"}, `axes.params.h: "1": want an integer in [2, 100]`},
		{map[string]string{"h": "101"}, "axes.params.h"},
		{map[string]string{"h": "2.5"}, "axes.params.h"},
		{map[string]string{"h": "1e2"}, "axes.params.h"},
		{map[string]string{"v": "-1"}, ""},
		{map[string]string{"v": "1"}, ""},
		{map[string]string{"v": "1.0000001"}, "axes.params.v"},
		{map[string]string{"v": "NaN"}, "axes.params.v"},
		{map[string]string{"tol": "1e-300"}, ""},
		{map[string]string{"tol": "0"}, `axes.params.tol: "0": want a finite number > 0`},
		{map[string]string{"tol": "-1e-3"}, "axes.params.tol"},
		{map[string]string{"tol": "+Inf"}, "axes.params.tol"},
		{map[string]string{"smooth": "false"}, ""},
		{map[string]string{"smooth": "maybe"}, "axes.params.smooth"},
		{map[string]string{"stop": "converged"}, ""},
		{map[string]string{"stop": "Converged"}, `axes.params.stop: "Converged": want authors | converged`},
		{map[string]string{"services": "anything, at all"}, ""},
		{map[string]string{"bins": "8"}, "axes.params.bins: unknown parameter (valid: h, services, smooth, stop, tol, v)"},
		// The first bad key in sorted order is reported, whatever the map order.
		{map[string]string{"zz": "1", "aa": "1"}, "axes.params.aa"},
	} {
		_, err := testParams.Parse(tc.raw)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.raw, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: error %v, want one containing %q", tc.raw, err, tc.want)
		}
	}
	if _, err := (ParamSet(nil)).Parse(map[string]string{"foo": "1"}); err == nil || !strings.Contains(err.Error(), "(valid: none)") {
		t.Errorf("a kind without parameters: %v, want an unknown-parameter error", err)
	}
}

// The accessors return the given value, trimmed and typed, or the default;
// Values keeps the text as written (a trial key must not change when a
// spec's spacing does not).
func TestParamsRead(t *testing.T) {
	p := testParams.MustParse(map[string]string{"h": " 7", "v": "-0.25", "smooth": "false", "stop": "converged", "services": " a,b "})
	if got := p.Int("h", 100); got != 7 {
		t.Errorf("Int(h) = %d", got)
	}
	if got := p.Float("v", 0); got != -0.25 {
		t.Errorf("Float(v) = %v", got)
	}
	if got := p.Float("tol", 1e-3); got != 1e-3 {
		t.Errorf("Float(tol) default = %v", got)
	}
	if p.Bool("smooth", true) {
		t.Error("Bool(smooth) = true")
	}
	if got := p.String("stop", "authors"); got != "converged" {
		t.Errorf("String(stop) = %q", got)
	}
	if got, ok := p.Lookup("services"); !ok || got != "a,b" {
		t.Errorf("Lookup(services) = %q, %v", got, ok)
	}
	if p.Has("tol") || !p.Has("h") {
		t.Error("Has is wrong")
	}
	if got := p.Values()["services"]; got != " a,b " {
		t.Errorf("Values keeps %q, want the text as written", got)
	}
	var zero Params
	if zero.Int("h", 3) != 3 || zero.Has("h") || !math.IsNaN(zero.Float("v", math.NaN())) {
		t.Error("the zero Params does not return the defaults")
	}
}

// Reading a key the kind did not declare, or with another type, is a bug in
// the kind and panics rather than returning a silent default.
func TestParamsMisreadPanics(t *testing.T) {
	p := testParams.MustParse(nil)
	for name, read := range map[string]func(){
		"undeclared":  func() { p.Int("bins", 0) },
		"wrong type":  func() { p.Float("h", 0) },
		"bool as int": func() { p.Int("smooth", 0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			read()
		}()
	}
}

// Parse never panics, and whatever it accepts reads back inside its bounds.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"7", "-1", "1e-3", "NaN", "true", "converged", " 100 ", "0x10", "1_000"} {
		f.Add("h", s)
		f.Add("tol", s)
	}
	f.Fuzz(func(t *testing.T, key, value string) {
		p, err := testParams.Parse(map[string]string{key: value})
		if err != nil {
			return
		}
		switch key {
		case "h":
			if n := p.Int("h", 0); n < 2 || n > 100 {
				t.Fatalf("h = %q accepted as %d", value, n)
			}
		case "v":
			if x := p.Float("v", 0); !(x >= -1 && x <= 1) {
				t.Fatalf("v = %q accepted as %v", value, x)
			}
		case "tol":
			if x := p.Float("tol", 1); !(x > 0) || math.IsInf(x, 0) {
				t.Fatalf("tol = %q accepted as %v", value, x)
			}
		}
	})
}

// TestParseRange: "lo:hi" with finite lo < hi, and errors for what is not.
// Bugs caught: lo = hi accepted (a zero-width range divides by zero), the
// halves swapped, an infinite end accepted.
func TestParseRange(t *testing.T) {
	for _, tc := range []struct {
		in     string
		lo, hi float64
		ok     bool
	}{
		{"-1:1", -1, 1, true},
		{" 0 : 100 ", 0, 100, true},
		{"1e6:1000001", 1e6, 1000001, true},
		{"1:1", 0, 0, false},
		{"2:1", 0, 0, false},
		{"0:inf", 0, 0, false},
		{"0", 0, 0, false},
		{"a:1", 0, 0, false},
		{"", 0, 0, false},
	} {
		lo, hi, err := ParseRange(tc.in)
		if (err == nil) != tc.ok || (tc.ok && (lo != tc.lo || hi != tc.hi)) {
			t.Errorf("ParseRange(%q) = %v, %v, %v", tc.in, lo, hi, err)
		}
	}
}
