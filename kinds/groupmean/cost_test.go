package groupmean

import (
	"testing"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/kinds/kindtest"
)

// checked is a cell of the kind, checked as the runner checks it.
func checked(t *testing.T, ds *datasets.Dataset, method string, eps float64, n int, raw map[string]string) *experiment.CellSpec {
	t.Helper()
	c := &experiment.CellSpec{Experiment: "test", Dataset: ds, Method: method, Eps: eps, N: n, Metrics: []string{"scaled_abs_error"}, Seed: 7}
	if err := kindtest.CheckRaw(Kind{}, c, raw); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTrialCostIsTheUsers: a trial's cost is the users who report plus
// the groups, exactly: n per group × params.groups for synthetic data,
// n + round(n/imbalance) under E4's imbalance, the first n rows of a
// grouped dataset; it is the prepared cell's users (len(data.groups)),
// whatever the method or ε. Catches a cost of n alone (E3's 64 groups
// costed as its 2, E4's 10⁶ users of group 1 at imbalance 0.01 as 10⁴)
// and an imbalance applied the wrong way round (n + n·0.01).
func TestTrialCostIsTheUsers(t *testing.T) {
	ph := placeholder(t)
	grouped := &datasets.Dataset{Name: "grouped", Values: make([]float64, 300), Groups: make([]int32, 300), GroupLabels: []string{"a", "b", "c"},
		Normalisation: datasets.Normalisation{Lo: -1, Hi: 1}}
	for i := range grouped.Groups {
		grouped.Groups[i] = int32(i % 3)
	}
	for _, tc := range []struct {
		name         string
		ds           *datasets.Dataset
		method       string
		eps          float64
		n            int
		raw          map[string]string
		users, group int
	}{
		{"E3 2 groups", ph, "bernoulli", 1, 1000, map[string]string{"shape": "uniform", "groups": "2"}, 2000, 2},
		{"E3 64 groups", ph, "nprr(k=8)", 8, 1000, map[string]string{"shape": "uniform", "groups": "64"}, 64000, 64},
		{"E4 imbalance 0.1", ph, "pw", 1, 1000, map[string]string{"shape": "normal", "imbalance": "0.1", "group": "1"}, 11000, 2},
		{"E4 imbalance 0.01", ph, "laplace", 1, 1000, map[string]string{"shape": "normal", "imbalance": "0.01"}, 101000, 2},
		{"grouped dataset, first 200 rows", grouped, "bernoulli", 1, 200, nil, 200, 3},
	} {
		c := checked(t, tc.ds, tc.method, tc.eps, tc.n, tc.raw)
		got := Kind{}.TrialCost(c)
		if want := float64(tc.users + tc.group); got != want {
			t.Errorf("%s: TrialCost %g, want users + groups = %d + %d", tc.name, got, tc.users, tc.group)
		}
		if r := prepare(t, tc.ds, tc.method, tc.eps, tc.n, tc.raw); len(r.data.groups) != tc.users || r.data.d != tc.group {
			t.Errorf("%s: the prepared cell has %d users in %d groups; the table says %d in %d", tc.name, len(r.data.groups), r.data.d, tc.users, tc.group)
		}
	}
}

// TestCostShareKey: the cells whose trials read one tally share their
// cost, the same sets the memo shares: E3's ranges and E4's groups; not
// another ε (under params.crn too, whose trial key leaves ε out but whose
// tallies are per ε), method or shape. Catches a key that merges ε under
// crn (the plan would charge one tally for eight), or one that keeps the
// range (every range charged in full, 3 times E3's reports).
func TestCostShareKey(t *testing.T) {
	ph := placeholder(t)
	key := func(method string, eps float64, raw map[string]string) string {
		all := map[string]string{"shape": "uniform", "groups": "2"}
		for k, v := range raw {
			all[k] = v
		}
		return Kind{}.CostShareKey(checked(t, ph, method, eps, 100, all))
	}
	k0 := key("pw", 1, nil)
	for name, k := range map[string]string{
		"range 0:100": key("pw", 1, map[string]string{"range": "0:100"}),
		"group 1":     key("pw", 1, map[string]string{"group": "1"}),
	} {
		if k != k0 {
			t.Errorf("%s: key %q, want the range −1:1 cell's %q", name, k, k0)
		}
	}
	for name, k := range map[string]string{
		"ε = 2":      key("pw", 2, nil),
		"method":     key("bernoulli", 1, nil),
		"shape":      key("pw", 1, map[string]string{"shape": "normal"}),
		"crn, ε = 2": key("pw", 2, map[string]string{"crn": "true"}),
		"8 groups":   key("pw", 1, map[string]string{"groups": "8"}),
	} {
		if k == k0 {
			t.Errorf("%s: same key %q as the base cell", name, k)
		}
	}
	if a, b := key("pw", 1, map[string]string{"crn": "true"}), key("pw", 2, map[string]string{"crn": "true"}); a == b {
		t.Errorf("crn: ε = 1 and 2 share key %q", a)
	}
}
