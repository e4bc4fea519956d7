package mean

import "github.com/ldpbench/ldpbench/experiment"

// The kinds of this package pass over the cell's n values once in a trial
// (a report each) and once in Prepare (the truth, the theory): their cost
// is n × the dataset's dimension exactly, which the harness's default
// (experiment.DefaultTrialCost) also says, but only a CostEstimator makes
// `ldpbench plan` scale a timing at 2·10⁴ linearly to 10⁶ records instead
// of by n^b, b fitted between two timings of a few milliseconds, whose
// noise the 50-fold extrapolation multiplies (measured per 10⁶ values at
// n = 2·10⁴, 8·10⁴ and 10⁶: pm 7.1, 6.9, 6.8 ms; sw 8.0, 7.3, 7.2 ms;
// duchi 4.7, 4.3, 4.1 ms). Kind mean-ht's aaa and np-aaa are the
// exception: see HT.TrialCost.

// TrialCost implements experiment.CostEstimator: n × dimension.
func (Mean) TrialCost(c *experiment.CellSpec) float64 { return experiment.DefaultTrialCost(c) }

// TrialCost implements experiment.CostEstimator: n × dimension (every
// user perturbs its d-vector).
func (MD) TrialCost(c *experiment.CellSpec) float64 { return experiment.DefaultTrialCost(c) }

// aaaSolveUnits is the cost of the linear programme an aaa or np-aaa
// trial solves for the noise law of its phase-1 estimate, in values
// reported: 70–150 ms a trial whatever n (measured at n = 2·10⁴, 8·10⁴
// and 10⁶, ε = 1…5, dim = 10), against about 7 ms per 10⁶ reports.
const aaaSolveUnits = 1e7

// TrialCost implements experiment.CostEstimator: n for a registered
// mechanism (a coin per record, a report per sampled one); n plus the
// linear programme for aaa and np-aaa, whose cost does not grow with n
// (a model of n alone put noutput-mean's AAA cells, timed at 2·10⁴ and
// run at 10⁶, 50 times over).
func (HT) TrialCost(c *experiment.CellSpec) float64 {
	if _, ok := aaaMethods[c.Method]; ok {
		return float64(c.N) + aaaSolveUnits
	}
	return experiment.DefaultTrialCost(c)
}
