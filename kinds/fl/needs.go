package fl

import (
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// estimateNeeds is what a method named after a mechanism needs of it:
// Algorithm 6 averages unbiased reports (mechanisms.NewSampleKofD), so an
// unbiased report with a closed-form variance.
var estimateNeeds = experiment.MethodNeeds{
	Method: experiment.MechanismPlaceholder,
	Needs:  mechanisms.Needs{All: []mechanisms.Capability{mechanisms.CapVariance}},
}

// gridNeeds is what Algorithm 5 (params.levels or segments) needs: a
// bounded report to round, whose rounding has an exact variance
// (mechanisms.NewDiscretized: the piecewise family or a hybrid with one).
var gridNeeds = experiment.MethodNeeds{
	Method: experiment.MechanismPlaceholder,
	When:   "params.levels or segments",
	Needs:  mechanisms.Needs{All: []mechanisms.Capability{mechanisms.CapVariance, mechanisms.CapBounded}},
	Also: func(m mechanisms.Mechanism) error {
		_, err := mechanisms.NewDiscretized(m, 1)
		return err
	},
}

// MechanismNeeds implements experiment.MechanismTaker.
func (Kind) MechanismNeeds() []experiment.MethodNeeds {
	return []experiment.MethodNeeds{estimateNeeds, gridNeeds}
}

// checkNeeds checks the mechanism named method against what the cell
// needs (grid: Algorithm 5's). The capabilities do not depend on ε: a
// budget the mechanism refuses is reported where it runs.
func checkNeeds(method string, eps float64, grid int) error {
	m, err := mechanisms.New(method, eps)
	if err != nil {
		return nil
	}
	need := estimateNeeds
	if grid != 0 {
		need = gridNeeds
	}
	return need.Check(Kind{}.Name(), m)
}
