package harness

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/results"
)

// BudgetOptions control Budget.
type BudgetOptions struct {
	// Quick estimates the spec's [quick] scale instead of its full one.
	Quick bool
	// CalibrationN caps the n of a calibration cell (default 20,000): a
	// cell of larger n is timed at this n and scaled by its cost.
	CalibrationN int
	// CalibrationTime bounds the calibration (default 20 s of CPU): the
	// groups not timed by then take the median rate of those that were.
	CalibrationTime time.Duration
	// Cores is the cores of one machine (default 2), for the wall times.
	Cores int
	// Iterations holds, by cell key (results.Cell.Key), the mean
	// iterations per trial a full-scale run of the cell recorded in the
	// kind's iteration metric (experiment.IterativeCost): they are a
	// result of the spec and seed, not of the machine, and no timing at a
	// smaller n foresees them. Nil: every count is extrapolated.
	Iterations map[string]float64
}

// CellBudget is the estimate of one cell.
type CellBudget struct {
	Key        string
	Cost       float64 // trials × the kind's TrialCost
	CPUSeconds float64
	// Measured is false when the cell's group was not calibrated (it took
	// the median rate of the others).
	Measured bool
}

// BudgetReport is the estimated cost of a spec, from a short calibration.
type BudgetReport struct {
	Spec          string
	Quick         bool
	Cells, Trials int
	// Crossed is the cells of the axes' cross product, of the datasets
	// here, when the spec names its cells ([[cells]], [[exclude]]); 0
	// when it runs them all.
	Crossed int
	// Timing is set for a timing spec (Spec.IsTiming), whose trials run
	// one at a time whatever -j.
	Timing             bool
	PerCell            []CellBudget
	CPUSeconds         float64 // sum over the cells
	Groups, Calibrated int     // groups of cells (dataset × method × params × n capped) and how many were timed
	// Recorded is the groups costed from recorded iterations alone
	// (BudgetOptions.Iterations), without a calibration.
	Recorded              int
	CalibrationCPUSeconds float64
	CalibrationN          int
	Cores                 int
	// IterationTimed is the groups and sizes timed at their own n with
	// their iterations capped (experiment.IterativeCost); of the cells
	// costed so, RecordedIterations took the iterations a full-scale run
	// recorded (BudgetOptions.Iterations) and ModelledIterations grew the
	// calibration's as n^(1/3).
	IterationTimed, RecordedIterations, ModelledIterations int
	// IterationCPUSeconds is the part of CPUSeconds that is those cells'
	// iterations: their count times the cost of one at the cell's n, the
	// time only fewer iterations (another stopping rule) would save.
	IterationCPUSeconds float64
	// TrialOverhead is the CPU seconds the runner spends on a trial
	// beside it (its trial key, its rows), included in every cell's
	// estimate; CellOverhead the same per cell (the writing through of
	// its rows).
	TrialOverhead, CellOverhead float64
}

// Wall returns the estimated wall time of the spec on shards machines of
// Cores cores each, the cells split as --shard splits them (by the kind's
// cost) and a shard's time its CPU time over its cores, but never less
// than its longest trial... approximated by its largest cell over its
// trials.
func (r *BudgetReport) Wall(shards int) float64 {
	costs := make([]float64, len(r.PerCell))
	for i, c := range r.PerCell {
		costs[i] = c.Cost
	}
	assign := AssignShards(costs, shards)
	load := make([]float64, shards)
	longest := make([]float64, shards)
	for i, c := range r.PerCell {
		load[assign[i]] += c.CPUSeconds
		longest[assign[i]] = max(longest[assign[i]], c.CPUSeconds/float64(r.Trials))
	}
	var wall float64
	for s := range load {
		wall = max(wall, max(load[s]/float64(r.Cores), longest[s]))
	}
	return wall
}

// ShardsFor returns the smallest shard count (up to limit) whose estimated
// wall time is at most seconds, or 0 when none is.
func (r *BudgetReport) ShardsFor(seconds float64, limit int) int {
	for n := 1; n <= limit; n++ {
		if r.Wall(n) <= seconds {
			return n
		}
	}
	return 0
}

