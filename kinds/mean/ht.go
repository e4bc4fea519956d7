package mean

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/metrics"
)

// HT is kind mean-ht, mean estimation with per-record dimension sampling, the
// estimator "mean-ht" of Baek & Chung's Fig. 3 (Sec. 5.1): the data are one
// attribute of a dataset with dim attributes, and the sampling of k of the
// dim attributes per user (eq. (3)) is simulated per record. Each of the n
// records is selected independently with probability k/dim; a selected
// record reports M(x; ε/k)·dim/k, an unselected one contributes 0, and the
// estimate is the mean over all n records (Horvitz–Thompson). The truth is
// the dataset's own mean of the n values.
//
// The estimate is unbiased, with exact expected squared error
//
//	(1/n²)·Σ_i [(dim/k)·(Var(Y | x_i) + x_i²) - x_i²],   Var at ε/k,
//
// the sampling included: a record's contribution S·Y·dim/k (S the
// selection, Bernoulli(k/dim)) has second moment (dim/k)·E[Y²].
//
// Parameters (the spec's params axes, htParams; any other key is an error):
//
//	dim  the number of attributes that sets the sampling rate k/dim
//	     (Beta 10, NYtaxi 19, Voltage 9; default 1, which is the kind
//	     "mean")
//	k    "paper" (default): k of eq. (3), max{1, min{dim, ⌊ε/2.5⌋}}, for
//	     three-outputs, hm-tp and pm-sub and k = 1 for every other method,
//	     as in Section 5.1; "eq3": eq. (3) for every method; or an
//	     integer in [1, dim]
//
// Metrics: mse (squared error; the summary adds rmse), abs (absolute
// error, no theory), reporting (the fraction of records selected in the
// trial; theory k/dim).
type HT struct{}

var htMetrics = []string{"mse", "abs", "reporting"}

var htParams = experiment.ParamSet{
	experiment.IntParam("dim", 1, 1<<20, "attributes that set the sampling rate k/dim (default 1)"),
	experiment.StringParam("k", `"paper" (default) | "eq3" | an integer in [1, dim]: the attributes sampled per user`),
	experiment.StringParam("split", `aaa, np-aaa: "dataset" (default; the first 10 % of kept records, E0.24) | "shuffled"`),
	experiment.StringParam("alignment", `aaa, np-aaa: "corrected" (default) | "authors" (the half-width programme grid, E0.23)`),
}

// Name implements experiment.Kind.
func (HT) Name() string { return "mean-ht" }

// Metrics implements experiment.Kind.
func (HT) Metrics() []string { return htMetrics }

// Params implements experiment.Kind.
func (HT) Params() experiment.ParamSet { return htParams }

// AllMethods implements experiment.MethodLister: every registered
// mechanism, and aaa and np-aaa (ht_aaa.go).
func (HT) AllMethods() []string { return append(takers(estimateNeeds), "aaa", "np-aaa") }

// Check implements experiment.Kind.
func (HT) Check(c *experiment.CellSpec) error {
	if err := c.Dataset.Ungrouped(HT{}.Name()); err != nil {
		return err
	}
	if _, ok := aaaMethods[c.Method]; ok {
		_, err := aaaConfig(c)
		return err
	}
	_, _, _, err := htSetup(c)
	return err
}

// htPaperK lists the methods that Section 5.1 samples with k of eq. (3).
var htPaperK = map[string]bool{"three-outputs": true, "hm-tp": true, "pm-sub": true}

// htSetup returns the cell's 1-D mechanism at ε/k as an unbiased estimate,
// dim and k.
func htSetup(c *experiment.CellSpec) (est mechanisms.Estimate, dim, k int, err error) {
	dim, rule := c.Params.Int("dim", 1), c.Params.String("k", "paper")
	switch rule {
	case "paper":
		k = 1
		if htPaperK[c.Method] {
			k = mechanisms.SampleK(dim, c.Eps)
		}
	case "eq3":
		k = mechanisms.SampleK(dim, c.Eps)
	default:
		k, err = strconv.Atoi(rule)
		if err != nil || k < 1 || k > dim {
			return nil, 0, 0, htParams.Errorf("k", "%q: want \"paper\", \"eq3\" or an integer in [1, dim = %d]", rule, dim)
		}
	}
	if c.Dataset != nil && c.Dataset.Dim() != 1 {
		return nil, 0, 0, fmt.Errorf("kind mean-ht takes a one-attribute dataset (dim only sets the sampling rate); %s has %d attributes", c.Dataset.Name, c.Dataset.Dim())
	}
	m, err := checkedMechanism(HT{}.Name(), estimateNeeds, c.Method, c.Eps/float64(k))
	if err != nil {
		return nil, 0, 0, err
	}
	est, err = mechanisms.Unbiased(m)
	return est, dim, k, err
}

// Prepare implements experiment.Kind.
func (HT) Prepare(ctx context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	if _, ok := aaaMethods[c.Method]; ok {
		return aaaPrepare(ctx, c)
	}
	est, dim, k, err := htSetup(c)
	if err != nil {
		return nil, err
	}
	xs := c.Dataset.Values[:c.N]
	scale := float64(dim) / float64(k)
	truth := estimators.TrueMean(xs)
	var s float64
	for _, x := range xs {
		s += scale*(est.Variance(x)+x*x) - x*x
	}
	n := float64(len(xs))
	return &htRun{
		est:     est,
		xs:      xs,
		rate:    float64(k) / float64(dim),
		scale:   scale,
		truth:   truth,
		mse:     s / (n * n),
		metrics: c.Metrics,
	}, nil
}

type htRun struct {
	est     mechanisms.Estimate
	xs      []float64
	rate    float64 // k/dim
	scale   float64 // dim/k
	truth   float64
	mse     float64
	metrics []string
}

// htChunk is the number of records whose selections are drawn before the
// selected ones are perturbed in one batch.
const htChunk = 4096

// Trial simulates the n records once: per chunk, the selections (one
// uniform per record, in record order), then one batch of reports of the
// selected records. Nothing is allocated per report.
func (r *htRun) Trial(_ context.Context, _ int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	sel := make([]float64, htChunk)
	var total float64
	selected := 0
	for xs := r.xs; len(xs) > 0; {
		c := min(len(xs), htChunk)
		m := 0
		for _, x := range xs[:c] {
			if rng.Float64() < r.rate {
				sel[m] = x
				m++
			}
		}
		if m > 0 {
			if err := r.est.PerturbBatch(sel[:m], sel[:m], rng); err != nil {
				return out, err
			}
			s := 0.0
			for _, y := range sel[:m] {
				s += y
			}
			total += s
		}
		selected += m
		xs = xs[c:]
	}
	n := float64(len(r.xs))
	mean := total * r.scale / n
	for _, m := range r.metrics {
		var v float64
		switch m {
		case "mse":
			v = metrics.SquaredError(mean, r.truth)
		case "abs":
			v = metrics.AbsError(mean, r.truth)
		case "reporting":
			v = float64(selected) / n
		}
		out = append(out, experiment.Measurement{Metric: m, Value: v})
	}
	return out, nil
}

func (r *htRun) Theory(metric string) (float64, bool) {
	switch metric {
	case "mse":
		return r.mse, true
	case "reporting":
		return r.rate, true
	}
	return 0, false
}
