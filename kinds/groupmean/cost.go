package groupmean

import (
	"strconv"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
)

// TrialCost implements experiment.CostEstimator: a trial draws every
// user's report (the simulators are linear in the users, with a tally of
// O(1) per group on top), so its cost is the users plus the groups,
// whereas n × dimension counts n, the users of one group for synthetic
// data: E3's 64 groups are 32 times its 2 groups at the same n, and E4's
// imbalance 0.01 puts 100 n users in group 1. It is 0 (the harness then
// takes n × dimension) for a cell Check refuses.
func (Kind) TrialCost(c *experiment.CellSpec) float64 {
	users, groups, err := usersOf(c)
	if err != nil {
		return 0
	}
	return float64(users) + float64(groups)
}

// usersOf returns the users and groups of the cell's data without
// building them: source's sizes (n per group, or ImbalancedSizes), or the
// first n rows of a grouped dataset.
func usersOf(c *experiment.CellSpec) (users, groups int, err error) {
	src, err := source(c)
	if err != nil {
		return 0, 0, err
	}
	p := c.Params
	if !p.Has("shape") {
		return c.N, src.groups, nil
	}
	if imb := p.Float("imbalance", 1); imb != 1 {
		for _, s := range datasets.ImbalancedSizes(c.N, imb) {
			users += s
		}
		return users, src.groups, nil
	}
	return c.N * src.groups, src.groups, nil
}

// CostShareKey implements experiment.CostSharer: the cells whose trials
// read one tally (the tallies memo: the same trial key, and ε, which a
// trial key under params.crn leaves out) draw the reports once between
// them: E3's three ranges, E4's two groups.
func (Kind) CostShareKey(c *experiment.CellSpec) string {
	return Kind{}.TrialKey(c) + ";tally-eps=" + strconv.FormatFloat(c.Eps, 'g', -1, 64)
}
