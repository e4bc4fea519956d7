package mean

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/compare"
	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/results"
)

// htCell builds a mean-ht cell over a small Beta(3,2) dataset.
func htCell(t *testing.T, method string, eps float64, params map[string]string) *experiment.CellSpec {
	t.Helper()
	d := datasets.Spec{Name: "beta", Source: "beta", A: 3, B: 2}
	ds, err := d.Build(2000, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	return &experiment.CellSpec{Experiment: "t", Dataset: ds, Method: method, Eps: eps, N: 2000, Params: htParams.MustParse(params), Metrics: []string{"mse", "reporting"}}
}

// TestMeanHTParams: k per Section 5.1 (eq. (3) for three-outputs, hm-tp
// and pm-sub, 1 otherwise), eq. (3) for all, or fixed; parameter errors
// name the key.
func TestMeanHTParams(t *testing.T) {
	for _, c := range []struct {
		method string
		eps    float64
		params map[string]string
		k, dim int
	}{
		{"pm-sub", 5, map[string]string{"dim": "10"}, 2, 10},
		{"three-outputs", 5, map[string]string{"dim": "10", "k": "paper"}, 2, 10},
		{"hm-tp", 4.9, map[string]string{"dim": "10"}, 1, 10},
		{"n-output", 5, map[string]string{"dim": "10"}, 1, 10},
		{"hm-np", 5, map[string]string{"dim": "10", "k": "eq3"}, 2, 10},
		{"duchi", 12, map[string]string{"dim": "3", "k": "eq3"}, 3, 3},
		{"duchi", 1, map[string]string{"dim": "19", "k": "4"}, 4, 19},
		{"duchi", 1, nil, 1, 1},
	} {
		est, dim, k, err := htSetup(htCell(t, c.method, c.eps, c.params))
		if err != nil {
			t.Fatal(err)
		}
		if k != c.k || dim != c.dim || est.Epsilon() != c.eps/float64(k) {
			t.Errorf("%s ε=%v %v: k = %d, dim = %d, inner ε = %v; want %d, %d", c.method, c.eps, c.params, k, dim, est.Epsilon(), c.k, c.dim)
		}
	}
	for _, c := range []struct {
		params map[string]string
		want   string
	}{
		{map[string]string{"dims": "10"}, "axes.params.dims: unknown parameter (valid: alignment, dim, k, split)"},
		{map[string]string{"dim": "0"}, "axes.params.dim"},
		{map[string]string{"dim": "x"}, "axes.params.dim"},
		{map[string]string{"dim": "4", "k": "5"}, "axes.params.k"},
		{map[string]string{"k": "sometimes"}, "axes.params.k"},
	} {
		err := checkRaw(HT{}, htCell(t, "duchi", 1, nil), c.params)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("params %v: error %v, want one naming %s", c.params, err, c.want)
		}
	}
	if err := (HT{}).Check(htCell(t, "no-such", 1, nil)); err == nil {
		t.Error("unknown method accepted")
	}
}

