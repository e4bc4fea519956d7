package multiservice

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/metrics"
)

// Kind is kind multiservice, Du et al.'s multi-service collection ("Privacy for
// Free", VLDB 2025): n users each hold one value; m services each hold one
// ε_j-LDP report per user from their own mechanism, linked by user; a
// collector estimates the mean or the histogram from all of them at no
// further privacy cost. The services, their mechanisms and budgets, and an
// optional split of the users into groups reporting to subsets of the
// services are the cell's params (config.go).
//
// Every trial draws every report of every scored user with the trial's
// generator, service by service in order and user by user within a service
// (a service's users in group order), into per-worker buffers of m×n
// values; nothing is allocated per report. Reports are raw (Square Wave's
// biased report on [-b, 1+b]); a user who does not report to a service has
// NaN there.
//
// Comparisons are paired (common random numbers; TrialKey): the trial's
// generator is seeded from the dataset, ε, n and the parameters that
// change the reports (services, config, m, groups, group), not from the
// method nor from estimator-only parameters (bins, h, out_buckets,
// pm_lookup, laplace_clamp, threads, smooth, stop, ll_tol, max_iter,
// theta_tol, v; paramRoles). So every method and estimator setting of a
// cell sees bit-identical reports in trial t, and a difference between
// two methods in one trial is the estimators' alone (a paired difference,
// whose variance is far below the sum of two unpaired ones). The draw is
// the only consumer of the trial's generator: no estimator here is
// randomised; one that is must take its own stream (say, a generator
// seeded from the trial's first draw after the reports), never the
// reports' stream, so that the reports stay method-independent.
//
// The methods (ua, uwa, single-<s>, ule, ems-<s>, ...) are described once,
// in Methods (describe.go), which `ldpbench list kinds -v` and docs/kinds.md
// print.
//
// EM (ule, ems-<s>, ems-best): params stop, ll_tol, max_iter, theta_tol,
// accel and smooth set estimators.EMOptions. The plain loop runs while ‖θ_old − θ‖₁ >
// the θ tolerance and fewer than max_iter iterations have run, and, from
// the third iteration on, breaks when |LL − LL_old| falls below the LL
// tolerance:
//
//	stop = authors     (the authors' code) θ tolerance 1/N, fixed; ll_tol
//	                   ABSOLUTE in nats (default 1e-3); max_iter default
//	                   10,000; theta_tol ignored. ΔLL scales with N, so the
//	                   same ll_tol runs longer at larger n
//	stop = converged   θ tolerance theta_tol (default 1e-12); ll_tol
//	                   RELATIVE to |LL| (default 1e-10, about 1.5e-9 nats
//	                   per user for [SR, PM, SW] at small ε: looser than
//	                   the authors' 1e-3 above n ≈ 7·10⁵); max_iter default
//	                   100,000. SQUAREM by default (accel = none: the plain
//	                   loop): the same fixed point in a fraction of the
//	                   E-steps, its tolerances applied to the accelerated
//	                   sequence (estimators.AccelSquarem); on 1024 bins
//	                   the plain loop stops far short of the fixed point
//	                   at ll_tol 1e-10 and SQUAREM 2-6 times closer
//	                   (docs/multiservice.md)
//
// A smaller ll_tol or theta_tol, or a larger max_iter, runs further; the
// em_stop_* metrics say which test ended each run. Every EM run watches
// the run's context once per iteration, SQUAREM once per cycle (Trial's
// ctx): a cancelled run returns within one iteration (cycle), keeping
// the finished cells for resume.
//
// Metrics (package metrics describes each): mse and abs of the mean
// methods, with exact theory for ua, single-* and uwa-oracle (none for
// uwa, whose weights depend on the data, E4.14); js-div, js-dist and kl
// of the distribution methods' histograms over params.bins; the EM
// counters em_iterations (E-steps under accel = squarem), em_stop_ll and
// em_stop_max_iter; aggregation_seconds, the estimator call's wall time
// (Table 1's measure, not deterministic: a timing spec, run it with -j 1);
// variance, the closed form of Fig. 3 (single-<s>, raw-<s>; trials = 1).
type Kind struct{}

var kindMetrics = []string{"mse", "abs", "js-div", "js-dist", "kl", "em_iterations", "em_stop_ll", "em_stop_max_iter", "aggregation_seconds", "variance"}

// Name implements experiment.Kind.
func (Kind) Name() string { return "multiservice" }

