package fl

import (
	"fmt"
	"testing"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
)

// storeTable puts tab in the table cache under its name for the test.
func storeTable(t *testing.T, tab *datasets.Table) {
	t.Helper()
	e := &tableEntry{data: derive(tab)}
	e.once.Do(func() {})
	tables.Store(tab.Name, e)
	t.Cleanup(func() { tables.Delete(tab.Name) })
}

// classTable is a classification table of rows rows, p features and k
// classes (every class present), named for the test alone.
func classTable(rows, p, k int) *datasets.Table {
	tab := &datasets.Table{Name: fmt.Sprintf("test-cost-%dx%dx%d", rows, p, k), P: p, Numeric: p, X: make([]float64, rows*p), Y: make([]float64, rows)}
	for i := range rows {
		tab.Y[i] = float64(i % k)
		for j := range p {
			tab.X[i*p+j] = float64((i*7+j*3)%11) / 10
		}
	}
	for c := range k {
		tab.Classes = append(tab.Classes, fmt.Sprint(c))
	}
	return tab
}

// cellOn is a cell of the kind on the table of that name.
func cellOn(table, method string, raw map[string]string) *experiment.CellSpec {
	return &experiment.CellSpec{Experiment: "test", Dataset: &datasets.Dataset{Name: table}, Method: method, Eps: 5, N: 1, Params: params.MustParse(raw), Seed: 3}
}

// TestTrialCostStructure: the cost model's factors, each by an exact
// ratio between two cells that differ in one of them (the model is
// arithmetic, so the ratios are exact):
//
//   - clients: ∝ params.rounds, ∝ the table's rows, ∝ the model's
//     dimension K·(p + 1), and the same for every params.round (the run is
//     trained to the end whichever round a cell reads); its value is the
//     gradient rows of Train, Rounds × (PerRound × Epochs × train/Clients
//   - test) × d;
//   - erm: rows × the model's dimension (p + 1 with the intercept);
//   - mean: rows × the numeric attributes.
//
// Catches a cost without its rounds (a spec of 10 rounds costed as one of
// 50), a cost that follows the round read (fl-baek-fig5 cost its round-1
// cells 1/50 of its round-50 ones, though each trains to the end), a
// missing rows or dimension factor, and the intercept left out.
func TestTrialCostStructure(t *testing.T) {
	small, big, wide := classTable(1000, 4, 3), classTable(2000, 4, 3), classTable(1000, 8, 3)
	for _, tab := range []*datasets.Table{small, big, wide} {
		storeTable(t, tab)
	}
	br, err := datasets.IPUMSStandin("br", 1000, 1)
	if err != nil {
		t.Fatal(err)
	}
	br.Name = "test-cost-br-1000"
	storeTable(t, br)
	br2, err := datasets.IPUMSStandin("br", 2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	br2.Name = "test-cost-br-2000"
	storeTable(t, br2)

	cost := func(table string, raw map[string]string) float64 {
		t.Helper()
		v := Kind{}.TrialCost(cellOn(table, "hm-np", raw))
		if !(v > 0) {
			t.Fatalf("%s %v: TrialCost %g, want > 0", table, raw, v)
		}
		return v
	}
	clients := func(rounds, round string) map[string]string {
		return map[string]string{"task": "clients", "rounds": rounds, "round": round}
	}
	d := float64(3 * (4 + 1))
	// 1000 rows: 200 test, 800 training over 500 clients; 50 of them a
	// round, 5 epochs each.
	if got, want := cost(small.Name, clients("50", "50")), 50*(50*5*(800.0/500)+200)*d; got != want {
		t.Errorf("clients cost %g, want Rounds × (PerRound × Epochs × shard + test) × d = %g", got, want)
	}
	for _, tc := range []struct {
		name       string
		a, b       float64
		wantBOverA float64
	}{
		{"clients: rounds 10 → 50", cost(small.Name, clients("10", "10")), cost(small.Name, clients("50", "10")), 5},
		{"clients: round 1 → 50 of 50", cost(small.Name, clients("50", "1")), cost(small.Name, clients("50", "50")), 1},
		{"clients: rows 1000 → 2000", cost(small.Name, clients("50", "1")), cost(big.Name, clients("50", "1")), 2},
		{"clients: p 4 → 8 (d 15 → 27)", cost(small.Name, clients("50", "1")), cost(wide.Name, clients("50", "1")), 27.0 / 15},
		{"erm: rows 1000 → 2000", cost(br.Name, map[string]string{"model": "linear"}), cost(br2.Name, map[string]string{"model": "linear"}), 2},
		{"erm: intercept off → on", cost(br.Name, map[string]string{"intercept": "false"}), cost(br.Name, map[string]string{"intercept": "true"}), float64(br.P+1) / float64(br.P)},
		{"mean: rows 1000 → 2000", cost(br.Name, map[string]string{"task": "mean"}), cost(br2.Name, map[string]string{"task": "mean"}), 2},
	} {
		if got := tc.b / tc.a; got != tc.wantBOverA {
			t.Errorf("%s: cost ratio %g, want %g", tc.name, got, tc.wantBOverA)
		}
	}
	if got, want := cost(br.Name, map[string]string{"model": "logistic"}), float64(br.Rows()*(br.P+1)); got != want {
		t.Errorf("erm cost %g, want rows × (p + 1) = %g", got, want)
	}
}

// TestCostShareKey: the clients cells that differ only in params.round
// share their cost (one training per trial, the curve cache), and no
// others do: another method, ε, rounds or compat trains another run, and
// task erm memoises nothing. Catches a key that drops more than the
// round (the plan would charge one training for two), or one that keeps
// it (every round charged the whole run: fl-baek-fig5 planned at 74 CPU-s
// against 18 measured).
func TestCostShareKey(t *testing.T) {
	base := map[string]string{"task": "clients", "round": "3"}
	key := func(method string, eps float64, raw map[string]string) string {
		all := map[string]string{}
		for k, v := range base {
			all[k] = v
		}
		for k, v := range raw {
			all[k] = v
		}
		c := cellOn("shuttle", method, all)
		c.Eps = eps
		return Kind{}.CostShareKey(c)
	}
	k0 := key("hm-np", 5, nil)
	if k0 == "" || key("hm-np", 5, map[string]string{"round": "7"}) != k0 {
		t.Errorf("cells differing in round only: keys %q, %q; want one non-empty key", k0, key("hm-np", 5, map[string]string{"round": "7"}))
	}
	for name, k := range map[string]string{
		"method": key("pm-sub", 5, nil),
		"ε":      key("hm-np", 4, nil),
		"rounds": key("hm-np", 5, map[string]string{"rounds": "20"}),
		"compat": key("hm-np", 5, map[string]string{"compat": "true"}),
	} {
		if k == k0 {
			t.Errorf("another %s, same key %q", name, k)
		}
	}
	if k := (Kind{}).CostShareKey(cellOn("shuttle", "pm-sub", map[string]string{"model": "logistic"})); k != "" {
		t.Errorf("task erm: key %q, want none", k)
	}
}