// TestMeanHTTheory: the cell's theory is
// (1/n²)·Σ[(dim/k)(Var(x_i) + x_i²) - x_i²] with Var at ε/k, computed here
// from the registered mechanism directly.
func TestMeanHTTheory(t *testing.T) {
	c := htCell(t, "pm-sub", 5, map[string]string{"dim": "10"})
	run, err := HT{}.Prepare(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := mechanisms.NewPMSub(2.5)
	var s float64
	xs := c.Dataset.Values[:c.N]
	for _, x := range xs {
		s += 5*(m.Variance(x)+x*x) - x*x
	}
	want := s / float64(len(xs)*len(xs))
	if got, ok := run.Theory("mse"); !ok || math.Abs(got-want) > 1e-12*want {
		t.Errorf("theory %v, want %v", got, want)
	}
	if got, ok := run.Theory("reporting"); !ok || got != 0.2 {
		t.Errorf("reporting theory %v, want 0.2", got)
	}
}

// TestMeanHTMatchesTheory: the measured squared errors of every cell agree
// with the exact theory (χ² over trials, false-failure probability 1e-6
// per cell), for the six methods of Fig. 3 with k per Section 5.1 (k = 2
// at ε = 5 for three-outputs, hm-tp and pm-sub), and the check rejects a
// theory 30 % off; the fraction of reporting records is k/dim.
func TestMeanHTMatchesTheory(t *testing.T) {
	spec := &harness.Spec{
		Name:    "mean-ht-test",
		Kind:    "mean-ht",
		Seed:    7,
		Trials:  150,
		Metrics: []string{"mse", "reporting"},
		Axes: harness.Axes{
			Method: []string{"duchi", "three-outputs", "pm-sub", "hm-tp", "n-output", "hm-np"},
			Eps:    []float64{1, 5},
			N:      []int{20000},
			Params: map[string][]string{"dim": {"10"}, "k": {"paper"}},
		},
		Datasets: []datasets.Spec{{Name: "beta(3,2)", Source: "beta", A: 3, B: 2}},
	}
	if err := spec.Validate(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	res, err := harness.Run(context.Background(), testKinds, spec, harness.Options{OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := results.ReadRowsFile(filepath.Join(dir, harness.RowsFile))
	if err != nil {
		t.Fatal(err)
	}
	requireTheory(t, "", rows)
	if _, pooled := compare.TheoryCheck(rows, 1.3, falseFailure); pooled == nil {
		t.Error("the check accepts a theory 30% too high")
	}
	for _, s := range res.Summaries {
		if s.Metric != "reporting" {
			continue
		}
		// Binomial(20000, k/10)/20000 averaged over 150 trials.
		se := math.Sqrt(float64(s.Theory)*(1-float64(s.Theory))/20000/150) * 5
		if math.Abs(float64(s.Mean)-float64(s.Theory)) > se {
			t.Errorf("%s ε=%v: reporting fraction %v, want %v", s.Method, s.Eps, s.Mean, s.Theory)
		}
	}
}

// TestMeanHTShippedSpec: runs/noutput-mean.toml at quick scale agrees with
// its exact theory. The rows of aaa and np-aaa are left out: their theory
// is the subset-mean approximation (ht_aaa.go), with the noise law solved
// for the data's histogram rather than the run's phase-1 estimate; they
// are run at two of the spec's ε with 5 trials (each trial solves a noise
// programme, ~0.1 s) and checked to carry a theory.
//
// Under -short only the six mechanisms run (about 0.2 s).
func TestMeanHTShippedSpec(t *testing.T) {
	spec, err := harness.LoadSpec(filepath.Join("..", "..", "runs", "noutput-mean.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var plain, protocols []string
	for _, m := range spec.Axes.Method {
		if _, ok := aaaMethods[m]; ok {
			protocols = append(protocols, m)
		} else {
			plain = append(plain, m)
		}
	}
	if len(protocols) != 2 || len(plain) != 6 {
		t.Fatalf("the spec's methods %v: want the six mechanisms and aaa, np-aaa", spec.Axes.Method)
	}
	run := func() []results.Row {
		dir := t.TempDir()
		if _, err := harness.Run(context.Background(), testKinds, spec, harness.Options{OutDir: dir, Quick: true}); err != nil {
			t.Fatal(err)
		}
		rows, err := results.ReadRowsFile(filepath.Join(dir, harness.RowsFile))
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	spec.Axes.Method = plain
	requireTheory(t, "", run())
	if testing.Short() {
		t.Skip("aaa and np-aaa (40 noise programmes, about 2.5 s): make test runs them")
	}
	spec.Axes.Method = protocols
	spec.Axes.Eps = []float64{spec.Axes.Eps[0], spec.Axes.Eps[len(spec.Axes.Eps)-1]}
	spec.Quick.Trials = 5
	n := 0
	for _, r := range run() {
		if r.Metric == "mse" {
			n++
			if !(r.Theory > 0) {
				t.Errorf("%s ε = %v: no theory", r.Method, r.Eps)
			}
		}
	}
	if n != 2*2*5 {
		t.Errorf("%d mse rows of aaa and np-aaa, want 20", n)
	}
}