// Budget estimates the cost of running a spec: its cells and trials, and
// the CPU time of each cell from a short calibration. The cells are
// grouped by dataset, method, params and n (capped at CalibrationN); one
// cell of each group (its median ε) is prepared and run for a few trials
// (20 ms of CPU, at most the spec's trials) at its n, at most
// CalibrationN, and while the calibration has spent less than an eighth
// of its time so are the group's cells of least and greatest ε, a cell's
// rate then interpolated in ε between the three. A larger cell is scaled
// from there: by the kind's own cost model when it has one
// (experiment.CostEstimator), else by n^b, with b measured from a second
// timing at 4 × CalibrationN (within [0, 2]: an EM over a fixed histogram
// grows slower than n). The cells of a kind's share set
// (experiment.CostSharer: cells that compute each trial once between
// them) are one group, and each is charged its own preparation and its
// share of the trials. An EM cell larger than the calibration
// (experiment.IterativeCost) is instead timed at its own n with its
// iterations capped, and costed as the work beside its iterations plus
// their recorded (BudgetOptions.Iterations) or extrapolated count times
// the cost of one (iterationCost). It is an estimate: a kind whose time grows
// differently beyond the calibration's sizes (EM iterations that grow
// with n, caches that stop fitting) is off by that much, and it counts
// CPU time, not the wall time of a busy machine.
func Budget(ctx context.Context, kinds experiment.Registry, spec *Spec, opt BudgetOptions) (*BudgetReport, error) {
	if opt.CalibrationN <= 0 {
		opt.CalibrationN = 20000
	}
	if opt.CalibrationTime <= 0 {
		opt.CalibrationTime = 20 * time.Second
	}
	if opt.Cores <= 0 {
		opt.Cores = 2
	}
	s := spec.Scaled(opt.Quick)
	kind, err := s.Check(kinds)
	if err != nil {
		return nil, err
	}
	stopExternal, err := startExternal(ctx, s, 0, true)
	if err != nil {
		return nil, err
	}
	defer stopExternal()
	b := &budgeter{ctx: ctx, s: s, kind: kind, opt: opt, perIter: map[string]iterTiming{}}
	b.iterative, _ = kind.(experiment.IterativeCost)
	if err := b.loadCells(); err != nil {
		return nil, err
	}
	rep := &BudgetReport{Spec: s.Name, Quick: opt.Quick, Cells: len(b.cells), Trials: s.Trials, CalibrationN: opt.CalibrationN, Cores: opt.Cores, Timing: s.IsTiming()}
	if s.filtered() {
		for _, g := range s.grid(experiment.Methods(kind, s.Axes.Method)) {
			if b.data[g.di] != nil {
				rep.Crossed++
			}
		}
	}
	if err := b.group(); err != nil {
		return nil, err
	}
	rep.Groups = len(b.keys)
	if err := b.calibrate(rep); err != nil {
		return nil, err
	}
	if err := timeOverheads(b); err != nil {
		return nil, err
	}
	rep.TrialOverhead = b.keySeconds + float64(len(b.s.Metrics))*b.rowSeconds
	rep.CellOverhead = b.cellSeconds
	if err := b.estimate(rep); err != nil {
		return nil, err
	}
	// Back in plan order, as --shard sees them.
	order := map[string]int{}
	for i, c := range b.cells {
		order[c.cell.Key()] = i
	}
	slices.SortFunc(rep.PerCell, func(a, b CellBudget) int { return order[a.Key] - order[b.Key] })
	return rep, nil
}

// A budgeter is one call of Budget: the spec's cells on data at the
// calibration's sizes, their groups, and the timing model of each group
// that was calibrated.
type budgeter struct {
	ctx  context.Context
	s    *Spec
	kind experiment.Kind
	opt  BudgetOptions

	data  []*datasets.Dataset
	cells []planCell
	// groups holds the cells of each group by key, keys the groups in plan
	// order of their first cell.
	groups map[string][]int
	keys   []string
	models map[string]timing // the calibrated groups
	// ownCost is set when the kind has a cost model of its own
	// (experiment.CostEstimator), which then scales the timings.
	ownCost bool
	// share holds each cell's experiment.CostShareKey ("" for none) and
	// shared how many cells of the plan have each key: a set's trials are
	// computed once, so each of its cells is charged its share.
	share  []string
	shared map[string]int
	// checkErr is the first refusal of a cell by the kind at a
	// calibration size, for the error when no group could be timed.
	checkErr error
	// rowSeconds is the CPU time the runner spends on one row of
	// rows.csv (a trial's measurement of one metric): formatting and
	// writing it, which the trials' timings do not hold; keySeconds its
	// trial key of a trial (TrialKey: a kind's own, built per trial);
	// cellSeconds the writing through of a cell's rows.
	rowSeconds, keySeconds, cellSeconds float64

	// iterative is the kind as an experiment.IterativeCost (nil if it is
	// not one); full is the data at the spec's own sizes, loaded for the
	// first cell timed there, and perIter those timings by group and n.
	iterative experiment.IterativeCost
	full      []*datasets.Dataset
	perIter   map[string]iterTiming
}

// timeOverheads is (*budgeter).timeRows; a test swaps in known costs.
var timeOverheads = (*budgeter).timeRows

