package central

import (
	"math"

	"github.com/ldpbench/ldpbench/experiment"
)

// TrialCost implements experiment.CostEstimator: a trial is a batch of
// runs, so its cost is the batch's size, not n × dimension, in releases:
//
//   - a central estimator: runs releases of O(1) each (on n and Σx), so
//     the cost does not grow with n; params.target_rse raises runs with
//     the error's kurtosis, which grows with ε (newCell), so the cells of
//     one group differ by up to 50 times (central-fig3c);
//   - an ldp: method: runs collections of n reports, runs × n;
//   - lower-bound: the formula, one unit.
//
// It is 0 (the harness then takes n × dimension) for a cell Check refuses.
func (Kind) TrialCost(c *experiment.CellSpec) float64 {
	r, err := newCell(c, false)
	if err != nil {
		return 0
	}
	switch r.fam {
	case familyBound:
		return 1
	case familyLDP:
		// computeTheory's κ = 3 for an ldp: method, without building its
		// n values: runs ≥ (κ − 1)/target_rse².
		runs := r.runs
		if t := c.Params.Float("target_rse", 0); c.Params.Has("target_rse") {
			runs = max(runs, int(math.Ceil(2/(t*t))))
		}
		return float64(runs) * float64(c.N)
	}
	if c.Params.Has("target_rse") {
		// The batch size depends on the kurtosis, from the data's mean
		// and the error model: the cell as Prepare builds it, which for a
		// central estimator is O(1) (or one pass over a dataset's n
		// values), microseconds.
		if r, err = newCell(c, true); err != nil {
			return 0
		}
	}
	return float64(r.runs)
}
