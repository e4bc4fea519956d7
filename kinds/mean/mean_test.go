package mean

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/results"
)

// falseFailure is the probability that a correct cell fails the check below.
const falseFailure = 1e-6

// chiSquareCheck tests measured squared errors against the exact theory. The
// estimate of the mean is a sum of n independent reports, so by the CLT it is
// normal, and Σ_trials err²/theory is χ² with `trials` degrees of freedom.
// It reports cells outside the central 1 - falseFailure interval, and the
// pooled statistic over all cells (χ² with cells·trials degrees of freedom).
func chiSquareCheck(rows []results.Row, scale float64) (bad []string, pooled error) {
	type acc struct {
		sum    float64
		trials int
	}
	cells := map[string]*acc{}
	var order []string
	for _, r := range rows {
		if r.Metric != "mse" {
			continue
		}
		k := r.Cell().Key()
		a, ok := cells[k]
		if !ok {
			a = &acc{}
			cells[k] = a
			order = append(order, k)
		}
		a.sum += float64(r.Value) / (float64(r.Theory) * scale)
		a.trials++
	}
	var total float64
	var dof int
	for _, k := range order {
		a := cells[k]
		chi := distuv.ChiSquared{K: float64(a.trials)}
		lo, hi := chi.Quantile(falseFailure/2), chi.Quantile(1-falseFailure/2)
		if a.sum < lo || a.sum > hi {
			bad = append(bad, fmt.Sprintf("%s: Σerr²/theory = %.2f outside [%.2f, %.2f]", k, a.sum, lo, hi))
		}
		total += a.sum
		dof += a.trials
	}
	chi := distuv.ChiSquared{K: float64(dof)}
	if lo, hi := chi.Quantile(falseFailure/2), chi.Quantile(1-falseFailure/2); total < lo || total > hi {
		pooled = fmt.Errorf("pooled Σerr²/theory = %.1f outside [%.1f, %.1f] (%d cells)", total, lo, hi, len(order))
	}
	return bad, pooled
}

// requireTheory fails t for every cell (and the pool) whose measured MSE is
// outside the χ² interval of its exact theory; label prefixes the messages.
func requireTheory(t *testing.T, label string, rows []results.Row) {
	t.Helper()
	bad, pooled := chiSquareCheck(rows, 1)
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
	if _, pooled := chiSquareCheck(rows, 1.3); pooled == nil {
		t.Error("the check accepts a theory 30% too high: it cannot fail")
	}
	if _, pooled := chiSquareCheck(rows, 1/1.3); pooled == nil {
		t.Error("the check accepts a theory 30% too low: it cannot fail")
	}
}