// timeRows times what the runner does per trial beside the trial, on the
// first cell: the writing of its rows through the runner's writer
// (results.WriteRows) into a buffer, about 2 µs a row, and its trial key
// (TrialKey), a few µs for a kind that builds its own, and a cell's
// write through to rows.csv: costs of their own for a spec of cheap
// trials (groupmean-aquila-gender writes 128,000 rows for 0.3 CPU-s of
// trials, and ran in 0.5).
func (b *budgeter) timeRows() error {
	if len(b.cells) == 0 {
		return nil
	}
	c := b.cells[0].cell
	cs, err := b.specOf(b.cells[0], c.N)
	if err != nil {
		return err
	}
	key := c.Key()
	t0, keys := calibrationClock(), 0
	for keys == 0 || (calibrationClock()-t0 < 0.01 && keys < 20000) {
		for range 100 {
			_ = TrialKey(b.kind, cs, key)
		}
		keys += 100
	}
	b.keySeconds = (calibrationClock() - t0) / float64(keys)
	rows := make([]results.Row, 1000)
	for i := range rows {
		rows[i] = results.Row{Experiment: c.Experiment, Dataset: c.Dataset, Method: c.Method, Eps: c.Eps, N: c.N, Params: c.Params,
			Normalisation: "fixed[lo=0,hi=1]", Trial: i, Metric: "metric", Value: results.Float(0.1234567890123 / float64(i+1)), Theory: results.Float(0.0123456789)}
	}
	var buf bytes.Buffer
	t0, written := calibrationClock(), 0
	for written == 0 || (calibrationClock()-t0 < 0.02 && written < 20*len(rows)) {
		buf.Reset()
		if err := results.WriteRows(&buf, rows, false); err != nil {
			return err
		}
		written += len(rows)
	}
	b.rowSeconds = (calibrationClock() - t0) / float64(written)
	// The runner writes each cell's rows through to rows.csv as the cell
	// completes (a flush, one write call): timed on a scratch file.
	f, err := os.CreateTemp("", "ldpbench-plan-*")
	if err != nil {
		return nil // no scratch file: the cells' flushes go uncounted
	}
	defer os.Remove(f.Name())
	defer f.Close()
	line := buf.Bytes()[:min(buf.Len(), 200)]
	t0, flushes := calibrationClock(), 0
	for flushes == 0 || (calibrationClock()-t0 < 0.005 && flushes < 2000) {
		if _, err := f.Write(line); err != nil {
			return nil
		}
		flushes++
	}
	b.cellSeconds = (calibrationClock() - t0) / float64(flushes)
	return nil
}

// A timing is a calibrated group: the cell's preparation prep and seconds
// per trial t at size n with cost unit there, and the exponent b of both
// ∝ n^b for larger cells. prep is kept apart from t because the cells of a
// share set (experiment.CostSharer) each prepare but share their trials.
type timing struct {
	prep, t, n, unit, b float64
	k                   int // cells sharing the timed cell's trials (0: none)
	// eps and f are the ε the group was timed at, ascending, and the
	// rate per cost unit there over the rate at the timed cell's ε (f = 1
	// there): a cell's rate is interpolated in ε between them, log-linearly (AAA's
	// linear programme costs twice as much at ε = 1 as at ε = 3, which no
	// cost unit of n says). A single point when the group was timed at
	// one ε.
	eps, f []float64
	// iters holds the iterations a trial ran at each ε of eps, at size
	// itersN (NaN where the kind reports none: experiment.IterativeCost).
	iters  []float64
	itersN float64
}

// epsFactor is the timing's rate at ε over its rate at the timed cell's
// ε, its logarithm piecewise linear between the ε it was timed at (a cost
// that grows or falls geometrically in ε, as theory's N-output mechanism
// whose outputs grow with ε, is then followed exactly), constant beyond.
func (m timing) epsFactor(eps float64) float64 {
	if len(m.eps) < 2 {
		return 1
	}
	if eps <= m.eps[0] {
		return m.f[0]
	}
	for i := 1; i < len(m.eps); i++ {
		if eps <= m.eps[i] {
			w := (eps - m.eps[i-1]) / (m.eps[i] - m.eps[i-1])
			return m.f[i-1] * math.Pow(m.f[i]/m.f[i-1], w)
		}
	}
	return m.f[len(m.f)-1]
}

// rewarm takes a second timing of the cell timed at ε when it is the
// cheaper, the first having paid what the process does once: the
// factors of the other ε, timed warm after the first, are then against
// its rate. It returns the timing's CPU seconds per trial.
func (m *timing) rewarm(again cellTime, trials int, eps float64) float64 {
	p1 := m.perTrial(trials, m.k)
	p := (timing{prep: again.prep, t: again.perTrial}).perTrial(trials, m.k)
	if !again.ok || !(p > 0) || p >= p1 {
		return p1
	}
	for i, e := range m.eps {
		if e != eps {
			m.f[i] *= p1 / p
		}
	}
	m.prep, m.t = again.prep, again.perTrial
	return p
}

