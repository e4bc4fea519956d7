package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/experiment"
)

// centralSum is a new kind as a newcomer would add it, in under 60 lines: the
// collector sees the values and adds Laplace noise of scale 2/ε to their sum
// (central DP, sensitivity 2 on [-1, 1]); the error of the mean has variance
// 2(2/ε)²/n².
type centralSum struct{}

func (centralSum) Name() string                { return "central-sum" }
func (centralSum) Metrics() []string           { return []string{"mse"} }
func (centralSum) Params() experiment.ParamSet { return nil }
func (centralSum) Check(c *experiment.CellSpec) error {
	if c.Method != "laplace" {
		return fmt.Errorf("unknown method %q (valid: laplace)", c.Method)
	}
	return nil
}
func (centralSum) Prepare(_ context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	return centralSumRun{b: 2 / c.Eps, n: float64(c.N)}, nil
}

type centralSumRun struct{ b, n float64 }

func (r centralSumRun) Trial(_ context.Context, _ int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	noise := r.b * (rng.ExpFloat64() - rng.ExpFloat64()) // Laplace(b)
	return append(out, experiment.Measurement{Metric: "mse", Value: (noise / r.n) * (noise / r.n)}), nil
}

func (r centralSumRun) Theory(string) (float64, bool) { return 2 * r.b * r.b / (r.n * r.n), true }

const centralSumSpec = `name = "central-sum"
kind = "central-sum"
seed = 3
trials = 400
metrics = ["mse"]
[axes]
method = ["laplace"]
eps = [0.5, 1]
n = [1000]
[[datasets]]
name = "u"
source = "uniform"
`

// A kind defined in a test runs through `ldpbench run` once it is in the
// registry, and the CLI's errors name it for an unknown one.
func TestNewKindRunsThroughCLI(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.toml")
	if err := os.WriteFile(spec, []byte(centralSumSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	err := run(context.Background(), kinds, []string{"run", spec, "--out", filepath.Join(dir, "a")}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), `unknown kind "central-sum"`) {
		t.Fatalf("without registration: %v, want an unknown-kind error", err)
	}
	with := append(experiment.Registry{centralSum{}}, kinds...)
	if err := run(context.Background(), with, []string{"run", spec, "--out", filepath.Join(dir, "b")}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s%s", err, out.String(), errOut.String())
	}
	summary, err := os.ReadFile(filepath.Join(dir, "b", "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// Two cells of mse plus their derived rmse, and the theory 8/(ε²n²).
	if got := strings.Count(string(summary), "\ncentral-sum,"); got != 4 {
		t.Errorf("summary.csv has %d rows of the experiment, want 4:\n%s", got, summary)
	}
	// (theory is followed by the ci_method, quick and outliers columns)
	if !strings.Contains(string(summary), ",3.2e-05,chi2,false,") || !strings.Contains(string(summary), ",8e-06,chi2,false,") {
		t.Errorf("summary.csv lacks the theories 3.2e-05 (ε = 0.5) and 8e-06 (ε = 1):\n%s", summary)
	}
}
