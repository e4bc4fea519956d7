package figures

import (
	"slices"
	"strings"
	"testing"
)

// raise writes Unicode superscripts as supText's "^{…}" (flat, "^…", for
// a text of several lines), and MissingGlyphs sees through it. Catches
// the fault it fixes: multiservice-fig6d's note "|ΔLL| < 10⁻³ nats" was
// drawn "10³", the font having no ⁻; and a run not closed at the end of
// the text.
func TestRaiseSuperscripts(t *testing.T) {
	for _, tc := range []struct{ in, want, flat string }{
		{"|ΔLL| < 10⁻³ nats", "|ΔLL| < 10^{−3} nats", "|ΔLL| < 10^−3 nats"},
		{"10⁶ users and 2·10⁻¹⁰", "10⁶ users and 2·10^{−10}", "10⁶ users and 2·10^−10"},
		{"(est − truth)² and 10⁹", "(est − truth)² and 10^{9}", "(est − truth)² and 10^9"},
		{"n^{1/3} as is", "n^{1/3} as is", "n^{1/3} as is"},
		{"no superscript", "no superscript", "no superscript"},
	} {
		if got := raise(tc.in, false); got != tc.want {
			t.Errorf("raise(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := raise(tc.in, true); got != tc.flat {
			t.Errorf("raise(%q, flat) = %q, want %q", tc.in, got, tc.flat)
		}
	}
	if m := MissingGlyphs("|ΔLL| < 10⁻³ nats, ε ≤ 0.1, 10⁰–10⁹"); len(m) != 0 {
		t.Errorf("MissingGlyphs of raised superscripts: %q, want none", m)
	}
	if m := MissingGlyphs("x ∈ [0, 1] ∈"); !slices.Equal(m, []rune{'∈'}) {
		t.Errorf("MissingGlyphs(∈) = %q, want [∈] once", m)
	}
	// A raised superscript takes the width of its smaller glyphs: "10⁻³"
	// is as wide as "10^{−3}", narrower than "10−3".
	sty := textStyle(captionSize, 0, 0)
	if w, w2 := sty.Width("10⁻³"), sty.Width("10^{−3}"); w != w2 || w >= sty.Width("10−3") {
		t.Errorf("width of 10⁻³ %v, of 10^{−3} %v, of 10−3 %v", w, w2, sty.Width("10−3"))
	}
}

// A figure spec whose text the font cannot draw is refused with the key
// and the character.
func TestValidateGlyphs(t *testing.T) {
	s := Spec{Name: "f", Metric: "mse", X: "eps", Note: "x ∈ [0, 1]", Labels: map[string]string{"a": "fine, 10⁻³"}}
	err := s.Validate()
	if err == nil || !strings.Contains(err.Error(), `key "note"`) || !strings.Contains(err.Error(), "U+2208") {
		t.Errorf("Validate: %v, want the note's ∈ (U+2208) named", err)
	}
	if err != nil && strings.Contains(err.Error(), "labels.a") {
		t.Errorf("Validate refused a raised superscript: %v", err)
	}
}
