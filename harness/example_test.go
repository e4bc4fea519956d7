package harness

import (
	"context"
	"fmt"
	"os"

	"github.com/ldpbench/ldpbench/datasets"
)

// A spec can be a Go value as well as a TOML file. Run takes the kinds it
// may run: here testKinds, whose one kind "toy" (kind_test.go) adds noise of
// scale 1/ε to each user's value, so its exact MSE is 1/(ε²n) = 1e-4 at ε = 1
// and n = 10,000. Run writes rows.csv and summary.csv into the output
// directory and returns the summaries, each with the exact theory beside
// the measurement. A program passes its own registry (cmd/ldpbench/kinds.go).
func ExampleRun() {
	spec := &Spec{
		Name:    "example",
		Kind:    "toy",
		Seed:    1,
		Trials:  50,
		Metrics: []string{"mse"},
		Axes: Axes{
			Method: []string{"gauss", "uniform"},
			Eps:    []float64{1},
			N:      []int{10000},
		},
		Datasets: []datasets.Spec{{Name: "uniform", Source: "uniform", Lo: -1, Hi: 1}},
	}
	dir, err := os.MkdirTemp("", "ldpbench-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	res, err := Run(context.Background(), testKinds, spec, Options{OutDir: dir, Jobs: 2})
	if err != nil {
		panic(err)
	}
	for _, s := range res.Summaries {
		if s.Metric == "mse" {
			inside := s.CILo <= s.Theory && s.Theory <= s.CIHi
			fmt.Printf("%s ε=%v: theory %.3g, theory inside the 95%% CI: %t\n", s.Method, s.Eps, s.Theory, inside)
		}
	}
	// Output:
	// gauss ε=1: theory 0.0001, theory inside the 95% CI: true
	// uniform ε=1: theory 0.0001, theory inside the 95% CI: true
}
