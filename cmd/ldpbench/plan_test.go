package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/runs"
)

// `plan` states the counts of the spec at either scale (full by default,
// as for run) and says that its times are an estimate from a calibration;
// catches --quick ignored (quick and full counts equal), a cell count that
// is not datasets × methods × ε × n × params (a method axis "*" expanded
// wrongly, an axis dropped or counted twice) and an unlabelled estimate.
// The expected counts are computed from the spec and the kind's methods
// (every registered mechanism for "*"), so that registering a mechanism
// changes no line here.
func TestPlanCLI(t *testing.T) {
	quick, err := runCLI(t, "plan", "mean-synthetic", "--quick", "--calibrate", "300ms")
	if err != nil {
		t.Fatal(err)
	}
	full, err := runCLI(t, "plan", "mean-synthetic", "--calibrate", "300ms")
	if err != nil {
		t.Fatal(err)
	}
	q, f := planCounts(t, "mean-synthetic", true), planCounts(t, "mean-synthetic", false)
	if q == f {
		t.Fatalf("mean-synthetic: quick and full scale both %q: the test cannot tell --quick from --full", q)
	}
	for _, want := range []string{q, "AN ESTIMATE", "calibration:", "shards of 2 cores for ≤ 1 h wall"} {
		if !strings.Contains(quick, want) {
			t.Errorf("plan (quick) lacks %q:\n%s", want, quick)
		}
	}
	if !strings.Contains(full, f) || !strings.Contains(full, "full scale") {
		t.Errorf("plan --full lacks %q:\n%s", f, full)
	}
	if _, err := runCLI(t, "plan", "mean-synthetic", "--cores", "0"); err == nil {
		t.Error("--cores 0 accepted")
	}
}

// planCounts returns "C cells × T trials" for the shipped spec name at the
// given scale: C = datasets × methods (the kind's expansion of "*") × ε ×
// n × the product of the further axes' lengths.
func planCounts(t *testing.T, name string, quick bool) string {
	t.Helper()
	s, err := harness.OpenSpec(name, runs.FS)
	if err != nil {
		t.Fatal(err)
	}
	k, err := kinds.Lookup(s.Kind)
	if err != nil {
		t.Fatal(err)
	}
	s = s.Scaled(quick)
	cells := len(s.Datasets) * len(experiment.Methods(k, s.Axes.Method)) * len(s.Axes.Eps) * len(s.Axes.N)
	for _, vs := range s.Axes.Params {
		cells *= len(vs)
	}
	if cells == 0 {
		t.Fatalf("%s: no cells", name)
	}
	return fmt.Sprintf("%d cells × %d trials", cells, s.Trials)
}

// A spec whose data are not fetched cannot be timed, and plan says which
// file and what to run, not "no cell could be calibrated: %!w(<nil>)".
func TestPlanWithoutData(t *testing.T) {
	t.Setenv(datasets.EnvNoShared, "1")
	t.Setenv("LDPBENCH_DATA", t.TempDir())
	t.Chdir(t.TempDir())
	var out, errOut strings.Builder
	err := run(t.Context(), kinds, []string{"plan", "--full", "fl-zhao-fig10"}, &out, &errOut)
	if err == nil {
		t.Fatal("plan of a spec without its data succeeded")
	}
	for _, want := range []string{"no cell to time", "vehicle", "make data"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("plan: %v; want it to say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "%!") {
		t.Errorf("plan: %v: a formatting verb without its argument", err)
	}
}

// The plan of multiservice-table1-ule is Du et al.'s Table 1, ULE: m = 3,
// 6, 9, 12, 15 at n = 1M and n = 0.5M, 1M, 5M, 10M at m = 3, 8 cells and
// no other, of the 20 its axes cross; and it says the spec is a timing
// spec. The bugs caught: plan counting or timing the whole cross product
// (the 12 cells beyond the paper's take hours), a cell of the paper's
// left out, and the spec's cell lists lost.
func TestPlanTable1ULECells(t *testing.T) {
	out, err := runCLI(t, "plan", "multiservice-table1-ule", "-v", "--calibrate", "200ms", "--calibration-n", "2000")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(out, "\n") {
		key, _, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if !ok || !strings.HasPrefix(key, "experiment=") {
			continue
		}
		var n, m string
		for _, f := range strings.Split(key, ";") {
			k, v, _ := strings.Cut(f, "=")
			switch k {
			case "n":
				n = v
			case "m":
				m = v
			}
		}
		got = append(got, "m="+m+",n="+n)
	}
	slices.Sort(got)
	want := []string{
		"m=12,n=1000000", "m=15,n=1000000",
		"m=3,n=10000000", "m=3,n=1000000", "m=3,n=500000", "m=3,n=5000000",
		"m=6,n=1000000", "m=9,n=1000000",
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("plan's cells %v\nwant Table 1's %v\n%s", got, want, out)
	}
	for _, w := range []string{"8 cells × 2 trials = 16 trials", "the 8 the spec names ([[cells]], [[exclude]]) of the 20 its axes cross", "timing spec: its trials run one at a time"} {
		if !strings.Contains(out, w) {
			t.Errorf("plan lacks %q:\n%s", w, out)
		}
	}
}
