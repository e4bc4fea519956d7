package dist

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/metrics"
)

// Kind is kind noutput-dist (see the package documentation).
type Kind struct{}

var kindMetrics = []string{"w1", "w1-authors", "var-mse", "quantile-mse-centre", "quantile-mse", "em_iterations", "em_stop_max_iter", "reporting"}

var params = experiment.ParamSet{
	experiment.IntParam("dim", 1, 1<<20, "attributes that set the sampling rate: each record is kept with probability 1/dim (default 1; the paper: Beta 10, Voltage 9, NYtaxi 19)"),
	experiment.IntParam("bins", 2, 1<<16, "equal bins of [-1, 1] of every histogram (default 1024)"),
	experiment.EnumParam("dtilde", []string{"ceil", "floor"}, "2PEM's PM-SUB buckets: ceil (default, corrected eq. (13), E0.6) or floor (the authors' code)"),
	experiment.EnumParam("em_input", []string{"normalized", "counts"}, "EM on normalised histograms (default, the authors' code) or raw counts (E0.4)"),
	experiment.EnumParam("em", []string{"plain", "ems"}, "EM of the transition-matrix methods other than hm-np: plain (default, E0.29) or EMS smoothing"),
	experiment.EnumParam("var_rule", []string{"paper", "plain"}, "variance of hm-np: paper (default: Σπc² − m̂², m̂ the reports' mean) or plain (Σπc² − (Σπc)²)"),
}

// ownMethods are the methods that are not a mechanism's EM on its
// transition matrix: 2PEM of HM-NP, and the histogram mechanisms DE and OUE.
var ownMethods = []string{"hm-np", "de", "oue"}

// paperMethods are the paper's other methods, listed first by AllMethods.
var paperMethods = []string{"sw", "three-outputs", "hm-tp", "pm", "pm-sub", "n-output"}

// mechNeeds is what a method named after a registered mechanism needs of
// it: EM on its exact transition matrix over the bins
// (estimators.HistTransitionNeeds), a bounded output with bucket
// probabilities. hm-np is taken by 2PEM, its own method.
var mechNeeds = []experiment.MethodNeeds{
	{Method: experiment.MechanismPlaceholder, Needs: estimators.HistTransitionNeeds},
}

// MechanismNeeds implements experiment.MechanismTaker.
func (Kind) MechanismNeeds() []experiment.MethodNeeds { return mechNeeds }

// Name implements experiment.Kind.
func (Kind) Name() string { return "noutput-dist" }

// Metrics implements experiment.Kind.
func (Kind) Metrics() []string { return kindMetrics }

// Params implements experiment.Kind.
func (Kind) Params() experiment.ParamSet { return params }

// AllMethods implements experiment.MethodLister: the paper's methods,
// then every other registered mechanism that the kind takes.
func (Kind) AllMethods() []string {
	all := slices.Concat(ownMethods, paperMethods)
	for _, name := range mechanisms.Names() {
		if slices.Contains(all, name) {
			continue
		}
		if m, err := mechanisms.New(name, 1); err == nil && mechNeeds[0].Met(m) {
			all = append(all, name)
		}
	}
	return all
}

// Check implements experiment.Kind.
func (Kind) Check(c *experiment.CellSpec) error {
	if err := checkMethod(c.Method, c.Eps); err != nil {
		return err
	}
	if c.Dataset != nil {
		if err := c.Dataset.Ungrouped(Kind{}.Name()); err != nil {
			return err
		}
		if c.Dataset.Dim() != 1 {
			return fmt.Errorf("kind noutput-dist takes a one-attribute dataset (dim only sets the sampling rate); %s has %d attributes", c.Dataset.Name, c.Dataset.Dim())
		}
	}
	return nil
}

// checkMethod checks a method at budget eps: one of ownMethods, or a
// registered mechanism with what mechNeeds asks of it.
func checkMethod(method string, eps float64) error {
	if slices.Contains(ownMethods, method) {
		_, err := mechanisms.New("pm", eps) // the ε checks of the registry
		return err
	}
	if _, ok := mechanisms.Lookup(method); !ok {
		return fmt.Errorf("kind noutput-dist: unknown method %q (valid: %s, or a registered mechanism with a bounded output and bucket probabilities)", method, strings.Join(ownMethods, ", "))
	}
	m, err := mechanisms.New(method, eps)
	if err != nil {
		return err
	}
	return mechNeeds[0].Check(Kind{}.Name(), m)
}