// Metrics implements experiment.Kind.
func (Kind) Metrics() []string { return kindMetrics }

// Params implements experiment.Kind (config.go).
func (Kind) Params() experiment.ParamSet { return kindParams }

// methodClass is what a method estimates.
type methodClass int

const (
	classMean methodClass = iota
	classDist
	classRaw // raw-<s>: variance only
)

// methodSpec is a parsed method name.
type methodSpec struct {
	class   methodClass
	name    string // ua, uwa, uwa-oracle, single, single-best, ule, ems, ems-best, raw
	service int    // for single, ems, raw: the 0-based service
}

// parseMSMethod parses a method against the cell's services.
func parseMSMethod(method string, cfg *cellConfig) (methodSpec, error) {
	switch method {
	case "ua", "uwa", "uwa-oracle", "single-best":
		return methodSpec{class: classMean, name: method, service: -1}, nil
	case "ule", "ems-best":
		return methodSpec{class: classDist, name: method, service: -1}, nil
	}
	for _, p := range []struct {
		prefix, name string
		class        methodClass
	}{{"single-", "single", classMean}, {"ems-", "ems", classDist}, {"raw-", "raw", classRaw}} {
		if ref, ok := strings.CutPrefix(method, p.prefix); ok {
			j, err := cfg.resolveService(method, ref)
			if err != nil {
				return methodSpec{}, err
			}
			return methodSpec{class: p.class, name: p.name, service: j}, nil
		}
	}
	return methodSpec{}, fmt.Errorf("unknown method %q of kind multiservice (valid: ua, uwa, uwa-oracle, single-<s>, single-best, ule, ems-<s>, ems-best, raw-<s>; <s> a service number or mechanism name)", method)
}

// metricClass says which methods a metric is defined for.
func metricAllowed(metric string, m methodSpec) error {
	switch metric {
	case "mse", "abs":
		if m.class != classMean {
			return fmt.Errorf("metric %s is the error of a mean; method %s estimates %s", metric, methodLabel(m), m.class)
		}
	case "js-div", "js-dist", "kl", "em_iterations", "em_stop_ll", "em_stop_max_iter":
		if m.class != classDist {
			return fmt.Errorf("metric %s is for the distribution methods (ule, ems-<s>, ems-best); method %s estimates %s", metric, methodLabel(m), m.class)
		}
	case "aggregation_seconds":
		if m.class == classRaw {
			return fmt.Errorf("metric %s: method raw-<s> is not an estimator (metric variance only)", metric)
		}
	case "variance":
		if !(m.name == "single" || m.name == "raw") {
			return fmt.Errorf("metric variance is the closed-form variance of one service's report: methods single-<s> and raw-<s> only, not %s", methodLabel(m))
		}
	}
	return nil
}

func (c methodClass) String() string {
	switch c {
	case classMean:
		return "the mean"
	case classDist:
		return "the distribution"
	}
	return "nothing (a closed form)"
}

func methodLabel(m methodSpec) string {
	if m.service >= 0 {
		return fmt.Sprintf("%s-%d", m.name, m.service+1)
	}
	return m.name
}

// preparedCell is a cell's parsed and checked configuration.
type preparedCell struct {
	cfg    *cellConfig
	method methodSpec
	// active lists the services whose reports the trial draws, in order:
	// all of them, or the scored group's.
	active []int
	lo, hi int // the scored users [lo, hi)
	// groups of the active services over the scored users (nil: all
	// report to all), with service indices into active.
	groups []estimators.UserGroup
	// sample is false when every metric is a closed form (variance).
	sample bool
}

// Check implements experiment.Kind.
func (Kind) Check(c *experiment.CellSpec) error {
	if err := c.Dataset.Ungrouped(Kind{}.Name()); err != nil {
		return err
	}
	_, err := checkMSCell(c)
	return err
}

