package multiservice

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/results"
)

// trialReports returns the reports that trial draws for cell c in a run
// of experiment with master seed seed: the generator the runner hands
// Trial (trialRand from the kind's TrialKey), and the draw Trial makes
// with it, before any estimator runs.
func trialReports(t *testing.T, seed uint64, experiment string, c *experiment.CellSpec, trial int) [][]float64 {
	t.Helper()
	k := Kind{}
	run, err := k.Prepare(context.Background(), c)
	if err != nil {
		t.Fatalf("%s %v: %v", c.Method, c.Params, err)
	}
	r := run.(*cellRun)
	sc := r.scratch()
	if err := r.draw(sc.reports, harness.TrialRand(seed, experiment, harness.TrialKey(k, c, "unused"), trial)); err != nil {
		t.Fatal(err)
	}
	return sc.reports
}

// sameBits says whether two report matrices are bit for bit equal (NaN,
// "not reported", included).
func sameBits(a, b [][]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for t := range a {
		if len(a[t]) != len(b[t]) {
			return false
		}
		for i := range a[t] {
			if math.Float64bits(a[t][i]) != math.Float64bits(b[t][i]) {
				return false
			}
		}
	}
	return true
}

// Every parameter of the kind is classified as changing the reports or
// only the estimate, so that TrialKey's choice is explicit for each.
func TestMSParamRolesCoverEveryKey(t *testing.T) {
	for _, k := range kindParams.Keys() {
		if _, ok := paramRoles[k]; !ok {
			t.Errorf("params.%s has no role in paramRoles: does it change the reports?", k)
		}
	}
	for k := range paramRoles {
		if _, ok := kindParams.Lookup(k); !ok {
			t.Errorf("paramRoles classifies %q, which is not a parameter", k)
		}
	}
}

// Paired comparisons: two cells that differ only in the method or in
// estimator-only parameters draw bit-identical reports in a trial; a
// different ε, n, service list, group, trial or master seed draws
// different ones.
func TestMultiservicePairedReports(t *testing.T) {
	type side struct {
		method string
		eps    float64
		n      int
		params map[string]string
		seed   uint64
		trial  int
	}
	p := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	mean := []string{"mse"}
	dist := []string{"js-div"}
	three := "sr,pm,sw"
	four := "sr,lap,pm,sw"
	for _, c := range []struct {
		name    string
		a, b    side
		metrics []string
		same    bool
	}{
		{"single-1 vs ua", side{"single-1", 0.5, 500, p("services", four), 1, 0}, side{"ua", 0.5, 500, p("services", four), 1, 0}, mean, true},
		{"single-best vs uwa estimator params", side{"single-best", 0.5, 500, p("services", four), 1, 0},
			side{"uwa", 0.5, 500, p("services", four, "h", "40", "out_buckets", "40", "pm_lookup", "authors", "laplace_clamp", "true", "threads", "1"), 1, 0}, mean, true},
		{"uwa-oracle vs single-sw, groups", side{"uwa-oracle", 0.5, 500, p("services", four, "groups", "fig8"), 1, 2},
			side{"single-sw", 0.5, 500, p("services", four, "groups", "fig8"), 1, 2}, mean, true},
		{"ems-sr vs ule", side{"ems-sr", 0.3, 500, p("services", three), 1, 0}, side{"ule", 0.3, 500, p("services", three), 1, 0}, dist, true},
		{"ule vs ems-best, EM params", side{"ule", 0.3, 500, p("services", three), 1, 0},
			side{"ems-best", 0.3, 500, p("services", three, "stop", "converged", "ll_tol", "1e-12", "max_iter", "7", "theta_tol", "1e-9", "smooth", "false", "bins", "64"), 1, 0}, dist, true},
		{"ems-2 vs ems-pm, budgets", side{"ems-2", 0.6, 500, p("services", "C", "config", "2"), 1, 0}, side{"ems-pm", 0.6, 500, p("services", "C", "config", "2"), 1, 0}, dist, true},
		{"eps", side{"single-1", 0.5, 500, p("services", four), 1, 0}, side{"single-1", 0.6, 500, p("services", four), 1, 0}, mean, false},
		{"eps, ems", side{"ems-sr", 0.3, 500, p("services", three), 1, 0}, side{"ems-sr", 0.4, 500, p("services", three), 1, 0}, dist, false},
		{"n", side{"ua", 0.5, 500, p("services", four), 1, 0}, side{"ua", 0.5, 501, p("services", four), 1, 0}, mean, false},
		{"services", side{"ua", 0.5, 500, p("services", "sr,lap,pm,sw"), 1, 0}, side{"ua", 0.5, 500, p("services", "sr,lap,sw,pm"), 1, 0}, mean, false},
		{"config", side{"ule", 0.6, 500, p("services", "C", "config", "1"), 1, 0}, side{"ule", 0.6, 500, p("services", "C", "config", "2"), 1, 0}, dist, false},
		{"group", side{"ua", 0.5, 500, p("services", four, "groups", "1+2,1+2"), 1, 0}, side{"ua", 0.5, 500, p("services", four, "groups", "1+2,1+2", "group", "1"), 1, 0}, mean, false},
		{"trial", side{"ua", 0.5, 500, p("services", four), 1, 0}, side{"ua", 0.5, 500, p("services", four), 1, 1}, mean, false},
		{"seed", side{"ua", 0.5, 500, p("services", four), 1, 0}, side{"ua", 0.5, 500, p("services", four), 2, 0}, mean, false},
	} {
		ra := trialReports(t, c.a.seed, "pair", cellSpec(t, c.a.method, c.a.eps, c.a.n, c.a.params, c.metrics...), c.a.trial)
		rb := trialReports(t, c.b.seed, "pair", cellSpec(t, c.b.method, c.b.eps, c.b.n, c.b.params, c.metrics...), c.b.trial)
		if got := sameBits(ra, rb); got != c.same {
			t.Errorf("%s: identical reports %t, want %t", c.name, got, c.same)
		}
	}
}

