package harness

import (
	"context"
	"testing"
)

// TestQuickColumnOnlyWhenReduced: summary.csv's quick column (which marks a
// figure as a pipeline check) is set by a --quick run of a spec whose
// [quick] block reduces the scale, and not by a --quick run of a spec
// without one (it runs at the paper's scale) or with one that repeats the
// full scale. The bug caught: marking every --quick run, so that `make
// figures` labels the full-scale theory figures as pipeline checks.
func TestQuickColumnOnlyWhenReduced(t *testing.T) {
	for _, tc := range []struct {
		name  string
		quick *Quick
		flag  bool
		want  bool
	}{
		{"full run", &Quick{Trials: 2}, false, false},
		{"quick run, fewer trials", &Quick{Trials: 2}, true, true},
		{"quick run, smaller n", &Quick{N: []int{500}}, true, true},
		{"quick run, no quick block", nil, true, false},
		{"quick run, block repeats the full scale", &Quick{Trials: 7, N: []int{2000}}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := smallSpec()
			s.Quick = tc.quick
			if got := s.Reduced(tc.flag); got != tc.want {
				t.Errorf("Reduced(%v) = %v, want %v", tc.flag, got, tc.want)
			}
			res, err := Run(context.Background(), testKinds, s, Options{OutDir: t.TempDir(), Jobs: 2, Quick: tc.flag})
			if err != nil {
				t.Fatal(err)
			}
			for _, sum := range res.Summaries {
				if sum.Quick != tc.want {
					t.Fatalf("summary %s: quick = %v, want %v", sum.Cell().Key(), sum.Quick, tc.want)
				}
			}
		})
	}
}
