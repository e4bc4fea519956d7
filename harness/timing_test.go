package harness

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/figures"
	"github.com/ldpbench/ldpbench/metrics"
	"github.com/ldpbench/ldpbench/tables"
)

// clockKind is a kind whose trials watch each other: a trial counts the
// trials in flight in the process (inFlight) and started since it began
// (started), sleeps 2 ms, and records an overlap when another trial was
// in flight at its start or started before its end. Its metrics are
// aggregation_seconds (the sleep's wall time) and mse (a draw of the
// trial's generator, for determinism).
type clockKind struct{}

var (
	inFlight, started atomic.Int64
	// overlaps counts the trials of each experiment that overlapped
	// another trial.
	overlapsMu sync.Mutex
	overlaps   = map[string]int{}
)

func (clockKind) Name() string                { return "clock" }
func (clockKind) Metrics() []string           { return []string{"aggregation_seconds", "mse"} }
func (clockKind) Params() experiment.ParamSet { return nil }
func (clockKind) Check(*experiment.CellSpec) error {
	return nil
}
func (clockKind) Prepare(_ context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	return clockRun{c.Experiment, c.Metrics}, nil
}

type clockRun struct {
	experiment string
	metrics    []string
}

func (r clockRun) Trial(_ context.Context, _ int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	before := started.Add(1)
	alone := inFlight.Add(1) == 1
	t0 := time.Now()
	time.Sleep(2 * time.Millisecond)
	alone = alone && started.Load() == before
	inFlight.Add(-1)
	if !alone {
		overlapsMu.Lock()
		overlaps[r.experiment]++
		overlapsMu.Unlock()
	}
	for _, m := range r.metrics {
		v := rng.Float64()
		if m == "aggregation_seconds" {
			v = time.Since(t0).Seconds()
		}
		out = append(out, experiment.Measurement{Metric: m, Value: v})
	}
	return out, nil
}

func (clockRun) Theory(string) (float64, bool) { return 0, false }

var clockKinds = experiment.Registry{clockKind{}}

func clockSpec(name string, metrics ...string) *Spec {
	return &Spec{
		Name: name, Kind: "clock", Seed: 11, Trials: 4, Metrics: metrics,
		Axes:     Axes{Method: []string{"a", "b"}, Eps: []float64{0.5, 1, 2}, N: []int{10}},
		Datasets: []datasets.Spec{{Name: "u", Source: "uniform", Lo: -1, Hi: 1}},
		Figures:  []figures.Spec{{Name: "secs", Metric: metrics[0], X: "eps", Series: "method"}},
		Tables:   []tables.Spec{{Name: "secs-table", Metric: metrics[0], Rows: "method", Columns: "eps"}},
	}
}

func overlapsOf(name string) int {
	overlapsMu.Lock()
	defer overlapsMu.Unlock()
	return overlaps[name]
}

// A timing spec's trials run one at a time at -j 4: no trial of it sees
// another in flight. The same spec without its wall-time metric, at -j 4,
// does see overlaps (the check can see them). The bug caught: a timing
// spec run with -j workers, so that its times are of a shared machine
// (157–174 s for a cell that takes 60–73 s alone).
func TestTimingSpecRunsTrialsAlone(t *testing.T) {
	timed := clockSpec("timed", "aggregation_seconds", "mse")
	if !timed.IsTiming() {
		t.Fatal("a spec with aggregation_seconds is not a timing spec")
	}
	if _, err := Run(context.Background(), clockKinds, timed, Options{OutDir: t.TempDir(), Jobs: 4}); err != nil {
		t.Fatal(err)
	}
	if n := overlapsOf("timed"); n != 0 {
		t.Errorf("timing spec at -j 4: %d of its 24 trials overlapped another", n)
	}
	free := clockSpec("free", "mse")
	if free.IsTiming() {
		t.Fatal("a spec without a wall-time metric is a timing spec")
	}
	if _, err := Run(context.Background(), clockKinds, free, Options{OutDir: t.TempDir(), Jobs: 4}); err != nil {
		t.Fatal(err)
	}
	if n := overlapsOf("free"); n == 0 {
		t.Error("ordinary spec at -j 4: no trial overlapped another; the test cannot see overlaps")
	}
	// timing = true makes a timing spec of any.
	on := true
	forced := clockSpec("forced", "mse")
	forced.Timing = &on
	if _, err := Run(context.Background(), clockKinds, forced, Options{OutDir: t.TempDir(), Jobs: 4}); err != nil {
		t.Fatal(err)
	}
	if n := overlapsOf("forced"); n != 0 {
		t.Errorf("timing = true at -j 4: %d trials overlapped another", n)
	}
}

// A timed trial is alone in the process, not only in its run: an ordinary
// run going on beside it waits. The bug caught: serialising the timing
// run's own trials only, while another run of the process (a library
// user's, a test's) shares the machine.
func TestTimedTrialAloneInProcess(t *testing.T) {
	timed := clockSpec("timed-beside", "aggregation_seconds", "mse")
	free := clockSpec("free-beside", "mse")
	free.Trials = 40
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, s := range []*Spec{free, timed} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = Run(context.Background(), clockKinds, s, Options{OutDir: t.TempDir(), Jobs: 4})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := overlapsOf("timed-beside"); n != 0 {
		t.Errorf("%d timed trials overlapped a trial of the run beside them", n)
	}
}

