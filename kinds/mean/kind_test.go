package mean

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/compare"
	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/results"
)

// falseFailure is the probability that a correct cell fails the theory
// check (compare.TheoryCheck).
const falseFailure = 1e-6

// requireTheory fails t for every cell (and the pool) whose measured MSE is
// outside the χ² interval of its exact theory; label prefixes the messages.
func requireTheory(t *testing.T, label string, rows []results.Row) {
	t.Helper()
	bad, pooled := compare.TheoryCheck(rows, 1, falseFailure)
	for _, b := range bad {
		t.Errorf("%s%s", label, b)
	}
	if pooled != nil {
		t.Errorf("%s%v", label, pooled)
	}
}

// The shipped spec at quick scale: every cell's measured MSE agrees with the
// exact theory (1/n²)Σ Var(Y|xᵢ).
func TestShippedSpecMatchesTheory(t *testing.T) {
	spec, err := harness.LoadSpec(filepath.Join("..", "..", "runs", "mean-synthetic.toml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := harness.Run(context.Background(), testKinds, spec, harness.Options{OutDir: dir, Quick: true}); err != nil {
		t.Fatal(err)
	}
	rows, err := results.ReadRowsFile(filepath.Join(dir, harness.RowsFile))
	if err != nil {
		t.Fatal(err)
	}
	requireTheory(t, "", rows)
	// The same check must reject a theory that is off by 30%: with 80 cells
	// of 20 trials the pooled χ²(1600) interval at 1e-6 is about ±17%.
	if _, pooled := compare.TheoryCheck(rows, 1.3, falseFailure); pooled == nil {
		t.Error("the check accepts a theory 30% too high: it cannot fail")
	}
	if _, pooled := compare.TheoryCheck(rows, 1/1.3, falseFailure); pooled == nil {
		t.Error("the check accepts a theory 30% too low: it cannot fail")
	}
}

// Kind mean takes no parameters: params = { foo = … } is an error naming
// the key before anything is written (it used to be silently ignored), and
// so is a key that another kind of this package takes.
func TestMeanRefusesParams(t *testing.T) {
	for _, key := range []string{"foo", "dim"} {
		spec := &harness.Spec{
			Name: "mean-params", Kind: "mean", Seed: 1, Trials: 2, Metrics: []string{"mse"},
			Axes:     harness.Axes{Method: []string{"duchi"}, Eps: []float64{1}, N: []int{100}, Params: map[string][]string{key: {"1"}}},
			Datasets: []datasets.Spec{{Name: "u", Source: "uniform", Lo: -1, Hi: 1}},
		}
		out := filepath.Join(t.TempDir(), "out")
		_, err := harness.Run(context.Background(), testKinds, spec, harness.Options{OutDir: out})
		if err == nil || !strings.Contains(err.Error(), "axes.params."+key+": unknown parameter (valid: none)") {
			t.Errorf("params.%s: %v, want an unknown-parameter error", key, err)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("params.%s: the refused run left %s behind", key, out)
		}
	}
}
