package harness

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ldpbench/ldpbench/experiment"
)

// Budget on the toy spec: the counts are the plan's, a cell's estimate
// scales with its cost (n) within its group, the wall time on one machine
// is the CPU time over its cores, shards fall between a perfect split and
// one machine, and the
// shard count for a deadline is the smallest that meets it. Catches an
// estimate that ignores n (the n = 4000 cells would cost what the n = 500
// ones do), a wall time that forgets the cores, and a ShardsFor off by one.
func TestBudget(t *testing.T) {
	s := writeShardSpec(t, shardSpecTOML)
	r, err := Budget(context.Background(), testKinds, s, BudgetOptions{Quick: true, CalibrationTime: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Cells != 24 || r.Trials != 3 || len(r.PerCell) != 24 || r.Groups != 8 || r.Calibrated != 8 {
		t.Fatalf("quick budget: %d cells × %d trials, %d groups (%d calibrated); want 24 × 3, 8 of 8", r.Cells, r.Trials, r.Groups, r.Calibrated)
	}
	r, err = Budget(context.Background(), testKinds, s, BudgetOptions{CalibrationTime: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Cells != 48 || r.Trials != 5 || r.Groups != 16 {
		t.Fatalf("full budget: %d cells × %d trials in %d groups, want 48 × 5 in 16 (n = 500 and 4000 timed apart)", r.Cells, r.Trials, r.Groups)
	}
	// Calibrated at n ≤ 500 without a cost model: the n = 4000 cells are
	// scaled from their n = 500 twins by 8^b, b measured within [0, 2].
	r, err = Budget(context.Background(), testKinds, s, BudgetOptions{CalibrationTime: 5 * time.Second, CalibrationN: 500})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range r.PerCell {
		if strings.Contains(c.Key, "n=500;") {
			if q := r.PerCell[i+12].CPUSeconds / c.CPUSeconds; !(q >= 1-1e-9 && q <= 64*(1+1e-9)) {
				t.Fatalf("%s: its n = 4000 twin costs %g times as much; want 8^b, b in [0, 2]", c.Key, q)
			}
		}
	}
	// With the kind's cost model (costKind: n, × 1000 for uniform): the
	// n = 4000 cells are scaled from their n = 500 twins by exactly 8.
	r, err = Budget(context.Background(), experiment.Registry{costKind{}}, s, BudgetOptions{CalibrationTime: 5 * time.Second, CalibrationN: 500})
	if err != nil {
		t.Fatal(err)
	}
	// Plan order: dataset, n, method, eps, scale; the n = 4000 twin of a
	// cell is 12 cells after it. The runner's overhead per trial (keys,
	// rows) does not scale with n.
	var sum float64
	over := float64(r.Trials)*r.TrialOverhead + r.CellOverhead
	for i, c := range r.PerCell {
		sum += c.CPUSeconds
		if strings.Contains(c.Key, "n=500;") {
			twin := r.PerCell[i+12]
			if !strings.Contains(twin.Key, "n=4000;") || math.Abs((twin.CPUSeconds-over)/(c.CPUSeconds-over)-8) > 1e-9 {
				t.Fatalf("%s: %g CPU-s, its n = 4000 twin %s: %g; want 8 times", c.Key, c.CPUSeconds, twin.Key, twin.CPUSeconds)
			}
		}
	}
	if math.Abs(sum-r.CPUSeconds) > 1e-9*sum || r.CPUSeconds <= 0 {
		t.Fatalf("total %g, sum of cells %g", r.CPUSeconds, sum)
	}
	if w := r.Wall(1); w < r.CPUSeconds/2*(1-1e-12) {
		t.Errorf("wall on one 2-core machine %g < CPU/2 = %g", w, r.CPUSeconds/2)
	}
	// LPT's makespan is not monotone in the shard count (Graham's
	// anomalies), but it never beats a perfect split nor loses to one
	// machine.
	for n := 2; n <= 10; n++ {
		if w := r.Wall(n); w > r.Wall(1)*(1+1e-12) || w < r.CPUSeconds/float64(2*n)*(1-1e-12) {
			t.Errorf("%d shards: %g, outside [CPU/(2·%d), Wall(1)] = [%g, %g]", n, w, n, r.CPUSeconds/float64(2*n), r.Wall(1))
		}
	}
	target := r.Wall(3) * (1 + 1e-9)
	if n := r.ShardsFor(target, 64); n > 3 || r.Wall(n) > target || (n > 1 && r.Wall(n-1) <= target) {
		t.Errorf("ShardsFor(Wall(3)) = %d", n)
	}
}

// fakeClockKind is the toy kind on a clock of its own (calibrationClock,
// swapped by the test): a Prepare takes 1 s and a trial n ms, except that
// with share the cells that differ only in params.scale (one
// CostShareKey) compute each trial once between them, as kind fl's cells
// of one training run do; with perEps a trial takes n·2^ε ms, and with
// noPrep a Prepare nothing. TrialCost is n.
type fakeClockKind struct {
	toyKind
	share, perEps, noPrep bool
	now                   *float64
	done                  map[string]bool
}

func (k fakeClockKind) TrialCost(c *experiment.CellSpec) float64 { return float64(c.N) }

func (k fakeClockKind) CostShareKey(c *experiment.CellSpec) string {
	if !k.share {
		return ""
	}
	return fmt.Sprintf("%s|%s|%g|%d", c.Dataset.Name, c.Method, c.Eps, c.N)
}

func (k fakeClockKind) Prepare(ctx context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	if !k.noPrep {
		*k.now++
	}
	run, err := k.toyKind.Prepare(ctx, c)
	if err != nil {
		return nil, err
	}
	key := k.CostShareKey(c)
	if key == "" {
		key = fmt.Sprintf("%s|%s|%g|%d|%s", c.Dataset.Name, c.Method, c.Eps, c.N, c.Params.String("scale", "1"))
	}
	ms := float64(c.N)
	if k.perEps {
		ms *= math.Exp2(c.Eps)
	}
	return &fakeClockRun{CellRun: run, k: k, key: key, ms: ms}, nil
}

type fakeClockRun struct {
	experiment.CellRun
	k   fakeClockKind
	key string
	ms  float64
}

func (r *fakeClockRun) Trial(ctx context.Context, trial int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	if k := fmt.Sprintf("%s#%d", r.key, trial); !r.k.done[k] {
		*r.k.now += 0.001 * r.ms
		r.k.done[k] = true
	}
	return r.CellRun.Trial(ctx, trial, rng, out)
}

// Budget on a clock the kind advances, so that every estimate is exact:
// a cell's CPU is its preparation plus its trials scaled by the kind's
// cost (n, from a timing at n = 500), and the cells of a share set
// (experiment.CostSharer: here the two params.scale of one dataset,
// method, ε and n) are one calibration group and each pays its own
// preparation but half the trials. At n = 500 the timed cell takes 1 s to
// prepare and 0.5 s a trial; 5 trials. Catches a shared trial counted
// in full for every cell (3.5 s per 500, fl-baek-fig5's estimate 4 times
// its measured CPU before share sets), the preparation split as well
// (1.75), a share set timed cell by cell (8 groups, the second cell of a
// pair finding its trials done), and a cost not scaled by the model (n =
// 4000 at the n = 500 figure).
func TestBudgetShareSets(t *testing.T) {
	s := writeShardSpec(t, shardSpecTOML)
	defer func(c func() float64) { calibrationClock = c }(calibrationClock)
	for _, tc := range []struct {
		share   bool
		groups  int
		per500  float64 // CPU-s of a cell of n = 500 over its 5 trials
		cost500 float64 // its Cost
	}{
		{share: false, groups: 8, per500: 5 * (1.0/5 + 0.5), cost500: 5 * 500},
		{share: true, groups: 4, per500: 5 * (1.0/5 + 0.5/2), cost500: 5 * 500 / 2},
	} {
		now := 0.0
		calibrationClock = func() float64 { return now }
		k := fakeClockKind{share: tc.share, now: &now, done: map[string]bool{}}
		r, err := Budget(context.Background(), experiment.Registry{k}, s, BudgetOptions{CalibrationN: 500, CalibrationTime: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if r.Groups != tc.groups || r.Calibrated != tc.groups {
			t.Errorf("share %v: %d groups, %d calibrated; want %d of %d", tc.share, r.Groups, r.Calibrated, tc.groups, tc.groups)
		}
		for _, c := range r.PerCell {
			scale := 1.0
			if strings.Contains(c.Key, "n=4000;") {
				scale = 8
			}
			if math.Abs(c.CPUSeconds-scale*tc.per500) > 1e-9 || math.Abs(c.Cost-scale*tc.cost500) > 1e-9 {
				t.Errorf("share %v: %s: %g CPU-s, cost %g; want %g, %g", tc.share, c.Key, c.CPUSeconds, c.Cost, scale*tc.per500, scale*tc.cost500)
			}
		}
	}
}

// Budget of a kind whose trial costs n·2^ε ms (the fake clock): the group
// is timed at its least, median and greatest ε (0.5, 2 and 4 here) and a
// cell's rate interpolated log-linearly between them, which for a cost
// geometric in ε is exact at every ε, 1 included. Catches a plan that
// costs every ε at the median's (AAA's linear programme, twice as dear at
// ε = 1 as at ε = 3, put noutput-mean's AAA cells at 57 % of a run's
// CPU), an interpolation on the wrong side of a point, or a linear one
// (noutput-tables' N-output cells, dearer with ε, planned 5 times over).
func TestBudgetInterpolatesEps(t *testing.T) {
	s := writeShardSpec(t, strings.Replace(shardSpecTOML, "eps = [0.5, 1, 2]", "eps = [0.5, 1, 2, 4]", 1))
	defer func(c func() float64) { calibrationClock = c }(calibrationClock)
	now := 0.0
	calibrationClock = func() float64 { return now }
	k := fakeClockKind{perEps: true, noPrep: true, now: &now, done: map[string]bool{}}
	r, err := Budget(context.Background(), experiment.Registry{k}, s, BudgetOptions{CalibrationN: 500, CalibrationTime: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if r.Cells != 64 {
		t.Fatalf("%d cells, want 64", r.Cells)
	}
	for _, c := range r.PerCell {
		var eps float64
		for _, e := range []float64{0.5, 1, 2, 4} {
			if strings.Contains(c.Key, fmt.Sprintf(";eps=%g;", e)) {
				eps = e
			}
		}
		scale := 1.0
		if strings.Contains(c.Key, "n=4000;") {
			scale = 8
		}
		// 5 trials at n = 500 of 0.5·2^ε s each.
		if want := scale * 5 * 0.5 * math.Exp2(eps); eps == 0 || math.Abs(c.CPUSeconds-want) > 1e-9*want {
			t.Errorf("%s: %g CPU-s, want %g", c.Key, c.CPUSeconds, want)
		}
	}
}

// warmKind is the toy kind on the fake clock without a cost model: a
// trial takes n ms, and the first Prepare of each method in the process
// 10 s more (a cache it fills once, as kind noutput-dist's transition
// matrices).
type warmKind struct {
	toyKind
	now  *float64
	seen map[string]bool
}

func (k warmKind) Prepare(ctx context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	if !k.seen[c.Method] {
		*k.now += 10
		k.seen[c.Method] = true
	}
	run, err := k.toyKind.Prepare(ctx, c)
	if err != nil {
		return nil, err
	}
	return &fakeClockRun{CellRun: run, k: fakeClockKind{now: k.now, done: map[string]bool{}}, key: fmt.Sprint(c.Method, c.N, c.Eps, c.Dataset.Name), ms: float64(c.N)}, nil
}

// Budget without a cost model measures the growth with n from timings at
// n and 4n; a once-per-process cost paid in the first timing must not
// count as the cost of small n. Here trials take n ms, so b = 1 and a
// cell costs 5·n ms over its 5 trials at any n; the first timing of each
// method also pays 10 s. Catches an exponent fitted on the cold timing
// (2.5 s a trial at n = 500 against 2 s at 2000: b clamped to 0, every
// n = 4000 cell costed at n = 2000's rate).
//
// The same with a cost model of the kind's own (experiment.CostEstimator,
// n): the cell is timed twice at n and the warm timing scaled. Catches
// the cold one scaled (multiservice-fig8a's plan, 2.6 times its run).
func TestBudgetExponentOnWarmTimings(t *testing.T) {
	s := writeShardSpec(t, shardSpecTOML)
	defer func(c func() float64) { calibrationClock = c }(calibrationClock)
	for _, costed := range []bool{false, true} {
		now := 0.0
		calibrationClock = func() float64 { return now }
		var k experiment.Kind = warmKind{now: &now, seen: map[string]bool{}}
		if costed {
			k = warmCostKind{k.(warmKind)}
		}
		r, err := Budget(context.Background(), experiment.Registry{k}, s, BudgetOptions{CalibrationN: 500, CalibrationTime: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.PerCell {
			n := 500.0
			if strings.Contains(c.Key, "n=4000;") {
				n = 4000
			}
			if want := 5 * n / 1000; math.Abs(c.CPUSeconds-want) > 1e-9 {
				t.Errorf("cost model %v: %s: %g CPU-s, want %g", costed, c.Key, c.CPUSeconds, want)
			}
		}
	}
}

// warmCostKind is warmKind with a cost model: n.
type warmCostKind struct{ warmKind }

func (warmCostKind) TrialCost(c *experiment.CellSpec) float64 { return float64(c.N) }

// Budget adds to every trial what the runner spends beside it: its trial
// key and one row of rows.csv per metric, and to every cell the writing
// through of its rows (timeOverheads, swapped here for 2 ms, 1 ms and
// 10 ms). The toy spec has two metrics: a cell of n = 500 costs
// 5 × (0.2 + 0.5 + 0.002 + 2 × 0.001) + 0.01 CPU-s. Catches the rows
// left out (groupmean-aquila-gender, 128,000 rows for 0.3 CPU-s of
// trials, planned at 60 % of its run), counted once a trial instead of
// once a metric, or the cell's write left out (multiservice-fig3, 2,268
// cells of one trial each).
func TestBudgetCountsRowsAndKeys(t *testing.T) {
	s := writeShardSpec(t, shardSpecTOML)
	defer func(c func() float64, o func(*budgeter) error) { calibrationClock, timeOverheads = c, o }(calibrationClock, timeOverheads)
	now := 0.0
	calibrationClock = func() float64 { return now }
	timeOverheads = func(b *budgeter) error { b.keySeconds, b.rowSeconds, b.cellSeconds = 0.002, 0.001, 0.01; return nil }
	k := fakeClockKind{now: &now, done: map[string]bool{}}
	r, err := Budget(context.Background(), experiment.Registry{k}, s, BudgetOptions{CalibrationN: 500, CalibrationTime: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.PerCell {
		scale := 1.0
		if strings.Contains(c.Key, "n=4000;") {
			scale = 8
		}
		if want := 5*(scale*(0.2+0.5)+0.002+2*0.001) + 0.01; math.Abs(c.CPUSeconds-want) > 1e-9 {
			t.Errorf("%s: %g CPU-s, want %g", c.Key, c.CPUSeconds, want)
		}
	}
}
