package multiservice

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/harness"
)

// single-best is the single service with the lowest exact expected MSE on
// the cell's data: in every cell its theory is the minimum of the theories
// of the cell's single-<s> methods, and in every trial its estimate is
// that service's (the methods of a cell see the same reports, TrialKey),
// so its mse and abs rows equal that service's to the bit. The settings
// put the best service in different places (SR at small equal budgets;
// the mixed budgets A1–A4 and the Fig. 8 groups move it), with repeated
// mechanisms (m = 8: PM, the best, twice; ties go to the first) and a group that scores its
// own users from a subset of the services. Nothing here is random beyond
// the reports, and the comparisons are exact (the same functions compute
// both sides), so the test has no false-failure probability.
func TestSingleBestIsTheBestSingle(t *testing.T) {
	ctx := context.Background()
	chosen := map[int]bool{}
	for _, c := range []struct {
		eps    float64
		params map[string]string
	}{
		{0.1, map[string]string{"services": "sr,lap,pm,sw"}},
		{1, map[string]string{"services": "sr,lap,pm,sw"}},
		{4, map[string]string{"services": "sr,lap,pm,sw"}},
		{1, map[string]string{"services": "A", "config": "1"}},
		{1, map[string]string{"services": "A", "config": "2"}},
		{1, map[string]string{"services": "A", "config": "3"}},
		{1, map[string]string{"services": "A", "config": "4"}},
		{2, map[string]string{"services": "sr,lap,pm,sw", "m": "8"}}, // pm twice, at 3 and 7
		{0.5, map[string]string{"services": "sr,lap,pm,sw", "groups": "fig8"}},
		{0.5, map[string]string{"services": "sr,lap,pm,sw", "groups": "fig8", "group": "9"}},
		{3, map[string]string{"services": "sw:0.5,pm:2,lap:0.5"}},
	} {
		name := fmt.Sprintf("eps=%v %v", c.eps, c.params)
		const n = 3000
		trial := func(method string) (theory float64, values []float64, err error) {
			cs := cellSpec(t, method, c.eps, n, c.params, "mse", "abs")
			run, err := Kind{}.Prepare(ctx, cs)
			if err != nil {
				return 0, nil, err
			}
			th, ok := run.Theory("mse")
			if !ok {
				t.Fatalf("%s %s: no theory", name, method)
			}
			for tr := range 3 {
				ms, err := run.Trial(ctx, tr, harness.TrialRand(9, "single-best", "same reports", tr), nil)
				if err != nil {
					t.Fatalf("%s %s: %v", name, method, err)
				}
				for _, m := range ms {
					values = append(values, m.Value)
				}
			}
			return th, values, nil
		}
		bestTh, bestVals, err := trial("single-best")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		argmin, minTh, maxTh := -1, math.Inf(1), math.Inf(-1)
		var argVals []float64
		for s := 1; ; s++ {
			th, vals, err := trial(fmt.Sprintf("single-%d", s))
			if err != nil {
				if strings.Contains(err.Error(), "out of range") {
					break
				}
				if strings.Contains(err.Error(), "does not serve") {
					continue // not in the scored group
				}
				t.Fatalf("%s single-%d: %v", name, s, err)
			}
			if th < minTh {
				argmin, minTh, argVals = s, th, vals
			}
			maxTh = max(maxTh, th)
		}
		if !(maxTh > minTh) {
			t.Fatalf("%s: every service has the same theory %v: the setting cannot tell best from worst", name, minTh)
		}
		if bestTh != minTh {
			t.Errorf("%s: single-best's theory %.6g, but the best single service, %d, has %.6g (the worst %.6g)", name, bestTh, argmin, minTh, maxTh)
		}
		for i := range bestVals {
			if bestVals[i] != argVals[i] {
				t.Errorf("%s: single-best's rows %v differ from single-%d's %v", name, bestVals, argmin, argVals)
				break
			}
		}
		chosen[argmin] = true
		t.Logf("%s: best single-%d, theory %.4g (worst %.4g)", name, argmin, minTh, maxTh)
	}
	if len(chosen) < 2 {
		t.Errorf("the best service is service %v in every setting: the settings do not move it", chosen)
	}
}
