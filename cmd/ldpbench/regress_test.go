package main

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/harness"
)

// regressFast are shipped specs whose quick runs take about a second:
// `make test` runs them and tests them against their stored baselines
// (baselines/<spec>.csv) and theory, as `make regress` does for every spec.
var regressFast = []string{"mean-synthetic", "multiservice-fig8a", "central-fig3a", "noutput-theory"}

// A fast spec re-run at its seed and quick scale has not moved: against the
// baseline (paired: the same seed) and against the theory. Fails when a
// change to a mechanism, estimator or kind moves a shipped curve; refresh
// the baseline, with the reason, when the move is meant:
// scripts/regress.sh --update-baseline --reason "..." SPEC.
func TestRegressShippedFastSpecs(t *testing.T) {
	for _, spec := range regressFast {
		t.Run(spec, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(baselineRoot(), spec+".csv")); err != nil {
				t.Fatalf("no baseline for %s: write it with scripts/regress.sh --update-baseline --reason \"...\" %s", spec, spec)
			}
			dir := quickRun(t, spec)
			out, err := runCLI(t, "regress", dir)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !strings.Contains(out, "paired: same seed") || !strings.Contains(out, ": 0 moved") {
				t.Errorf("want a paired check with nothing moved:\n%s", out)
			}
		})
	}
}

// The command's contract: a missing baseline is a message (theory only),
// not a failure; --update-baseline needs a reason and records it; a move
// exits with errMoved (status 1), here a baseline whose first cell's
// squared errors are all 10⁻³ higher (the run is then lower in every
// trial).
func TestRegressCLI(t *testing.T) {
	dir := quickRun(t, "mean-synthetic")
	base := filepath.Join(t.TempDir(), "b.csv")
	out, err := runCLI(t, "regress", dir, "--baseline", base)
	if err != nil || !strings.Contains(out, "no baseline") {
		t.Fatalf("missing baseline: %v\n%s", err, out)
	}
	if _, err := runCLI(t, "regress", dir, "--baseline", base, "--update-baseline"); err == nil || !strings.Contains(err.Error(), "reason") {
		t.Fatalf("--update-baseline without --reason: %v", err)
	}
	if _, err := runCLI(t, "regress", dir, "--baseline", base, "--update-baseline", "--reason", "unit test"); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(base)
	if !strings.Contains(string(raw), "# reason: unit test\n") {
		t.Fatalf("the reason is not in the baseline:\n%.300s", raw)
	}
	// Shift every mse value of the first cell by 10⁻³ in the baseline:
	// paired differences all equal.
	lines := strings.Split(string(raw), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "mean-synthetic,") && strings.Contains(l, ",mse,") {
			f := strings.LastIndex(l, ",")
			vals := strings.Fields(l[f+1:])
			for j := range vals {
				vals[j] = shiftText(t, vals[j], 1e-3)
			}
			lines[i] = l[:f+1] + strings.Join(vals, " ")
			break
		}
	}
	os.WriteFile(base, []byte(strings.Join(lines, "\n")), 0o644)
	out, err = runCLI(t, "regress", dir, "--baseline", base)
	if !errors.Is(err, errMoved) || !strings.Contains(out, "method=bernoulli;eps=0.5") || !strings.Contains(out, "lower") {
		t.Fatalf("a shift of one cell: %v\n%s", err, out)
	}
	if want := "run written by build " + harness.BuildID() + "; baseline by build " + harness.BuildID() + "\n"; !strings.Contains(out, want) {
		t.Errorf("the report does not name the builds (%q):\n%s", want, out)
	}

	// A baseline without two of the run's cell-metrics (a new method, say):
	// they are named and counted, not left out silently.
	var kept []string
	dropped := 0
	for _, l := range strings.Split(string(raw), "\n") {
		if dropped < 2 && strings.HasPrefix(l, "mean-synthetic,") && strings.Contains(l, ",duchi,") {
			dropped++
			continue
		}
		if n, ok := strings.CutPrefix(l, "# end records="); ok {
			records, _ := strconv.Atoi(n)
			l = "# end records=" + strconv.Itoa(records-dropped)
		}
		kept = append(kept, l)
	}
	os.WriteFile(base, []byte(strings.Join(kept, "\n")), 0o644)
	out, err = runCLI(t, "regress", dir, "--baseline", base)
	if err != nil || !strings.Contains(out, "note: 2 cell-metrics of this run have no baseline") || !strings.Contains(out, "method=duchi;eps=") {
		t.Errorf("cells without a baseline: %v\n%s", err, out)
	}
}

// TestRegressOtherBuild: rows that another build wrote are refused (exit
// 2), naming both builds and how to go on; --any-build tests them. Catches
// the stale-rows pass: a rebuilt binary with a planted bias regressing the
// old binary's rows.
func TestRegressOtherBuild(t *testing.T) {
	dir := quickRun(t, "mean-synthetic")
	rows := filepath.Join(dir, "rows.csv")
	raw, _ := os.ReadFile(rows)
	os.WriteFile(rows, []byte(strings.Replace(string(raw), " build="+harness.BuildID(), " build=sha256-0000000000000000", 1)), 0o644)
	_, stderr, code := runFull(t, "regress", dir)
	if code != 2 || !strings.Contains(stderr, "written by build sha256-0000000000000000, not by this binary (build "+harness.BuildID()+")") || !strings.Contains(stderr, "--any-build") {
		t.Errorf("rows of another build: exit %d\n%s", code, stderr)
	}
	if out, _, code := runFull(t, "regress", dir, "--any-build"); code != 0 || !strings.Contains(out, "run written by build sha256-0000000000000000") {
		t.Errorf("--any-build: exit %d\n%s", code, out)
	}
}

func shiftText(t *testing.T, s string, d float64) string {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return strconv.FormatFloat(v+d, 'g', -1, 64)
}
