package mean

import (
	"testing"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
)

// TestTrialCostStructure: the cost models' factors, by exact ratios
// between cells that differ in one of them: kinds mean and mean-md cost n
// × the dataset's dimension, mean-ht's mechanisms n, and mean-ht's aaa
// and np-aaa n plus a linear programme that does not grow with n. Catches
// a model without its n (plan would cost a 10⁶-record cell as its 2·10⁴
// calibration), without the dimension (mean-md's d = 10 cells as d = 1),
// and an AAA cost of n alone (noutput-mean's AAA cells, timed at 2·10⁴
// and run at 10⁶, 50 times over: their trials cost 70–150 ms at either
// size).
func TestTrialCostStructure(t *testing.T) {
	one := &datasets.Dataset{Name: "one", Values: make([]float64, 4000)}
	three := &datasets.Dataset{Name: "three", Values: make([]float64, 3*4000), Dims: 3}
	cell := func(ds *datasets.Dataset, method string, n int) *experiment.CellSpec {
		return &experiment.CellSpec{Dataset: ds, Method: method, Eps: 2, N: n, Params: htParams.MustParse(map[string]string{"dim": "10"})}
	}
	for _, tc := range []struct {
		name string
		k    experiment.CostEstimator
		a, b *experiment.CellSpec
		want float64 // cost(b) / cost(a)
	}{
		{"mean: n 1000 → 4000", Mean{}, cell(one, "pm", 1000), cell(one, "pm", 4000), 4},
		{"mean: dim 1 → 3", Mean{}, cell(one, "pm", 1000), cell(three, "pm", 1000), 3},
		{"mean-md: n 1000 → 4000", MD{}, cell(three, "pm-sub", 1000), cell(three, "pm-sub", 4000), 4},
		{"mean-md: dim 1 → 3", MD{}, cell(one, "pm-sub", 1000), cell(three, "pm-sub", 1000), 3},
		{"mean-ht: n 1000 → 4000", HT{}, cell(one, "hm-tp", 1000), cell(one, "hm-tp", 4000), 4},
	} {
		if got := tc.k.TrialCost(tc.b) / tc.k.TrialCost(tc.a); got != tc.want {
			t.Errorf("%s: cost ratio %g, want %g", tc.name, got, tc.want)
		}
	}
	if got, want := (Mean{}).TrialCost(cell(three, "pm", 1000)), 3000.0; got != want {
		t.Errorf("mean: cost %g, want n × dim = %g", got, want)
	}
	for _, m := range []string{"aaa", "np-aaa"} {
		small, big := (HT{}).TrialCost(cell(one, m, 20000)), (HT{}).TrialCost(cell(one, m, 1000000))
		if big-small != 1000000-20000 {
			t.Errorf("%s: cost at n = 10⁶ − at 2·10⁴ = %g, want the 980,000 records' reports", m, big-small)
		}
		if r := big / small; !(r < 1.2) {
			t.Errorf("%s: cost at n = 10⁶ is %g times that at 2·10⁴, want < 1.2 (the linear programme, not n, dominates)", m, r)
		}
	}
}
