package harness

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/results"
)

// smallSpec is a spec small enough for unit tests: 2 datasets x 2 methods x
// 3 budgets, 7 trials.
func smallSpec() *Spec {
	return &Spec{
		Name:    "unit",
		Kind:    "toy",
		Seed:    7,
		Trials:  7,
		Metrics: []string{"mse", "abs"},
		Axes: Axes{
			Method: []string{"gauss", "uniform"},
			Eps:    []float64{0.5, 1, 4},
			N:      []int{2000},
		},
		Datasets: []datasets.Spec{
			{Name: "beta", Source: "beta", A: 2, B: 5},
			{Name: "unif", Source: "uniform", Lo: -1, Hi: 1},
		},
	}
}

func runTo(t *testing.T, s *Spec, dir string, jobs int) []byte {
	t.Helper()
	if _, err := Run(context.Background(), testKinds, s, Options{OutDir: dir, Jobs: jobs}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, RowsFile))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRowsIdenticalAtAnyJobs(t *testing.T) {
	s := smallSpec()
	one := runTo(t, s, t.TempDir(), 1)
	four := runTo(t, s, t.TempDir(), 4)
	if !bytes.Equal(one, four) {
		t.Fatalf("rows.csv differs between -j 1 and -j 4")
	}
	// 2 datasets x 2 methods x 3 eps = 12 cells, 7 trials, 2 metrics, plus
	// the metadata line, the header and the end line.
	if got, want := bytes.Count(one, []byte("\n")), 12*7*2+3; got != want {
		t.Fatalf("rows.csv has %d lines, want %d", got, want)
	}
	// A different seed must change the values (a test that cannot fail is a
	// defect: if seeding were ignored this would catch it).
	s2 := smallSpec()
	s2.Seed = 8
	if other := runTo(t, s2, t.TempDir(), 2); bytes.Equal(one[bytes.IndexByte(one, '\n'):], other[bytes.IndexByte(other, '\n'):]) {
		t.Fatal("seed 7 and seed 8 gave identical rows")
	}
}

// A kill leaves a byte prefix of rows.csv.partial; resuming from any prefix
// must give exactly the bytes of an uninterrupted run.
func TestResumeFromAnyPrefix(t *testing.T) {
	s := smallSpec()
	full := runTo(t, s, t.TempDir(), 2)
	header := bytes.IndexByte(full, '\n') + 1
	cuts := []int{0, 10, header, header + 50, len(full) / 3, len(full)/2 + 17, len(full) - 1}
	for _, cut := range cuts {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, PartialFile), full[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		if got := runTo(t, s, dir, 3); !bytes.Equal(got, full) {
			t.Fatalf("resume from a %d-byte prefix gave different rows", cut)
		}
		if _, err := os.Stat(filepath.Join(dir, PartialFile)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("partial file left behind after a finished run")
		}
	}
}

// cancelKind wraps toyKind and cancels the run after a number of trials,
// as SIGINT would.
type cancelKind struct {
	toyKind
	after  int64
	count  *atomic.Int64
	cancel context.CancelFunc
}

func (k cancelKind) Prepare(ctx context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	r, err := k.toyKind.Prepare(ctx, c)
	return cancelRun{r, k}, err
}

type cancelRun struct {
	experiment.CellRun
	k cancelKind
}

func (r cancelRun) Trial(ctx context.Context, trial int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	if r.k.count.Add(1) == r.k.after {
		r.k.cancel()
	}
	return r.CellRun.Trial(ctx, trial, rng, out)
}

