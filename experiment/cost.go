package experiment

// CostEstimator is implemented by a kind whose trials cost is not
// proportional to n: the runner's --shard i/N balances the shards by the
// sum of their cells' estimated costs (greedy longest-processing-time
// first), and `ldpbench plan` scales a short calibration by it. A kind
// without it is costed by DefaultTrialCost, n × the dataset's dimension:
// the number of values a trial perturbs. Only ratios between the cells of
// one kind matter, so the unit is the kind's own (reports drawn, EM
// iterations × buckets...). It must be deterministic and must not depend
// on the machine: every shard computes the same assignment on its own.
type CostEstimator interface {
	// TrialCost returns the relative cost of one trial of the cell (> 0).
	TrialCost(c *CellSpec) float64
}

// DefaultTrialCost is the cost of a trial of a kind that does not estimate
// its own: n × the dataset's dimension, at least 1.
func DefaultTrialCost(c *CellSpec) float64 {
	dim := 1
	if c.Dataset != nil {
		dim = max(c.Dataset.Dim(), 1)
	}
	return max(float64(c.N)*float64(dim), 1)
}

// TrialCost returns the kind's estimate of a trial's cost when it is a
// CostEstimator with a positive, finite answer, else DefaultTrialCost.
func TrialCost(k Kind, c *CellSpec) float64 {
	if e, ok := k.(CostEstimator); ok {
		if v := e.TrialCost(c); v > 0 && v < 1e300 {
			return v
		}
	}
	return DefaultTrialCost(c)
}

// CostSharer is implemented by a kind whose cells share their work: the
// cells with equal, non-empty CostShareKey compute each trial once between
// them, in one process (kind fl's clients cells that differ only in the
// round whose accuracy they read share one training per trial). Their
// TrialCost is then the shared work's, and `ldpbench plan` counts it once
// per set, split evenly among the set's cells, and times one cell of the
// set, not each. Like TrialCost it must be deterministic.
type CostSharer interface {
	// CostShareKey names the set of cells that share cell c's work; ""
	// when c shares nothing.
	CostShareKey(c *CellSpec) string
}

// CostShareKey returns the kind's CostShareKey of the cell when it is a
// CostSharer, else "".
func CostShareKey(k Kind, c *CellSpec) string {
	if s, ok := k.(CostSharer); ok {
		return s.CostShareKey(c)
	}
	return ""
}

// IterativeCost is implemented by a kind whose trials run an iterative
// estimator (EM) whose number of iterations depends on n in a way that no
// timing at a smaller n foresees: Du et al.'s stopping rule ends EM at an
// absolute |ΔLL|, which tightens as n grows, and the count then grows
// between n^0.16 and n^0.40 from cell to cell (docs/scale-out.md). For a
// cell larger than its calibration, `ldpbench plan` times the cell at its
// own n twice with its iterations capped (CapIterations), which gives the
// cost of a trial without its iterations and the cost of one iteration
// there, and multiplies the latter by the iterations a full-scale run of
// the cell recorded (BudgetOptions.Iterations), or else by the count the
// calibration measured, grown as n^(1/3). Like TrialCost it must be
// deterministic.
type IterativeCost interface {
	// Iterations returns the metric in which a trial of cell c reports
	// its iterations (the E-steps of one estimator call, or their mean
	// over the calls of a trial when every call is capped alike) and the
	// cell's cap on them; ok is false when the cell runs no iterative
	// estimator.
	Iterations(c *CellSpec) (metric string, max int, ok bool)
	// CapIterations returns the raw params that stop every estimator
	// call of cell c after k iterations, to be laid over its own.
	CapIterations(c *CellSpec, k int) map[string]string
}
