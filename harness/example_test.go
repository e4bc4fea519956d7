package harness_test

import (
	"context"
	"fmt"
	"os"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/harness"
)

// A spec can be a Go value as well as a TOML file. The theory values are
// (1/n²)Σ Var(Y|xᵢ): for Duchi at ε = 1 on uniform data about
// (((e+1)/(e-1))² - 1/3)/n = 4.35e-4. Run writes rows.csv and
// summary.csv into the output directory and returns the summaries, each
// with the exact theory beside the measurement.
func ExampleRun() {
	spec := &harness.Spec{
		Name:    "example",
		Kind:    "mean",
		Seed:    1,
		Trials:  50,
		Metrics: []string{"mse"},
		Axes: harness.Axes{
			Method: []string{"duchi", "pm"},
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
	res, err := harness.Run(context.Background(), spec, harness.Options{OutDir: dir, Jobs: 2})
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
	// duchi ε=1: theory 0.000435, theory inside the 95% CI: true
	// pm ε=1: theory 0.00042, theory inside the 95% CI: true
}