// itersAt is the iterations a trial ran at ε at the calibration's size,
// interpolated as epsFactor interpolates the rate (NaN when none was
// measured).
func (m timing) itersAt(eps float64) float64 {
	var xs, ys []float64
	for i, v := range m.iters {
		if v > 0 {
			xs, ys = append(xs, m.eps[i]), append(ys, v)
		}
	}
	switch {
	case len(xs) == 0:
		return math.NaN()
	case eps <= xs[0]:
		return ys[0]
	}
	for i := 1; i < len(xs); i++ {
		if eps <= xs[i] {
			w := (eps - xs[i-1]) / (xs[i] - xs[i-1])
			return ys[i-1] * math.Pow(ys[i]/ys[i-1], w)
		}
	}
	return ys[len(ys)-1]
}

// perTrial is the timing's CPU seconds per trial of a cell of trials
// trials whose trials are shared by k cells: its preparation spread over
// its trials, and its share of a trial.
func (m timing) perTrial(trials, k int) float64 {
	return m.prep/float64(max(trials, 1)) + m.t/float64(max(k, 1))
}

// calibrationClock is the clock the calibration reads, CPU seconds (a
// test swaps in one that its kind advances, for exact expectations).
var calibrationClock = cpuTime

// loadCells loads the data at the calibration's sizes only (a full-scale
// dataset of 10⁷ rows is not needed to time a trial) and expands the plan
// into the cells whose data is there.
func (b *budgeter) loadCells() error {
	cal := *b.s
	cal.Axes.N = nil
	for _, n := range b.s.Axes.N {
		cal.Axes.N = append(cal.Axes.N, min(n, 4*b.opt.CalibrationN))
	}
	data, skipped, err := loadDatasets(&cal)
	if err != nil {
		return err
	}
	b.data = data
	b.cells = slices.DeleteFunc(expand(b.s, b.kind), func(c planCell) bool { return data[c.dataset] == nil })
	if len(b.cells) == 0 && len(skipped) > 0 {
		return fmt.Errorf("%s: no cell to time: its data are not here (%s); run 'make data' (or set $LDPBENCH_DATA)", b.s.Name, strings.Join(skipped, ", "))
	}
	return nil
}

// specOf is the spec of cell c at size n.
func (b *budgeter) specOf(c planCell, n int) (*experiment.CellSpec, error) {
	return b.specWith(c, n, b.data[c.dataset], nil)
}

// specWith is the spec of cell c at size n on dataset d, with the raw
// params over overlaid on the cell's own; with an iteration metric the
// kind reports (experiment.IterativeCost), that metric is measured too.
func (b *budgeter) specWith(c planCell, n int, d *datasets.Dataset, over map[string]string) (*experiment.CellSpec, error) {
	raw := c.params
	if len(over) > 0 {
		raw = maps.Clone(c.params)
		maps.Copy(raw, over)
	}
	params, err := b.kind.Params().Parse(raw)
	if err != nil {
		return nil, err
	}
	cs := &experiment.CellSpec{Experiment: b.s.Name, Dataset: d, Method: c.cell.Method, Eps: float64(c.cell.Eps),
		N: n, Params: params, Metrics: b.s.Metrics, Seed: b.s.Seed}
	if b.iterative != nil {
		if metric, _, ok := b.iterative.Iterations(cs); ok && !slices.Contains(cs.Metrics, metric) {
			cs.Metrics = append(slices.Clone(cs.Metrics), metric)
		}
	}
	return cs, nil
}

// cellTime is one timing of a cell: the CPU seconds of its preparation and
// per trial, and the mean of its iteration metric over the timed trials
// (NaN without one); ok is false when the kind refuses the cell there.
type cellTime struct {
	prep, perTrial, iters float64
	cs                    *experiment.CellSpec
	ok                    bool
}

// timeCell times cell c at size n on the calibration's data.
func (b *budgeter) timeCell(c planCell, n int) (cellTime, error) {
	return b.timeCellOn(c, n, b.data[c.dataset], nil, 0.02)
}

