package groupmean

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"

	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/mechanisms/group"
)

// Kind is kind groupmean: every user holds a group and a value, both
// private; each reports through a group mechanism (Algorithm 3 of Raab et
// al.) and the collector estimates every group's size, sum and mean
// (Section 4). See the package documentation for the methods, parameters
// and metrics.
type Kind struct{}

// Name implements experiment.Kind.
func (Kind) Name() string { return "groupmean" }

// Metrics implements experiment.Kind.
func (Kind) Metrics() []string {
	return []string{"scaled_abs_error", "scaled_abs_error_sq", "group_error_ratio", "order_correct", "mean_diff", "group_mean"}
}

// groupAll is the value of params.group that reports every group.
const groupAll = "all"

var params = experiment.ParamSet{
	experiment.EnumParam("shape", []string{"uniform", "normal", "constant", "extremum"}, "synthetic groups drawn by the kind (Raab et al. §5.1); without it the dataset must have a group column"),
	experiment.IntParam("groups", 2, 4096, "synthetic data: the number of groups d (default 2); real data have their own"),
	experiment.StringParam("range", "synthetic data: the input range lo:hi, in place of the dataset's (E3's [−1, 1], [0, 100], [−50, 50])"),
	experiment.PositiveParam("imbalance", "synthetic data with 2 groups: n₀/n₁ (default 1; group 0 has n users, group 1 round(n/imbalance))"),
	experiment.IntParam("k", 1, 1<<16, "nprr: the discretisation k (default 8, the authors')"),
	experiment.EnumParam("neutral", []string{"nprr0", "uniform-grid"}, "nprr: the neutral report, the paper's nprr0 (not ε-LDP for k ≥ 2, E2.1) or the corrected uniform-grid (default nprr0)"),
	experiment.StringParam("split", "pw: the budget split, half (default), ratio:<ε1/ε> or fitted (the authors' 0.156·ln d + 0.148)"),
	experiment.FloatParam("ratio", 0, 1, "value:<mechanism>: ε1/ε, the share of the budget for the group (default 0.5)"),
	experiment.StringParam("group", "the group whose metrics a cell reports: all (default; averaged over the groups) or its index"),
	experiment.EnumParam("mode", []string{"as-printed", "robust"}, "the aggregator: as-printed (default; no guard, E2.13) or robust (n̂ ≥ 1, m̂ clipped to the range)"),
	experiment.BoolParam("crn", "common random numbers across ε, the authors' seeding (E2.16): run t of every ε draws from one stream, so curves over ε are smoother than independent runs make them (default false: every (cell, run) has its own stream)"),
}

// Params implements experiment.Kind.
func (Kind) Params() experiment.ParamSet { return params }

// AllMethods implements experiment.MethodLister: the paper's four methods.
func (Kind) AllMethods() []string { return baseMethods }

// TrialKey implements experiment.TrialKeyer: the cells of one
// configuration that differ only in params.group see the same runs, so that
// per-group figures show the groups of one set of runs, as the paper's do;
// and so do those that differ only in params.range, whose data are affine
// images of one another, so that their scaled errors are equal to rounding
// (the input-range invariance of E3, exact rather than in distribution).
//
// With params.crn the trial key also leaves out ε, so that run t of every ε
// draws from one generator, as the authors' code does (E2.16). The tallies
// of different ε then differ although their keys agree: the memo's key
// carries ε on its own (tallyKey.eps).
func (Kind) TrialKey(c *experiment.CellSpec) string {
	vals := c.Params.Values()
	delete(vals, "group")
	delete(vals, "range")
	eps := strconv.FormatFloat(c.Eps, 'g', -1, 64)
	if c.Params.Bool("crn", false) {
		eps = "shared"
	}
	key := fmt.Sprintf("dataset=%s;method=%s;eps=%s;n=%d", c.Dataset.Name, c.Method, eps, c.N)
	for _, k := range params.Keys() {
		if v, ok := vals[k]; ok {
			key += ";" + k + "=" + v
		}
	}
	return key
}

// Check implements experiment.Kind.
func (Kind) Check(c *experiment.CellSpec) error {
	_, err := newCell(c, false)
	return err
}

// Prepare implements experiment.Kind.
func (Kind) Prepare(_ context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	return newCell(c, true)
}

