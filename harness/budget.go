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
	Timing                bool
	PerCell               []CellBudget
	CPUSeconds            float64 // sum over the cells
	Groups, Calibrated    int     // groups of cells (dataset × method × params × n capped) and how many were timed
	CalibrationCPUSeconds float64
	CalibrationN          int
	Cores                 int
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
// share of the trials. It is an estimate: a kind whose time grows
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
	b := &budgeter{ctx: ctx, s: s, kind: kind, opt: opt}
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
	params, err := b.kind.Params().Parse(c.params)
	if err != nil {
		return nil, err
	}
	d := b.data[c.dataset]
	return &experiment.CellSpec{Experiment: b.s.Name, Dataset: d, Method: c.cell.Method, Eps: float64(c.cell.Eps),
		N: n, Params: params, Metrics: b.s.Metrics, Seed: b.s.Seed}, nil
}

// timeCell returns the CPU seconds of cell c's preparation and per trial
// at size n; ok is false when the kind refuses the cell at that n.
func (b *budgeter) timeCell(c planCell, n int) (prep, perTrial float64, cs *experiment.CellSpec, ok bool, err error) {
	s, ctx := b.s, b.ctx
	// The preparation the runner does for every cell: its params parsed,
	// Check, Prepare.
	t0 := calibrationClock()
	if cs, err = b.specOf(c, n); err != nil {
		return 0, 0, nil, false, fmt.Errorf("cell %s: %w", c.cell.Key(), err)
	}
	if err := b.kind.Check(cs); err != nil {
		if b.checkErr == nil {
			b.checkErr = fmt.Errorf("cell %s at n = %d: %w", c.cell.Key(), n, err)
		}
		return 0, 0, cs, false, nil
	}
	run, err := b.kind.Prepare(ctx, cs)
	if err != nil {
		return 0, 0, nil, false, fmt.Errorf("calibrating cell %s at n = %d: %w", c.cell.Key(), n, err)
	}
	prep = calibrationClock() - t0
	// Trials until 20 ms of CPU (at most the spec's trials): one
	// trial of a small cell is below the clock's resolution.
	t1, done := calibrationClock(), 0
	for done < max(s.Trials, 1) && (done == 0 || calibrationClock()-t1 < 0.02) {
		if _, err := run.Trial(ctx, done, TrialRand(s.Seed, s.Name, "calibration", done), nil); err != nil {
			return 0, 0, nil, false, fmt.Errorf("calibrating cell %s at n = %d: %w", c.cell.Key(), n, err)
		}
		done++
	}
	return prep, (calibrationClock() - t1) / float64(done), cs, true, nil
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
	if len(b.models) == 0 {
		if b.checkErr == nil {
			return fmt.Errorf("%s: no cell could be calibrated at n ≤ %d: the plan has no cell to time", b.s.Name, b.opt.CalibrationN)
		}
		return fmt.Errorf("%s: no cell could be calibrated at n ≤ %d: %w", b.s.Name, b.opt.CalibrationN, b.checkErr)
	}
	return nil
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
	prep, t, cs, ok, err := b.timeCell(c, n)
	if err != nil || !ok {
		return timing{}, false, err
	}
	m = timing{prep: prep, t: t, n: float64(n), unit: experiment.TrialCost(b.kind, cs), b: 1, k: b.shared[b.share[idx[len(idx)/2]]]}
	m.eps, m.f = []float64{float64(c.cell.Eps)}, []float64{1}
	if spread {
		rate := m.perTrial(b.s.Trials, m.k) / m.unit
		for _, j := range []int{idx[0], idx[len(idx)-1]} {
			e := float64(cells[j].cell.Eps)
			if slices.Contains(m.eps, e) {
				continue
			}
			prepE, tE, csE, okE, err := b.timeCell(cells[j], n)
			if err != nil {
				return timing{}, false, err
			}
			if !okE {
				continue
			}
			mE := timing{prep: prepE, t: tE}
			if r := mE.perTrial(b.s.Trials, b.shared[b.share[j]]) / experiment.TrialCost(b.kind, csE); r > 0 && rate > 0 {
				at, _ := slices.BinarySearch(m.eps, e)
				m.eps = slices.Insert(m.eps, at, e)
				m.f = slices.Insert(m.f, at, r/rate)
			}
		}
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
		prep2, t2, _, ok2, err := b.timeCell(c, n2)
		if err != nil {
			return timing{}, false, err
		}
		m2 := timing{prep: prep2, t: t2}
		// n again, and the cheaper of its two timings: the first paid
		// what the process does once (a kind's caches of transition
		// matrices, the runtime's warm-up), which the timing at n2 did
		// not, and the exponent from the pair read a fixed cost as
		// slower growth; the lesser of two also drops a stray spike.
		// Extrapolated 10⁷/(8·10⁴) = 125-fold, a spike once made
		// multiservice-fig7c's plan 23 min against 2 min on every
		// other run.
		p1 := m.perTrial(b.s.Trials, m.k)
		prep1b, t1b, _, ok1b, err := b.timeCell(c, n)
		if err != nil {
			return timing{}, false, err
		}
		if again := (timing{prep: prep1b, t: t1b}).perTrial(b.s.Trials, m.k); ok1b && again > 0 && again < p1 {
			// The ε ends were timed warm too: their factors are now
			// against the warm rate.
			for i, e := range m.eps {
				if e != float64(c.cell.Eps) {
					m.f[i] *= p1 / again
				}
			}
			p1 = again
		}
		if p2 := m2.perTrial(b.s.Trials, m.k); ok2 && p1 > 0 && p2 > 0 {
			m.b = min(max(math.Log(p2/p1)/math.Log(float64(n2)/float64(n)), 0), 2)
			m.prep, m.t, m.n = prep2, t2, float64(n2)
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
	median := rates[len(rates)/2]
	for _, k := range b.keys {
		m, ok := b.models[k]
		linear := 0.0 // seconds per cost unit, for a group not timed
		if !ok {
			linear = median
			prefix := k[:strings.LastIndexByte(k, '|')+1]
			for _, k2 := range b.keys {
				if m2, ok2 := b.models[k2]; ok2 && strings.HasPrefix(k2, prefix) {
					linear = m2.perTrial(b.s.Trials, m2.k) / m2.unit
					break
				}
			}
		}
		for _, i := range b.groups[k] {
			c := b.cells[i]
			cs, err := b.specOf(c, c.cell.N)
			if err != nil {
				return err
			}
			unit := experiment.TrialCost(b.kind, cs)
			k := b.shared[b.share[i]] // 0 when the cell shares nothing
			var perTrial float64
			switch {
			case !ok:
				perTrial = linear * unit
			case b.ownCost:
				perTrial = m.perTrial(b.s.Trials, k) * unit / m.unit * m.epsFactor(float64(c.cell.Eps))
			default:
				perTrial = m.perTrial(b.s.Trials, k) * math.Pow(float64(c.cell.N)/m.n, m.b) * m.epsFactor(float64(c.cell.Eps))
			}
			cost := float64(b.s.Trials) * unit / float64(max(k, 1))
			secs := (perTrial+rep.TrialOverhead)*float64(b.s.Trials) + rep.CellOverhead
			rep.PerCell = append(rep.PerCell, CellBudget{Key: c.cell.Key(), Cost: cost, CPUSeconds: secs, Measured: ok})
			rep.CPUSeconds += secs
		}
	}
	return nil
}

// CPUSeconds is the process's user and system CPU time so far, in seconds
// (the wall time since the process started where the platform does not
// report CPU time): `ldpbench run` prints the difference over a run beside
// its wall time.
func CPUSeconds() float64 { return cpuTime() }
