package groupmean

import (
	"bytes"
	"strings"
	"testing"

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
