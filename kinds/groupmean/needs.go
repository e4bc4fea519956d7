package groupmean

import (
	"errors"
	"fmt"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// valueNeeds is what method value:<m> needs of its value mechanism: an
// unbiased report with a closed-form variance (the estimator and its
// theory), and, beyond the capabilities, the report itself unbiased on
// [-1, 1] (mechanisms/group sends it with the group report as it is; the
// biased ones are methods bernoulli and nprr).
var valueNeeds = experiment.MethodNeeds{
	Method: "value:" + experiment.MechanismPlaceholder,
	Needs:  mechanisms.Needs{All: []mechanisms.Capability{mechanisms.CapVariance}},
	Also: func(m mechanisms.Mechanism) error {
		if lo, hi := m.Domain(); lo != -1 || hi != 1 {
			return fmt.Errorf("the value mechanism must take [-1, 1]: %s takes [%v, %v]", m.Name(), lo, hi)
		}
		if _, biased := m.(mechanisms.Debiaser); biased {
			return errors.New("the value mechanism must be unbiased: " + m.Name() + "'s report is de-biased (use method bernoulli or nprr for the biased ones)")
		}
		return nil
	},
}

// MechanismNeeds implements experiment.MechanismTaker.
func (Kind) MechanismNeeds() []experiment.MethodNeeds {
	return []experiment.MethodNeeds{valueNeeds}
}
