package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), kinds, args, &out, &errOut)
	return out.String() + errOut.String(), err
}

func TestListMechanisms(t *testing.T) {
	out, err := runCLI(t, "list", "mechanisms")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"duchi\n", "laplace\n", "pm\n", "sw\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("list mechanisms lacks %q:\n%s", want, out)
		}
	}
}

// Worst-case variances, computed independently of the package from the
// closed forms of the papers (Du et al. Sections 2.2–2.4).
func TestTheoryAgreesWithClosedForms(t *testing.T) {
	out, err := runCLI(t, "theory", "--mech", "laplace,duchi,pm", "--eps", "0.5,1,2,8")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(recs[0], ","); got != "mechanism,eps,worst_case_variance" {
		t.Fatalf("header %q", got)
	}
	want := func(mech string, eps float64) float64 {
		switch mech {
		case "laplace":
			return 8 / (eps * eps)
		case "duchi":
			c := (math.Exp(eps) + 1) / (math.Exp(eps) - 1)
			return c * c
		case "pm":
			s := math.Exp(eps / 2)
			return 4 * s / (3 * (s - 1) * (s - 1))
		}
		panic(mech)
	}
	if len(recs) != 1+3*4 {
		t.Fatalf("%d records, want 12", len(recs)-1)
	}
	for _, r := range recs[1:] {
		eps, _ := strconv.ParseFloat(r[1], 64)
		got, _ := strconv.ParseFloat(r[2], 64)
		if w := want(r[0], eps); math.Abs(got-w) > 1e-9*w {
			t.Errorf("%s at ε=%v: %v, want %v", r[0], eps, got, w)
		}
	}
	if _, err := runCLI(t, "theory", "--mech", "nope"); err == nil || !strings.Contains(err.Error(), "valid:") {
		t.Errorf("unknown mechanism: %v, want the list of valid names", err)
	}
}

const killSpec = `
name = "kill"
kind = "mean"
seed = 3
trials = 30
metrics = ["mse", "abs"]
[axes]
method = ["duchi", "laplace", "pm", "sw"]
eps = [0.5, 1, 2, 4, 8]
n = [200000]
[[datasets]]
name = "b"
source = "beta"
a = 2.0
b = 5.0
[[datasets]]
name = "u"
source = "uniform"
lo = -1.0
hi = 1.0
`

// A run killed with SIGKILL and started again completes with the rows of an
// uninterrupted run, byte for byte; -j 1 and -j 2 agree.
func TestSIGKILLThenResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs it three times")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "ldpbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	spec := filepath.Join(tmp, "kill.toml")
	os.WriteFile(spec, []byte(killSpec), 0o644)

	full := filepath.Join(tmp, "full")
	if out, err := exec.Command(bin, "run", spec, "--out", full, "-j", "1").CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	want, _ := os.ReadFile(filepath.Join(full, "rows.csv"))

	killed := filepath.Join(tmp, "killed")
	cmd := exec.Command(bin, "run", spec, "--out", killed, "-j", "2")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	partial := filepath.Join(killed, "rows.csv.partial")
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(partial)
		if bytes.Count(b, []byte("\n")) > 2+3*60 { // a few cells on disk
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the run wrote no cells within a minute")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(killed, "rows.csv")); err == nil {
		t.Skip("the run finished before it could be killed; machine too fast for this spec")
	}
	out, err := exec.Command(bin, "run", spec, "--out", killed, "-j", "2").CombinedOutput()
	if err != nil {
		t.Fatalf("resumed run: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "resum") {
		t.Errorf("resumed run does not say it resumed:\n%s", out)
	}
	got, _ := os.ReadFile(filepath.Join(killed, "rows.csv"))
	if !bytes.Equal(got, want) {
		t.Fatal("rows.csv after SIGKILL and resume (-j 2) differs from the uninterrupted run (-j 1)")
	}
	for _, f := range []string{"summary.csv", "spec.toml"} {
		if _, err := os.Stat(filepath.Join(killed, f)); err != nil {
			t.Error(err)
		}
	}
}
