package fl

import (
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// The needs of the methods named after a mechanism are the shared ones of
// package experiment.
var (
	estimateNeeds = experiment.UnbiasedNeeds
	gridNeeds     = experiment.DiscretizedNeeds
)

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
