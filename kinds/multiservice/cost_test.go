package multiservice

import (
	"context"
	"maps"
	"testing"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/kinds/kindtest"
)

// The EM methods of both kinds are iterative (experiment.IterativeCost),
// with the cap of their stopping rule, and CapIterations' params stop
// every EM call of a trial after k iterations, which the trial reports in
// em_iterations: plan's timing at a cell's own n relies on both. The mean
// methods are not iterative. Catches a cap the kind ignores (the trial
// then runs its hundreds of iterations at n = 20,000), a metric plan
// would not find, the converged rule's cap taken for the authors', or a
// mean method timed as EM.
func TestIterativeCost(t *testing.T) {
	three := map[string]string{"services": "sr,pm,sw"}
	with := func(kv ...string) map[string]string {
		p := maps.Clone(three)
		for i := 0; i < len(kv); i += 2 {
			p[kv[i]] = kv[i+1]
		}
		return p
	}
	for _, tc := range []struct {
		method  string
		params  map[string]string
		md      bool
		iterate bool
		max     int
	}{
		{"ule", three, false, true, 10000},
		{"ems-pm", three, false, true, 10000},
		{"ems-best", three, false, true, 10000},
		{"ule", with("stop", "converged"), false, true, 100000},
		{"ule", with("max_iter", "300"), false, true, 300},
		{"ule", with("d", "3"), true, true, 10000},
		{"ems-sw", with("d", "3"), true, true, 10000},
		{"ua", three, false, false, 0},
		{"uwa", with("d", "3"), true, false, 0},
	} {
		var kind interface {
			experiment.Kind
			experiment.IterativeCost
		} = Kind{}
		var cs *experiment.CellSpec
		if tc.md {
			kind = MD{}
			cs = mdCellSpec(t, tc.method, 60000, 3, tc.params, "em_iterations")
		} else {
			cs = cellSpec(t, tc.method, 0.1, 20000, tc.params, "em_iterations")
		}
		if !tc.iterate {
			cs.Metrics = []string{"mse"}
		}
		metric, max, ok := kind.Iterations(cs)
		if ok != tc.iterate || (ok && (metric != "em_iterations" || max != tc.max)) {
			t.Errorf("%s %s %v: Iterations = %q, %d, %v; want em_iterations, %d, %v", kind.Name(), tc.method, tc.params, metric, max, ok, tc.max, tc.iterate)
		}
		if !ok {
			continue
		}
		raw := maps.Clone(tc.params)
		maps.Copy(raw, kind.CapIterations(cs, 7))
		capped := *cs
		var err error
		if capped.Params, err = kind.Params().Parse(raw); err != nil {
			t.Fatal(err)
		}
		run, err := kind.Prepare(context.Background(), &capped)
		if err != nil {
			t.Fatal(err)
		}
		if got := kindtest.Trials(t, run, 1, 3)["em_iterations"]; len(got) != 1 || got[0] != 7 {
			t.Errorf("%s %s %v capped at 7: em_iterations %v, want [7]", kind.Name(), tc.method, tc.params, got)
		}
	}
}
