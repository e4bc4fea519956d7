package harness

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// cellsBase is a toy spec of 2 datasets × 2 methods × 2 ε × 3 n × 2
// scales = 48 crossed cells, to which a case appends its cell lists.
const cellsBase = `
name = "cells"
kind = "toy"
seed = 3
trials = 2
metrics = ["mse"]
[axes]
method = ["gauss", "uniform"]
eps = [0.5, 1.0]
n = [100, 200, 300]
params = { scale = ["1", "2"] }
[[datasets]]
name = "u"
source = "uniform"
lo = -1.0
hi = 1.0
[[datasets]]
name = "b"
source = "beta"
a = 2.0
b = 5.0
`

// cellID names a cell compactly: dataset/method/eps/n/params.
func cellID(c planCell) string {
	return fmt.Sprintf("%s/%s/%v/%d/%s", c.cell.Dataset, c.cell.Method, float64(c.cell.Eps), c.cell.N, c.cell.Params)
}

// TestCellLists: the cells a spec runs are the crossed cells in a [[cells]]
// block (an axis an entry leaves out is free; the entries' union) and in no
// [[exclude]] block, in plan order. The expected cells are the whole cross
// product filtered by a predicate written here, apart from the code. The
// bugs caught: entries intersected instead of joined, a free axis taken as
// "none", exclude ignored or applied before cells, a params axis matched by
// name only, a different order of the kept cells (which would reorder
// rows.csv), and [quick] cell lists not replacing the spec's.
func TestCellLists(t *testing.T) {
	type cell struct {
		ds, method string
		eps        float64
		n          int
		scale      string
	}
	tests := []struct {
		name  string
		toml  string
		quick bool
		want  func(c cell) bool
	}{
		{"no lists: the cross product", ``, false, func(cell) bool { return true }},
		{"a row and a column (Table 1's shape)", "[[cells]]\nn = [200]\n[[cells]]\nparams = { scale = [\"1\"] }\n", false,
			func(c cell) bool { return c.n == 200 || c.scale == "1" }},
		{"one entry, several axes: their intersection", "[[cells]]\nmethod = [\"gauss\"]\neps = [0.5]\ndataset = [\"b\"]\n[[cells]]\nmethod = [\"uniform\"]\neps = [1.0]\ndataset = [\"u\"]\n", false,
			func(c cell) bool {
				return (c.method == "gauss" && c.eps == 0.5 && c.ds == "b") || (c.method == "uniform" && c.eps == 1 && c.ds == "u")
			}},
		{"several values of one axis", "[[cells]]\nn = [100, 300]\n[[cells]]\nn = [200]\nmethod = [\"gauss\"]\neps = [0.5]\nparams = { scale = [\"2\"] }\ndataset = [\"b\"]\n", false,
			func(c cell) bool {
				return c.n != 200 || (c.method == "gauss" && c.eps == 0.5 && c.scale == "2" && c.ds == "b")
			}},
		{"exclude alone", "[[exclude]]\nmethod = [\"uniform\"]\nn = [300]\n", false,
			func(c cell) bool { return !(c.method == "uniform" && c.n == 300) }},
		{"cells then exclude", "[[cells]]\nn = [100, 200]\n[[cells]]\nn = [300]\ndataset = [\"u\"]\n[[exclude]]\neps = [1.0]\nn = [200]\n", false,
			func(c cell) bool { return (c.n != 300 || c.ds == "u") && !(c.eps == 1 && c.n == 200) }},
		{"quick cells replace the spec's", "[[cells]]\nn = [300]\n[[cells]]\nparams = { scale = [\"1\"] }\n[quick]\nn = [100, 200]\n[[quick.cells]]\nn = [200]\nmethod = [\"gauss\"]\n[[quick.cells]]\nn = [100]\n", true,
			func(c cell) bool { return c.n == 100 || (c.n == 200 && c.method == "gauss") }},
		{"spec's cells at quick scale without quick n", "[[cells]]\nn = [300]\n[[cells]]\nparams = { scale = [\"1\"] }\n[quick]\ntrials = 1\n", true,
			func(c cell) bool { return c.n == 300 || c.scale == "1" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := LoadSpec(writeSpec(t, cellsBase+tt.toml))
			if err != nil {
				t.Fatal(err)
			}
			s = s.Scaled(tt.quick)
			kind, err := s.Check(testKinds)
			if err != nil {
				t.Fatal(err)
			}
			var got, want []string
			for _, c := range expand(s, kind) {
				got = append(got, cellID(c))
			}
			// The cross product, in plan order, written out here.
			for _, ds := range []string{"u", "b"} {
				for _, n := range s.Axes.N {
					for _, m := range []string{"gauss", "uniform"} {
						for _, eps := range []float64{0.5, 1} {
							for _, sc := range []string{"1", "2"} {
								if tt.want(cell{ds, m, eps, n, sc}) {
									want = append(want, fmt.Sprintf("%s/%s/%v/%d/scale=%s", ds, m, eps, n, sc))
								}
							}
						}
					}
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("cells:\n got %d %v\nwant %d %v", len(got), got, len(want), want)
			}
		})
	}
}

// TestCellListErrors: a cell list that names nothing, a value that is not
// on its axis, an exclude that drops nothing, lists that leave no cell or
// leave an axis value unused, and top-level cells that name n the [quick]
// block replaces are each refused, naming the key and the combination, at
// load time and the same every time. The bugs caught: a typo silently
// keeping nothing (or everything), and a quick run failing only once run.
func TestCellListErrors(t *testing.T) {
	tests := []struct{ name, toml, want string }{
		{"empty entry", "[[cells]]\n", `key "cells[0]": names no axis`},
		{"n not on the axis", "[[cells]]\nn = [200]\n[[cells]]\nparams = { scale = [\"1\"] }\nn = [100, 400]\n",
			`key "cells[1].n[1]": 400 is not a value of axes.n (100, 200, 300), so the entry {n = [100, 400], params.scale = ["1"]} names no cell`},
		{"eps not on the axis", "[[exclude]]\neps = [2.0]\n", `key "exclude[0].eps[0]": 2 is not a value of axes.eps`},
		{"method not on the axis", "[[cells]]\nmethod = [\"laplace\"]\n", `key "cells[0].method[0]": "laplace" is not a value of axes.method (gauss, uniform)`},
		{"unknown dataset", "[[cells]]\ndataset = [\"x\"]\n", `key "cells[0].dataset[0]": "x" is not a value of the datasets' names (u, b)`},
		{"unknown params axis", "[[cells]]\nparams = { m = [\"3\"] }\n", `key "cells[0].params.m": "m" is not a params axis (axes.params: scale)`},
		{"param value not on the axis", "[[cells]]\nparams = { scale = [\"3\"] }\n", `key "cells[0].params.scale[0]": "3" is not a value of axes.params.scale`},
		{"empty list", "[[cells]]\nn = []\n", `key "cells[0].n": is empty`},
		{"unknown key in an entry", "[[cells]]\nm = [\"3\"]\n", `unknown key "cells.m"`},
		{"exclude drops nothing kept", "[[cells]]\nn = [100]\n[[cells]]\nn = [200, 300]\nmethod = [\"gauss\"]\n[[exclude]]\nn = [200]\nmethod = [\"uniform\"]\n", `key "exclude[0]": {method = ["uniform"], n = [200]} drops no cell that cells keeps`},
		{"exclude drops everything", "[[exclude]]\nmethod = [\"gauss\", \"uniform\"]\n", `key "exclude": drops every cell that cells keeps`},
		{"axis value unused", "[[cells]]\nn = [100, 200]\n", `key "axes.n[2]": 300 is in no cell that cells and exclude keep`},
		{"dataset unused", "[[cells]]\ndataset = [\"u\"]\n", `key "datasets[1]": "b" is in no cell`},
		{"quick replaces the n the cells name", "[[cells]]\nn = [200]\nparams = { scale = [\"1\"] }\n[[cells]]\nn = [100, 300]\n[quick]\nn = [10, 20]\n",
			`key "cells[0].n[0]": 200 is not a value of quick.n (10, 20), so the entry {n = [200], params.scale = ["1"]} names no cell of the axes; [quick] replaces axes.n, so give the quick scale's own as [[quick.cells]]`},
		{"quick cells checked too", "[quick]\nn = [10, 20]\n[[quick.cells]]\nn = [20, 30]\n", `key "quick.cells[0].n[1]": 30 is not a value of quick.n (10, 20)`},
		{"timing false beside a wall time", "timing = false\n", `key "timing": false, but metrics[0] = "aggregation_seconds" is a wall time`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := cellsBase + tt.toml
			if strings.Contains(tt.toml, "timing") {
				body = tt.toml + strings.Replace(cellsBase, `metrics = ["mse"]`, `metrics = ["aggregation_seconds"]`, 1)
			}
			p := writeSpec(t, body)
			_, err := LoadSpec(p)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v\nwant an error containing %s", err, tt.want)
			}
			for range 10 {
				if _, again := LoadSpec(p); again == nil || again.Error() != err.Error() {
					t.Fatalf("loaded again: %v, first %v", again, err)
				}
			}
		})
	}
}

