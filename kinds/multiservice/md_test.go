package multiservice

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/compare"
	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/results"
)

// mdCellSpec returns a multiservice-md cell over n rows of dims
// independent Beta(2,5) attributes.
func mdCellSpec(t *testing.T, method string, n, dims int, params map[string]string, metrics ...string) *experiment.CellSpec {
	t.Helper()
	ds, err := datasets.Spec{Name: "b25", Source: "beta", A: 2, B: 5, Dims: dims, Normalise: "minmax"}.Build(n, rand.New(rand.NewPCG(5, 5)))
	if err != nil {
		t.Fatal(err)
	}
	if len(metrics) == 0 {
		metrics = []string{"mse"}
	}
	return &experiment.CellSpec{Experiment: "t", Dataset: ds, Method: method, Eps: 0.5, N: n, Params: mdParams.MustParse(params), Metrics: metrics}
}

// Every bad cell is refused by Check with an error that names the problem.
func TestMultiserviceMDCheck(t *testing.T) {
	k := MD{}
	for _, c := range []struct {
		method  string
		params  map[string]string
		metrics []string
		want    string // "" = valid
	}{
		{"ua", map[string]string{"services": "sr,pm", "d": "4"}, nil, ""},
		{"ule", map[string]string{"services": "sr,pm,sw", "d": "6"}, []string{"js-div", "em_iterations", "em_stop_ll"}, ""},
		{"ua", map[string]string{"services": "sr,pm"}, nil, "params.d"},
		{"ua", map[string]string{"services": "sr,pm", "d": "0"}, nil, "params.d"},
		{"ua", map[string]string{"services": "sr,pm", "d": "7"}, nil, "6 attributes"},
		{"ua", map[string]string{"services": "sr,pm", "d": "2", "groups": "fig8"}, nil, "params.groups"},
		{"ua", map[string]string{"services": "sr,pm", "d": "2", "bogus": "1"}, nil, "params.bogus"},
		{"ua", map[string]string{"services": "sr,pm", "d": "2"}, []string{"variance"}, "metric variance"},
		{"ule", map[string]string{"services": "sr,pm", "d": "2"}, []string{"mse"}, "metric mse"},
		{"ems-best", map[string]string{"services": "sr,pm", "d": "2"}, []string{"js-div"}, "ems-best"},
		{"ems-sw", map[string]string{"services": "sr,pm", "d": "2"}, []string{"js-div"}, "ems-sw"},
	} {
		err := checkRaw(k, mdCellSpec(t, c.method, 600, 6, nil, c.metrics...), c.params)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %v: %v", c.method, c.params, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %v: error %v, want one naming %q", c.method, c.params, err, c.want)
		}
	}
}

// The split is d disjoint groups of ⌊n/d⌋ of the first n rows, the same
// for the same cell and master seed, another for another seed.
func TestMultiserviceMDSplit(t *testing.T) {
	c := mdCellSpec(t, "ua", 1003, 10, map[string]string{"services": "sr", "d": "10"})
	a, b := mdSplit(c, 10), mdSplit(c, 10)
	other := *c
	other.Seed++
	if slices.Equal(a[0], mdSplit(&other, 10)[0]) {
		t.Error("the split does not depend on the master seed")
	}
	seen := map[int]bool{}
	for j, g := range a {
		if len(g) != 100 {
			t.Fatalf("group %d has %d rows, want 100", j, len(g))
		}
		for i, r := range g {
			if r < 0 || r >= 1003 || seen[r] {
				t.Fatalf("group %d: row %d out of range or repeated", j, r)
			}
			seen[r] = true
			if b[j][i] != r {
				t.Fatal("the split is not deterministic")
			}
		}
	}
}

