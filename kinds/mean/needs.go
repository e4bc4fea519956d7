package mean

import (
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// estimateNeeds is what every method of the mean kinds needs of its
// mechanism: an unbiased report with a closed-form variance (the estimate
// is the mean of the unbiased reports, the theory the mean variance).
var estimateNeeds = experiment.MethodNeeds{
	Method: experiment.MechanismPlaceholder,
	Needs:  mechanisms.Needs{All: []mechanisms.Capability{mechanisms.CapVariance}},
}

// gridNeeds is what mean-md's Algorithm 5 (params.levels or segments)
// needs: a bounded report to round to the grid, and a density that the
// rounding's variance is exact for (mechanisms.NewDiscretized: the
// piecewise family or a hybrid with one).
var gridNeeds = experiment.MethodNeeds{
	Method: experiment.MechanismPlaceholder,
	When:   "params.levels or segments",
	Needs:  mechanisms.Needs{All: []mechanisms.Capability{mechanisms.CapVariance, mechanisms.CapBounded}},
	Also: func(m mechanisms.Mechanism) error {
		_, err := mechanisms.NewDiscretized(m, 1)
		return err
	},
}

// checkedMechanism builds the mechanism named method at eps and checks it
// against need, kind naming the refusal.
func checkedMechanism(kind string, need experiment.MethodNeeds, method string, eps float64) (mechanisms.Mechanism, error) {
	m, err := mechanisms.New(method, eps)
	if err != nil {
		return nil, err
	}
	if err := need.Check(kind, m); err != nil {
		return nil, err
	}
	return m, nil
}

// takers returns the methods of kind names that take a mechanism, for
// AllMethods: every registered mechanism that meets need at ε = 1.
func takers(need experiment.MethodNeeds) []string {
	var out []string
	for _, name := range mechanisms.Names() {
		if m, err := mechanisms.New(name, 1); err == nil && need.Met(m) {
			out = append(out, name)
		}
	}
	return out
}

// MechanismNeeds implements experiment.MechanismTaker.
func (Mean) MechanismNeeds() []experiment.MethodNeeds {
	return []experiment.MethodNeeds{estimateNeeds}
}

// MechanismNeeds implements experiment.MechanismTaker.
func (Theory) MechanismNeeds() []experiment.MethodNeeds {
	return []experiment.MethodNeeds{estimateNeeds}
}

// MechanismNeeds implements experiment.MechanismTaker.
func (HT) MechanismNeeds() []experiment.MethodNeeds {
	return []experiment.MethodNeeds{estimateNeeds}
}

// MechanismNeeds implements experiment.MechanismTaker.
func (MD) MechanismNeeds() []experiment.MethodNeeds {
	return []experiment.MethodNeeds{estimateNeeds, gridNeeds}
}
