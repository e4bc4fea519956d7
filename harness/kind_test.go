package harness

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/ldpbench/ldpbench/experiment"
)

// toyKind is the kind the runner's tests run: each user adds noise of
// scale params.scale/ε to its value and the collector averages. It is a
// stand-in for a paper's kind (the harness's tests name none): cheap,
// random, with an exact theory, a parameter and a method check.
//
// Methods: "gauss" (normal noise, variance s²) and "uniform" (uniform on
// [-s√3, s√3], the same variance), s = scale/ε. Metrics: mse (theory
// s²/n) and abs.
type toyKind struct{}

var toyParams = experiment.ParamSet{
	experiment.PositiveParam("scale", "noise scale before division by ε (default 1)"),
}

func (toyKind) Name() string                { return "toy" }
func (toyKind) Metrics() []string           { return []string{"mse", "abs"} }
func (toyKind) Params() experiment.ParamSet { return toyParams }
func (toyKind) AllMethods() []string        { return []string{"gauss", "uniform"} }
func (k toyKind) Check(c *experiment.CellSpec) error {
	if !slices.Contains(k.AllMethods(), c.Method) {
		return fmt.Errorf("unknown method %q (valid: %v)", c.Method, k.AllMethods())
	}
	return nil
}

func (k toyKind) Prepare(_ context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	if err := k.Check(c); err != nil {
		return nil, err
	}
	xs := c.Dataset.Values[:c.N]
	var truth float64
	for _, x := range xs {
		truth += x
	}
	s := c.Params.Float("scale", 1) / c.Eps
	return &toyRun{xs: xs, truth: truth / float64(len(xs)), s: s, uniform: c.Method == "uniform", metrics: c.Metrics}, nil
}

type toyRun struct {
	xs      []float64
	truth   float64
	s       float64
	uniform bool
	metrics []string
}

func (r *toyRun) Trial(_ context.Context, _ int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	var sum float64
	for _, x := range r.xs {
		if r.uniform {
			sum += x + r.s*math.Sqrt(3)*(2*rng.Float64()-1)
		} else {
			sum += x + r.s*rng.NormFloat64()
		}
	}
	e := sum/float64(len(r.xs)) - r.truth
	for _, m := range r.metrics {
		v := math.Abs(e)
		if m == "mse" {
			v = e * e
		}
		out = append(out, experiment.Measurement{Metric: m, Value: v})
	}
	return out, nil
}

func (r *toyRun) Theory(metric string) (float64, bool) {
	if metric == "mse" {
		return r.s * r.s / float64(len(r.xs)), true
	}
	return 0, false
}

// testKinds is the registry of the runner's tests.
var testKinds = experiment.Registry{toyKind{}}

// CellBytes implements experiment.MemoryEstimator: a prepared toy cell
// holds nothing of its own beyond a slice header, a trial nothing; here a
// nominal 8 bytes per user so that the runner's sum can be tested.
func (toyKind) CellBytes(c *experiment.CellSpec) (int64, int64) { return 8 * int64(c.N), 0 }
