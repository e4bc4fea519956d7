package mean

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/metrics"
)

// Mean is kind mean, one-dimensional mean estimation: every user sends one
// report of its value through an unbiased mechanism (any registered name;
// "*" is every one) and the collector averages the reports. The truth is
// the dataset's own mean. It takes no parameters.
//
// Metrics: mse (squared error of the trial; its mean over trials is the MSE,
// and the summary adds rmse) and abs (absolute error). The theory of mse is
// exact: (1/n²)·Σᵢ Var(Y | xᵢ) over the dataset's values.
type Mean struct{}

// Name implements experiment.Kind.
func (Mean) Name() string { return "mean" }

// Metrics implements experiment.Kind.
func (Mean) Metrics() []string { return []string{"mse", "abs"} }

// Params implements experiment.Kind: none.
func (Mean) Params() experiment.ParamSet { return nil }

// AllMethods implements experiment.MethodLister: every registered mechanism
// that the kind takes.
func (Mean) AllMethods() []string { return takers(estimateNeeds) }

// Check implements experiment.Kind.
func (Mean) Check(c *experiment.CellSpec) error {
	if err := c.Dataset.Ungrouped(Mean{}.Name()); err != nil {
		return err
	}
	if d := c.Dataset.Dim(); d > 1 {
		return fmt.Errorf("dataset %s has %d attributes per row; the mean kind takes one (use kind mean-md)", c.Dataset.Name, d)
	}
	_, err := unbiasedMechanism(Mean{}.Name(), c)
	return err
}

// unbiasedMechanism builds the cell's mechanism as an unbiased estimate on
// [-1, 1] with its closed-form variance (estimateNeeds; kind names the
// refusal).
func unbiasedMechanism(kind string, c *experiment.CellSpec) (mechanisms.Estimate, error) {
	m, err := checkedMechanism(kind, estimateNeeds, c.Method, c.Eps)
	if err != nil {
		return nil, err
	}
	return mechanisms.Unbiased(m)
}

// Prepare implements experiment.Kind.
func (Mean) Prepare(_ context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	est, err := unbiasedMechanism(Mean{}.Name(), c)
	if err != nil {
		return nil, err
	}
	xs := c.Dataset.Values[:c.N]
	truth := estimators.TrueMean(xs)
	// One batch of variances per 16,384 users for an external program.
	mse, err := estimators.ExpectedMeanMSEErr(est, xs)
	if err != nil {
		return nil, err
	}
	return &meanRun{
		est:     est,
		xs:      xs,
		truth:   truth,
		mse:     mse,
		metrics: c.Metrics,
	}, nil
}

type meanRun struct {
	est     mechanisms.Estimate
	xs      []float64
	truth   float64
	mse     float64
	metrics []string
}

func (r *meanRun) Trial(_ context.Context, _ int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	var buf [estimators.ChunkSize]float64
	mean, err := estimators.MeanOfReports(r.est, r.xs, rng, buf[:])
	if err != nil {
		return out, err
	}
	for _, m := range r.metrics {
		var v float64
		switch m {
		case "mse":
			v = metrics.SquaredError(mean, r.truth)
		case "abs":
			v = metrics.AbsError(mean, r.truth)
		}
		out = append(out, experiment.Measurement{Metric: m, Value: v})
	}
	return out, nil
}

func (r *meanRun) Theory(metric string) (float64, bool) {
	if metric == "mse" {
		return r.mse, true
	}
	return 0, false
}
