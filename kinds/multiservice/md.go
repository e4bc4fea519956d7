package multiservice

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/metrics"
)

// MD is kind multiservice-md, Du et al.'s high-dimensional experiment (Figs 6c/d,
// Section 6.3): the collector wants every attribute of d-dimensional rows,
// and instead of splitting each user's budget over the d attributes it
// partitions the users (Erlingsson et al.'s sampling): the N users of the
// cell are split at random into d disjoint groups of ⌊N/d⌋, and group j
// reports only attribute j, to all m services of params.services, each at
// its own full budget. Attribute j is then a one-dimensional multiservice
// cell of ⌊N/d⌋ users, and every metric is averaged over the d attributes
// (the paper's "MSE/JS per dimension, averaged").
//
// params.d (required) is the dimensionality, at most the dataset's
// attributes per row (the first d are used); every other parameter, the
// methods and the metrics are those of kind multiservice (kind.go),
// except what has no meaning here: groups, group and v, the metrics
// variance and aggregation_seconds, and method ems-best (an oracle choice
// per attribute would need d sets of transition matrices). em_stop_ll and
// em_stop_max_iter become the fraction of attributes whose EM stopped so.
//
// Like kind multiservice, the methods of a cell are paired (TrialKey): every
// method sees the same reports in trial t.
//
// The random split is fixed per cell (seeded from the master seed, the
// experiment, dataset, n and d), not redrawn per trial: each trial draws
// fresh reports of the same users, so a cell's trials and their confidence
// intervals are conditional on its split (another --seed draws another).
// The ground truth is each group's own mean or histogram, so the error
// measured is the estimators' on that group.
type MD struct{}

var mdMetrics = []string{"mse", "abs", "js-div", "js-dist", "kl", "em_iterations", "em_stop_ll", "em_stop_max_iter"}

// mdParams are kind multiservice's but those without meaning here (every
// user of attribute j's group reports to every service), plus d.
var mdParams = append(kindParams.Without("groups", "group", "v"),
	experiment.IntParam("d", 1, 1<<20, "the dimensionality: the users are split into d groups, group j reporting attribute j; required"))

// Name implements experiment.Kind.
func (MD) Name() string { return "multiservice-md" }

// Metrics implements experiment.Kind.
func (MD) Metrics() []string { return mdMetrics }

// Params implements experiment.Kind.
func (MD) Params() experiment.ParamSet { return mdParams }

// mdParamSet returns d and the parameters of the one-dimensional cells.
func mdParamSet(c *experiment.CellSpec) (int, experiment.Params, error) {
	d := c.Params.Int("d", 0)
	if d == 0 {
		return 0, experiment.Params{}, mdParams.Errorf("d", "is required: the dimensionality d (users split into d groups)")
	}
	if dim := c.Dataset.Dim(); d > dim {
		return 0, experiment.Params{}, mdParams.Errorf("d", "%d: dataset %s has %d attributes per row", d, c.Dataset.Name, dim)
	}
	if c.N/d < 1 {
		return 0, experiment.Params{}, mdParams.Errorf("d", "%d: n = %d users leave no user per attribute", d, c.N)
	}
	sub := c.Params.Values()
	delete(sub, "d")
	p, err := kindParams.Parse(sub)
	return d, p, err
}

// mdSub returns the one-dimensional cell of one attribute: k users whose
// values are xs (nil in Check).
func mdSub(c *experiment.CellSpec, params experiment.Params, j, k int, xs []float64) *experiment.CellSpec {
	ds := &datasets.Dataset{
		Name:          fmt.Sprintf("%s[%d]", c.Dataset.Name, j+1),
		Values:        xs,
		Normalisation: c.Dataset.Normalisation,
		Source:        fmt.Sprintf("attribute %d of %s", j+1, c.Dataset.Source),
		Substitute:    c.Dataset.Substitute,
	}
	return &experiment.CellSpec{Experiment: c.Experiment, Dataset: ds, Method: c.Method, Eps: c.Eps, N: k, Params: params, Metrics: c.Metrics}
}

// Check implements experiment.Kind.
func (MD) Check(c *experiment.CellSpec) error {
	if err := c.Dataset.Ungrouped(MD{}.Name()); err != nil {
		return err
	}
	_, err := checkMSMDCell(c)
	return err
}