// A multiservice-md trial is d one-dimensional multiservice trials, one per
// attribute on its group's values, drawn in attribute order from the
// trial's generator, with every metric averaged: bit for bit, for the
// mean methods (which go through kind multiservice) and for the
// distribution methods (which share one estimator across attributes), and
// so is the theory.
func TestMultiserviceMDIsPerAttribute(t *testing.T) {
	const n, dims, d = 900, 4, 3
	for _, c := range []struct {
		method  string
		params  map[string]string
		metrics []string
	}{
		{"ua", map[string]string{"services": "sr,lap,pm,sw"}, []string{"mse", "abs"}},
		{"uwa", map[string]string{"services": "sr,pm,sw"}, []string{"mse"}},
		{"single-best", map[string]string{"services": "sr,pm,sw"}, []string{"mse"}},
		{"ule", map[string]string{"services": "sr,pm,sw", "bins": "64"}, []string{"js-div", "js-dist", "kl", "em_iterations", "em_stop_ll", "em_stop_max_iter"}},
		{"ems-pm", map[string]string{"services": "sr,pm,sw", "bins": "64", "stop": "converged"}, []string{"js-div", "em_iterations"}},
	} {
		params := map[string]string{"d": "3"}
		for k, v := range c.params {
			params[k] = v
		}
		cs := mdCellSpec(t, c.method, n, dims, params, c.metrics...)
		run, err := MD{}.Prepare(context.Background(), cs)
		if err != nil {
			t.Fatalf("%s: %v", c.method, err)
		}
		got, err := run.Trial(context.Background(), 0, rand.New(rand.NewPCG(9, 1)), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.method, err)
		}
		// The same by hand: one multiservice cell per attribute.
		want := make([]float64, len(c.metrics))
		theory := make([]float64, len(c.metrics))
		rng := rand.New(rand.NewPCG(9, 1))
		for j, rows := range mdSplit(cs, d) {
			xs := make([]float64, len(rows))
			for i, r := range rows {
				xs[i] = cs.Dataset.Row(r)[j]
			}
			ds := &datasets.Dataset{Name: "col", Values: xs}
			sub, err := Kind{}.Prepare(context.Background(), &experiment.CellSpec{Experiment: "t", Dataset: ds, Method: c.method, Eps: cs.Eps, N: len(xs), Params: kindParams.MustParse(c.params), Metrics: c.metrics})
			if err != nil {
				t.Fatal(err)
			}
			ms, err := sub.Trial(context.Background(), 0, rng, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range ms {
				want[i] += m.Value
				v, _ := sub.Theory(m.Metric)
				theory[i] += v
			}
		}
		for i, metric := range c.metrics {
			if w := want[i] / d; got[i].Metric != metric || got[i].Value != w {
				t.Errorf("%s %s: got %v = %v, want the attributes' average %v", c.method, metric, got[i].Metric, got[i].Value, w)
			}
			v, ok := run.Theory(metric)
			if w := theory[i] / d; ok && math.Abs(v-w) > 1e-12*w {
				t.Errorf("%s %s: theory %v, want %v", c.method, metric, v, w)
			}
			if ok != (c.method == "ua" && metric == "mse" || c.method == "single-best") {
				t.Errorf("%s %s: has theory = %v", c.method, metric, ok)
			}
		}
	}
}

// The shipped Fig. 6c/d specs and Fig. 7b's m = 2 companion, thinned
// (thinMSSpec: d = 10 and 60, one trial, 256 bins for the distribution
// side): every row is finite, the mean side's have the exact theory (except
// UWA, E4.14), and the figures are drawn.
func TestShippedMultiserviceMDSpecs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the shipped specs")
	}
	for _, name := range []string{"multiservice-fig6c", "multiservice-fig6d", "multiservice-fig7b-m2"} {
		spec, err := harness.LoadSpec(filepath.Join("..", "..", "runs", name+".toml"))
		if err != nil {
			t.Fatal(err)
		}
		thinMSSpec(spec)
		if name == "multiservice-fig6c" {
			delete(spec.Axes.Params, "bins") // thinMSSpec's; the mean needs none
		}
		dir := runMS(t, spec, 0)
		rows, err := results.ReadRowsFile(filepath.Join(dir, harness.RowsFile))
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 0 {
			t.Fatalf("%s: no rows", name)
		}
		for _, r := range rows {
			v := float64(r.Value)
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Errorf("%s %s: %s = %v", name, r.Cell().Key(), r.Metric, v)
			}
			hasTheory := !math.IsNaN(float64(r.Theory))
			if wantTheory := r.Metric == "mse" && r.Method != "uwa"; hasTheory != wantTheory {
				t.Errorf("%s %s: %s theory %v", name, r.Cell().Key(), r.Metric, r.Theory)
			}
		}
		for _, f := range spec.Figures {
			if _, err := os.Stat(filepath.Join(dir, f.Name+".png")); err != nil {
				t.Errorf("%s: figure %s not drawn: %v", name, f.Name, err)
			}
		}
	}
}