// timeCellOn times cell c at size n on dataset d with the raw params over
// overlaid on its own: its preparation, then trials until minCPU seconds
// of CPU (at least one, at most the spec's trials).
func (b *budgeter) timeCellOn(c planCell, n int, d *datasets.Dataset, over map[string]string, minCPU float64) (cellTime, error) {
	s, ctx := b.s, b.ctx
	// The preparation the runner does for every cell: its params parsed,
	// Check, Prepare.
	t0 := calibrationClock()
	cs, err := b.specWith(c, n, d, over)
	if err != nil {
		return cellTime{}, fmt.Errorf("cell %s: %w", c.cell.Key(), err)
	}
	if err := b.kind.Check(cs); err != nil {
		if b.checkErr == nil {
			b.checkErr = fmt.Errorf("cell %s at n = %d: %w", c.cell.Key(), n, err)
		}
		return cellTime{cs: cs}, nil
	}
	run, err := b.kind.Prepare(ctx, cs)
	if err != nil {
		return cellTime{}, fmt.Errorf("calibrating cell %s at n = %d: %w", c.cell.Key(), n, err)
	}
	prep := calibrationClock() - t0
	metric := ""
	if b.iterative != nil {
		metric, _, _ = b.iterative.Iterations(cs)
	}
	// Trials until minCPU (20 ms in the calibration: one trial of a
	// small cell is below the clock's resolution).
	t1, done := calibrationClock(), 0
	iters, counted := 0.0, 0
	var out []experiment.Measurement
	for done < max(s.Trials, 1) && (done == 0 || calibrationClock()-t1 < minCPU) {
		if out, err = run.Trial(ctx, done, TrialRand(s.Seed, s.Name, "calibration", done), out[:0]); err != nil {
			return cellTime{}, fmt.Errorf("calibrating cell %s at n = %d: %w", c.cell.Key(), n, err)
		}
		for _, m := range out {
			if metric != "" && m.Metric == metric {
				iters += m.Value
				counted++
			}
		}
		done++
	}
	t := cellTime{prep: prep, perTrial: (calibrationClock() - t1) / float64(done), iters: math.NaN(), cs: cs, ok: true}
	if counted > 0 {
		t.iters = iters / float64(counted)
	}
	return t, nil
}

// group sorts the cells into the groups that share a calibration.
func (b *budgeter) group() error {
	b.groups = map[string][]int{}
	b.share = make([]string, len(b.cells))
	b.shared = map[string]int{}
	members := map[string][]int{}
	for i, c := range b.cells {
		cs, err := b.specOf(c, c.cell.N)
		if err != nil {
			return fmt.Errorf("cell %s: %w", c.cell.Key(), err)
		}
		if sk := experiment.CostShareKey(b.kind, cs); sk != "" {
			b.share[i] = sk
			b.shared[sk]++
			members[sk] = append(members[sk], i)
		}
	}
	// The params that vary within a share set (kind fl's round) are left
	// out of its cells' group key: the set is one group, timed once (timing
	// each of its cells would find the trials the first one computed, and
	// spend a calibration per cell).
	varying := map[string]map[string]bool{}
	for sk, idx := range members {
		v := map[string]bool{}
		first := b.cells[idx[0]].params
		for _, i := range idx[1:] {
			p := b.cells[i].params
			for k, x := range p {
				if y, ok := first[k]; !ok || x != y {
					v[k] = true
				}
			}
			for k := range first {
				if _, ok := p[k]; !ok {
					v[k] = true
				}
			}
		}
		varying[sk] = v
	}
	for i, c := range b.cells {
		// A cell of n ≤ CalibrationN is timed at its own n (a kind whose
		// cost does not grow with n, such as central-mean's batches of
		// releases, is then measured, not scaled); larger ones share the
		// calibration at CalibrationN.
		params := c.cell.Params
		if sk := b.share[i]; sk != "" {
			p := maps.Clone(c.params)
			for k := range varying[sk] {
				delete(p, k)
			}
			params = "shared " + results.FormatParams(p)
		}
		k := fmt.Sprintf("%d|%s|%s|%d", c.dataset, c.cell.Method, params, min(c.cell.N, b.opt.CalibrationN))
		b.groups[k] = append(b.groups[k], i)
	}
	b.keys = slices.Sorted(maps.Keys(b.groups))
	// Calibrate the groups in plan order of their first cell, so that a
	// budget cut short keeps the same ones each time.
	sort.SliceStable(b.keys, func(x, y int) bool { return b.groups[b.keys[x]][0] < b.groups[b.keys[y]][0] })
	return nil
}

