package multiservice

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/results"
)

// The distribution half of kind multiservice (ULE and the per-service EMS
// baselines of Du et al. Sections 5 and 6.2): what the estimators hand the
// metrics, the EM log-likelihood through the kind's parameters, and the
// shipped distribution specs.

// distRun prepares a distribution cell of kind multiservice.
func distRun(t *testing.T, method string, eps float64, n int, params map[string]string) *cellRun {
	t.Helper()
	cs := cellSpec(t, method, eps, n, params, "js-div", "js-dist", "kl", "em_iterations")
	run, err := Kind{}.Prepare(context.Background(), cs)
	if err != nil {
		t.Fatalf("%s %v: %v", method, params, err)
	}
	return run.(*cellRun)
}

// Every distribution estimate is a probability vector over the cell's bins
// (finite, non-negative, summing to 1), for ULE and every single service's
// EMS, with repeated mechanisms, mixed budgets, users reporting to subsets
// (NaN reports), without smoothing and under either stopping rule; and the
// metrics of a trial are finite, js-div in [0, ln 2], js-dist its root,
// KL(truth ‖ estimate) ≥ 0.
//
// The check is on the histogram itself: metrics.JSDivergence normalises
// both vectors and clamps to [0, ln 2], so the js-div rows alone cannot
// show an estimate that is not a probability vector.
//
// Under -short the two rows run to convergence (about 1 s of the test's
// 2.2) are left to make test.
func TestMSDistHistogramsAreProbabilityVectors(t *testing.T) {
	skipUnderRace(t, "20 s")
	p := func(kv ...string) map[string]string {
		m := map[string]string{"bins": "128"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	three := "sr,pm,sw"
	for _, c := range []struct {
		method string
		eps    float64
		params map[string]string
	}{
		{"ule", 0.3, p("services", three)},
		{"ems-sr", 0.3, p("services", three)},
		{"ems-pm", 0.3, p("services", three)},
		{"ems-sw", 0.3, p("services", three)},
		{"ule", 0.1, p("services", three, "bins", "1024")}, // the paper's l
		{"ule", 0.6, p("services", "C", "config", "2")},
		{"ems-3", 0.6, p("services", "C", "config", "4")},
		{"ule", 0.6, p("services", "sw:0.1,sw:0.2,sw:0.3")},
		{"ems-2", 0.6, p("services", "sw:0.1,sw:0.2,sw:0.3")},
		{"ule", 0.1, p("services", three, "m", "6")},
		{"ule", 0.1, p("services", "sr,pm,sw,sw", "groups", "fig8", "group", "all")},
		{"ule", 0.1, p("services", "sr,pm,sw,sw", "groups", "fig8", "group", "6")},
		{"ems-4", 0.1, p("services", "sr,pm,sw,sw", "groups", "fig8", "group", "all")},
		{"ule", 0.3, p("services", three, "smooth", "false")},
		{"ems-sr", 0.3, p("services", three, "smooth", "false")},
		{"ule", 0.3, p("services", three, "stop", "converged")},
		{"ems-pm", 0.3, p("services", three, "stop", "converged", "smooth", "false")},
		{"ems-best", 0.3, p("services", three)},
		{"ems-best", 0.1, p("services", "sr,pm,sw,sw", "groups", "fig8", "group", "all")},
		{"ems-best", 0.1, p("services", "sr,pm,sw,sw", "groups", "fig8", "group", "9")},
	} {
		name := c.method + " " + results.FormatParams(c.params)
		if testing.Short() && c.params["stop"] == "converged" {
			t.Logf("%s: skipped under -short (make test runs it)", name)
			continue
		}
		r := distRun(t, c.method, c.eps, 2000, c.params)
		bins := r.cell.cfg.bins
		sc := r.scratch()
		if err := r.draw(sc.reports, rand.New(rand.NewPCG(7, 7))); err != nil {
			t.Fatal(err)
		}
		hist, info, err := r.distEst(context.Background(), sc.reports)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		iters := info.Iterations
		if info.Accel != "" {
			iters = info.ESteps // em_iterations under SQUAREM, converged's default
		}
		if len(hist) != bins {
			t.Fatalf("%s: %d bins, want %d", name, len(hist), bins)
		}
		var sum float64
		for k, v := range hist {
			if !(v >= 0) || math.IsInf(v, 0) {
				t.Fatalf("%s: bin %d = %v", name, k, v)
			}
			sum += v
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("%s: the histogram sums to 1%+.3g", name, sum-1)
		}
		if iters < 1 {
			t.Errorf("%s: %d EM iterations", name, iters)
		}
		ms, err := r.Trial(context.Background(), 0, rand.New(rand.NewPCG(7, 7)), nil)
		if err != nil {
			t.Fatal(err)
		}
		js, dist, kl, it := ms[0].Value, ms[1].Value, ms[2].Value, ms[3].Value
		if !(js >= 0 && js <= math.Ln2) || math.Abs(dist-math.Sqrt(js)) > 1e-15 || !(kl >= 0) || math.IsInf(kl, 0) {
			t.Errorf("%s: js-div %v, js-dist %v, kl %v", name, js, dist, kl)
		}
		// The same generator state draws the same reports: the trial's
		// metrics are those of the histogram checked above.
		if it != float64(iters) {
			t.Errorf("%s: the trial ran %v iterations, the estimator %d on the same reports", name, it, iters)
		}
	}
}

// Without smoothing EM is plain EM (the paper's Algorithm 3), whose
// log-likelihood never decreases: checked at every iteration of ULE and of
// each service's EMS, with the options the kind builds from params.smooth =
// false and params.stop (the estimator's own check on synthetic counts is
// estimators.TestEMLogLikelihoodMonotone). The histogram the kind returns is
// that of the estimator called with those options, so the parameters reach
// it; and, started from the same uniform θ on the same reports, running to
// convergence ends at a log-likelihood no lower than the authors' rule, with
// at least as many iterations.
//
// Under -short the three EMS methods run (about 0.8 s) and ULE (about
// 2.8 s) is left to make test.
func TestMSDistLogLikelihoodMonotone(t *testing.T) {
	skipUnderRace(t, "11 s")
	for _, method := range []string{"ule", "ems-sr", "ems-pm", "ems-sw"} {
		if testing.Short() && method == "ule" {
			t.Log("ule: skipped under -short (make test runs it)")
			continue
		}
		var last struct {
			ll    float64
			iters int
		}
		for _, stop := range []string{"authors", "converged"} {
			// accel = none: the check is of plain EM's path (SQUAREM, the
			// default under converged, has its own, TestSquaremFixedPointCells).
			params := map[string]string{"services": "sr,pm,sw", "bins": "64", "smooth": "false", "stop": stop, "accel": "none"}
			r := distRun(t, method, 0.5, 3000, params)
			sc := r.scratch()
			if err := r.draw(sc.reports, rand.New(rand.NewPCG(11, uint64(len(method))))); err != nil {
				t.Fatal(err)
			}
			got, kindInfo, err := r.distEst(context.Background(), sc.reports)
			if err != nil {
				t.Fatal(err)
			}
			iters := kindInfo.Iterations
			opt := r.cell.cfg.em
			if !opt.NoSmooth || string(opt.Stop) != stop {
				t.Fatalf("%s: params smooth=false stop=%s gave EM options %+v", method, stop, opt)
			}
			opt.MaxIter = 20000 // bounds the test; convergence comes well before
			var lls []float64
			opt.Trace = func(_ int, _ []float64, ll float64) { lls = append(lls, ll) }
			reports, mechs := sc.reports, r.mechs
			if strings.HasPrefix(method, "ems-") {
				j := r.cell.method.service
				reports, mechs = sc.reports[j:j+1], r.mechs[j:j+1]
			}
			svcs, err := estimators.NewServices(mechs, r.cell.cfg.bins)
			if err != nil {
				t.Fatal(err)
			}
			want, info, err := estimators.ULE(context.Background(), reports, svcs, opt)
			if err != nil {
				t.Fatal(err)
			}
			if info.Iterations != iters || info.Iterations != len(lls) {
				t.Errorf("%s %s: %d iterations through the kind, %d direct, %d traced", method, stop, iters, info.Iterations, len(lls))
			}
			for k := range want {
				if got[k] != want[k] {
					t.Errorf("%s %s: bin %d = %v through the kind, %v direct", method, stop, k, got[k], want[k])
					break
				}
			}
			for i := 1; i < len(lls); i++ {
				if lls[i] < lls[i-1]-1e-12*math.Abs(lls[i-1]) {
					t.Errorf("%s %s: LL decreased at iteration %d: %.15g -> %.15g", method, stop, i+1, lls[i-1], lls[i])
					break
				}
			}
			if stop == "converged" {
				if info.Stop == estimators.StopReasonMaxIter {
					t.Errorf("%s: not converged in %d iterations", method, info.Iterations)
				}
				if info.LL < last.ll-1e-12*math.Abs(last.ll) || info.Iterations < last.iters {
					t.Errorf("%s: converged LL %.12g after %d iterations, authors' rule %.12g after %d", method, info.LL, info.Iterations, last.ll, last.iters)
				}
			}
			last.ll, last.iters = info.LL, info.Iterations
		}
	}
}

// Distribution cells give byte-identical rows at -j 1 and -j 2 (js-div and
// em_iterations included: EM's accumulators are cut into fixed blocks).
func TestMSDistDeterministic(t *testing.T) {
	spec := &harness.Spec{
		Name: "ms-dist-det", Kind: "multiservice", Seed: 5, Trials: 2, Metrics: []string{"js-div", "em_iterations"},
		Axes: harness.Axes{
			Method: []string{"ule", "ems-pm"},
			Eps:    []float64{0.3}, N: []int{20000},
			Params: map[string][]string{"services": {"sr,pm,sw"}, "stop": {"authors"}, "bins": {"256"}},
		},
		Datasets: []datasets.Spec{{Name: "b25", Source: "beta", A: 2, B: 5, Normalise: "minmax"}},
	}
	a, b := runMS(t, spec, 1), runMS(t, spec, 2)
	ra, _ := os.ReadFile(filepath.Join(a, harness.RowsFile))
	rb, _ := os.ReadFile(filepath.Join(b, harness.RowsFile))
	if len(ra) == 0 || !bytes.Equal(ra, rb) {
		t.Error("rows.csv differs between -j 1 and -j 2")
	}
}

// distSpecs are the shipped distribution specs of kind multiservice.
var distSpecs = []string{
	"multiservice-fig4-dist", "multiservice-fig5-dist", "multiservice-fig6b",
	"multiservice-fig7b", "multiservice-fig7d", "multiservice-fig8d", "multiservice-table1-ule",
}

// thinMSSpec keeps the first and last value of every swept axis with more
// than two (ε, n and the params), one trial per cell and 256 bins instead of
// 1024, so that every method, stopping rule, dataset and figure of a spec is
// exercised at its quick n in seconds (the converged EM runs dominate: up to
// ~10⁴ iterations at ε = 0.1, each O(bins) for EMS). `ldpbench run SPEC
// --quick` runs the whole quick grid at 1024 bins.
func thinMSSpec(s *harness.Spec) {
	// The claims name axis values that thinning drops (TestShippedClaimsLoad
	// checks them on the whole spec).
	s.Claims = nil
	ends := func(n int) bool { return n > 2 }
	if ends(len(s.Axes.Eps)) {
		s.Axes.Eps = []float64{s.Axes.Eps[0], s.Axes.Eps[len(s.Axes.Eps)-1]}
	}
	if s.Quick == nil {
		s.Quick = &harness.Quick{}
	}
	s.Quick.Trials = 1
	if ends(len(s.Quick.N)) {
		s.Quick.N = []int{s.Quick.N[0], s.Quick.N[len(s.Quick.N)-1]}
	}
	params := map[string][]string{}
	for k, vs := range s.Axes.Params {
		if ends(len(vs)) {
			vs = []string{vs[0], vs[len(vs)-1]}
		}
		params[k] = vs
	}
	if _, ok := params["bins"]; !ok {
		params["bins"] = []string{"256"}
	}
	s.Axes.Params = params
}

// The shipped distribution specs at quick n (thinned, thinMSSpec):
// every js-div row is finite and in [0, ln 2], js-dist is its square root,
// every em_iterations row is a whole number between 1 and the rule's cap
// (10,000 for the authors' rule, 100,000 run to convergence), every timing
// row is positive, no row has a theory (EM has none), and every figure is
// drawn. Each spec names js-div on its axis (E4.1).
func TestShippedMultiserviceDistSpecs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the shipped specs")
	}
	for _, name := range distSpecs {
		spec, err := harness.LoadSpec(filepath.Join("..", "..", "runs", name+".toml"))
		if err != nil {
			t.Fatal(err)
		}
		thinMSSpec(spec)
		start := time.Now()
		dir := runMS(t, spec, 0)
		t.Logf("%s: %.1f s", name, time.Since(start).Seconds())
		rows, err := results.ReadRowsFile(filepath.Join(dir, harness.RowsFile))
		if err != nil {
			t.Fatal(err)
		}
		js := map[string]float64{} // cell/trial → js-div
		counts := map[string]int{}
		for _, r := range rows {
			v := float64(r.Value)
			key := r.Cell().Key() + "#" + strconv.Itoa(r.Trial)
			counts[r.Metric]++
			if !math.IsNaN(float64(r.Theory)) {
				t.Errorf("%s %s: %s has a theory %v", name, key, r.Metric, r.Theory)
			}
			switch r.Metric {
			case "js-div":
				if !(v >= 0 && v <= math.Ln2) {
					t.Errorf("%s %s: js-div %v not in [0, ln 2]", name, key, v)
				}
				js[key] = v
			case "js-dist":
				if d, ok := js[key]; !ok || v != math.Sqrt(d) {
					t.Errorf("%s %s: js-dist %v, js-div %v", name, key, v, d)
				}
			case "em_iterations":
				limit := 10000.0
				if strings.Contains(r.Params, "stop=converged") {
					limit = 100000
				}
				if !(v >= 1 && v <= limit && v == math.Trunc(v)) {
					t.Errorf("%s %s: em_iterations %v", name, key, v)
				}
			case "aggregation_seconds":
				if !(v > 0) || math.IsInf(v, 0) {
					t.Errorf("%s %s: aggregation_seconds %v", name, key, v)
				}
			default:
				t.Errorf("%s: unexpected metric %s", name, r.Metric)
			}
		}
		if counts["js-div"] == 0 || counts["em_iterations"] == 0 {
			t.Errorf("%s: no js-div or em_iterations rows (%v)", name, counts)
		}
		for _, f := range spec.Figures {
			if _, err := os.Stat(filepath.Join(dir, f.Name+".png")); err != nil {
				t.Errorf("%s: figure %s not drawn: %v", name, f.Name, err)
			}
			// The paper's d_JS is the distance (E4.1): an axis of js-div
			// says divergence, in words a reader of the paper follows.
			if f.Metric == "js-div" && !strings.Contains(f.YLabel, "JS divergence") {
				t.Errorf("%s: figure %s does not say JS divergence on its axis (%q)", name, f.Name, f.YLabel)
			}
		}
	}
}