// checkMSMDCell checks c and returns the multiservice cell of one
// attribute (its data left out).
func checkMSMDCell(c *experiment.CellSpec) (*preparedCell, error) {
	d, params, err := mdParamSet(c)
	if err != nil {
		return nil, err
	}
	cell, err := checkMSCell(mdSub(c, params, 0, c.N/d, nil))
	if err != nil {
		var ne *experiment.NeedsError
		if errors.As(err, &ne) {
			ne.Kind = MD{}.Name()
		}
		return nil, err
	}
	if cell.method.name == "ems-best" {
		return nil, fmt.Errorf("method ems-best: not a method of kind multiservice-md (its oracle choice needs each attribute's truth inside the estimator; use ems-<s>)")
	}
	return cell, nil
}

// MechanismNeeds implements experiment.MechanismTaker: kind multiservice's
// methods but ems-best.
func (MD) MechanismNeeds() []experiment.MethodNeeds {
	var out []experiment.MethodNeeds
	for _, n := range methodNeeds {
		if n.Method != "ems-best" {
			out = append(out, n)
		}
	}
	return out
}

// TrialKey pairs the methods of a cell as kind multiservice does, with
// params.d, which changes who reports what, added explicitly (kind
// multiservice's role table does not know it).
func (MD) TrialKey(c *experiment.CellSpec) string {
	rest := c.Params.Values()
	d := rest["d"]
	delete(rest, "d")
	return pairedKey(c, rest) + ";d=" + d
}

// mdSplit returns the rows of each attribute's group: a permutation of
// the first n rows, seeded from the master seed and the cell's experiment,
// dataset, n and d, cut into d blocks of n/d (the remainder reports
// nothing).
func mdSplit(c *experiment.CellSpec, d int) [][]int {
	h := sha256.Sum256(fmt.Appendf(nil, "multiservice-md split\x00%d\x00%s\x00%s\x00%d\x00%d", c.Seed, c.Experiment, c.Dataset.Name, c.N, d))
	rng := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(h[:8]), binary.LittleEndian.Uint64(h[8:16])))
	perm := rng.Perm(c.N)
	k := c.N / d
	groups := make([][]int, d)
	for j := range groups {
		groups[j] = perm[j*k : (j+1)*k]
	}
	return groups
}

// Prepare implements experiment.Kind. The cell's EM runs watch the
// context their Trial is given.
func (MD) Prepare(ctx context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	cell, err := checkMSMDCell(c)
	if err != nil {
		return nil, err
	}
	d, params, err := mdParamSet(c)
	if err != nil {
		return nil, err
	}
	k := c.N / d
	cols := make([][]float64, d)
	for j, rows := range mdSplit(c, d) {
		xs := make([]float64, k)
		for i, r := range rows {
			xs[i] = c.Dataset.Row(r)[j]
		}
		cols[j] = xs
	}
	r := &mdRun{metrics: c.Metrics, theory: map[string]float64{}}
	if cell.method.class == classDist {
		// One estimator for every attribute: its transition matrices
		// (16 MB for [SR, PM, SW] at 1024 bins) depend on the services
		// alone, and building them d times would cost d × 0.1 s and d times
		// the memory.
		if err := r.prepareDist(cell, cols); err != nil {
			return nil, err
		}
		return r, nil
	}
	// The mean methods are cheap to prepare, and their theory depends on
	// each attribute's values: one multiservice cell per attribute.
	r.subs = make([]experiment.CellRun, d)
	for j, xs := range cols {
		sub, err := Kind{}.Prepare(ctx, mdSub(c, params, j, k, xs))
		if err != nil {
			return nil, fmt.Errorf("attribute %d: %w", j+1, err)
		}
		r.subs[j] = sub
	}
	for _, metric := range c.Metrics {
		var s float64
		ok := true
		for _, sub := range r.subs {
			v, has := sub.Theory(metric)
			s += v
			ok = ok && has
		}
		if ok {
			// The mean over attributes of each one's expected error.
			r.theory[metric] = s / float64(d)
		}
	}
	return r, nil
}

// mdRun runs the trials of one multiservice-md cell.
type mdRun struct {
	metrics []string
	theory  map[string]float64

	subs []experiment.CellRun // mean methods: one multiservice run per attribute

	// Distribution methods: the active services, one estimator, and per
	// attribute the inputs on each service's domain and the true histogram.
	mechs  []mechanisms.Mechanism
	est    emEstimator
	inputs [][][]float64 // [attribute][service][user]
	truth  [][]float64   // [attribute] normalised histogram
	k      int
	pool   sync.Pool // *workerScratch (m × k reports)
}

