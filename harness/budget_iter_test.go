package harness

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ldpbench/ldpbench/experiment"
)

// iterKind is the toy kind as an iterative one (experiment.IterativeCost)
// on the fake clock: a trial runs min(max_iter, I(n, ε)) iterations,
// I = 100·(n/500)^¼·2^ε, reports them in metric "em_iterations", and costs
// n µs beside them and n/10 µs each. Prepare is free.
type iterKind struct {
	toyKind
	now *float64
}

var iterParams = append(slices.Clone(toyParams), experiment.IntParam("max_iter", 1, 1<<30, "iteration cap (default 10,000)"))

func (iterKind) Params() experiment.ParamSet { return iterParams }
func (iterKind) Metrics() []string           { return []string{"mse", "abs", "em_iterations"} }

func (iterKind) Iterations(c *experiment.CellSpec) (string, int, bool) {
	return "em_iterations", c.Params.Int("max_iter", 10000), c.Method == "gauss"
}

func (iterKind) CapIterations(_ *experiment.CellSpec, k int) map[string]string {
	return map[string]string{"max_iter": strconv.Itoa(k)}
}

func iterCount(n int, eps float64) float64 {
	return 100 * math.Pow(float64(n)/500, 0.25) * math.Exp2(eps)
}

func (k iterKind) Prepare(ctx context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	inner := *c
	inner.Metrics = slices.DeleteFunc(slices.Clone(c.Metrics), func(m string) bool { return m == "em_iterations" })
	run, err := k.toyKind.Prepare(ctx, &inner)
	if err != nil {
		return nil, err
	}
	iters := math.Min(iterCount(c.N, c.Eps), float64(c.Params.Int("max_iter", 10000)))
	if c.Method != "gauss" {
		iters = 0
	}
	return &iterRun{CellRun: run, now: k.now, n: float64(c.N), iters: iters, report: slices.Contains(c.Metrics, "em_iterations")}, nil
}

type iterRun struct {
	experiment.CellRun
	now      *float64
	n, iters float64
	report   bool
}

func (r *iterRun) Trial(ctx context.Context, trial int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	*r.now += 1e-6*r.n + r.iters*1e-7*r.n
	out, err := r.CellRun.Trial(ctx, trial, rng, out)
	if r.report {
		out = append(out, experiment.Measurement{Metric: "em_iterations", Value: r.iters})
	}
	return out, err
}

