package figures

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

func labels(ticks []plot.Tick) []string {
	var out []string
	for _, tk := range ticks {
		if tk.Label != "" {
			out = append(out, tk.Label)
		}
	}
	return out
}

func TestLogTicks(t *testing.T) {
	for _, tc := range []struct {
		min, max float64
		at       []float64
		want     []string
	}{
		{1e-6, 1e-2, nil, []string{"10^{−6}", "10^{−5}", "10^{−4}", "10^{−3}", "10^{−2}"}},
		{0.5, 8, nil, []string{"0.5", "1", "2", "5"}}, // less than a decade apart: 2s and 5s
		{0.03, 20, nil, []string{"0.1", "1", "10"}},   // starts below the first decade
		{0.001, 20, nil, []string{"0.001", "0.01", "0.1", "1", "10"}},
		{1.1, 1.9, nil, []string{"1.2", "1.4", "1.6", "1.8"}}, // no mantissa inside: linear ticks
		{1e-12, 1, nil, []string{"10^{−12}", "10^{−10}", "10^{−8}", "10^{−6}", "10^{−4}", "10^{−2}", "10^{0}"}},
		{1e3, 1e6, nil, []string{"10^{3}", "10^{4}", "10^{5}", "10^{6}"}},          // never 100000 beside 1e+06
		{0.4, 10, []float64{0.5, 1, 2, 4, 8}, []string{"0.5", "1", "2", "4", "8"}}, // the sweep's own values
	} {
		got := labels(logTicks{at: tc.at}.Ticks(tc.min, tc.max))
		for _, tk := range (logTicks{at: tc.at}).Ticks(tc.min, tc.max) {
			if tk.Value < tc.min || tk.Value > tc.max || tk.Value <= 0 {
				t.Errorf("[%v, %v]: tick %v out of range", tc.min, tc.max, tk.Value)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("[%v, %v]: labels %q, want %q", tc.min, tc.max, got, tc.want)
		}
	}
}

// TestLogRange: a log y axis spans whole decades, at least three of them
// labelled.
func TestLogRange(t *testing.T) {
	for _, tc := range []struct{ min, max, lo, hi float64 }{
		{2e-4, 5e-3, 1e-4, 1e-2},
		{0.18, 0.58, 0.01, 1}, // a JS divergence: decades below, none above ln 2
		{1e-7, 5e-3, 1e-7, 1e-2},
		{0.5, 0.5, 0.01, 1},
		{1e-3, 1e-1, 1e-3, 1e-1},
	} {
		lo, hi := logRange(tc.min, tc.max)
		if math.Abs(lo/tc.lo-1) > 1e-12 || math.Abs(hi/tc.hi-1) > 1e-12 {
			t.Errorf("logRange(%v, %v) = %v, %v; want %v, %v", tc.min, tc.max, lo, hi, tc.lo, tc.hi)
		}
		if got := labels(logTicks{}.Ticks(lo, hi)); len(got) < 3 {
			t.Errorf("logRange(%v, %v): labels %q, want at least three decades", tc.min, tc.max, got)
		}
	}
}

func TestLinTicks(t *testing.T) {
	for _, tc := range []struct {
		name     string
		min, max float64
		ticker   linTicks
		want     []string
	}{
		{"ε 0 to 8 on every integer", 0, 8, linTicks{maxLabels: 9}, []string{"0", "1", "2", "3", "4", "5", "6", "7", "8"}},
		{"ε 0.5 to 5", 0.5, 5, linTicks{maxLabels: 9}, []string{"1", "2", "3", "4", "5"}},
		{"integer axis: no half steps", 1, 4, linTicks{maxLabels: 9, integer: true}, []string{"1", "2", "3", "4"}},
		{"a few percent", 0.9957, 1.0039, linTicks{maxLabels: 5}, []string{"0.996", "0.998", "1", "1.002"}},
		{"negatives", -4, 33, linTicks{maxLabels: 6}, []string{"0", "10", "20", "30"}},
		{"large: one notation", 0, 1e6, linTicks{maxLabels: 6}, []string{"0", "2×10^{5}", "4×10^{5}", "6×10^{5}", "8×10^{5}", "10^{6}"}},
		{"the sweep's values", 3.5, 16.5, linTicks{maxLabels: 9, at: []float64{4, 8, 12, 16}}, []string{"4", "8", "12", "16"}},
	} {
		if got := labels(tc.ticker.Ticks(tc.min, tc.max)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: labels %q, want %q", tc.name, got, tc.want)
		}
	}
	// ε from 0.5 to 8 is drawn from 0 to 8, every integer labelled.
	lo, hi := snapRange(0.5, 8, linTicks{maxLabels: 9})
	if lo != 0 || hi != 8 {
		t.Errorf("snapRange(0.5, 8) = %v, %v; want 0, 8", lo, hi)
	}
	if got := labels(linTicks{maxLabels: 9}.Ticks(lo, hi)); len(got) != 9 {
		t.Errorf("ε 0 to 8: labels %q", got)
	}
	// Whiskers from −23.3 to −12.7 (a box plot of ages): labelled every 2
	// (6 labels); snapped at both ends to −24 and −12 they would take 7,
	// and the step 5 two labels. The bug caught: an axis of −20 and −15.
	lo, hi = snapRange(-23.3, -12.7, linTicks{maxLabels: 6})
	if got := labels(linTicks{maxLabels: 6}.Ticks(lo, hi)); len(got) < 5 {
		t.Errorf("snapRange(−23.3, −12.7) = %v, %v: labels %q, want the step 2", lo, hi, got)
	}
}

// TestNotation: every label of an axis is in one notation.
func TestNotation(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		n    notation
		want string
	}{
		{0.001, plain, "0.001"}, {5000, plain, "5000"}, {-0.5, plain, "−0.5"}, {0.05, plain, "0.05"},
		{1e5, scientific, "10^{5}"}, {1e-3, scientific, "10^{−3}"}, {2e-3, scientific, "2×10^{−3}"},
		{2.5e6, scientific, "2.5×10^{6}"}, {0, scientific, "0"}, {9.9999999e-4, scientific, "10^{−3}"},
	} {
		if got := formatNumber(tc.v, tc.n); got != tc.want {
			t.Errorf("formatNumber(%v, %v) = %q, want %q", tc.v, tc.n, got, tc.want)
		}
	}
	ticks := []plot.Tick{{Value: 1e4, Label: ticked}, {Value: 1e5, Label: ticked}, {Value: 1e6, Label: ticked}}
	labelTicks(ticks, auto)
	for _, tk := range ticks {
		if !strings.HasPrefix(tk.Label, "10^{") {
			t.Errorf("auto notation of 10^4..10^6: %q, want all scientific", labels(ticks))
		}
	}
}

func TestSupTextRuns(t *testing.T) {
	got := runs("2×10^{−3}")
	want := []run{{"2×10", false}, {"−3", true}}
	if !slices.Equal(got, want) {
		t.Errorf("runs = %v, want %v", got, want)
	}
	sty := textStyle(tickSize, 0, 0)
	if w, plainW := sty.Width("10^{−3}"), sty.Width("10−3"); !(w < plainW && w > sty.Width("10")) {
		t.Errorf("width of 10^{−3} is %v; 10−3 is %v", w, plainW)
	}
}

func TestEvenly(t *testing.T) {
	for _, tc := range []struct {
		v    []float64
		want bool
	}{
		{[]float64{4, 8, 12, 16}, true}, {[]float64{0.1, 0.2, 0.30000000000000004, 0.4}, true},
		{[]float64{0.5, 1, 2, 4, 8}, false}, {[]float64{1, 2}, false}, {[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, false},
	} {
		if got := evenly(tc.v); got != tc.want {
			t.Errorf("evenly(%v) = %v", tc.v, got)
		}
	}
}
