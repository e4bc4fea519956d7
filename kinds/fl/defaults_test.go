package fl

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/kinds/kindtest"
)

// ermDefaultsTable is the name under which TestERMDefaults stores a
// 2,000-row BR stand-in in the table cache: a name of its own, so that no
// other test reads (or drops) it and it reads no other test's table.
const ermDefaultsTable = "test-erm-defaults-br-2000"

// ermTrials prepares a task erm cell on the small stand-in (linear model:
// test_mse is continuous, so two trainings that differ in anything differ
// in it; at the default η = 0.1 it oscillates, docs/fl.md, but clipped
// gradients keep it finite and deterministic) with the raw params and returns the test MSE of trials 0…2 under
// the generators PCG(31, t).
func ermTrials(t *testing.T, raw map[string]string) []float64 {
	t.Helper()
	all := map[string]string{"model": "linear"}
	for k, v := range raw {
		all[k] = v
	}
	c := experiment.CellSpec{Dataset: &datasets.Dataset{Name: ermDefaultsTable}, Method: "pm-sub", Eps: 2, N: 1,
		Metrics: []string{"test_mse"}, Params: params.MustParse(all), Seed: 17}
	run, err := Kind{}.Prepare(context.Background(), &c)
	if err != nil {
		t.Fatal(err)
	}
	return kindtest.Trials(t, run, 3, 31)["test_mse"]
}

// TestERMDefaults: for every task erm parameter with a default of its own
// (docs/fl.md, "Defaults for what the papers leave unstated"), a cell
// without the key gives bit for bit the trials of the same cell with the
// key set to the documented default, and different trials with the key
// set to another value (so the parameter reaches the training: the
// equality is not vacuous). Catches a default constant changed (clip 1 →
// 2, η, |G|, λ, θ₀, folds), a default read under another key, or a key
// that the training ignores. Repeats, which changes no trial that exists,
// is checked through the last trial it allows: 5 repeats of 10 folds make
// trial 49 the last. About 0.5 CPU-s.
func TestERMDefaults(t *testing.T) {
	tab, err := datasets.IPUMSStandin("br", 2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	e := &tableEntry{data: derive(tab)}
	e.once.Do(func() {})
	tables.Store(ermDefaultsTable, e)
	t.Cleanup(func() { tables.Delete(ermDefaultsTable) })

	base := ermTrials(t, nil)
	for _, tc := range []struct {
		key, def, other string
	}{
		{"clip", "1", "2"},
		{"eta", "0.1", "0.3"},
		{"group", "1000", "500"},
		{"lambda", "0.0001", "0.01"},
		{"theta0", "0", "0.1"},
		{"intercept", "true", "false"},
		{"folds", "10", "7"},
	} {
		same := ermTrials(t, map[string]string{tc.key: tc.def})
		other := ermTrials(t, map[string]string{tc.key: tc.other})
		for i := range base {
			if base[i] != same[i] {
				t.Errorf("%s: trial %d without the key: test MSE %v; with %s = %s: %v (the default is not %s)", tc.key, i, base[i], tc.key, tc.def, same[i], tc.def)
			}
			if base[i] == other[i] {
				t.Errorf("%s: trial %d: test MSE %v both without the key and with %s = %s (the parameter does not reach the training)", tc.key, i, base[i], tc.key, tc.other)
			}
		}
	}

	c := experiment.CellSpec{Dataset: &datasets.Dataset{Name: ermDefaultsTable}, Method: "pm-sub", Eps: 2, N: 1,
		Metrics: []string{"misclassification_rate"}, Params: params.MustParse(nil), Seed: 17}
	run, err := Kind{}.Prepare(context.Background(), &c)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	if _, err := run.Trial(context.Background(), 49, rng, nil); err != nil {
		t.Errorf("trial 49 with the default 10 folds × 5 repeats: %v", err)
	}
	if _, err := run.Trial(context.Background(), 50, rng, nil); err == nil || !strings.Contains(err.Error(), "folds·repeats = 50") {
		t.Errorf("trial 50 with the default 10 folds × 5 repeats: %v, want an error naming folds·repeats = 50", err)
	}
}