// rowValues maps "method|params|trial|metric" to a row's value.
func rowValues(t *testing.T, dir string) map[string]float64 {
	t.Helper()
	rows, err := results.ReadRowsFile(filepath.Join(dir, harness.RowsFile))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, r := range rows {
		out[fmt.Sprintf("%s|%s|%d|%s", r.Method, r.Params, r.Trial, r.Metric)] = float64(r.Value)
	}
	return out
}

// Through the runner: a service named by number and by mechanism is the
// same estimator on the same reports, so its rows are bit-identical (they
// were not when each method drew its own reports); and ems-best's row is,
// trial by trial, the lowest js-div of the ems-<s> rows, with the kl and
// em_* rows of that service.
func TestMultiservicePairedRows(t *testing.T) {
	ds := []datasets.Spec{{Name: "b25", Source: "beta", A: 2, B: 5, Normalise: "minmax"}}
	meanSpec := &harness.Spec{
		Name: "ms-paired", Kind: "multiservice", Seed: 9, Trials: 3, Metrics: []string{"mse", "abs"},
		Axes: harness.Axes{Method: []string{"single-1", "single-sr", "single-3", "single-pm"}, Eps: []float64{0.4}, N: []int{2000},
			Params: map[string][]string{"services": {"sr,lap,pm,sw"}}},
		Datasets: ds,
	}
	v := rowValues(t, runMS(t, meanSpec, 2))
	for _, pair := range [][2]string{{"single-1", "single-sr"}, {"single-3", "single-pm"}} {
		for trial := range 3 {
			for _, metric := range meanSpec.Metrics {
				a := v[fmt.Sprintf("%s|services=sr,lap,pm,sw|%d|%s", pair[0], trial, metric)]
				b := v[fmt.Sprintf("%s|services=sr,lap,pm,sw|%d|%s", pair[1], trial, metric)]
				if math.Float64bits(a) != math.Float64bits(b) || a == 0 {
					t.Errorf("%s vs %s trial %d %s: %v vs %v", pair[0], pair[1], trial, metric, a, b)
				}
			}
		}
	}

	metrics := []string{"js-div", "js-dist", "kl", "em_iterations", "em_stop_ll", "em_stop_max_iter"}
	distSpec := &harness.Spec{
		Name: "ms-paired-dist", Kind: "multiservice", Seed: 9, Trials: 3, Metrics: metrics,
		Axes: harness.Axes{Method: []string{"ems-1", "ems-sr", "ems-pm", "ems-sw", "ems-best"}, Eps: []float64{0.4}, N: []int{3000},
			// sw:2: a budget of its own, so that ems-best picks SW there.
			Params: map[string][]string{"services": {"sr,pm,sw", "sr,pm,sw:2"}, "bins": {"64"}, "stop": {"authors", "converged"}}},
		Datasets: ds,
	}
	v = rowValues(t, runMS(t, distSpec, 2))
	picked := map[string]int{}
	for _, params := range []string{
		"bins=64;services=sr,pm,sw;stop=authors", "bins=64;services=sr,pm,sw;stop=converged",
		"bins=64;services=sr,pm,sw:2;stop=authors", "bins=64;services=sr,pm,sw:2;stop=converged",
	} {
		get := func(method string, trial int, metric string) float64 {
			x, ok := v[fmt.Sprintf("%s|%s|%d|%s", method, params, trial, metric)]
			if !ok {
				t.Fatalf("no row %s %s trial %d %s", method, params, trial, metric)
			}
			return x
		}
		for trial := range 3 {
			for _, metric := range metrics {
				if a, b := get("ems-1", trial, metric), get("ems-sr", trial, metric); math.Float64bits(a) != math.Float64bits(b) {
					t.Errorf("%s trial %d %s: ems-1 %v, ems-sr %v", params, trial, metric, a, b)
				}
			}
			best, arg := math.Inf(1), ""
			for _, m := range []string{"ems-sr", "ems-pm", "ems-sw"} {
				if js := get(m, trial, "js-div"); js < best {
					best, arg = js, m
				}
			}
			picked[arg]++
			for _, metric := range metrics {
				if a, b := get("ems-best", trial, metric), get(arg, trial, metric); math.Float64bits(a) != math.Float64bits(b) {
					t.Errorf("%s trial %d %s: ems-best %v, the lowest js-div's service %s %v", params, trial, metric, a, arg, b)
				}
			}
		}
	}
	if len(picked) < 2 {
		t.Errorf("ems-best picked %v: want cells where different services win", picked)
	}
}

