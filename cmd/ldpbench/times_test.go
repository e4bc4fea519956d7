package main

import (
	"encoding/csv"
	"strconv"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/harness"
)

// TestTimesCommand: `times` reads a finished run's own record: its spec,
// scale, trials and the summed CPU and wall time, in the table and as CSV;
// a directory without times.csv is an error naming it. Catches a CSV whose
// columns drift from its header and times read from the wrong row.
func TestTimesCommand(t *testing.T) {
	dir := quickRun(t, "mean-synthetic")
	rows, err := harness.ReadTimes(dir)
	if err != nil {
		t.Fatal(err)
	}
	wall, cpu := harness.TotalTimes(rows)
	out, err := runCLI(t, "times", "--csv", dir)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("times --csv: %d records, %v:\n%s", len(recs), err, out)
	}
	got := map[string]string{}
	for i, h := range recs[0] {
		got[h] = recs[1][i]
	}
	want := map[string]string{
		"spec": "mean-synthetic", "scale": "quick", "complete": "true", "calls": "1",
		"trials": strconv.Itoa(rows[0].Trials), "wall_s": strconv.FormatFloat(wall, 'f', 1, 64),
		"cpu_s": strconv.FormatFloat(cpu, 'f', 1, 64), "jobs": "2",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("times --csv: %s = %q, want %q", k, got[k], v)
		}
	}
	table, err := runCLI(t, "times", dir)
	if err != nil || !strings.Contains(table, "mean-synthetic  quick") {
		t.Errorf("times: %v\n%s", err, table)
	}
	empty := t.TempDir()
	if _, err := runCLI(t, "times", empty); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("times on a directory without times.csv: %v, want an error naming it", err)
	}
	// --iterations: a kind without EM records nothing; an EM spec's quick
	// run is refused, its counts being of other sizes than plan costs.
	if out, err := runCLI(t, "times", "--iterations", dir); err != nil || out != "cell,iterations\n" {
		t.Errorf("times --iterations of mean-synthetic: %v, %q; want the header alone", err, out)
	}
	em := quickRun(t, "multiservice-fig8b")
	if _, err := runCLI(t, "times", "--iterations", em); err == nil || !strings.Contains(err.Error(), "quick run") {
		t.Errorf("times --iterations of a quick run: %v, want it refused", err)
	}
}
