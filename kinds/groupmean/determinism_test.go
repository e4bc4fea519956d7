package groupmean

import (
	"bytes"
	"encoding/csv"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/kinds/kindtest"
)

var registry = experiment.Registry{Kind{}}

func memoSpec(groups, ranges []string) *harness.Spec {
	return &harness.Spec{
		Name: "gm-det", Kind: "groupmean", Seed: 11, Trials: 4,
		Metrics: []string{"scaled_abs_error", "group_error_ratio"},
		Axes: harness.Axes{
			Method: []string{"laplace", "pw", "nprr(k=3)"},
			Eps:    []float64{0.5, 4}, N: []int{3000},
			Params: map[string][]string{"shape": {"normal", "extremum"}, "group": groups, "range": ranges},
		},
		Datasets: []datasets.Spec{{Name: "synthetic", Source: "uniform", Lo: -1, Hi: 1}},
	}
}

// rowsOf keeps rows.csv's data lines whose params hold every one of want.
func rowsOf(b []byte, want ...string) []string {
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "#") || !strings.Contains(line, "gm-det") {
			continue
		}
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(line, w)
		}
		if ok {
			out = append(out, line)
		}
	}
	return out
}

// TestRowsIndependentOfSharing: the shared tallies (tallies) change no byte
// of rows.csv: the same spec at -j 1 and -j 3 with the store emptied
// between gives the same rows, and a cell's rows are the same whether or
// not its sibling cells (another group, another range) ran before it and
// left their tallies. Bugs caught: a key missing a field, so that a cell
// takes another configuration's tally; the [0, 100] cell reusing a tally
// drawn from data that differ in the last bit.
func TestRowsIndependentOfSharing(t *testing.T) {
	full := memoSpec([]string{"0", "1"}, []string{"-1:1", "0:100"})
	clear(tallies.m)
	one := kindtest.RunRows(t, registry, full, t.TempDir(), 1)
	clear(tallies.m)
	three := kindtest.RunRows(t, registry, full, t.TempDir(), 3)
	if !bytes.Equal(one, three) {
		t.Fatal("rows.csv differs between -j 1 and -j 3")
	}
	clear(tallies.m)
	alone := kindtest.RunRows(t, registry, memoSpec([]string{"1"}, []string{"0:100"}), t.TempDir(), 2)
	a, b := rowsOf(alone, "group=1", "range=0:100"), rowsOf(one, "group=1", "range=0:100")
	if len(a) == 0 || strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatalf("the group=1, range=0:100 cells differ when their siblings ran first (%d rows alone, %d with siblings)", len(a), len(b))
	}
	// The sharing is real: the group error ratio is the same in every
	// sibling of a configuration (one set of runs).
	g0, g1 := rowsOf(one, "group=0", "range=-1:1", "group_error_ratio"), rowsOf(one, "group=1", "range=0:100", "group_error_ratio")
	if len(g0) != len(g1) || len(g0) == 0 {
		t.Fatalf("%d and %d group error rows", len(g0), len(g1))
	}
	for i := range g0 {
		// Same value field (the params and normalisation differ).
		va, vb := g0[i][strings.LastIndex(g0[i], ",group_error_ratio,"):], g1[i][strings.LastIndex(g1[i], ",group_error_ratio,"):]
		if va != vb {
			t.Fatalf("sibling runs differ: %q vs %q", va, vb)
		}
	}
}

// TestCommonRandomNumbers: with params.crn, run t of every ε draws from
// one generator (the authors' seeding, E2.16), so the group error ratios
// of ε = 2 and ε = 2.5 over 100 runs are strongly correlated (the keep
// coins come from the same words against nearby thresholds), while
// without it they are independent: |r| below 4/√100 = 0.4, a false
// failure probability below 1e-4. With crn they must still differ run by
// run: equal values would mean the memo returned one ε's tally for the
// other (a tally key without ε). Bugs caught: crn that changes no seed;
// crn whose trial key still names ε; the memo keyed without ε.
func TestCommonRandomNumbers(t *testing.T) {
	ratios := func(crn string) (a, b []float64) {
		s := &harness.Spec{
			Name: "gm-det", Kind: "groupmean", Seed: 12, Trials: 100,
			Metrics: []string{"group_error_ratio"},
			Axes: harness.Axes{
				Method: []string{"laplace"}, Eps: []float64{2, 2.5}, N: []int{3000},
				Params: map[string][]string{"shape": {"normal"}, "crn": {crn}},
			},
			Datasets: []datasets.Spec{{Name: "synthetic", Source: "uniform", Lo: -1, Hi: 1}},
		}
		clear(tallies.m)
		// -j 1: the ε = 2.5 cell runs after the ε = 2 one, whose tallies
		// the memo then holds.
		rows := kindtest.RunRows(t, registry, s, t.TempDir(), 1)
		var data []string
		for _, line := range strings.Split(string(rows), "\n") {
			if !strings.HasPrefix(line, "#") {
				data = append(data, line)
			}
		}
		recs, err := csv.NewReader(strings.NewReader(strings.Join(data, "\n"))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		header, recs := recs[0], recs[1:]
		col := func(name string) int {
			i := slices.Index(header, name)
			if i < 0 {
				t.Fatalf("rows.csv has no column %s (%v)", name, header)
			}
			return i
		}
		ie, it, iv := col("eps"), col("trial"), col("value")
		a, b = make([]float64, 100), make([]float64, 100)
		for _, rec := range recs {
			trial, _ := strconv.Atoi(rec[it])
			v, _ := strconv.ParseFloat(rec[iv], 64)
			if rec[ie] == "2" {
				a[trial] = v
			} else {
				b[trial] = v
			}
		}
		return a, b
	}
	a, b := ratios("true")
	t.Logf("crn: r = %.3f", stat.Correlation(a, b, nil))
	if r := stat.Correlation(a, b, nil); r < 0.5 {
		t.Errorf("crn: correlation of the group error ratios at ε = 2 and 2.5 is %.3f, want > 0.5", r)
	}
	if slices.Equal(a, b) {
		t.Error("crn: ε = 2 and 2.5 gave the same values in every run: one ε's tally served the other")
	}
	a, b = ratios("false")
	t.Logf("independent: r = %.3f", stat.Correlation(a, b, nil))
	if r := stat.Correlation(a, b, nil); math.Abs(r) > 0.4 {
		t.Errorf("independent streams: correlation %.3f, want |r| ≤ 0.4", r)
	}
}
