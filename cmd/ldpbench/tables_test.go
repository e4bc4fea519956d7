package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const tablesSpec = `name = "tables-tiny"
kind = "theory"
seed = 7
trials = 1
metrics = ["worst_case_variance", "bits", "bits_table2"]

[axes]
method = ["duchi", "three-outputs", "pm-sub", "n-output"]
eps = [0.5, 1, 2, 3, 4]
n = [1]

[[datasets]]
name = "none"
source = "uniform"
lo = -1.0
hi = 1.0

[[tables]]
name = "best"
metric = "worst_case_variance"
rows = "eps"
columns = "method"
filter = { method = ["duchi", "three-outputs", "pm-sub"] }
best = "min"
best_only = true
ranges = true

[[tables]]
name = "bits"
metrics = ["bits_table2", "bits"]
rows = "eps"
columns = "metric"
filter = { method = ["n-output"] }
`

// A spec's [[tables]] are written by run (and listed), removed by --fresh
// with the run's other outputs, and written again by plot from the
// directory alone, byte for byte.
func TestRunAndPlotWriteTables(t *testing.T) {
	dir := t.TempDir()
	specPath := filepath.Join(dir, "tables-tiny.toml")
	if err := os.WriteFile(specPath, []byte(tablesSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	log, err := runCLI(t, "run", specPath, "--out", out)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, log)
	}
	files := []string{"best.csv", "best.md", "bits.csv", "bits.md"}
	written := map[string][]byte{}
	for _, f := range files {
		if !strings.Contains(log, filepath.Join(out, f)) {
			t.Errorf("run does not list %s:\n%s", f, log)
		}
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		written[f] = b
	}
	if got, want := string(written["best.csv"]), "eps_from,eps_to,best\n0.5,0.5,duchi = three-outputs\n1,2,three-outputs\n3,4,pm-sub\n"; got != want {
		t.Errorf("best.csv:\n%s\nwant\n%s", got, want)
	}
	if got, want := string(written["bits.csv"]), "eps,bits_table2,bits\n0.5,1,1\n1,2,2\n2,2,2\n3,3,2\n4,3,3\n"; got != want {
		t.Errorf("bits.csv:\n%s\nwant\n%s", got, want)
	}
	for _, f := range files {
		if err := os.Remove(filepath.Join(out, f)); err != nil {
			t.Fatal(err)
		}
	}
	log, err = runCLI(t, "plot", out)
	if err != nil {
		t.Fatalf("plot: %v\n%s", err, log)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatalf("plot did not write %s: %v\n%s", f, err, log)
		}
		if !bytes.Equal(b, written[f]) {
			t.Errorf("%s from plot differs from run's:\n%s\nwant\n%s", f, b, written[f])
		}
	}
	if log, err := runCLI(t, "run", specPath, "--out", out, "--fresh"); err != nil {
		t.Fatalf("run --fresh: %v\n%s", err, log)
	}
	// --fresh with a spec that has no tables removes the earlier run's
	// (named by its spec copy).
	bare := strings.Split(tablesSpec, "[[tables]]")[0]
	barePath := filepath.Join(dir, "bare.toml")
	if err := os.WriteFile(barePath, []byte(bare), 0o644); err != nil {
		t.Fatal(err)
	}
	if log, err := runCLI(t, "run", barePath, "--out", out, "--fresh"); err != nil {
		t.Fatalf("run --fresh: %v\n%s", err, log)
	}
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(out, f)); err == nil {
			t.Errorf("%s survived --fresh", f)
		}
	}
}

// A bad [[tables]] block is refused when the spec is loaded, before
// anything runs, with the key named.
func TestTablesSpecErrors(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{`best = "min"`, `best = "lowest"`, `tables[0]: table "best": key "best" must be "min" or "max", got "lowest"`},
		{"rows = \"eps\"\ncolumns = \"method\"", "rows = \"method\"\ncolumns = \"eps\"", `tables[0]: table "best": key "ranges" needs a numeric rows field`},
		{`name = "best"`, `name = "summary"`, `table "summary": key "name" "summary" would replace the run's own summary.csv`},
		{`name = "bits"`, `name = "best"`, `tables[1]: table "best": key "name" is also tables[0]'s`},
		{`columns = "method"`, `column = "method"`, `unknown key "tables.column"`},
		{"metric = \"worst_case_variance\"\nrows", "Metric = \"worst_case_variance\"\nrows", `key "tables.Metric": keys are case-sensitive: did you mean "tables.metric"?`},
		{`ranges = true`, `ranges = "yes"`, `key "tables.ranges": want true or false, got a string`},
		{`best_only = true`, `best_only = true` + "\ndigits = 40", `key "digits" must be 1 to 17 significant digits`},
	} {
		if !strings.Contains(tablesSpec, c.old) {
			t.Fatalf("the spec has no %q", c.old)
		}
		dir := t.TempDir()
		specPath := filepath.Join(dir, "s.toml")
		if err := os.WriteFile(specPath, []byte(strings.Replace(tablesSpec, c.old, c.new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out")
		_, err := runCLI(t, "run", specPath, "--out", out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%q: the refused run created %s", c.want, out)
		}
	}
}
