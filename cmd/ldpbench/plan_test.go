package main

import (
	"strings"
	"testing"
)

// `plan` states the counts of the spec at either scale (full by default,
// as for run) and says that its times are an estimate from a calibration;
// catches --quick ignored (quick and full counts equal) and an unlabelled
// estimate.
func TestPlanCLI(t *testing.T) {
	quick, err := runCLI(t, "plan", "mean-synthetic", "--quick", "--calibrate", "300ms")
	if err != nil {
		t.Fatal(err)
	}
	full, err := runCLI(t, "plan", "mean-synthetic", "--calibrate", "300ms")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"260 cells × 40 trials", "AN ESTIMATE", "calibration:", "shards of 2 cores for ≤ 1 h wall"} {
		if !strings.Contains(quick, want) {
			t.Errorf("plan (quick) lacks %q:\n%s", want, quick)
		}
	}
	if !strings.Contains(full, "260 cells × 100 trials") || !strings.Contains(full, "full scale") {
		t.Errorf("plan --full:\n%s", full)
	}
	if _, err := runCLI(t, "plan", "mean-synthetic", "--cores", "0"); err == nil {
		t.Error("--cores 0 accepted")
	}
}