// With a method axis "*" the cell lists' methods are the kind's: checked
// by Check (the kind known), not at load, and an exclude may drop one of
// them whole. The bug caught: a method the kind does not have accepted
// in a list, or an exclude of a whole "*" method refused as unused.
func TestCellListsStarMethods(t *testing.T) {
	star := strings.Replace(cellsBase, `method = ["gauss", "uniform"]`, `method = ["*"]`, 1)
	s, err := LoadSpec(writeSpec(t, star+"[[cells]]\nmethod = [\"laplace\"]\n"))
	if err != nil {
		t.Fatalf("load: %v (the methods of \"*\" are the kind's, checked by Check)", err)
	}
	if _, err := s.Check(testKinds); err == nil || !strings.Contains(err.Error(), `key "cells[0].method[0]": "laplace" is not a value of axes.method (gauss, uniform)`) {
		t.Errorf("Check: %v", err)
	}
	s, err = LoadSpec(writeSpec(t, star+"[[exclude]]\nmethod = [\"uniform\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	kind, err := s.Check(testKinds)
	if err != nil {
		t.Fatalf("exclude of a whole \"*\" method: %v", err)
	}
	for _, c := range expand(s, kind) {
		if c.cell.Method != "gauss" {
			t.Fatalf("cell %s kept", c.cell.Key())
		}
	}
}

// A kept cell's rows are those it has in the whole cross product, byte for
// byte: cells are seeded by their key, never by their place in the plan.
// The bug caught: seeding (or drawing the data) by the plan index, which
// would change every kept cell's values once others are left out. A spec
// without lists hashes as before (its rows are up to date and its
// baselines hold).
func TestKeptCellsKeepTheirRows(t *testing.T) {
	full, err := LoadSpec(writeSpec(t, cellsBase))
	if err != nil {
		t.Fatal(err)
	}
	cut, err := LoadSpec(writeSpec(t, cellsBase+"[[cells]]\nn = [300]\n[[cells]]\nmethod = [\"uniform\"]\neps = [1.0]\n[[exclude]]\ndataset = [\"u\"]\nn = [100]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if full.Hash() == cut.Hash() {
		t.Error("the cell lists do not change the hash: rows of the whole grid would be taken as up to date")
	}
	if h := full.Hash(); h != "573a4a55ae5354cb" {
		// Pinned from the code before cell lists existed.
		t.Errorf("a spec without cell lists hashes %s: it changed (want 573a4a55ae5354cb)", h)
	}
	rowsOf := func(s *Spec) map[string]string {
		dir := t.TempDir()
		if _, err := Run(context.Background(), testKinds, s, Options{OutDir: dir, Jobs: 2}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, RowsFile))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, l := range bytes.Split(b, []byte("\n")) {
			if len(l) == 0 || l[0] == '#' || bytes.HasPrefix(l, []byte("experiment,")) {
				continue
			}
			// experiment,dataset,method,eps,n,params,norm,trial,metric,...
			f := strings.SplitN(string(l), ",", 10)
			out[strings.Join(f[1:9], ",")] = f[9]
		}
		return out
	}
	all, kept := rowsOf(full), rowsOf(cut)
	// n = 300 (16 cells) ∪ uniform at ε = 1 (12) − their overlap (4), less
	// dataset u at n = 100 (2 of the uniform ε = 1 cells): 22 cells, 2
	// trials each.
	if len(kept) != 22*2 || len(all) != 48*2 {
		t.Fatalf("%d rows kept of %d, want 44 of 96", len(kept), len(all))
	}
	for k, v := range kept {
		if all[k] != v {
			t.Errorf("%s: %s kept, %s in the whole grid", k, v, all[k])
		}
	}
}