// Params ll_tol, max_iter and theta_tol reach the EM options, and the stop
// metrics say which test ended the run: a cap of 5 iterations (or 40 with
// tolerances no run meets) stops on the cap; an absolute ll_tol of 10⁹
// nats, or a relative one of 1/2, stops on the likelihood test at the
// first iteration it is checked (the third); and whatever ends a default
// run, at most one reason is recorded, each metric 0 or 1.
func TestMultiserviceEMParams(t *testing.T) {
	for _, c := range []struct {
		method string
		params map[string]string
		iters  float64 // 0: any
		ll, mx float64 // the stop metrics; -1: either
	}{
		{"ule", map[string]string{"max_iter": "5"}, 5, 0, 1},
		{"ems-pm", map[string]string{"max_iter": "5", "stop": "converged", "accel": "none"}, 5, 0, 1},
		{"ule", map[string]string{"ll_tol": "1e9"}, 3, 1, 0},
		{"ems-best", map[string]string{"ll_tol": "1e9"}, 3, 1, 0},
		{"ems-sw", map[string]string{"stop": "converged", "ll_tol": "0.5", "accel": "none"}, 3, 1, 0},
		{"ule", map[string]string{"stop": "converged", "theta_tol": "1e-300", "ll_tol": "1e-300", "max_iter": "40", "accel": "none"}, 40, 0, 1},
		{"ems-sr", map[string]string{}, 0, -1, -1},
		// SQUAREM, the default under converged: max_iter caps its E-steps
		// (em_iterations ≤ the cap, checked below for every row).
		{"ems-pm", map[string]string{"max_iter": "5", "stop": "converged"}, 0, 0, 1},
		{"ule", map[string]string{"stop": "converged", "theta_tol": "1e-300", "ll_tol": "1e-300", "max_iter": "40"}, 0, 0, 1},
	} {
		params := map[string]string{"services": "sr,pm,sw", "bins": "64"}
		for k, v := range c.params {
			params[k] = v
		}
		cs := cellSpec(t, c.method, 0.5, 3000, params, "em_iterations", "em_stop_ll", "em_stop_max_iter")
		cell, err := checkMSCell(cs)
		if err != nil {
			t.Fatal(err)
		}
		em := cell.cfg.em
		for key, got := range map[string]float64{"max_iter": float64(em.MaxIter), "ll_tol": em.LLTol, "theta_tol": em.ThetaTol} {
			if s, ok := c.params[key]; ok {
				if want, _ := strconv.ParseFloat(s, 64); got != want {
					t.Errorf("%v: params.%s gave the EM option %v", c.params, key, got)
				}
			}
		}
		run, err := Kind{}.Prepare(context.Background(), cs)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := run.Trial(context.Background(), 0, harness.TrialRand(1, "em", "k", 0), nil)
		if err != nil {
			t.Fatal(err)
		}
		it, ll, mx := ms[0].Value, ms[1].Value, ms[2].Value
		if s, ok := c.params["max_iter"]; ok {
			if cap, _ := strconv.Atoi(s); it > float64(cap) || it < 1 {
				t.Errorf("%s %v: em_iterations %v, want in [1, max_iter]", c.method, c.params, it)
			}
		}
		if (c.iters != 0 && it != c.iters) || (c.ll >= 0 && ll != c.ll) || (c.mx >= 0 && mx != c.mx) || ll+mx > 1 || ll*(1-ll) != 0 || mx*(1-mx) != 0 {
			t.Errorf("%s %v: em_iterations %v, em_stop_ll %v, em_stop_max_iter %v; want %v, %v, %v", c.method, c.params, it, ll, mx, c.iters, c.ll, c.mx)
		}
	}
}