func checkMSCell(c *experiment.CellSpec) (*preparedCell, error) {
	if d := c.Dataset.Dim(); d > 1 {
		return nil, fmt.Errorf("dataset %s has %d attributes per row; kind multiservice takes one", c.Dataset.Name, d)
	}
	cfg, err := parseMSConfig(c)
	if err != nil {
		return nil, err
	}
	m, err := parseMSMethod(c.Method, cfg)
	if err != nil {
		return nil, err
	}
	for _, metric := range c.Metrics {
		if err := metricAllowed(metric, m); err != nil {
			return nil, err
		}
	}
	cell := &preparedCell{cfg: cfg, method: m, lo: 0, hi: c.N}
	for _, metric := range c.Metrics {
		if metric != "variance" {
			cell.sample = true
		}
	}
	if slices.Contains(c.Metrics, "variance") && math.IsNaN(cfg.v) {
		return nil, fmt.Errorf("metric variance needs the input params.v")
	}
	if cfg.group >= 0 {
		g := cfg.groups[cfg.group]
		cell.active = g.Services
		cell.lo, cell.hi = g.Lo, g.Hi
	} else {
		cell.active = make([]int, len(cfg.services))
		for j := range cell.active {
			cell.active[j] = j
		}
		cell.groups = cfg.groups
	}
	if m.service >= 0 && !slices.Contains(cell.active, m.service) {
		return nil, fmt.Errorf("method %s: service %d does not serve group %d (%s)", c.Method, m.service+1, cfg.group+1, cfg.groupNames[cfg.group])
	}
	// What the method needs of its services' mechanisms (methodNeeds), checked
	// without building the estimators' tables.
	need := experiment.NeedsFor(methodNeeds, needsKey(m), "")
	js := cell.active
	if m.service >= 0 {
		js = []int{m.service}
	}
	for _, j := range js {
		if err := need.CheckAs(Kind{}.Name(), c.Method, cfg.mechs[j]); err != nil {
			return nil, fmt.Errorf("%w (service %d: %s)", err, j+1, cfg.services[j].label)
		}
	}
	return cell, nil
}

// methodNeeds is what each method needs of the mechanism of every service it
// uses: every method an unbiased report with a variance (the services are
// de-biased; parseMSConfig checks it of every service); UWA's posterior a
// discrete law or a density (estimators.PosteriorNeeds: Laplace, and any
// unbounded mechanism with a density, by its window likelihood); ULE and
// EMS a bounded output with bucket probabilities (estimators.ServiceNeeds:
// Laplace is excluded, Du et al. §6.1.1).
var methodNeeds = func() []experiment.MethodNeeds {
	v := mechanisms.Needs{All: []mechanisms.Capability{mechanisms.CapVariance}}
	em := mechanisms.Needs{All: append([]mechanisms.Capability{mechanisms.CapVariance}, estimators.ServiceNeeds.All...)}
	return []experiment.MethodNeeds{
		{Method: "ua", Needs: v},
		{Method: "uwa", Needs: estimators.PosteriorNeeds},
		{Method: "uwa-oracle", Needs: v},
		{Method: "single-<s>", Needs: v},
		{Method: "single-best", Needs: v},
		{Method: "ule", Needs: em},
		{Method: "ems-<s>", Needs: em},
		{Method: "ems-best", Needs: em},
		{Method: "raw-<s>", Needs: v},
	}
}()

// needsKey is the method's entry in methodNeeds.
func needsKey(m methodSpec) string {
	if m.service >= 0 {
		return m.name + "-<s>"
	}
	return m.name
}

// MechanismNeeds implements experiment.MechanismTaker.
func (Kind) MechanismNeeds() []experiment.MethodNeeds { return methodNeeds }

// Prepare implements experiment.Kind. The cell's EM runs watch the
// context their Trial is given: they return an error wrapping ctx.Err()
// within one iteration of its end.
func (Kind) Prepare(_ context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	cell, err := checkMSCell(c)
	if err != nil {
		return nil, err
	}
	cfg := cell.cfg
	r := &cellRun{cell: cell, metrics: c.Metrics, theory: map[string]float64{}}
	r.mechs = make([]mechanisms.Mechanism, len(cell.active))
	for t, j := range cell.active {
		r.mechs[t] = cfg.mechs[j]
	}
	// The variance metric needs no data.
	if m := cell.method; m.service >= 0 && !math.IsNaN(cfg.v) {
		u, err := estimators.NewUnbiaser(cfg.mechs[m.service])
		if err != nil {
			return nil, err
		}
		if m.name == "raw" {
			r.theory["variance"] = u.RawVariance(cfg.v)
		} else {
			r.theory["variance"] = u.Variance(cfg.v)
		}
	}
	if !cell.sample {
		return r, nil
	}
	xs := c.Dataset.Values[cell.lo:cell.hi]
	r.xs = xs
	r.n = len(xs)
	// Inputs on each active mechanism's domain, shared by services with the
	// same domain.
	byDomain := map[[2]float64][]float64{}
	r.inputs = make([][]float64, len(r.mechs))
	for t, m := range r.mechs {
		lo, hi := m.Domain()
		key := [2]float64{lo, hi}
		in, ok := byDomain[key]
		if !ok {
			u, err := estimators.NewUnbiaser(m)
			if err != nil {
				return nil, err
			}
			if lo == -1 && hi == 1 {
				in = xs
			} else {
				in = make([]float64, len(xs))
				for i, x := range xs {
					in[i] = u.Input(x)
				}
			}
			byDomain[key] = in
		}
		r.inputs[t] = in
	}
	// Remap the groups' service indices onto the active list (identity
	// in "all" mode).
	r.groups = cell.groups
	if err := r.prepareMethod(cfg.em); err != nil {
		return nil, err
	}
	return r, nil
}

