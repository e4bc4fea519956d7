package figures

import (
	"slices"
	"testing"
)

func TestLogTicks(t *testing.T) {
	for _, tc := range []struct {
		min, max float64
		want     []string
	}{
		{1e-6, 1e-2, []string{"1e-06", "1e-05", "0.0001", "0.001", "0.01"}},
		{0.5, 8, []string{"0.5", "1", "2", "5"}},  // less than a decade apart: 2s and 5s
		{0.03, 20, []string{"0.1", "1", "10"}},    // starts below the first decade
		{1.1, 1.9, []string{"1.2", "1.5", "1.8"}}, // no mantissa inside: linear ticks
		{1e-12, 1, []string{"1e-12", "1e-10", "1e-08", "1e-06", "0.0001", "0.01", "1"}},
	} {
		var got []string
		for _, tk := range (logTicks{}).Ticks(tc.min, tc.max) {
			if tk.Value < tc.min || tk.Value > tc.max || tk.Value <= 0 {
				t.Errorf("[%v, %v]: tick %v out of range", tc.min, tc.max, tk.Value)
			}
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("[%v, %v]: labels %q, want %q", tc.min, tc.max, got, tc.want)
		}
	}
}