// cell is one prepared cell: the data on [−1, 1], the mechanism and the
// truth.
type cell struct {
	key     tallyKey  // the trial of key.trial's tally, shared with sibling cells
	scratch sync.Pool // *trialScratch
	mech    *group.Mechanism
	data    *data
	which   int // the reported group, or −1 for all
	mode    estimators.GroupMode
	metrics []string
	theory  map[string]float64
}

// newCell checks the cell and, with build, makes its data and theory.
func newCell(c *experiment.CellSpec, build bool) (*cell, error) {
	p := c.Params
	mode, err := estimators.ParseGroupMode(p.String("mode", "as-printed"))
	if err != nil {
		return nil, params.Errorf("mode", "%v", err)
	}
	src, err := source(c)
	if err != nil {
		return nil, err
	}
	cfg, err := methodConfig(c.Method, c.Eps, src.groups, p)
	if err != nil {
		return nil, err
	}
	mech, err := group.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("method %q: %w", c.Method, err)
	}
	which := -1
	if g := p.String("group", groupAll); g != groupAll {
		which, err = strconv.Atoi(g)
		if err != nil || which < 0 || which >= src.groups {
			return nil, params.Errorf("group", "%q: want all or a group index in [0, %d)", g, src.groups)
		}
	}
	for _, m := range c.Metrics {
		switch m {
		case "order_correct", "mean_diff":
			if src.groups < 2 {
				return nil, fmt.Errorf("metric %s compares groups 0 and 1; the data have one group", m)
			}
		case "group_mean":
			if which < 0 {
				return nil, params.Errorf("group", "metric group_mean needs one group (axes.params.group = an index)")
			}
		}
	}
	out := &cell{mech: mech, which: which, mode: mode, metrics: c.Metrics,
		key: tallyKey{experiment: c.Experiment, seed: c.Seed, trialKey: Kind{}.TrialKey(c), eps: c.Eps}}
	if cfg.Method == "value" {
		out.key.binding = mechanismBinding(cfg.Value)
	}
	if !build {
		return out, nil
	}
	if out.data, err = src.build(); err != nil {
		return nil, err
	}
	out.key.data = out.data.fingerprint
	out.theory = out.computeTheory()
	return out, nil
}

// Trial implements experiment.CellRun: one run of every user's report and
// the collector's estimates.
func (r *cell) Trial(_ context.Context, trial int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	d := r.data
	s, _ := r.scratch.Get().(*trialScratch)
	if s == nil {
		s = &trialScratch{nHat: make([]float64, d.d), sHat: make([]float64, d.d), mHat: make([]float64, d.d)}
	}
	defer r.scratch.Put(s)
	t := &s.tally
	key := r.key
	key.trial = trial
	if !tallies.get(key, t) {
		if err := r.mech.Simulate(t, d.groups, d.unit, rng); err != nil {
			return out, err
		}
		tallies.put(key, t)
	}
	a, q := r.mech.Keep()
	nHat, sHat, mHat := s.nHat, s.sHat, s.mHat
	estimators.GroupCounts(nHat, t.Count, t.N, a, q)
	estimators.GroupSums(sHat, t.Sum, a, r.mech.Scale())
	estimators.GroupMeans(mHat, t.Count, nHat, sHat, d.lo, d.hi, r.mode)
	width := d.hi - d.lo
	for _, m := range r.metrics {
		var v float64
		switch m {
		case "scaled_abs_error", "scaled_abs_error_sq":
			var sum float64
			count := 0
			for g := range d.d {
				if (r.which >= 0 && g != r.which) || d.sizes[g] == 0 {
					continue
				}
				e := math.Abs(mHat[g]-d.means[g]) / width
				if m == "scaled_abs_error_sq" {
					e *= e
				}
				sum += e
				count++
			}
			v = sum / float64(count)
		case "group_error_ratio":
			v = t.Moved / float64(t.N)
		case "order_correct":
			if (mHat[0]-mHat[1])*(d.means[0]-d.means[1]) > 0 {
				v = 1
			}
		case "mean_diff":
			v = mHat[0] - mHat[1]
		case "group_mean":
			v = mHat[r.which]
		}
		out = append(out, experiment.Measurement{Metric: m, Value: v})
	}
	return out, nil
}

// trialScratch is what one trial reuses: the tally's slices and scratch
// space, and the estimates.
type trialScratch struct {
	tally            group.Tally
	nHat, sHat, mHat []float64
}

// Theory implements experiment.CellRun.
func (r *cell) Theory(metric string) (float64, bool) {
	v, ok := r.theory[metric]
	return v, ok
}