// cellRun runs the trials of one cell.
type cellRun struct {
	cell    *preparedCell
	metrics []string
	mechs   []mechanisms.Mechanism // the active services
	inputs  [][]float64            // per active service, on its domain
	xs      []float64              // the scored users' values on [-1, 1]
	n       int
	groups  []estimators.UserGroup // over the scored users; nil = all to all

	truth     float64   // mean of xs
	truthHist []float64 // normalised histogram of xs
	theory    map[string]float64

	meanEst func(reports [][]float64) (float64, error)
	distEst emEstimator

	pool sync.Pool // *workerScratch
}

// workerScratch is one worker's report buffers (m × n).
type workerScratch struct{ reports [][]float64 }

// prepareMethod builds the cell's estimator and its theory.
func (r *cellRun) prepareMethod(em estimators.EMOptions) error {
	cell, cfg := r.cell, r.cell.cfg
	m := cell.method
	local := func(j int) int { return slices.Index(cell.active, j) } // service → active index
	if m.class == classMean {
		r.truth = estimators.TrueMean(r.xs)
		switch m.name {
		case "ua":
			v, err := estimators.UAExpectedMSE(r.xs, r.mechs, r.groups)
			if err != nil {
				return err
			}
			r.theory["mse"] = v
			r.meanEst = func(rep [][]float64) (float64, error) { return estimators.UA(rep, r.mechs) }
		case "uwa":
			u, err := estimators.NewUWA(r.mechs, estimators.UWAOptions{Posterior: cfg.post, Workers: cfg.threads})
			if err != nil {
				return err
			}
			r.meanEst = u.Estimate
		case "uwa-oracle":
			v, err := estimators.OracleUWAExpectedMSE(r.xs, r.mechs, r.groups)
			if err != nil {
				return err
			}
			r.theory["mse"] = v
			r.meanEst = func(rep [][]float64) (float64, error) {
				return estimators.OracleUWA(rep, r.mechs, r.xs, cfg.threads)
			}
		case "single", "single-best":
			// The exact expected MSE of the single services: the theory,
			// and single-best's choice (an oracle choice of baseline).
			t := local(m.service)
			cands := []int{t}
			if m.name == "single-best" {
				cands = make([]int, len(r.mechs))
				for k := range cands {
					cands[k] = k
				}
			}
			best := math.Inf(1)
			for _, k := range cands {
				v, err := estimators.ServiceExpectedMSE(r.xs, r.mechs, r.groups, k)
				if err != nil {
					return err
				}
				if v < best {
					best, t = v, k
				}
			}
			r.theory["mse"] = best
			mech := r.mechs[t]
			r.meanEst = func(rep [][]float64) (float64, error) { return estimators.ServiceMean(rep[t], mech) }
		}
		return nil
	}
	if m.class == classDist {
		h := make([]float64, cfg.bins)
		metrics.Histogram(r.xs, -1, 1, cfg.bins, h)
		for k := range h {
			h[k] /= float64(len(r.xs))
		}
		r.truthHist = h
		est, err := newMSEMEstimator(m, local, r.mechs, cfg.bins, em, r.truthHist)
		if err != nil {
			return err
		}
		r.distEst = est
	}
	return nil
}

func (r *cellRun) scratch() *workerScratch {
	if s, ok := r.pool.Get().(*workerScratch); ok {
		return s
	}
	s := &workerScratch{reports: make([][]float64, len(r.mechs))}
	for t := range s.reports {
		s.reports[t] = make([]float64, r.n)
	}
	return s
}