func (r *mdRun) prepareDist(cell *preparedCell, cols [][]float64) error {
	cfg := cell.cfg
	r.mechs = make([]mechanisms.Mechanism, len(cell.active))
	for t, j := range cell.active {
		r.mechs[t] = cfg.mechs[j]
	}
	local := func(j int) int { return slices.Index(cell.active, j) }
	est, err := newMSEMEstimator(cell.method, local, r.mechs, cfg.bins, cfg.em, nil)
	if err != nil {
		return err
	}
	r.est = est
	r.k = len(cols[0])
	r.inputs = make([][][]float64, len(cols))
	r.truth = make([][]float64, len(cols))
	for j, xs := range cols {
		h := make([]float64, cfg.bins)
		metrics.Histogram(xs, -1, 1, cfg.bins, h)
		for b := range h {
			h[b] /= float64(len(xs))
		}
		r.truth[j] = h
		r.inputs[j] = make([][]float64, len(r.mechs))
		for t, m := range r.mechs {
			if lo, hi := m.Domain(); lo == -1 && hi == 1 {
				r.inputs[j][t] = xs
				continue
			}
			u, err := estimators.NewUnbiaser(m)
			if err != nil {
				return err
			}
			in := make([]float64, len(xs))
			for i, x := range xs {
				in[i] = u.Input(x)
			}
			r.inputs[j][t] = in
		}
	}
	return nil
}

// Trial implements experiment.CellRun.
func (r *mdRun) Trial(ctx context.Context, trial int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	sums := make([]float64, len(r.metrics))
	var d int
	if r.subs != nil {
		d = len(r.subs)
		var buf []experiment.Measurement
		for j, sub := range r.subs {
			var err error
			buf, err = sub.Trial(ctx, trial, rng, buf[:0])
			if err != nil {
				return out, fmt.Errorf("attribute %d: %w", j+1, err)
			}
			for i, m := range buf {
				sums[i] += m.Value
			}
		}
	} else {
		d = len(r.inputs)
		sc := r.scratch()
		defer r.pool.Put(sc)
		for j, in := range r.inputs {
			// Service by service, users in order, attribute by attribute:
			// the draws are a function of the trial's generator alone.
			for t, m := range r.mechs {
				if err := m.PerturbBatch(sc.reports[t], in[t], rng); err != nil {
					return out, err
				}
			}
			hist, info, err := r.est(ctx, sc.reports)
			if err != nil {
				return out, fmt.Errorf("attribute %d: %w", j+1, err)
			}
			for i, metric := range r.metrics {
				switch metric {
				case "js-div":
					sums[i] += metrics.JSDivergence(hist, r.truth[j])
				case "js-dist":
					sums[i] += metrics.JSDistance(hist, r.truth[j])
				case "kl":
					sums[i] += metrics.KL(r.truth[j], hist)
				case "em_iterations":
					if info.Accel != "" {
						sums[i] += float64(info.ESteps) // as kind multiservice
					} else {
						sums[i] += float64(info.Iterations)
					}
				case "em_stop_ll":
					sums[i] += indicator(info.Stop == estimators.StopReasonLL)
				case "em_stop_max_iter":
					sums[i] += indicator(info.Stop == estimators.StopReasonMaxIter)
				}
			}
		}
	}
	for i, metric := range r.metrics {
		out = append(out, experiment.Measurement{Metric: metric, Value: sums[i] / float64(d)})
	}
	return out, nil
}

func (r *mdRun) scratch() *workerScratch {
	if s, ok := r.pool.Get().(*workerScratch); ok {
		return s
	}
	s := &workerScratch{reports: make([][]float64, len(r.mechs))}
	for t := range s.reports {
		s.reports[t] = make([]float64, r.k)
	}
	return s
}

// Theory implements experiment.CellRun.
func (r *mdRun) Theory(metric string) (float64, bool) {
	v, ok := r.theory[metric]
	return v, ok
}

// CellBytes implements experiment.MemoryEstimator: as kind multiservice
// over the n users, whom the d attributes split.
func (MD) CellBytes(c *experiment.CellSpec) (prepared, perTrial int64) {
	m, bins := cellSize(c)
	return reportBytes(m, c.N, bins, c.Method)
}
