package central

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/centraldp"
	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// Kind is kind central-mean: a trusted curator releases one ε-DP estimate
// of a dataset's mean (Kulesza et al.), or, for an ldp: method, every user
// randomises their own value; a trial is a batch of runs on the same
// data, and records the batch's mean squared error against μ(D). See the
// package documentation for the methods, parameters and metrics.
type Kind struct{}

// Name implements experiment.Kind.
func (Kind) Name() string { return "central-mean" }

// Metrics implements experiment.Kind.
func (Kind) Metrics() []string { return []string{"mse", "mse_norm_sec6", "mse_norm_apph"} }

// Default batch sizes: a central run is O(1), a local one n reports.
const (
	defaultRuns    = 100_000
	defaultLDPRuns = 100
)

var params = experiment.ParamSet{
	experiment.FloatParam("mu", -1e15, 1e15, "synthetic data: their mean μ, in data units within range (required unless data = dataset)"),
	experiment.StringParam("range", "the data range lo:hi that the estimators clip to (default 0:1, the paper's)"),
	experiment.EnumParam("data", []string{dataExtremes, dataConstant, dataDataset}, "extremes (default: ⌊nα⌋ values at hi, one between, the rest at lo; mean exactly μ), constant (every value μ), dataset (the dataset's first n values, mapped from [−1, 1] onto the range)"),
	experiment.IntParam("runs", 1, 1_000_000_000, "runs per trial: a trial records the mean squared error of a batch of runs (default 100,000 for the central estimators, 100 for ldp: methods, whose run is n reports)"),
	experiment.PositiveParam("target_rse", "raise runs until one batch's MSE has relative SE ≤ this, from the error's first-order kurtosis κ: runs ≥ (κ − 1)/target_rse² (where the theory is stated; κ = 3 for ldp: methods)"),
	experiment.EnumParam("zero_denominator", []string{centraldp.ZeroDenIEEE, centraldp.ZeroDenMidpoint}, "a zero noisy count (the hourglass's integer n + K, E1.17): ieee (default: ŝ/0 clips to an end, 0/0 the midpoint) or midpoint"),
}

// Params implements experiment.Kind.
func (Kind) Params() experiment.ParamSet { return params }

// Check implements experiment.Kind.
func (Kind) Check(c *experiment.CellSpec) error {
	_, err := newCell(c, false)
	return err
}

// Prepare implements experiment.Kind.
func (Kind) Prepare(_ context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	return newCell(c, true)
}

// CellBytes implements experiment.MemoryEstimator: an ldp: method holds
// the n values on [−1, 1] and a trial its report buffer; a central
// estimator holds nothing that grows with n.
func (Kind) CellBytes(c *experiment.CellSpec) (prepared, perTrial int64) {
	if f, _ := methodFamily(c.Method); f == familyLDP {
		return 8 * int64(c.N), 8 * estimators.ChunkSize
	}
	return 0, 0
}

// cell is one prepared cell.
type cell struct {
	fam     family
	eps     float64
	est     centraldp.Estimator // familyCentral
	ldp     mechanisms.Estimate // familyLDP
	data    *data
	runs    int
	metrics []string
	theory  map[string]float64
}

// newCell checks the cell and, with build, makes its data, estimator and
// theory.
func newCell(c *experiment.CellSpec, build bool) (*cell, error) {
	p := c.Params
	ds, err := parseData(c)
	if err != nil {
		return nil, err
	}
	opt := centraldp.Options{L: ds.l, U: ds.u, ZeroDenominator: p.String("zero_denominator", centraldp.ZeroDenIEEE)}
	if err := checkMethod(c.Method, c.Eps, opt); err != nil {
		return nil, err
	}
	fam, mech := methodFamily(c.Method)
	if t := p.Float("target_rse", 0); p.Has("target_rse") && t >= 1 {
		return nil, params.Errorf("target_rse", "%v: want a relative standard error below 1", t)
	}
	r := &cell{fam: fam, eps: c.Eps, metrics: c.Metrics, runs: p.Int("runs", defaultRuns)}
	if fam == familyLDP && !p.Has("runs") {
		r.runs = defaultLDPRuns
	}
	if !build {
		return r, nil
	}
	r.data = ds.build(c.N, fam == familyLDP)
	switch fam {
	case familyCentral:
		if r.est, err = centraldp.NewEstimator(c.Method, c.Eps, opt); err != nil {
			return nil, err
		}
	case familyLDP:
		if r.ldp, err = ldpMechanism(mech, c.Eps); err != nil {
			return nil, err
		}
	}
	var kurtosis float64
	r.theory, kurtosis = r.computeTheory(c.Method, opt)
	if t := p.Float("target_rse", 0); p.Has("target_rse") && kurtosis > 1 {
		r.runs = max(r.runs, int(math.Ceil((kurtosis-1)/(t*t))))
	}
	return r, nil
}