// draw fills reports with one report of every scored user at every active
// service: service by service, users in order (a service's groups in
// order), NaN where a user does not report.
func (r *cellRun) draw(reports [][]float64, rng *rand.Rand) error {
	for t, m := range r.mechs {
		dst, in := reports[t], r.inputs[t]
		if r.groups == nil {
			if err := m.PerturbBatch(dst, in, rng); err != nil {
				return err
			}
			continue
		}
		for _, g := range r.groups {
			if slices.Contains(g.Services, t) {
				if err := m.PerturbBatch(dst[g.Lo:g.Hi], in[g.Lo:g.Hi], rng); err != nil {
					return err
				}
			} else {
				for i := g.Lo; i < g.Hi; i++ {
					dst[i] = math.NaN()
				}
			}
		}
	}
	return nil
}

// Trial implements experiment.CellRun.
func (r *cellRun) Trial(ctx context.Context, _ int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	if !r.cell.sample {
		for _, metric := range r.metrics {
			out = append(out, experiment.Measurement{Metric: metric, Value: r.theory[metric]})
		}
		return out, nil
	}
	sc := r.scratch()
	defer r.pool.Put(sc)
	if err := r.draw(sc.reports, rng); err != nil {
		return out, err
	}
	var mean float64
	var hist []float64
	var info estimators.EMInfo
	start := time.Now()
	var err error
	if r.meanEst != nil {
		mean, err = r.meanEst(sc.reports)
	} else {
		hist, info, err = r.distEst(ctx, sc.reports)
	}
	elapsed := time.Since(start).Seconds()
	if err != nil {
		return out, err
	}
	for _, metric := range r.metrics {
		var v float64
		switch metric {
		case "mse":
			v = metrics.SquaredError(mean, r.truth)
		case "abs":
			v = metrics.AbsError(mean, r.truth)
		case "js-div":
			v = metrics.JSDivergence(hist, r.truthHist)
		case "js-dist":
			v = metrics.JSDistance(hist, r.truthHist)
		case "kl":
			v = metrics.KL(r.truthHist, hist)
		case "em_iterations":
			v = float64(info.Iterations)
			if info.Accel != "" {
				v = float64(info.ESteps)
			}
		case "em_stop_ll":
			v = indicator(info.Stop == estimators.StopReasonLL)
		case "em_stop_max_iter":
			v = indicator(info.Stop == estimators.StopReasonMaxIter)
		case "aggregation_seconds":
			v = elapsed
		case "variance":
			v = r.theory["variance"]
		}
		out = append(out, experiment.Measurement{Metric: metric, Value: v})
	}
	return out, nil
}

// Theory implements experiment.CellRun.
func (r *cellRun) Theory(metric string) (float64, bool) {
	v, ok := r.theory[metric]
	return v, ok
}

// indicator is 1 if b, else 0 (a numeric row for a yes/no outcome, whose
// mean over trials is a proportion).
func indicator(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// CellBytes implements experiment.MemoryEstimator: the inputs on each
// service's domain (m × n values) and, for the distribution methods, one
// bins × bins transition table per service; a trial holds its m × n reports
// and, in EM, about as much again (ULE's deduplicated report vectors).
func (Kind) CellBytes(c *experiment.CellSpec) (prepared, perTrial int64) {
	m, bins := cellSize(c)
	return reportBytes(m, c.N, bins, c.Method)
}

// cellSize returns a cell's number of services and bins without building
// its mechanisms (1 and the default when the parameters do not parse:
// Check reports those).
func cellSize(c *experiment.CellSpec) (m, bins int) {
	m, bins = 1, c.Params.Int("bins", estimators.DefaultBins)
	if k := c.Params.Int("m", 0); k > 0 {
		return k, bins
	}
	spec := c.Params.String("services", "")
	if named, ok := namedServices[spec]; ok {
		spec = named
	}
	for _, alt := range strings.Split(spec, "|") {
		if named, ok := namedServices[strings.TrimSpace(alt)]; ok {
			alt = named
		}
		m = max(m, len(strings.Split(alt, ",")))
	}
	return m, bins
}

func reportBytes(m, n, bins int, method string) (prepared, perTrial int64) {
	values := 8 * int64(m) * int64(n)
	prepared, perTrial = values, values
	if method == "ule" || strings.HasPrefix(method, "ems-") {
		prepared += 8 * int64(m) * int64(bins) * int64(bins)
		perTrial += values
	}
	return prepared, perTrial
}