// calibrate times the groups, in order, until the calibration's CPU time
// is spent (after the first timed one), and reports how many it timed and
// the CPU time it took.
func (b *budgeter) calibrate(rep *BudgetReport) error {
	b.models = map[string]timing{}
	_, b.ownCost = b.kind.(experiment.CostEstimator)
	start := calibrationClock()
	for _, k := range b.keys {
		if b.recorded(k) {
			// Costed from its cells' records at their own n alone
			// (iterationCost): no calibration needed.
			rep.Recorded++
			continue
		}
		if calibrationClock()-start > b.opt.CalibrationTime.Seconds() && len(b.models) > 0 {
			break
		}
		if err := b.ctx.Err(); err != nil {
			return err
		}
		// The ends of a group's ε are timed too while the calibration
		// has spent less than an eighth of its time: a spec of many
		// groups keeps its time for timing each group once, and plan its
		// few seconds.
		spread := calibrationClock()-start < b.opt.CalibrationTime.Seconds()/8
		m, ok, err := b.calibrateGroup(k, spread)
		if err != nil {
			return err
		}
		if !ok {
			continue // refused at this n: the group takes another's rate
		}
		b.models[k] = m
	}
	rep.Calibrated = len(b.models)
	rep.CalibrationCPUSeconds = calibrationClock() - start
	if len(b.models) == 0 && rep.Recorded < len(b.keys) {
		if b.checkErr == nil {
			return fmt.Errorf("%s: no cell could be calibrated at n ≤ %d: the plan has no cell to time", b.s.Name, b.opt.CalibrationN)
		}
		return fmt.Errorf("%s: no cell could be calibrated at n ≤ %d: %w", b.s.Name, b.opt.CalibrationN, b.checkErr)
	}
	return nil
}

// recorded reports whether every cell of group k is costed from the
// iterations a full-scale run recorded (iterationCost), which needs no
// calibration: an iterative cell larger than the calibration, with a
// record.
func (b *budgeter) recorded(k string) bool {
	if b.iterative == nil || len(b.opt.Iterations) == 0 {
		return false
	}
	for _, i := range b.groups[k] {
		c := b.cells[i]
		if c.cell.N <= b.opt.CalibrationN {
			return false
		}
		if _, ok := b.opt.Iterations[c.cell.Key()]; !ok {
			return false
		}
		cs, err := b.specOf(c, c.cell.N)
		if err != nil {
			return false
		}
		if _, _, ok := b.iterative.Iterations(cs); !ok {
			return false
		}
	}
	return true
}

// calibrateGroup times group k's cell of median ε at its n (at most
// CalibrationN and the data's rows), and with spread its cells of least
// and greatest ε at that n; ok is false when the kind refuses the median
// cell there.
func (b *budgeter) calibrateGroup(k string, spread bool) (m timing, ok bool, err error) {
	cells := b.cells
	idx := slices.Clone(b.groups[k])
	slices.SortStableFunc(idx, func(x, y int) int { return cmp.Compare(cells[x].cell.Eps, cells[y].cell.Eps) })
	c := cells[idx[len(idx)/2]]
	n := min(c.cell.N, b.opt.CalibrationN, b.data[c.dataset].Rows())
	ct, err := b.timeCell(c, n)
	if err != nil || !ct.ok {
		return timing{}, false, err
	}
	m = timing{prep: ct.prep, t: ct.perTrial, n: float64(n), unit: experiment.TrialCost(b.kind, ct.cs), b: 1, k: b.shared[b.share[idx[len(idx)/2]]]}
	m.eps, m.f, m.iters, m.itersN = []float64{float64(c.cell.Eps)}, []float64{1}, []float64{ct.iters}, float64(n)
	if spread {
		rate := m.perTrial(b.s.Trials, m.k) / m.unit
		for _, j := range []int{idx[0], idx[len(idx)-1]} {
			e := float64(cells[j].cell.Eps)
			if slices.Contains(m.eps, e) {
				continue
			}
			cte, err := b.timeCell(cells[j], n)
			if err != nil {
				return timing{}, false, err
			}
			if !cte.ok {
				continue
			}
			mE := timing{prep: cte.prep, t: cte.perTrial}
			if r := mE.perTrial(b.s.Trials, b.shared[b.share[j]]) / experiment.TrialCost(b.kind, cte.cs); r > 0 && rate > 0 {
				at, _ := slices.BinarySearch(m.eps, e)
				m.eps = slices.Insert(m.eps, at, e)
				m.f = slices.Insert(m.f, at, r/rate)
				m.iters = slices.Insert(m.iters, at, cte.iters)
			}
		}
	}
	// With a cost model of the kind's own, the cell is timed once more
	// and the cheaper of the two kept: the first paid what the process
	// does once (a kind's caches, the runtime's warm-up), which a larger
	// n does not pay again in proportion; scaled 50-fold, a cold timing
	// put multiservice-fig8a's plan at 2.6 times its run.
	// Not for a kind that keeps a trial's work for the cells that share
	// it (experiment.CostSharer): it would find the trials done, and the
	// spec may have no other trials to time (kind fl's folds × repeats).
	if _, sharer := b.kind.(experiment.CostSharer); b.ownCost && !sharer {
		again, err := b.timeCell(c, n)
		if err != nil {
			return timing{}, false, err
		}
		m.rewarm(again, b.s.Trials, float64(c.cell.Eps))
	}
	// Without a cost model of the kind's own, the growth with n is
	// measured: a second time at 4n (or the group's largest n) gives
	// the exponent, within [0, 2] (an EM over a fixed histogram
	// grows less than n, a pairwise kernel more).
	largest := 0
	for _, i := range b.groups[k] {
		largest = max(largest, cells[i].cell.N)
	}
	if n2 := min(4*n, largest, b.data[c.dataset].Rows()); !b.ownCost && n2 >= 2*n {
		ct2, err := b.timeCell(c, n2)
		if err != nil {
			return timing{}, false, err
		}
		m2 := timing{prep: ct2.prep, t: ct2.perTrial}
		// n again, and the cheaper of its two timings: the first paid
		// what the process does once (a kind's caches of transition
		// matrices, the runtime's warm-up), which the timing at n2 did
		// not, and the exponent from the pair read a fixed cost as
		// slower growth; the lesser of two also drops a stray spike.
		// Extrapolated 10⁷/(8·10⁴) = 125-fold, a spike once made
		// multiservice-fig7c's plan 23 min against 2 min on every
		// other run.
		ct1b, err := b.timeCell(c, n)
		if err != nil {
			return timing{}, false, err
		}
		p1 := m.rewarm(ct1b, b.s.Trials, float64(c.cell.Eps))
		if p2 := m2.perTrial(b.s.Trials, m.k); ct2.ok && p1 > 0 && p2 > 0 {
			m.b = min(max(math.Log(p2/p1)/math.Log(float64(n2)/float64(n)), 0), 2)
			m.prep, m.t, m.n = ct2.prep, ct2.perTrial, float64(n2)
		}
	}
	return m, true, nil
}