// chunk is how many runs a batch does between looks at its context.
const chunk = 1 << 16

// Trial implements experiment.CellRun: one batch of runs on the cell's
// data, and the batch's mean squared error in the three normalisations.
func (r *cell) Trial(ctx context.Context, _ int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	var mse float64
	switch r.fam {
	case familyBound:
		mse = r.theory["mse"]
	case familyCentral:
		var err error
		if mse, err = r.centralBatch(ctx, rng); err != nil {
			return out, err
		}
	case familyLDP:
		var err error
		if mse, err = r.ldpBatch(ctx, rng); err != nil {
			return out, err
		}
	}
	for _, m := range r.metrics {
		out = append(out, experiment.Measurement{Metric: m, Value: r.normalise(m, mse)})
	}
	return out, nil
}

// normalise returns the MSE in the normalisation of metric m: as is, or
// multiplied by n²ε²/(2w²) (Section 6) or ε²/(2w²) (Appendix H):
// "normalized by" means multiplied (E1.15), and the division by w² makes
// the values those of the range [0, 1] (Lemma 10).
func (r *cell) normalise(m string, mse float64) float64 {
	w := r.data.u - r.data.l
	switch m {
	case "mse_norm_sec6":
		n := float64(r.data.n)
		return mse * n * n * r.eps * r.eps / (2 * w * w)
	case "mse_norm_apph":
		return mse * r.eps * r.eps / (2 * w * w)
	}
	return mse
}

// centralBatch runs the estimator r.runs times on (n, Σx) and returns the
// mean squared error against μ(D). It allocates nothing: a run is one
// Estimate, tens of nanoseconds.
func (r *cell) centralBatch(ctx context.Context, rng *rand.Rand) (float64, error) {
	d := r.data
	var total float64
	for done := 0; done < r.runs; {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		m := min(chunk, r.runs-done)
		var s float64 // per chunk, then summed: rounding of a 10⁷-term sum stays at 1e-16·√terms
		for range m {
			e := r.est.Estimate(d.n, d.sum, rng) - d.truth
			s += e * e
		}
		total += s
		done += m
	}
	mse := total / float64(r.runs)
	if math.IsNaN(mse) {
		return 0, fmt.Errorf("%s: a NaN estimate (n = %d, sum = %v)", r.est.Name(), d.n, d.sum)
	}
	return mse, nil
}

// ldpBatch runs r.runs collections of n reports through the local
// mechanism and returns the mean squared error of their averages, mapped
// back from [−1, 1] to the data range, against μ(D).
func (r *cell) ldpBatch(ctx context.Context, rng *rand.Rand) (float64, error) {
	var buf [estimators.ChunkSize]float64
	d := r.data
	half := (d.u - d.l) / 2
	var total float64
	for i := range r.runs {
		if i%16 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		y, err := estimators.MeanOfReports(r.ldp, d.unit, rng, buf[:])
		if err != nil {
			return 0, err
		}
		e := d.l + half*(y+1) - d.truth
		total += e * e
	}
	return total / float64(r.runs), nil
}

// Theory implements experiment.CellRun.
func (r *cell) Theory(metric string) (float64, bool) {
	v, ok := r.theory[metric]
	return v, ok
}