// cancelKind is kind multiservice whose long cell (max_iter =
// longIter) cancels the run once the cell before it is on disk and the
// long trial's EM has run cancelAfter iterations, and records how its
// trial ended. Its EM reports every iteration (EMOptions.Trace), so that
// the test counts iterations, not seconds.
type cancelKind struct {
	Kind
	partial string // the rows.csv.partial to watch
	before  int    // rows of the cells before the long one
	cancel  context.CancelFunc
	stopped chan emStopped
}

type emStopped struct {
	err      error
	atCancel int64         // EM iterations finished when the cancel was issued (read after it)
	atReturn int64         // EM iterations finished when the trial returned
	after    time.Duration // from the cancel to the trial's return (logged only)
}

const (
	longIter    = "100000000"
	cancelAfter = 20 // EM iterations of the long trial before the cancel
)

func (k cancelKind) Prepare(ctx context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	run, err := k.Kind.Prepare(ctx, c)
	if err != nil || c.Params.String("max_iter", "") != longIter {
		return run, err
	}
	// The cell's ULE as the kind builds it, with a trace of the
	// iterations.
	r := run.(*cellRun)
	iters := new(atomic.Int64)
	em := r.cell.cfg.em
	em.Trace = func(it int, _ []float64, _ float64) { iters.Store(int64(it)) }
	r.distEst, err = newMSEMEstimator(r.cell.method, func(j int) int { return slices.Index(r.cell.active, j) }, r.mechs, r.cell.cfg.bins, em, r.truthHist)
	if err != nil {
		return nil, err
	}
	return cancelRun{run, k, iters}, nil
}

type cancelRun struct {
	experiment.CellRun
	k     cancelKind
	iters *atomic.Int64
}

func (r cancelRun) Trial(ctx context.Context, trial int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	var at, atIter atomic.Int64
	go func() {
		// Wait for the finished cell to be written (the writer may lose a
		// race against the cancel otherwise) and for EM to be well under
		// way; the deadline only keeps a broken run from hanging.
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			b, _ := os.ReadFile(r.k.partial)
			if bytes.Count(b, []byte("\n")) >= r.k.before+2 && r.iters.Load() >= cancelAfter { // + the metadata and CSV headers
				break
			}
		}
		at.Store(time.Now().UnixNano())
		r.k.cancel()
		atIter.Store(r.iters.Load())
	}()
	out, err := r.CellRun.Trial(ctx, trial, rng, out)
	r.k.stopped <- emStopped{err, atIter.Load(), r.iters.Load(), time.Duration(time.Now().UnixNano() - at.Load())}
	return out, err
}

