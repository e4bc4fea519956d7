package experiment_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/harness"
)

// fraction is a minimal kind: each user holds the bit x > 0 and reports it
// by randomized response, truthfully with probability p = e^ε/(1+e^ε); the
// collector de-biases the fraction of ones. Each report has variance
// p(1−p), so the estimate's MSE is exactly p(1−p)/((2p−1)²n): 9.21e-5 at ε = 1
// and n = 10,000.
type fraction struct{}

var fractionParams = experiment.ParamSet{
	experiment.FloatParam("threshold", -1, 1, "a user's bit is x > threshold (default 0)"),
}

func (fraction) Name() string                { return "fraction" }
func (fraction) Metrics() []string           { return []string{"mse"} }
func (fraction) Params() experiment.ParamSet { return fractionParams }

func (fraction) Check(c *experiment.CellSpec) error {
	if c.Method != "rr" {
		return fmt.Errorf("unknown method %q (valid: rr)", c.Method)
	}
	return nil
}

func (fraction) Prepare(_ context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	r := &fractionRun{p: math.Exp(c.Eps) / (1 + math.Exp(c.Eps))}
	t := c.Params.Float("threshold", 0)
	for _, x := range c.Dataset.Values[:c.N] {
		r.bits = append(r.bits, x > t)
		if x > t {
			r.truth++
		}
	}
	r.truth /= float64(c.N)
	return r, nil
}

type fractionRun struct {
	bits     []bool
	p, truth float64
}

func (r *fractionRun) Trial(_ context.Context, _ int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	ones := 0
	for _, b := range r.bits {
		if b == (rng.Float64() < r.p) { // the truth with probability p
			ones++
		}
	}
	est := (float64(ones)/float64(len(r.bits)) - (1 - r.p)) / (2*r.p - 1)
	return append(out, experiment.Measurement{Metric: "mse", Value: (est - r.truth) * (est - r.truth)}), nil
}

func (r *fractionRun) Theory(string) (float64, bool) {
	n := float64(len(r.bits))
	return r.p * (1 - r.p) / ((2*r.p - 1) * (2*r.p - 1) * n), true
}

// A minimal kind, run by the harness: name, metrics, parameters, a cheap
// check, and a prepared cell whose trials draw only from the generator they
// are given. Registering it is one line in a Registry (the command line's is
// cmd/ldpbench/kinds.go); its metric must be described in package metrics.
func Example_minimalKind() {
	spec := &harness.Spec{
		Name: "fraction-example", Kind: "fraction", Seed: 1, Trials: 200, Metrics: []string{"mse"},
		Axes: harness.Axes{
			Method: []string{"rr"}, Eps: []float64{1}, N: []int{10000},
			Params: map[string][]string{"threshold": {"0", "0.5"}},
		},
		Datasets: []datasets.Spec{{Name: "uniform", Source: "uniform", Lo: -1, Hi: 1}},
	}
	dir, err := os.MkdirTemp("", "ldpbench-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	res, err := harness.Run(context.Background(), experiment.Registry{fraction{}}, spec, harness.Options{OutDir: dir})
	if err != nil {
		panic(err)
	}
	for _, s := range res.Summaries {
		if s.Metric == "mse" {
			fmt.Printf("%s: MSE %.3g, theory %.3g, within 3 SE: %t\n", s.Params, s.Mean, s.Theory, math.Abs(float64(s.Mean-s.Theory)) < 3*float64(s.SE))
		}
	}
	// Output:
	// threshold=0: MSE 0.000117, theory 9.21e-05, within 3 SE: true
	// threshold=0.5: MSE 9.16e-05, theory 9.21e-05, within 3 SE: true
}