func TestInterruptThenResume(t *testing.T) {
	s := smallSpec()
	full := runTo(t, s, t.TempDir(), 2)

	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancelling := experiment.Registry{cancelKind{after: 40, count: new(atomic.Int64), cancel: cancel}}
	_, err := Run(ctx, cancelling, s, Options{OutDir: dir, Jobs: 2})
	if err == nil || !strings.Contains(err.Error(), "resume") {
		t.Fatalf("interrupted run: got error %v, want one that says how to resume", err)
	}
	if _, err := os.Stat(filepath.Join(dir, RowsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("an interrupted run wrote rows.csv")
	}
	res, err := Run(context.Background(), testKinds, s, Options{OutDir: dir, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed == 0 || res.Trials >= 12*7 {
		t.Errorf("resumed %d cells and ran %d trials; want some cells kept", res.Resumed, res.Trials)
	}
	got, _ := os.ReadFile(filepath.Join(dir, RowsFile))
	if !bytes.Equal(got, full) {
		t.Fatal("interrupted and resumed run differs from an uninterrupted one")
	}
	// times.csv holds both calls: the interrupted one's kept cells and
	// trials too, so that the run's total CPU is whole (a resumed
	// full-scale run's time in docs/times.md was its last call's alone).
	times, err := ReadTimes(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(times) != 2 || times[0].Cells != res.Resumed || times[0].Trials < 40 || times[1].Resumed != res.Resumed || times[1].Cells != 12 {
		t.Errorf("times.csv rows %+v: want the interrupted call's (%d cells kept, ≥ 40 trials) and the resumed one's (12 cells, %d resumed)", times, res.Resumed, res.Resumed)
	}
}

func TestRerunIsUpToDateAndOtherSpecIsRefused(t *testing.T) {
	s := smallSpec()
	dir := t.TempDir()
	runTo(t, s, dir, 2)
	res, err := Run(context.Background(), testKinds, s, Options{OutDir: dir})
	if err != nil || !res.UpToDate || res.Trials != 0 {
		t.Fatalf("re-run: %+v, %v; want up to date with no trials", res, err)
	}
	s2 := smallSpec()
	s2.Trials = 3
	if _, err := Run(context.Background(), testKinds, s2, Options{OutDir: dir}); err == nil || !strings.Contains(err.Error(), "--fresh") {
		t.Fatalf("a different spec into the same directory: got %v, want a refusal naming --fresh", err)
	}
	if _, err := Run(context.Background(), testKinds, s2, Options{OutDir: dir, Fresh: true}); err != nil {
		t.Fatal(err)
	}
}

// A dataset whose file `make data` will fetch is skipped while absent, with
// a message naming it; the rest runs. Any other absent path is an error
// naming the key and the path, before anything is written.
func TestMissingDataFileIsSkipped(t *testing.T) {
	s := smallSpec()
	s.Datasets = append(s.Datasets, datasets.Spec{Name: "absent", Source: "file", Path: "sf_total_compensation.csv", Normalise: "minmax"})
	var log bytes.Buffer
	res, err := Run(context.Background(), testKinds, s, Options{OutDir: t.TempDir(), Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if res.Cells != 12 || !strings.Contains(log.String(), `absent (sf_total_compensation.csv) skipped`) {
		t.Fatalf("%d cells, log %q; want 12 cells and a skip message", res.Cells, log.String())
	}
	s.Datasets = s.Datasets[2:]
	log.Reset()
	out := filepath.Join(t.TempDir(), "out")
	res, err = Run(context.Background(), testKinds, s, Options{OutDir: out, Log: &log})
	if err != nil || !res.Skipped || !strings.Contains(log.String(), "every dataset was skipped") {
		t.Fatalf("all datasets absent: %+v, %v, log %q; want a skipped run and a message", res, err, log.String())
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a skipped run created its output directory")
	}
	for _, path := range []string{"no-such-file.csv", "data/magic04.dat", "/no/such/dir/magic04.data"} {
		s.Datasets = []datasets.Spec{{Name: "typo", Source: "file", Path: path, Normalise: "minmax"}}
		_, err = Run(context.Background(), testKinds, s, Options{OutDir: out})
		if err == nil || !strings.Contains(err.Error(), "datasets[0].path") || !strings.Contains(err.Error(), path) {
			t.Errorf("path %q: %v, want an error naming the key and the path", path, err)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("path %q: the refused run created its output directory", path)
		}
	}
}

// A run killed after writing its headers but before its first whole cell
// leaves a partial file of the two header lines (and perhaps part of a
// row); resuming from it writes the headers once.
func TestResumeFromHeadersOnly(t *testing.T) {
	s := smallSpec()
	full := runTo(t, s, t.TempDir(), 2)
	nl := bytes.IndexByte(full, '\n')
	headers := full[:nl+1+bytes.IndexByte(full[nl+1:], '\n')+1]
	for _, tail := range []string{"", "x,1"} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, PartialFile), append(append([]byte(nil), headers...), tail...), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Run(context.Background(), testKinds, s, Options{OutDir: dir, Jobs: 2}); err != nil {
			t.Fatalf("tail %q: %v", tail, err)
		}
		got, _ := os.ReadFile(filepath.Join(dir, RowsFile))
		if !bytes.Equal(got, full) {
			t.Fatalf("tail %q: resumed from the headers alone, rows differ from an uninterrupted run", tail)
		}
	}
}

// keyedKind is toyKind with its own trial key, which leaves out ε: the
// cells of one method draw the same noise at every ε.
type keyedKind struct{ toyKind }

func (keyedKind) TrialKey(c *experiment.CellSpec) string { return "paired;method=" + c.Method }

// The rows of a kind with its own trial key carry a seeding tag, so that
// rows drawn under the per-cell seeding are refused rather than reused;
// other kinds' headers are unchanged. Cells of equal keys draw equal
// noise: toy's error is (scale/ε)·mean(noise), so at ε = 0.5 and 1 the
// squared errors are in the ratio 4 (to rounding) when paired, and not
// otherwise.
func TestSeedingTag(t *testing.T) {
	s := smallSpec()
	for _, tc := range []struct {
		kind experiment.Kind
		want bool
	}{{keyedKind{}, true}, {toyKind{}, false}} {
		line := metadataLine(s, tc.kind, false, nil)
		if got := strings.Contains(line, " seeding="+pairedSeeding); got != tc.want {
			t.Errorf("%T: header %q has the seeding tag: %v, want %v", tc.kind, line, got, tc.want)
		}
	}
	s.Axes.Eps, s.Metrics, s.Datasets = []float64{0.5, 1}, []string{"mse"}, s.Datasets[:1]
	for _, tc := range []struct {
		kind   experiment.Kind
		paired bool
	}{{keyedKind{}, true}, {toyKind{}, false}} {
		dir := t.TempDir()
		if _, err := Run(context.Background(), experiment.Registry{tc.kind}, s, Options{OutDir: dir}); err != nil {
			t.Fatal(err)
		}
		rows, err := results.ReadRowsFile(filepath.Join(dir, RowsFile))
		if err != nil {
			t.Fatal(err)
		}
		// Plan order: method, ε, trial; s.Trials rows per cell.
		for i := 0; i < s.Trials; i++ {
			lo, hi := float64(rows[i].Value), float64(rows[s.Trials+i].Value)
			if paired := math.Abs(lo/hi-4) < 1e-6; paired != tc.paired {
				t.Errorf("%T trial %d: squared errors at ε = 0.5 and 1 in the ratio %v; paired: %v, want %v", tc.kind, i, lo/hi, paired, tc.paired)
			}
		}
	}
}