// estimate fills in every cell's estimate, group by group: from its
// group's timing, scaled to its n; a group not timed takes the rate per
// cost unit of a timed group of the same dataset, method and params
// (another n), else the median rate of the timed groups.
func (b *budgeter) estimate(rep *BudgetReport) error {
	var rates []float64
	for _, m := range b.models {
		rates = append(rates, m.perTrial(b.s.Trials, m.k)/m.unit)
	}
	slices.Sort(rates)
	median := 0.0
	if len(rates) > 0 {
		median = rates[len(rates)/2]
	}
	for _, key := range b.keys {
		m, ok := b.models[key]
		linear := 0.0 // seconds per cost unit, for a group not timed
		if !ok {
			linear = median
			prefix := key[:strings.LastIndexByte(key, '|')+1]
			for _, k2 := range b.keys {
				if m2, ok2 := b.models[k2]; ok2 && strings.HasPrefix(k2, prefix) {
					linear = m2.perTrial(b.s.Trials, m2.k) / m2.unit
					break
				}
			}
		}
		for _, i := range b.groups[key] {
			c := b.cells[i]
			cs, err := b.specOf(c, c.cell.N)
			if err != nil {
				return err
			}
			unit := experiment.TrialCost(b.kind, cs)
			k := b.shared[b.share[i]] // 0 when the cell shares nothing
			var perTrial float64
			it, iterOK, err := b.iterationCost(key, m, ok, c, cs, rep)
			if err != nil {
				return err
			}
			switch {
			case iterOK:
				perTrial = it
			case !ok:
				perTrial = linear * unit
			case b.ownCost:
				perTrial = m.perTrial(b.s.Trials, k) * unit / m.unit * m.epsFactor(float64(c.cell.Eps))
			default:
				perTrial = m.perTrial(b.s.Trials, k) * math.Pow(float64(c.cell.N)/m.n, m.b) * m.epsFactor(float64(c.cell.Eps))
			}
			cost := float64(b.s.Trials) * unit / float64(max(k, 1))
			secs := (perTrial+rep.TrialOverhead)*float64(b.s.Trials) + rep.CellOverhead
			rep.PerCell = append(rep.PerCell, CellBudget{Key: c.cell.Key(), Cost: cost, CPUSeconds: secs, Measured: ok || iterOK})
			rep.CPUSeconds += secs
		}
	}
	return nil
}

// Iteration caps of the timings at a cell's own n (experiment.
// IterativeCost): the first at IterationCapLo, the second IterationStep
// iterations later, then 8 times as many until their cost stands out of
// the noise of a trial's draws (timeIterations; one ULE iteration at
// m = 3 and n = 10⁶ is about 3 ms of CPU, the draws and merging of its
// reports about 0.4 s, one EMS iteration about 20 µs).
const (
	IterationCapLo = 2
	IterationStep  = 40
)

// iterTiming is the cost of a cell at its own n split by its iterations:
// CPU seconds of its preparation, of a trial's work beside its
// iterations, and of one iteration.
type iterTiming struct {
	prep, fixed, each float64
	ok                bool
}

