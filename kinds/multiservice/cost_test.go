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

// TrialCost, which balances --shard, follows where a trial's time goes:
// ULE's iterations over bucket vectors, not n alone. Each case is a
// ratio of two cells' costs with the bounds the measurements of
// docs/times.md and docs/multiservice.md allow. Catches the default
// n × dimension (ULE at 10⁷ users would cost twice 5·10⁶, and EMS as much
// as ULE: multiservice-fig7d's four shards took 9, 15, 14 and 728 CPU-s),
// a grid that never stops growing, iterations that do not grow, services
// beyond two costed as two, and kind multiservice-md costed at N users
// per attribute instead of N/d.
func TestTrialCostFollowsEMWork(t *testing.T) {
	three := map[string]string{"services": "sr,pm,sw"}
	cost := func(method string, n int, params map[string]string) float64 {
		c := cellSpec(t, method, 0.1, 10, params)
		c.N = n
		return Kind{}.TrialCost(c)
	}
	md := func(method string, n int, d string) float64 {
		c := mdCellSpec(t, method, 60, 6, map[string]string{"services": "sr,pm,sw", "d": d})
		c.N = n
		return MD{}.TrialCost(c)
	}
	m := func(k string) map[string]string { return map[string]string{"services": "sr,pm,sw", "m": k} }
	for _, tc := range []struct {
		name   string
		ratio  float64
		lo, hi float64
	}{
		// Measured (docs/multiservice.md, Table 1): 18.4 s at 10⁷ against
		// 15.2 s at 5·10⁶, the grid of (SR, PM, SW) buckets full at both.
		{"ULE 10M ÷ 5M", cost("ule", 1e7, three) / cost("ule", 5e6, three), 1.1, 1.6},
		// 8.75 s at 10⁶ against 6.70 s at 0.5M.
		{"ULE 1M ÷ 0.5M", cost("ule", 1e6, three) / cost("ule", 5e5, three), 1.1, 1.8},
		// 60.1 s at m = 15 against 8.75 s at m = 3, both at 10⁶.
		{"ULE m=15 ÷ m=3", cost("ule", 1e6, m("15")) / cost("ule", 1e6, m("3")), 4, 12},
		// An EMS of one service is a histogram EM: far below ULE.
		{"ULE ÷ EMS of PM, 10⁶", cost("ule", 1e6, three) / cost("ems-pm", 1e6, three), 5, 1000},
		// ems-best runs the three EMS.
		{"ems-best ÷ ems-pm", cost("ems-best", 1e6, three) / cost("ems-pm", 1e6, three), 1.5, 3.5},
		{"UA 1M ÷ 0.5M", cost("ua", 1e6, three) / cost("ua", 5e5, three), 1.999, 2.001},
		// d attributes of N/d users: at d = 60 each EM sees 20,000
		// users, at d = 10 117,000; the iterations and the vectors both
		// fall with N/d, so d = 60 costs less in all.
		{"md ULE d=10 ÷ d=60", md("ule", 1172556, "10") / md("ule", 1172556, "60"), 1.2, 6},
	} {
		if !(tc.ratio >= tc.lo && tc.ratio <= tc.hi) {
			t.Errorf("%s = %.3g, want in [%g, %g]", tc.name, tc.ratio, tc.lo, tc.hi)
		}
	}
}