// Budget of an iterative kind (experiment.IterativeCost) on the fake
// clock, where every estimate is exact. A cell beyond the calibration
// (n = 4000; calibrated at 500 and 2000) is timed at its own n with its
// iterations capped at 2 and 42, which gives 4 ms beside the iterations
// and 0.4 ms each, and costs 4 ms + I × 0.4 ms a trial: I the iterations
// a full-scale run recorded for the cell, or else the calibration's at
// its ε (timed at 0.5, 1 and 2, interpolated) grown as (4000/500)^⅓ = 2.
// The cells at n = 500, and those of method uniform (no iterations), are
// costed as before, at their own n. Catches a record ignored, a count
// grown by the wrong power or taken at the median ε for every ε, the
// cost of an iteration scaled from the calibration's n instead of timed
// at the cell's, the fixed part left out, and a cap not applied (the two
// timings equal: no cost per iteration).
func TestBudgetIterativeCells(t *testing.T) {
	s := writeShardSpec(t, shardSpecTOML)
	defer func(c func() float64, o func(*budgeter) error) { calibrationClock, timeOverheads = c, o }(calibrationClock, timeOverheads)
	now := 0.0
	calibrationClock = func() float64 { return now }
	timeOverheads = func(*budgeter) error { return nil }
	k := iterKind{now: &now}
	recorded := map[string]float64{}
	for _, recordedToo := range []bool{false, true} {
		r, err := Budget(context.Background(), experiment.Registry{k}, s, BudgetOptions{CalibrationN: 500, CalibrationTime: time.Hour, Iterations: recorded})
		if err != nil {
			t.Fatal(err)
		}
		// 2 datasets × 2 scales × 3 ε of method gauss at n = 4000: 12
		// cells; their groups (dataset × scale) each timed at 4000 once.
		if r.IterationTimed != 4 || r.RecordedIterations+r.ModelledIterations != 12 || (r.RecordedIterations == 12) != recordedToo {
			t.Errorf("recorded %v: %d groups timed at their n, %d cells recorded, %d modelled; want 4, 12 in all", recordedToo, r.IterationTimed, r.RecordedIterations, r.ModelledIterations)
		}
		wantIter := 0.0 // 5 trials × I × 0.4 ms over the 12 cells
		for _, ds := range []string{"beta", "unif"} {
			for _, eps := range []float64{0.5, 1, 2} {
				for _, scale := range []string{"1", "2"} {
					key := "experiment=sharded;dataset=" + ds + ";method=gauss;eps=" + strconv.FormatFloat(eps, 'g', -1, 64) + ";n=4000;scale=" + scale
					if recordedToo {
						wantIter += 5 * recorded[key] * 4e-4
					} else {
						wantIter += 5 * 2 * iterCount(500, eps) * 4e-4
					}
				}
			}
		}
		if math.Abs(r.IterationCPUSeconds-wantIter) > 1e-9*wantIter {
			t.Errorf("recorded %v: %g CPU-s of iterations, want %g", recordedToo, r.IterationCPUSeconds, wantIter)
		}
		for _, c := range r.PerCell {
			eps, n := cellEps(t, c.Key), 500
			if strings.Contains(c.Key, "n=4000;") {
				n = 4000
			}
			var want float64 // CPU-s per trial
			switch {
			case strings.Contains(c.Key, "method=uniform"):
				want = 1e-6 * float64(n)
			case n == 500:
				want = 1e-6*500 + iterCount(500, eps)*1e-7*500
			case recordedToo:
				want = 4e-3 + recorded[c.Key]*4e-4
			default:
				want = 4e-3 + 2*iterCount(500, eps)*4e-4
			}
			if want *= 5; math.Abs(c.CPUSeconds-want) > 1e-9*want {
				t.Errorf("recorded %v: %s: %g CPU-s, want %g", recordedToo, c.Key, c.CPUSeconds, want)
			}
			if n == 4000 && strings.Contains(c.Key, "method=gauss") {
				recorded[c.Key] = 1.5 * iterCount(4000, eps)
			}
		}
	}
}

// A group whose every cell is costed from its record (iterative, larger
// than the calibration, recorded) is not calibrated at all: plan then
// spends its time on the timings at the cells' own n. Here n = 4000 alone:
// the 4 groups of method gauss are recorded, the 4 of uniform calibrated.
// Catches a recorded group calibrated all the same (multiservice-fig5-
// dist's 80 groups ran out of calibration time, and half its cells took
// the median rate), or a spec of recorded groups alone refused for want
// of a calibration.
func TestBudgetRecordedGroupsSkipCalibration(t *testing.T) {
	for _, methods := range []string{`["gauss", "uniform"]`, `["gauss"]`} {
		s := writeShardSpec(t, strings.NewReplacer("n = [500, 4000]", "n = [4000]", `method = ["gauss", "uniform"]`, "method = "+methods).Replace(shardSpecTOML))
		defer func(c func() float64, o func(*budgeter) error) { calibrationClock, timeOverheads = c, o }(calibrationClock, timeOverheads)
		now := 0.0
		calibrationClock = func() float64 { return now }
		timeOverheads = func(*budgeter) error { return nil }
		recorded := map[string]float64{}
		for _, ds := range []string{"beta", "unif"} {
			for _, eps := range []string{"0.5", "1", "2"} {
				for _, scale := range []string{"1", "2"} {
					recorded["experiment=sharded;dataset="+ds+";method=gauss;eps="+eps+";n=4000;scale="+scale] = 1000
				}
			}
		}
		r, err := Budget(context.Background(), experiment.Registry{iterKind{now: &now}}, s, BudgetOptions{CalibrationN: 500, CalibrationTime: time.Hour, Iterations: recorded})
		if err != nil {
			t.Fatal(err)
		}
		uniform := strings.Contains(methods, "uniform")
		wantCal := 0
		if uniform {
			wantCal = 4
		}
		if r.Recorded != 4 || r.Calibrated != wantCal || r.RecordedIterations != 12 {
			t.Errorf("%s: %d groups recorded, %d calibrated, %d cells from records; want 4, %d, 12", methods, r.Recorded, r.Calibrated, r.RecordedIterations, wantCal)
		}
		for _, c := range r.PerCell {
			want := 5 * (4e-3 + 1000*4e-4)
			if strings.Contains(c.Key, "method=uniform") {
				want = 5 * 4e-3
			}
			if math.Abs(c.CPUSeconds-want) > 1e-9*want || !c.Measured {
				t.Errorf("%s: %s: %g CPU-s (measured %v), want %g", methods, c.Key, c.CPUSeconds, c.Measured, want)
			}
		}
	}
}

