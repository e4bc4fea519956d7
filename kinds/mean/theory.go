package mean

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// Theory is kind theory: it evaluates closed forms instead of sampling: each cell is one
// mechanism at one budget, and its single trial reports the worst-case
// variance on the [-1, 1] input scale (and the variance at x = 0 and x = 1).
// Specs of this kind draw the papers' theory figures; they need no dataset
// values, but name one dataset so that cells have the usual shape.
//
// worst_case_ratio is the method's worst case divided by that of the
// mechanism named by the cell's "reference" parameter (axes.params), at the
// same budget: the relative comparisons of Zhao et al. Fig. 1 and
// Baek & Chung Fig. 2, where differences of a few percent decide the claims.
// Further metrics (worst_case_gain_pct, bits, bits_table2 in
// theory_noutput.go; p0_given_0, piecewise_t in theory_zhao.go) serve the
// other theory figures and tables; a metric that does not apply to a
// method (piecewise_t of Three-Outputs) is refused when the cell is
// checked.
type Theory struct{}

var theoryMetrics = []string{"worst_case_variance", "variance_at_0", "variance_at_1", "worst_case_ratio"}

var theoryParams = experiment.ParamSet{
	experiment.StringParam("reference", "the mechanism that worst_case_ratio and worst_case_gain_pct compare with, at the same ε"),
}

// Name implements experiment.Kind.
func (Theory) Name() string { return "theory" }

// Metrics implements experiment.Kind.
func (Theory) Metrics() []string { return slices.Concat(theoryMetrics, theoryExtraMetrics) }

// Params implements experiment.Kind.
func (Theory) Params() experiment.ParamSet { return theoryParams }

// AllMethods implements experiment.MethodLister: every registered mechanism
// that the kind takes.
func (Theory) AllMethods() []string { return takers(estimateNeeds) }

// Check implements experiment.Kind: it builds the cell, which is cheap.
func (k Theory) Check(c *experiment.CellSpec) error {
	_, err := k.Prepare(context.Background(), c)
	return err
}

// Prepare implements experiment.Kind.
func (Theory) Prepare(_ context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	est, err := unbiasedMechanism(Theory{}.Name(), c)
	if err != nil {
		return nil, err
	}
	for _, m := range c.Metrics {
		if err := checkTheoryMetric(m, c.Method, est); err != nil {
			return nil, err
		}
	}
	r := &theoryRun{est: est, metrics: c.Metrics}
	if slices.ContainsFunc(c.Metrics, usesReference) {
		name, ok := c.Params.Lookup("reference")
		if !ok {
			return nil, theoryParams.Errorf("reference", "metrics worst_case_ratio and worst_case_gain_pct need it (a mechanism name)")
		}
		ref, err := unbiasedMechanism(Theory{}.Name(), &experiment.CellSpec{Method: name, Eps: c.Eps})
		if err != nil {
			return nil, theoryParams.Errorf("reference", "%v", err)
		}
		r.reference = ref
	}
	return r, nil
}

type theoryRun struct {
	est       mechanisms.Estimate
	reference mechanisms.Estimate // for worst_case_ratio
	metrics   []string
}

func (r *theoryRun) Trial(_ context.Context, trial int, _ *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	if trial != 0 {
		return out, fmt.Errorf("the theory kind is deterministic: set trials = 1")
	}
	for _, m := range r.metrics {
		v, _ := r.Theory(m)
		out = append(out, experiment.Measurement{Metric: m, Value: v})
	}
	return out, nil
}

func (r *theoryRun) Theory(metric string) (float64, bool) {
	switch metric {
	case "worst_case_variance":
		return r.est.WorstCaseVariance(), true
	case "variance_at_0":
		return r.est.Variance(0), true
	case "variance_at_1":
		return r.est.Variance(1), true
	case "worst_case_ratio":
		return r.est.WorstCaseVariance() / r.reference.WorstCaseVariance(), true
	}
	return theoryExtra(metric, r.est, r.reference)
}