// iterationCost is the CPU seconds per trial of cell c (spec cs), of
// group key with calibration m (calibrated), when the kind counts its
// iterations (experiment.IterativeCost) and c is larger than its
// calibration: a trial's cost beside its iterations plus the iterations a
// full-scale run recorded (BudgetOptions.Iterations), or else those
// measured in the calibration grown as n^(1/3), times the cost of one
// iteration, both timed at c's own n. ok is false where that does not
// apply (the caller scales the calibration instead).
func (b *budgeter) iterationCost(key string, m timing, calibrated bool, c planCell, cs *experiment.CellSpec, rep *BudgetReport) (perTrial float64, ok bool, err error) {
	if b.iterative == nil || c.cell.N <= b.opt.CalibrationN {
		return 0, false, nil
	}
	_, maxIter, iterates := b.iterative.Iterations(cs)
	if !iterates {
		return 0, false, nil
	}
	iters, recorded := b.opt.Iterations[c.cell.Key()]
	if !recorded {
		if !calibrated {
			return 0, false, nil
		}
		at := m.itersAt(float64(c.cell.Eps))
		if !(at > 0) {
			return 0, false, nil
		}
		iters = at * math.Cbrt(float64(c.cell.N)/m.itersN)
	}
	if maxIter > 0 {
		iters = min(iters, float64(maxIter))
	}
	t, err := b.timeIterations(key, c, cs, iters, rep)
	if err != nil || !t.ok {
		return 0, false, err
	}
	if recorded {
		rep.RecordedIterations++
	} else {
		rep.ModelledIterations++
	}
	rep.IterationCPUSeconds += float64(b.s.Trials) * iters * t.each
	return t.prep/float64(max(b.s.Trials, 1)) + t.fixed + iters*t.each, true, nil
}

// timeIterations times group key's cells of c's n, on the data at the
// spec's own sizes: a trial of c with its iterations capped at
// IterationCapLo, and one capped IterationStep, 8·IterationStep, ...
// iterations later (up to target, the cell's count). The difference is
// the cost of the iterations between; the rest of the first, its cost
// beside them. Once per group and n.
func (b *budgeter) timeIterations(key string, c planCell, cs *experiment.CellSpec, target float64, rep *BudgetReport) (iterTiming, error) {
	ck := fmt.Sprintf("%s|%d", key, c.cell.N)
	if t, ok := b.perIter[ck]; ok {
		return t, nil
	}
	start := calibrationClock()
	defer func() { rep.CalibrationCPUSeconds += calibrationClock() - start }()
	if b.full == nil {
		data, _, err := loadDatasets(b.s)
		if err != nil {
			return iterTiming{}, err
		}
		b.full = data
	}
	var t iterTiming
	if d := b.full[c.dataset]; d != nil && d.Rows() >= c.cell.N {
		// Each timing is the lesser of two: a single trial's CPU moves by
		// 10-30 % from one to the next (the runtime's collections, EM's
		// workers waiting on each other), which the difference of two
		// timings would carry whole into the cost of an iteration.
		timed := func(k int) (cellTime, error) {
			a, err := b.timeCellOn(c, c.cell.N, d, b.iterative.CapIterations(cs, k), 0)
			if err != nil || !a.ok {
				return a, err
			}
			again, err := b.timeCellOn(c, c.cell.N, d, b.iterative.CapIterations(cs, k), 0)
			if err == nil && again.ok && again.perTrial < a.perTrial {
				a.perTrial = again.perTrial
			}
			return a, err
		}
		lo, err := timed(IterationCapLo)
		if err != nil {
			return iterTiming{}, err
		}
		// The second cap grows 8-fold until the iterations' time stands
		// above the first timing (whose noise is a few per cent of it),
		// or reaches the cell's count, or EM stops before it: an EMS
		// iteration costs about 20 µs beside 1.5 s of drawing 10⁷ users,
		// and over 40 iterations the noise alone had made it 1 ms, 50
		// times too dear.
		for step := IterationStep; lo.ok; step *= 8 {
			k := IterationCapLo + step
			hi, err := timed(k)
			if err != nil {
				return iterTiming{}, err
			}
			if !hi.ok || !(hi.iters > lo.iters) {
				break
			}
			diff := hi.perTrial - lo.perTrial
			if diff < lo.perTrial && float64(k) < target && hi.iters >= float64(k) {
				continue
			}
			t.each = max(diff, 0) / (hi.iters - lo.iters)
			t.fixed = max(lo.perTrial-lo.iters*t.each, 0)
			t.prep = min(lo.prep, hi.prep)
			t.ok = true
			rep.IterationTimed++
			break
		}
	}
	b.perIter[ck] = t
	return t, nil
}

// CPUSeconds is the process's user and system CPU time so far, in seconds
// (the wall time since the process started where the platform does not
// report CPU time): `ldpbench run` prints the difference over a run beside
// its wall time.
func CPUSeconds() float64 { return cpuTime() }