// A cancelled run stops inside a long EM run: the trial returns an error
// wrapping context.Canceled within one EM iteration of the cancel, Run
// says how to resume, rows.csv is not written, and the resumed run keeps
// the finished cell and runs only the rest.
//
// "Within one iteration" is counted, not timed: EM checks the context
// before every iteration, so the iterations finished after the cancel are
// at most the one under way when it came (the count is read after the
// cancel, so a trace that lands between the two is already counted): the
// iterations at the return minus those at the cancel are 0 or 1, whatever
// the machine's speed or load. (The time is logged.)
func TestMultiserviceCancelInsideEM(t *testing.T) {
	spec := &harness.Spec{
		Name: "ms-cancel", Kind: "multiservice", Seed: 4, Trials: 1, Metrics: []string{"js-div", "em_iterations"},
		Axes: harness.Axes{Method: []string{"ule"}, Eps: []float64{0.3}, N: []int{2000},
			Params: map[string][]string{"services": {"sr,pm,sw"}, "stop": {"converged"}, "theta_tol": {"1e-300"}, "ll_tol": {"1e-300"},
				"max_iter": {"20", longIter}, "accel": {"none"}}}, // plain EM: counted per iteration
		Datasets: []datasets.Spec{{Name: "b25", Source: "beta", A: 2, B: 5, Normalise: "minmax"}},
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	k := cancelKind{partial: filepath.Join(dir, harness.PartialFile), before: len(spec.Metrics), cancel: cancel, stopped: make(chan emStopped, 1)}
	_, err := harness.Run(ctx, experiment.Registry{k}, spec, harness.Options{OutDir: dir, Jobs: 1})
	if err == nil || !strings.Contains(err.Error(), "resume") || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: error %v, want a cancellation that says how to resume", err)
	}
	select {
	case s := <-k.stopped:
		if !errors.Is(s.err, context.Canceled) || !strings.Contains(s.err.Error(), "EM stopped") {
			t.Errorf("the long trial ended with %v, want EM's cancellation", s.err)
		}
		if s.atCancel < cancelAfter {
			t.Errorf("cancelled after %d EM iterations, want at least %d: the cancel did not come inside EM", s.atCancel, cancelAfter)
		}
		if d := s.atReturn - s.atCancel; d < 0 || d > 1 {
			t.Errorf("EM ran %d iterations after the cancel (%d at the cancel, %d at the return), want at most 1", d, s.atCancel, s.atReturn)
		}
		if want := fmt.Sprintf("after %d iterations", s.atReturn); !strings.Contains(s.err.Error(), want) {
			t.Errorf("the error %q does not say %q", s.err, want)
		}
		t.Logf("EM returned %v and %d iteration(s) after the cancel (at iteration %d): %v", s.after, s.atReturn-s.atCancel, s.atCancel, s.err)
	default:
		t.Fatal("the long trial did not return")
	}
	if _, err := os.Stat(filepath.Join(dir, harness.RowsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a cancelled run wrote rows.csv")
	}
	partial, err := os.ReadFile(k.partial)
	if err != nil || !bytes.Contains(partial, []byte("max_iter=20")) {
		t.Fatalf("the partial rows lost the finished cell (%v):\n%s", err, partial)
	}

	// Resume: the long cell is cut to 20 iterations by the kind (the spec,
	// and so its hash, unchanged), so that the resumed run ends.
	res, err := harness.Run(context.Background(), experiment.Registry{shortKind{}}, spec, harness.Options{OutDir: dir, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed != 1 || res.Trials != 1 {
		t.Errorf("resumed %d cells, ran %d trials; want 1 and 1", res.Resumed, res.Trials)
	}
	rows, _ := os.ReadFile(filepath.Join(dir, harness.RowsFile))
	if !bytes.HasPrefix(rows, partial) || bytes.Count(rows, []byte("\n")) != 3+2*len(spec.Metrics) { // headers, two cells, the end line
		t.Errorf("resumed rows do not extend the interrupted ones:\n%s", rows)
	}
}

// shortKind runs the long cell of TestMultiserviceCancelInsideEM with 20
// iterations.
type shortKind struct{ Kind }

func (k shortKind) Prepare(ctx context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	if c.Params.String("max_iter", "") == longIter {
		p := c.Params.Values()
		p["max_iter"] = "20"
		short := *c
		short.Params = kindParams.MustParse(p)
		c = &short
	}
	return k.Kind.Prepare(ctx, c)
}
