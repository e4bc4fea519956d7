package harness

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/metrics"
)

// meanHTKind is mean estimation with per-record dimension sampling, the
// estimator "mean-ht" of Baek & Chung's Fig. 3 (p0 spec §1.1, §4.2, L614):
// the data are one attribute of a dataset with dim attributes, and the
// sampling of k of the dim attributes per user (eq. (3)) is simulated per
// record. Each of the n records is selected independently with
// probability k/dim; a selected record reports M(x; ε/k)·dim/k, an
// unselected one contributes 0, and the estimate is the mean over all n
// records (Horvitz–Thompson). The truth is the dataset's own mean of the n
// values.
//
// The estimate is unbiased, with exact expected squared error
//
//	(1/n²)·Σ_i [(dim/k)·(Var(Y | x_i) + x_i²) - x_i²],   Var at ε/k,
//
// the sampling included: a record's contribution S·Y·dim/k (S the
// selection, Bernoulli(k/dim)) has second moment (dim/k)·E[Y²].
//
// Parameters (the spec's params axes; any other key is an error):
//
//	dim  the number of attributes that sets the sampling rate k/dim
//	     (Beta 10, NYtaxi 19, Voltage 9; default 1, which is the kind
//	     "mean")
//	k    "paper" (default): k of eq. (3), max{1, min{dim, ⌊ε/2.5⌋}}, for
//	     three-outputs, hm-tp and pm-sub and k = 1 for every other method,
//	     as in Section 5.1 (L614); "eq3": eq. (3) for every method; or an
//	     integer in [1, dim]
//
// Metrics: mse (squared error; the summary adds rmse), abs (absolute
// error, no theory), reporting (the fraction of records selected in the
// trial; theory k/dim).
type meanHTKind struct{}

var meanHTMetrics = []string{"mse", "abs", "reporting"}

func (meanHTKind) Name() string         { return "mean-ht" }
func (meanHTKind) Metrics() []string    { return meanHTMetrics }
func (meanHTKind) AllMethods() []string { return mechanisms.Names() }

func (meanHTKind) Check(c *CellSpec) error {
	_, _, _, err := htSetup(c)
	return err
}

// htPaperK lists the methods that Section 5.1 samples with k of eq. (3).
var htPaperK = map[string]bool{"three-outputs": true, "hm-tp": true, "pm-sub": true}

// htParams returns dim and the k rule ("paper", "eq3" or an integer).
func htParams(p map[string]string) (dim int, rule string, err error) {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	dim, rule = 1, "paper"
	for _, key := range keys {
		v := strings.TrimSpace(p[key])
		switch key {
		case "dim":
			d, err := strconv.Atoi(v)
			if err != nil || d < 1 {
				return 0, "", fmt.Errorf("params.dim = %q: want an integer ≥ 1", v)
			}
			dim = d
		case "k":
			rule = v
		default:
			return 0, "", fmt.Errorf("params.%s: unknown parameter of kind mean-ht (valid: dim, k)", key)
		}
	}
	return dim, rule, nil
}

// htSetup returns the cell's 1-D mechanism at ε/k as an unbiased estimate,
// dim and k.
func htSetup(c *CellSpec) (est mechanisms.Estimate, dim, k int, err error) {
	dim, rule, err := htParams(c.Params)
	if err != nil {
		return nil, 0, 0, err
	}
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
			return nil, 0, 0, fmt.Errorf("params.k = %q: want \"paper\", \"eq3\" or an integer in [1, dim = %d]", rule, dim)
		}
	}
	if c.Dataset != nil && c.Dataset.Dim() != 1 {
		return nil, 0, 0, fmt.Errorf("kind mean-ht takes a one-attribute dataset (dim only sets the sampling rate); %s has %d attributes", c.Dataset.Name, c.Dataset.Dim())
	}
	m, err := mechanisms.New(c.Method, c.Eps/float64(k))
	if err != nil {
		return nil, 0, 0, err
	}
	est, err = mechanisms.Unbiased(m)
	return est, dim, k, err
}

func (meanHTKind) Prepare(c *CellSpec) (CellRun, error) {
	est, dim, k, err := htSetup(c)
	if err != nil {
		return nil, err
	}
	xs := c.Dataset.Values
	if c.N > len(xs) {
		return nil, fmt.Errorf("dataset %s has %d values, fewer than n = %d", c.Dataset.Name, len(xs), c.N)
	}
	xs = xs[:c.N]
	scale := float64(dim) / float64(k)
	var truth, s float64
	for _, x := range xs {
		truth += x
		s += scale*(est.Variance(x)+x*x) - x*x
	}
	n := float64(len(xs))
	return &meanHTRun{
		est:     est,
		xs:      xs,
		rate:    float64(k) / float64(dim),
		scale:   scale,
		truth:   truth / n,
		mse:     s / (n * n),
		metrics: c.Metrics,
	}, nil
}

type meanHTRun struct {
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
func (r *meanHTRun) Trial(_ int, rng *rand.Rand, out []Measurement) ([]Measurement, error) {
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
		out = append(out, Measurement{m, v})
	}
	return out, nil
}

func (r *meanHTRun) Theory(metric string) (float64, bool) {
	switch metric {
	case "mse":
		return r.mse, true
	case "reporting":
		return r.rate, true
	}
	return 0, false
}