// The real-data specs (Figs 4c–d, 4g–h, 5c–d, 5g–h: Taxi and Retirement)
// on fixture extracts in the format scripts/extract writes, thinned
// (thinMSSpec): both datasets load through their recipes (Retirement's
// keep_lo/keep_hi drops the fixture's out-of-range values), the mean cells
// agree with their exact theory (compare.TheoryCheck), and the figures are
// drawn. Without the files every dataset is skipped and nothing runs.
func TestShippedMultiserviceRealSpecs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the shipped specs")
	}
	dir := t.TempDir()
	t.Setenv(datasets.EnvData, dir)
	spec, err := harness.LoadSpec(filepath.Join("..", "..", "runs", "multiservice-fig4-real.toml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := harness.Run(t.Context(), testKinds, spec, harness.Options{OutDir: t.TempDir(), Quick: true})
	if err != nil || !res.Skipped {
		t.Fatalf("without data: skipped = %v, error %v", res != nil && res.Skipped, err)
	}

	rng := rand.New(rand.NewPCG(7, 7))
	var taxi, ret strings.Builder
	taxi.WriteString("pickup_seconds_of_day,pickup_minute_seconds_of_day\n")
	for range 25000 {
		s := rng.IntN(86400)
		fmt.Fprintf(&taxi, "%d,%d\n", s, s-s%60)
	}
	ret.WriteString("Total Compensation\n")
	for range 40000 {
		fmt.Fprintf(&ret, "%.2f\n", 70000*rng.Float64())
	}
	for name, content := range map[string]string{
		"yellow_tripdata_2018-01.pickup.csv": taxi.String(),
		"sf_total_compensation.csv":          ret.String(),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"multiservice-fig4-real", "multiservice-fig5-real", "multiservice-fig4-dist-real", "multiservice-fig5-dist-real"} {
		spec, err := harness.LoadSpec(filepath.Join("..", "..", "runs", name+".toml"))
		if err != nil {
			t.Fatal(err)
		}
		thinMSSpec(spec)
		// The rows keys count the real files' lines (1,048,575 trips),
		// which a shorter file fails; the fixtures are short on purpose.
		for i := range spec.Datasets {
			spec.Datasets[i].Rows = 0
		}
		// The fixture files hold 25,000 and about 23,000 rows; the quick
		// n of the distribution specs (50,000) is for the real files.
		for i, n := range spec.Quick.N {
			spec.Quick.N[i] = min(n, 20000)
		}
		mean := !strings.Contains(name, "dist")
		if mean {
			delete(spec.Axes.Params, "bins")
		}
		out := runMS(t, spec, 0)
		rows, err := results.ReadRowsFile(filepath.Join(out, harness.RowsFile))
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		var exact []results.Row
		for _, r := range rows {
			seen[r.Dataset] = true
			if v := float64(r.Value); math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s %s: %s = %v", name, r.Cell().Key(), r.Metric, v)
			}
			if r.Metric == "mse" && r.Method != "uwa" {
				exact = append(exact, r)
			}
		}
		if !seen["taxi"] || !seen["retirement"] {
			t.Errorf("%s: datasets run %v, want taxi and retirement", name, seen)
		}
		if mean {
			bad, pooled := compare.TheoryCheck(exact, 1, 1e-6)
			for _, b := range bad {
				t.Errorf("%s: %s", name, b)
			}
			if pooled != nil {
				t.Errorf("%s: %v", name, pooled)
			}
		}
		for _, f := range spec.Figures {
			if _, err := os.Stat(filepath.Join(out, f.Name+".png")); err != nil {
				t.Errorf("%s: figure %s not drawn: %v", name, f.Name, err)
			}
		}
	}
}

// The same spec and seed give byte-identical rows at -j 1 and -j 2, for the
// mean side (per-attribute multiservice runs) and the distribution side
// (one shared estimator and per-worker buffers).
func TestMultiserviceMDDeterministic(t *testing.T) {
	for _, c := range []struct {
		methods, metrics []string
		services         string
	}{
		{[]string{"ua", "uwa", "single-best"}, []string{"mse", "abs"}, "sr,lap,pm,sw"},
		{[]string{"ule", "ems-sw"}, []string{"js-div", "em_iterations"}, "sr,pm,sw"},
	} {
		spec := &harness.Spec{
			Name: "msmd-det", Kind: "multiservice-md", Seed: 5, Trials: 3, Metrics: c.metrics,
			Axes: harness.Axes{
				Method: c.methods, Eps: []float64{0.5}, N: []int{3000},
				Params: map[string][]string{"services": {c.services}, "d": {"2", "5"}, "bins": {"64"}},
			},
			Datasets: []datasets.Spec{{Name: "b25", Source: "beta", A: 2, B: 5, Dims: 5, Normalise: "minmax"}},
		}
		a, b := runMS(t, spec, 1), runMS(t, spec, 2)
		ra, _ := os.ReadFile(filepath.Join(a, harness.RowsFile))
		rb, _ := os.ReadFile(filepath.Join(b, harness.RowsFile))
		if len(ra) == 0 || !bytes.Equal(ra, rb) {
			t.Errorf("%v: rows.csv differs between -j 1 and -j 2 (or is empty)", c.methods)
		}
	}
}
