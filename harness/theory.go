package harness

import (
	"fmt"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// theoryKind evaluates closed forms instead of sampling: each cell is one
// mechanism at one budget, and its single trial reports the worst-case
// variance on the [-1, 1] input scale (and the variance at x = 0 and x = 1).
// Specs of this kind draw the papers' theory figures; they need no dataset
// values, but name one dataset so that cells have the usual shape.
type theoryKind struct{}

var theoryMetrics = []string{"worst_case_variance", "variance_at_0", "variance_at_1"}

func (theoryKind) Name() string         { return "theory" }
func (theoryKind) Metrics() []string    { return theoryMetrics }
func (theoryKind) AllMethods() []string { return mechanisms.Names() }

func (k theoryKind) Check(c *CellSpec) error {
	_, err := k.Prepare(c)
	return err
}

func (theoryKind) Prepare(c *CellSpec) (CellRun, error) {
	est, err := unbiasedMechanism(c)
	if err != nil {
		return nil, err
	}
	return &theoryRun{est: est, metrics: c.Metrics}, nil
}

type theoryRun struct {
	est     mechanisms.Estimate
	metrics []string
}

func (r *theoryRun) Trial(trial int, _ *rand.Rand, out []Measurement) ([]Measurement, error) {
	if trial != 0 {
		return out, fmt.Errorf("the theory kind is deterministic: set trials = 1")
	}
	for _, m := range r.metrics {
		v, _ := r.Theory(m)
		out = append(out, Measurement{m, v})
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
	}
	return 0, false
}