func cellEps(t *testing.T, key string) float64 {
	t.Helper()
	for _, part := range strings.Split(key, ";") {
		if v, ok := strings.CutPrefix(part, "eps="); ok {
			e, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
	}
	t.Fatalf("no ε in %s", key)
	return 0
}

// An iterations file round-trips, sorted by cell, and a bad one is refused
// with its line: a count that is not a positive number, a cell twice, a
// wrong header.
func TestIterationsFile(t *testing.T) {
	recs := []IterationRecord{{Cell: "experiment=b;n=2;services=sr,pm", Iterations: 5180}, {Cell: "experiment=a;n=1", Iterations: 12.5}}
	var buf bytes.Buffer
	if err := WriteIterations(&buf, recs); err != nil {
		t.Fatal(err)
	}
	want := "cell,iterations\nexperiment=a;n=1,12.5\n\"experiment=b;n=2;services=sr,pm\",5180.0\n"
	if buf.String() != want {
		t.Errorf("written:\n%s\nwant:\n%s", buf.String(), want)
	}
	got, err := ReadIterations(strings.NewReader(buf.String()), "f.csv")
	if err != nil || len(got) != 2 || got["experiment=b;n=2;services=sr,pm"] != 5180 || got["experiment=a;n=1"] != 12.5 {
		t.Errorf("read back %v, %v", got, err)
	}
	for _, tc := range []struct{ in, err string }{
		{"cell,iterations\na,0\n", "f.csv:2: iterations \"0\""},
		{"cell,iterations\na,x\n", "f.csv:2: iterations \"x\""},
		{"cell,iterations\na,1\nb,2\na,3\n", "f.csv:4: cell a recorded twice"},
		{"cell,iters\n", "f.csv:1: header"},
		{"", "f.csv: empty"},
	} {
		if _, err := ReadIterations(strings.NewReader(tc.in), "f.csv"); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: error %v, want one containing %q", tc.in, err, tc.err)
		}
	}
}

// RecordedIterations reads a finished full-scale run's summary: the mean
// of the iteration metric of the cells that iterate, none of the others;
// and refuses an unfinished run.
func TestRecordedIterations(t *testing.T) {
	s := writeShardSpec(t, strings.Replace(shardSpecTOML, `metrics = ["mse", "abs"]`, `metrics = ["mse", "em_iterations"]`, 1))
	dir := t.TempDir()
	reg := experiment.Registry{iterKind{now: new(float64)}}
	// One worker: the fake clock is not safe for concurrent trials.
	if _, err := Run(context.Background(), reg, s, Options{OutDir: dir, Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	recs, err := RecordedIterations(reg, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 24 { // the gauss cells: 2 datasets × 2 n × 3 ε × 2 scales
		t.Fatalf("%d records, want 24", len(recs))
	}
	for _, r := range recs {
		eps, n := cellEps(t, r.Cell), 500
		if strings.Contains(r.Cell, "n=4000;") {
			n = 4000
		}
		if !strings.Contains(r.Cell, "method=gauss") || math.Abs(r.Iterations-iterCount(n, eps)) > 1e-9*r.Iterations {
			t.Errorf("%s: %g iterations, want %g of a gauss cell", r.Cell, r.Iterations, iterCount(n, eps))
		}
	}
	// Without its end line the run is unfinished.
	path := filepath.Join(dir, RowsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	if err := os.WriteFile(path, []byte(strings.Join(lines[:len(lines)-1], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := RecordedIterations(reg, dir); err == nil || !strings.Contains(err.Error(), "unfinished") {
		t.Errorf("unfinished run: error %v, want one saying so", err)
	}
}
