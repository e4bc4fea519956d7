package mean

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
