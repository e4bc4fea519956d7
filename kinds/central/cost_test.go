package central

import (
	"testing"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/kinds/kindtest"
)

// costOf is the kind's TrialCost of a checked cell.
func costOf(t *testing.T, method string, eps float64, n int, raw map[string]string) float64 {
	t.Helper()
	c := &experiment.CellSpec{Experiment: "test", Dataset: placeholder(t), Method: method, Eps: eps, N: n, Metrics: allMetrics, Seed: 7}
	if err := kindtest.CheckRaw(Kind{}, c, raw); err != nil {
		t.Fatal(err)
	}
	return Kind{}.TrialCost(c)
}

// TestTrialCostIsTheBatch: a trial's cost is its batch, the runs the
// prepared cell makes (runs, or more under target_rse), × n for an ldp:
// method and × 1 for a central estimator, whatever its n; the bound costs
// one unit. Exact equalities (the model is arithmetic, not a timing).
// Catches a cost that grows with n for a central estimator (central-fig4
// and -fig5 run n to 10⁶ with O(1) runs: an n × dimension model put those
// cells 100 times the n = 10⁴ ones), an ldp: cost without its n, and a
// target_rse ignored or computed apart from newCell (central-fig3c's runs
// grow 50 times from ε = 1 to 10: every cell was costed at the median ε's
// batch, the plan 2.6 CPU-s against 5.5 measured).
func TestTrialCostIsTheBatch(t *testing.T) {
	mu := map[string]string{"mu": "0.01", "runs": "1000"}
	rse := map[string]string{"mu": "0.01", "runs": "1000", "target_rse": "0.01"}
	for _, tc := range []struct {
		name   string
		method string
		eps    float64
		n      int
		raw    map[string]string
		perN   bool // the cost is runs × n
	}{
		{"central, n = 10⁴", "central-alg1", 1, 10000, mu, false},
		{"central, n = 10²", "central-alg1", 1, 100, mu, false},
		{"hourglass ε = 1, target_rse", "central-alg3-hg", 1, 10000, rse, false},
		{"hourglass ε = 10, target_rse", "central-alg3-hg", 10, 10000, rse, false},
		{"2-D staircase ε = 10, target_rse", "central-alg3-2d", 10, 10000, rse, false},
		{"ldp n = 1000", "ldp:laplace", 1, 1000, mu, true},
		{"ldp n = 4000", "ldp:laplace", 1, 4000, mu, true},
		{"ldp, target_rse", "ldp:laplace", 1, 1000, rse, true},
	} {
		got := costOf(t, tc.method, tc.eps, tc.n, tc.raw)
		want := float64(prepare(t, tc.method, tc.eps, tc.n, tc.raw).runs)
		if tc.perN {
			want *= float64(tc.n)
		}
		if got != want {
			t.Errorf("%s: TrialCost %g, want the prepared batch %g", tc.name, got, want)
		}
	}
	// The batch under target_rse does grow with ε here (else the rows
	// above would not test that the cost follows it).
	if lo, hi := costOf(t, "central-alg3-hg", 1, 10000, rse), costOf(t, "central-alg3-hg", 10, 10000, rse); !(hi > 10*lo) {
		t.Errorf("hourglass batch at ε = 10 %g, at ε = 1 %g: want over 10 times", hi, lo)
	}
	if got := costOf(t, LowerBound, 1, 10000, mu); got != 1 {
		t.Errorf("lower-bound: TrialCost %g, want 1", got)
	}
}
