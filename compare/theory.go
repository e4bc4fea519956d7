package compare

import (
	"fmt"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ldpbench/ldpbench/results"
)

// TheoryCheck tests a run's measured squared errors (the rows of metric
// "mse") against their exact theory, cell by cell and pooled. An unbiased
// estimate of a mean is a sum of n independent reports, so by the CLT its
// error is normal, and Σ_trials err²/theory is χ² with `trials` degrees of
// freedom. It returns one message per cell outside the central
// 1 − falseFailure interval, and an error when the pooled statistic (χ² with
// cells·trials degrees of freedom) is outside its own. scale multiplies the
// theory: a test passes 1.3 and 1/1.3 to show that the check rejects a theory
// 30 % off, i.e. that it can fail. Rows without a theory are skipped.
func TheoryCheck(rows []results.Row, scale, falseFailure float64) (bad []string, pooled error) {
	type acc struct {
		sum    float64
		trials int
	}
	cells := map[string]*acc{}
	var order []string
	for _, r := range rows {
		if r.Metric != "mse" || !r.Theory.Known() {
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
	if dof == 0 {
		return nil, fmt.Errorf("no mse rows with a theory")
	}
	chi := distuv.ChiSquared{K: float64(dof)}
	if lo, hi := chi.Quantile(falseFailure/2), chi.Quantile(1-falseFailure/2); total < lo || total > hi {
		pooled = fmt.Errorf("pooled Σerr²/theory = %.1f outside [%.1f, %.1f] (%d cells)", total, lo, hi, len(order))
	}
	return bad, pooled
}
