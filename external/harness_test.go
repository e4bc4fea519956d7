//go:build unix

package external_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/kinds/mean"
	"github.com/ldpbench/ldpbench/results"
)

// extSpec is a kind-mean spec that runs fakemech's pm beside the built-in
// pm; %s are the command's words and the timeout.
const extSpec = `
name = "ext-mean"
kind = "mean"
seed = 11
trials = 60
metrics = ["mse"]
[axes]
method = ["pm", "fake-pm"]
eps = [1.0, 4.0]
n = [3000]
[[datasets]]
name = "u"
source = "uniform"
lo = -1.0
hi = 1.0
[[mechanisms]]
name = "fake-pm"
command = [%s]
timeout = "%s"
`

func writeExtSpec(t *testing.T, timeout string, command ...string) *harness.Spec {
	t.Helper()
	words := make([]string, len(command))
	for i, w := range command {
		words[i] = fmt.Sprintf("%q", w)
	}
	path := filepath.Join(t.TempDir(), "ext.toml")
	if err := os.WriteFile(path, fmt.Appendf(nil, extSpec, strings.Join(words, ", "), timeout), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := harness.LoadSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var meanKinds = experiment.Registry{mean.Mean{}}

func run(t *testing.T, s *harness.Spec, out string, jobs int) (*harness.Result, error) {
	t.Helper()
	return harness.Run(context.Background(), meanKinds, s, harness.Options{OutDir: out, Jobs: jobs})
}

// TestHarnessRun: the external pm through harness.Run of kind mean gives
// the MSE of the built-in pm within the CI and the same theory, and
// byte-identical rows at -j 1 and -j 3; its processes are gone when the
// run returns, and the name is unregistered.
func TestHarnessRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 480 trials through a pipe (about 2 s)")
	}
	pids := t.TempDir()
	s := writeExtSpec(t, "20s", fake(t), "-mech", "pm", "-piddir", pids)
	dir1, dir3 := t.TempDir(), t.TempDir()
	res, err := run(t, s, dir1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, s, dir3, 3); err != nil {
		t.Fatal(err)
	}
	checkGone(t, pidsIn(t, pids))
	a, _ := os.ReadFile(filepath.Join(dir1, harness.RowsFile))
	b, _ := os.ReadFile(filepath.Join(dir3, harness.RowsFile))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("rows at -j 1 and -j 3 differ (%d and %d bytes)", len(a), len(b))
	}
	by := map[string]results.Summary{}
	for _, sm := range res.Summaries {
		if sm.Metric == "mse" {
			by[fmt.Sprint(sm.Method, sm.Eps)] = sm
		}
	}
	for _, eps := range []string{"1", "4"} {
		pm, ext := by["pm"+eps], by["fake-pm"+eps]
		if ext.Count != 60 {
			t.Fatalf("ε = %s: %d trials of fake-pm", eps, ext.Count)
		}
		if pm.Theory != ext.Theory {
			t.Errorf("ε = %s: theory %v, pm's %v", eps, ext.Theory, pm.Theory)
		}
		// z = 5: a false failure about once in 10^6.
		z := (float64(ext.Mean) - float64(pm.Mean)) / math.Hypot(float64(pm.SE), float64(ext.SE))
		t.Logf("ε = %s: MSE fake-pm %.4g ± %.2g, pm %.4g ± %.2g, theory %.4g (z = %.2f)", eps, float64(ext.Mean), float64(ext.SE), float64(pm.Mean), float64(pm.SE), float64(pm.Theory), z)
		if math.Abs(z) > 5 {
			t.Errorf("ε = %s: z = %.2f between fake-pm and pm", eps, z)
		}
	}
	if _, err := meanKinds[0].(mean.Mean).Prepare(context.Background(), &experiment.CellSpec{Method: "fake-pm"}); err == nil || !strings.Contains(err.Error(), "unknown mechanism") {
		t.Errorf("fake-pm is still registered after the run: %v", err)
	}
}

// TestHarnessResume: a program killed mid-run fails the run with an error
// naming the mechanism, the cell and the program's stderr; the finished
// cells are kept, and the same command resumes them into the rows an
// uninterrupted run writes. A hung program fails the run at its timeout.
func TestHarnessResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 480 trials through a pipe, three times")
	}
	pids := t.TempDir()
	s := writeExtSpec(t, "20s", fake(t), "-mech", "pm", "-piddir", pids)
	whole := t.TempDir()
	if _, err := run(t, s, whole, 1); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// Cells in plan order: pm ε=1, pm ε=4, fake-pm ε=1, fake-pm ε=4; one
	// batch a trial: batch 90 is trial 30 of the last cell.
	t.Setenv("FAKEMECH_FLAGS", "-crash-after 90")
	_, err := run(t, s, dir, 1)
	if err == nil {
		t.Fatal("the run did not fail")
	}
	for _, want := range []string{"method=fake-pm;eps=4;n=3000; trial 30", `external mechanism "fake-pm"`, "exit status 3", "| fakemech: crashing at batch 90, as asked", "3 of 4 cells finished and kept"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q\nlacks %q", err, want)
		}
	}
	t.Logf("%v", err)
	checkGone(t, pidsIn(t, pids))
	if _, err := os.Stat(filepath.Join(dir, harness.PartialFile)); err != nil {
		t.Fatalf("the finished cells are not kept: %v", err)
	}
	t.Setenv("FAKEMECH_FLAGS", "")
	res, err := run(t, s, dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed != 3 {
		t.Errorf("resumed %d cells, want 3", res.Resumed)
	}
	a, _ := os.ReadFile(filepath.Join(whole, harness.RowsFile))
	b, _ := os.ReadFile(filepath.Join(dir, harness.RowsFile))
	if !bytes.Equal(a, b) {
		t.Errorf("the resumed rows differ from an uninterrupted run's")
	}

	hung := writeExtSpec(t, "300ms", fake(t), "-mech", "pm", "-piddir", pids)
	t.Setenv("FAKEMECH_FLAGS", "-hang-after 5")
	_, err = run(t, hung, t.TempDir(), 2)
	if err == nil || !strings.Contains(err.Error(), "no reply within the timeout (300ms)") || !strings.Contains(err.Error(), "hanging at batch 5") {
		t.Errorf("a hung program: %v", err)
	}
	checkGone(t, pidsIn(t, pids))
}