// CellBytes implements experiment.MemoryEstimator: the bin of every record
// (2 bytes), the histograms and the transition matrix (a band of at most
// about 2·bins rows per column, cached per process), and a trial's chunk
// buffers and count vectors.
func (Kind) CellBytes(c *experiment.CellSpec) (prepared, perTrial int64) {
	bins := int64(c.Params.Int("bins", 1024))
	return 2*int64(c.N) + 8*bins*3 + 8*bins*bins, 8*(2*chunk) + 8*bins*6
}

const chunk = 4096

// cell is one prepared cell.
type cell struct {
	method  string
	eps     float64
	rate    float64 // 1/dim
	dim     float64
	bins    int
	xs      []float64
	bin     []uint16 // bin of every record
	truth   []float64
	trueVar float64 // plain rule
	trueHMV float64 // HM-NP rule with the data mean
	trueMu  float64
	hmRule  bool
	counts  bool // em_input
	smooth  bool
	metrics []string

	hm   *mechanisms.HMNP
	mats *estimators.TwoPEMMatrices
	grr  *mechanisms.GRR
	oue  *mechanisms.OUE
	mech mechanisms.Mechanism
	tr   *estimators.HistTransition
	cfg  estimators.TwoPEMConfig
}

// Prepare implements experiment.Kind.
func (Kind) Prepare(_ context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	if err := (Kind{}).Check(c); err != nil {
		return nil, err
	}
	bins := c.Params.Int("bins", 1024)
	dim := c.Params.Int("dim", 1)
	r := &cell{
		method:  c.Method,
		eps:     c.Eps,
		rate:    1 / float64(dim),
		dim:     float64(dim),
		bins:    bins,
		xs:      c.Dataset.Values[:c.N],
		hmRule:  c.Params.String("var_rule", "paper") == "paper",
		counts:  c.Params.String("em_input", "normalized") == "counts",
		smooth:  c.Params.String("em", "plain") == "ems",
		metrics: c.Metrics,
	}
	r.bin = make([]uint16, len(r.xs))
	r.truth = make([]float64, bins)
	for i, x := range r.xs {
		b := binOf(x, bins)
		r.bin[i] = uint16(b)
		r.truth[b]++
	}
	for i := range r.truth {
		r.truth[i] /= float64(len(r.xs))
	}
	r.trueMu = estimators.TrueMean(r.xs)
	r.trueVar = metrics.HistogramVariance(r.truth, -1, 1)
	r.trueHMV = estimators.HistVarianceWithMean(r.truth, -1, 1, r.trueMu)
	var err error
	switch c.Method {
	case "hm-np":
		if r.hm, err = mechanisms.NewHMNP(c.Eps); err != nil {
			return nil, err
		}
		rule := estimators.DTildeCeil
		if c.Params.String("dtilde", "ceil") == "floor" {
			rule = estimators.DTildeFloorCompat
		}
		if r.mats, err = estimators.TwoPEMCached(r.hm, bins, rule); err != nil {
			return nil, err
		}
		r.cfg = estimators.TwoPEMConfig{D: bins, DTilde: rule, Counts: r.counts}
	case "de":
		r.grr, err = mechanisms.NewGRR(c.Eps, bins)
	case "oue":
		r.oue, err = mechanisms.NewOUE(c.Eps, bins)
	default:
		if r.mech, err = mechanisms.New(c.Method, c.Eps); err != nil {
			return nil, err
		}
		r.tr, err = transitionCached(r.mech, bins)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// binOf returns the bin of x among bins equal bins of [-1, 1] (x = 1 in the
// last).
func binOf(x float64, bins int) int {
	b := int(math.Floor((x + 1) / 2 * float64(bins)))
	return min(max(b, 0), bins-1)
}

// Trial implements experiment.CellRun.
func (r *cell) Trial(ctx context.Context, _ int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	buf := make([]float64, chunk)
	idx := make([]int, chunk)
	est := make([]float64, r.bins)
	kept := 0
	iters, capHit := 0, false
	hmMean := math.NaN()
	var err error
	// select fills buf (and idx) with the kept records of xs[from:to].
	sel := func(from, to int) int {
		m := 0
		for i := from; i < to; i++ {
			if r.rate >= 1 || rng.Float64() < r.rate {
				buf[m] = r.xs[i]
				idx[m] = i
				m++
			}
		}
		return m
	}
	n := len(r.xs)
	switch r.method {
	case "hm-np":
		pmC := make([]float64, r.mats.PM.Rows)
		noC := make([]float64, r.mats.NO.Rows)
		atoms := r.hm.NOutput().Outputs()
		var sum float64
		for from := 0; from < n; from += chunk {
			m := sel(from, min(n, from+chunk))
			kept += m
			if err := r.hm.PerturbBatch(buf[:m], buf[:m], rng); err != nil {
				return out, err
			}
			for _, y := range buf[:m] {
				sum += y
				if k, ok := slices.BinarySearch(atoms, y); ok {
					noC[k]++
				} else {
					pmC[r.mats.PM.Row(y)]++
				}
			}
		}
		hmMean = sum * r.dim / float64(n)
		res, err := estimators.TwoPEMCounts(ctx, pmC, noC, r.mats, r.cfg)
		if err != nil {
			return out, err
		}
		copy(est, res.Hist)
		iters, capHit = res.Iter1+res.Iter2, res.CapHit
	case "de":
		counts := make([]float64, r.bins)
		for from := 0; from < n; from += chunk {
			m := sel(from, min(n, from+chunk))
			kept += m
			for _, i := range idx[:m] {
				counts[r.grr.Perturb(int(r.bin[i]), rng)]++
			}
		}
		err = estimators.DEHistogram(est, counts, kept, r.grr)
	case "oue":
		users := make([]int, r.bins)
		for from := 0; from < n; from += chunk {
			m := sel(from, min(n, from+chunk))
			kept += m
			for _, i := range idx[:m] {
				users[r.bin[i]]++
			}
		}
		support := make([]float64, r.bins)
		r.oue.SupportCounts(users, rng, support)
		err = estimators.OUEHistogram(est, support, kept, r.oue)
	default:
		counts := make([]float64, r.tr.Rows)
		// Inputs on the mechanism's domain ([0, 1] for Square Wave), bin
		// for bin.
		dlo, dhi := r.mech.Domain()
		half := (dhi - dlo) / 2
		mapped := dlo != -1 || dhi != 1
		for from := 0; from < n; from += chunk {
			m := sel(from, min(n, from+chunk))
			kept += m
			if mapped {
				for k := range buf[:m] {
					buf[k] = dlo + (buf[k]+1)*half
				}
			}
			if err := r.mech.PerturbBatch(buf[:m], buf[:m], rng); err != nil {
				return out, err
			}
			r.tr.Counts(buf[:m], counts)
		}
		res, err := r.tr.HistEM(ctx, counts, estimators.HistEMConfig{Counts: r.counts, Smooth: r.smooth})
		if err != nil {
			return out, err
		}
		copy(est, res.Hist)
		iters, capHit = res.Iter, res.CapHit
	}
	if err != nil {
		return out, err
	}
	for _, name := range r.metrics {
		var v float64
		switch name {
		case "w1":
			v = metrics.Wasserstein1(est, r.truth, 2/float64(r.bins))
		case "w1-authors":
			v = metrics.Wasserstein1Authors(est, r.truth, nil)
		case "var-mse":
			if r.method == "hm-np" && r.hmRule {
				v = metrics.SquaredError(estimators.HistVarianceWithMean(est, -1, 1, hmMean), r.trueHMV)
			} else {
				v = metrics.SquaredError(metrics.HistogramVariance(est, -1, 1), r.trueVar)
			}
		case "quantile-mse-centre":
			v = metrics.QuantileSquaredErrorBinCentre(est, r.truth, -1, 1, metrics.Deciles())
		case "quantile-mse":
			v = metrics.QuantileSquaredError(est, r.truth, -1, 1, metrics.Deciles())
		case "em_iterations":
			v = float64(iters)
		case "em_stop_max_iter":
			if capHit {
				v = 1
			}
		case "reporting":
			v = float64(kept) / float64(n)
		}
		out = append(out, experiment.Measurement{Metric: name, Value: v})
	}
	return out, nil
}

// Theory implements experiment.CellRun: only the kept fraction has one.
func (r *cell) Theory(metric string) (float64, bool) {
	if metric == "reporting" {
		return r.rate, true
	}
	return 0, false
}
