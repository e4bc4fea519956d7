package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/datasets/datatest"
)

// skipSpec is a quick spec of kind mean on a generated magic04.data and on
// a Taxi file that is not here: one figure shows only Taxi, one both.
const skipSpec = `
name = "skip-e2e"
kind = "mean"
seed = 3
trials = 2
metrics = ["mse"]

[axes]
method = ["laplace"]
eps = [1, 2]
n = [300]

[[datasets]]
name = "magic"
source = "file"
path = "magic04.data"
sep = ","
column = 0

[[datasets]]
name = "taxi"
source = "file"
path = "yellow_tripdata_2018-01.pickup.csv"
sep = ","
header = true
rows = 1048575

[[figures]]
name = "taxi-only"
metric = "mse"
x = "eps"
series = "method"
formats = ["svg"]
filter = { dataset = ["taxi"] }

[[figures]]
name = "both"
metric = "mse"
x = "eps"
series = "method"
panel = "dataset"
formats = ["svg"]
labels = { "taxi" = "Taxi" }
`

// `ldpbench run` of a spec whose one figure shows only a dataset whose file
// is absent succeeds (exit status 0), says which figure it skipped and
// why, draws the other figure with the skipped dataset named in its
// caption, and a later `ldpbench plot DIR` re-draws it the same. Catches
// the exit status 2 a quick multiservice-fig5-dist-real gave without its
// Taxi file.
func TestRunSkipsFigureOfSkippedData(t *testing.T) {
	t.Setenv(datasets.EnvNoShared, "1")
	datatest.Use(t)
	dir := t.TempDir()
	spec := filepath.Join(dir, "skip-e2e.toml")
	if err := os.WriteFile(spec, []byte(skipSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	got, err := runCLI(t, "run", spec, "--out", out)
	if err != nil || exitCode(err) != 0 {
		t.Fatalf("run: exit %d, %v\n%s", exitCode(err), err, got)
	}
	for _, want := range []string{
		`skipped figure "taxi-only": every dataset it shows was skipped (taxi)`, // the log
		"skipped figure taxi-only: every dataset it shows was skipped (taxi)",   // the summary of the run
		"skipped, data not fetched: taxi (yellow_tripdata_2018-01.pickup.csv)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "taxi-only.svg")); err == nil {
		t.Error("taxi-only.svg was drawn without its data")
	}
	both, err := os.ReadFile(filepath.Join(out, "both.svg"))
	if err != nil || !strings.Contains(string(both), "Not shown: Taxi (dataset skipped") {
		t.Fatalf("both.svg: %v; want it drawn, its caption naming Taxi", err)
	}
	os.Remove(filepath.Join(out, "both.svg"))
	if got, err := runCLI(t, "plot", out); err != nil {
		t.Fatalf("plot: %v\n%s", err, got)
	}
	if again, _ := os.ReadFile(filepath.Join(out, "both.svg")); string(again) != string(both) {
		t.Error("plot re-drew both.svg differently")
	}
}