// A timing spec's rows are the same at any -j but for its times; its
// first line says timing=serial and a "# timing" line names this machine
// (in summary.csv too), and its figures' captions and tables' notes say
// where it was timed. The bugs caught: a scheduling change that changes a
// trial's draws, and a timing figure that does not say its machine.
func TestTimingSpecRecordsMachine(t *testing.T) {
	s := clockSpec("timed-rows", "aggregation_seconds", "mse")
	rowsAt := func(jobs int) (string, []byte) {
		dir := t.TempDir()
		if _, err := Run(context.Background(), clockKinds, s, Options{OutDir: dir, Jobs: jobs}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, RowsFile))
		if err != nil {
			t.Fatal(err)
		}
		var keep [][]byte
		for _, l := range bytes.Split(b, []byte("\n")) {
			if !bytes.Contains(l, []byte("aggregation_seconds")) {
				keep = append(keep, l)
			}
		}
		return dir, bytes.Join(keep, []byte("\n"))
	}
	dir, one := rowsAt(1)
	_, four := rowsAt(4)
	if !bytes.Equal(one, four) {
		t.Error("rows other than the times differ between -j 1 and -j 4")
	}
	lines := strings.Split(string(one), "\n")
	if !strings.Contains(lines[0], " timing=serial") {
		t.Errorf("first line %q lacks timing=serial", lines[0])
	}
	if want := timingLine(); lines[1] != want || !strings.Contains(want, "cpus=") || !strings.Contains(want, "goarch=") {
		t.Errorf("second line %q, want %q", lines[1], want)
	}
	sum, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
	if !strings.Contains(string(sum), timingLine()) {
		t.Error("summary.csv lacks the timing line")
	}
	note := TimingNote([]string{timingLine()})
	if !strings.HasPrefix(note, "Timed one trial at a time") || !strings.Contains(note, "CPUs, GOMAXPROCS") {
		t.Errorf("timing note %q", note)
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "secs.svg"))
	if !strings.Contains(string(svg), "Timed one trial at a time") {
		t.Error("the figure's caption does not say how it was timed")
	}
	md, _ := os.ReadFile(filepath.Join(dir, "secs-table.md"))
	if !strings.Contains(string(md), note) {
		t.Errorf("the table's note does not say where it was timed:\n%s", md)
	}
	// The ordinary spec's rows have neither.
	free := clockSpec("free-rows", "mse")
	fdir := t.TempDir()
	if _, err := Run(context.Background(), clockKinds, free, Options{OutDir: fdir, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(fdir, RowsFile))
	if bytes.Contains(b, []byte("timing")) {
		t.Error("an ordinary spec's rows mention timing")
	}
}

// A timing spec's interrupted rows resume on the machine that timed them
// and are refused on another; its finished rows are up to date anywhere.
// The bug caught: times of two machines mixed under one machine's name.
func TestTimingResumeOnAnotherMachine(t *testing.T) {
	s := clockSpec("timed-resume", "aggregation_seconds", "mse")
	dir := t.TempDir()
	if _, err := Run(context.Background(), clockKinds, s, Options{OutDir: dir, Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	rows := filepath.Join(dir, RowsFile)
	b, _ := os.ReadFile(rows)
	other := bytes.Replace(b, []byte(timingLine()), []byte(timingPrefix+`serial cpus=64 gomaxprocs=64 goos=linux goarch=arm64 cpu_model="Other"`), 1)
	if bytes.Equal(other, b) {
		t.Fatal("no timing line to replace")
	}
	os.WriteFile(rows, other, 0o644)
	res, err := Run(context.Background(), clockKinds, s, Options{OutDir: dir, Jobs: 1})
	if err != nil || !res.UpToDate {
		t.Fatalf("finished rows timed elsewhere: %v (up to date %v), want up to date", err, res != nil && res.UpToDate)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "secs-table.md"))
	if !strings.Contains(string(md), "Other (64 CPUs, GOMAXPROCS 64, linux/arm64)") {
		t.Errorf("the re-drawn table does not name the machine of its rows:\n%s", md)
	}
	// Cut short: the end line and the last cell (4 trials × 2 metrics)
	// gone.
	ls := strings.SplitAfter(strings.TrimSuffix(string(other), "\n"), "\n")
	if !strings.HasPrefix(ls[len(ls)-1], "# end") {
		t.Fatalf("last line %q", ls[len(ls)-1])
	}
	cut := []byte(strings.Join(ls[:len(ls)-1-8], ""))
	os.Remove(rows)
	os.WriteFile(filepath.Join(dir, PartialFile), cut, 0o644)
	_, err = Run(context.Background(), clockKinds, s, Options{OutDir: dir, Jobs: 1})
	if err == nil || !strings.Contains(err.Error(), "interrupted timing run of another machine") {
		t.Fatalf("resuming rows timed elsewhere: %v", err)
	}
}

// Every metric that package metrics describes as a wall time is in
// wallTimeMetrics: a new one would otherwise be timed at -j workers.
func TestWallTimeMetricsListed(t *testing.T) {
	for _, m := range metrics.Names {
		d, _ := metrics.Describe(m)
		if wall := strings.Contains(strings.ToLower(d), "wall time"); wall != slices.Contains(wallTimeMetrics, m) {
			t.Errorf("metric %s (%q): described as a wall time %v, in wallTimeMetrics %v", m, d, wall, !wall)
		}
	}
}
