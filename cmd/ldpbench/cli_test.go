package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// runFull runs the command line as main does and returns stdout, stderr
// and the exit status.
func runFull(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), kinds, args, &out, &errOut)
	printError(&errOut, err)
	return out.String(), errOut.String(), exitCode(err)
}

// TestHelp: every command answers 'help CMD' and 'CMD -h' alike, on stdout
// with exit 0: its usage line, its sentence and (if any) its flags. The
// top-level usage has one line per command. Catches a command without
// help, help on stderr or exiting 2, and the backquote of a flag's usage
// read as its argument name (the old '-shard ldpbench merge').
func TestHelp(t *testing.T) {
	top, _, code := runFull(t, "help")
	if code != 0 {
		t.Fatalf("help: exit %d", code)
	}
	for _, c := range append(commands, helpCommand) {
		if !strings.Contains(top, "\n\t"+c.name+" ") {
			t.Errorf("the usage has no line for %s:\n%s", c.name, top)
		}
		if c.run == nil {
			continue
		}
		viaHelp, errOut, code := runFull(t, "help", c.name)
		if code != 0 || errOut != "" {
			t.Errorf("help %s: exit %d, stderr %q", c.name, code, errOut)
		}
		viaFlag, _, code := runFull(t, c.name, "-h")
		if code != 0 || viaFlag != viaHelp {
			t.Errorf("%s -h: exit %d, and not the text of help %s:\n%s", c.name, code, c.name, viaFlag)
		}
		if !strings.HasPrefix(viaHelp, "usage: "+c.usageLine()+"\n\n"+upperFirst(c.summary)+".\n") {
			t.Errorf("help %s starts:\n%s", c.name, viaHelp)
		}
		if strings.Contains(viaHelp, "ldpbench merge\n") || strings.Contains(viaHelp, " -shard ldpbench") {
			t.Errorf("help %s reads a backquoted phrase as an argument name:\n%s", c.name, viaHelp)
		}
	}
	run, _, _ := runFull(t, "help", "run")
	for _, flag := range []string{"-seed seed", "-quick", "-full", "-shard i/N", "-out directory", "-j workers"} {
		if !strings.Contains(run, "  "+flag+"\n") {
			t.Errorf("help run lacks flag %q:\n%s", flag, run)
		}
	}
}

// TestErrorsAndExitCodes: one rule for every command (0 ok, 1 a check
// found something, 2 a usage or run error), and each error printed once.
func TestErrorsAndExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string // the whole of stderr
	}{
		{[]string{"frob"}, 2, "ldpbench frob: unknown command\nRun 'ldpbench help' for usage.\n"},
		{[]string{"help", "frob"}, 2, "ldpbench frob: unknown command\nRun 'ldpbench help' for usage.\n"},
		{[]string{"run", "--bogus", "x"}, 2, "ldpbench run: flag provided but not defined: -bogus\nusage: ldpbench run [flags] SPEC...\nRun 'ldpbench help run' for details.\n"},
		{[]string{"run"}, 2, "ldpbench run: want at least one SPEC, got 0 arguments\nusage: ldpbench run [flags] SPEC...\nRun 'ldpbench help run' for details.\n"},
		{[]string{"run", "a", "b", "--out", "x"}, 2, "ldpbench run: --out and --shard name one spec's output: give one SPEC\nusage: ldpbench run [flags] SPEC...\nRun 'ldpbench help run' for details.\n"},
		{[]string{"run", "mean-synthetic", "--quick", "--full"}, 2, "ldpbench run: --quick and --full: give one\nusage: ldpbench run [flags] SPEC...\nRun 'ldpbench help run' for details.\n"},
		{[]string{"plan", "a", "b"}, 2, "ldpbench plan: want one SPEC, got 2 arguments\nusage: ldpbench plan [flags] SPEC\nRun 'ldpbench help plan' for details.\n"},
		{[]string{"version", "x"}, 2, "ldpbench version: unexpected argument \"x\"\nusage: ldpbench version\nRun 'ldpbench help version' for details.\n"},
		{[]string{"run", "no-such-spec"}, 2, "ldpbench: spec \"no-such-spec\": no such file, no runs/no-such-spec.toml here or in the module, and no shipped spec of that name (`ldpbench list specs` lists them)\n"},
	} {
		stdout, stderr, code := runFull(t, tc.args...)
		if code != tc.code || stderr != tc.stderr || stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr:\n%s\nwant exit %d, stderr:\n%s", tc.args, code, stdout, stderr, tc.code, tc.stderr)
		}
	}
	// No command: the usage on stderr, exit 2, nothing more.
	if stdout, stderr, code := runFull(t); code != 2 || stdout != "" || stderr != topUsage() {
		t.Errorf("no command: exit %d, stderr:\n%s", code, stderr)
	}
	if exitCode(errMoved) != 1 {
		t.Errorf("regress's errMoved exits %d, want 1", exitCode(errMoved))
	}
}

// TestSharedFlags: --seed, --eps, --quick/--full are one definition each:
// the same bad value gives the same message from every command that takes
// it. Catches a command that parses its own (the old string --seed of run
// against the uint --seed of audit).
func TestSharedFlags(t *testing.T) {
	for _, tc := range []struct {
		flag, value, want string
		cmds              [][]string
	}{
		{"--seed", "-1", `invalid value "-1" for flag -seed: want a non-negative integer below 2^64, got "-1"`,
			[][]string{{"run", "mean-synthetic"}, {"audit"}}},
		{"--eps", "1,0", `invalid value "1,0" for flag -eps: 0: want a budget in [1e-06, 100]`,
			[][]string{{"theory"}, {"audit"}}},
		{"--quick", "", "--quick and --full: give one", [][]string{{"run", "mean-synthetic", "--full"}, {"plan", "mean-synthetic", "--full"}}},
	} {
		for _, cmd := range tc.cmds {
			args := append(cmd, tc.flag)
			if tc.value != "" {
				args = append(args, tc.value)
			}
			_, stderr, code := runFull(t, args...)
			if code != 2 || !strings.Contains(stderr, "ldpbench "+cmd[0]+": "+tc.want+"\n") {
				t.Errorf("%q: exit %d, stderr %q; want %q", args, code, stderr, tc.want)
			}
		}
	}
}

// TestVersion prints the module, the VCS fields and the Go version on one
// line.
func TestVersion(t *testing.T) {
	out, _, code := runFull(t, "version")
	if code != 0 || !strings.HasPrefix(out, "ldpbench ") || !strings.Contains(out, " revision=") ||
		!strings.Contains(out, " modified=") || !strings.Contains(out, " go="+runtime.Version()+" ") || strings.Count(out, "\n") != 1 {
		t.Errorf("version: exit %d, %q", code, out)
	}
}

// TestInstalledBinaryAnywhere: the binary, built and run from an empty
// directory outside the module (as after go install), lists the shipped
// specs, says where they come from, and runs one. Catches specs read from
// runs/ on disk only.
func TestInstalledBinaryAnywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "ldpbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	cmd := func(args ...string) (string, string) {
		c := exec.Command(bin, args...)
		c.Dir = dir
		var out, errOut bytes.Buffer
		c.Stdout, c.Stderr = &out, &errOut
		if err := c.Run(); err != nil {
			t.Fatalf("%q: %v\n%s%s", args, err, out.String(), errOut.String())
		}
		return out.String(), errOut.String()
	}
	names, from := cmd("list", "specs")
	if !strings.Contains(names, "\nmean-synthetic\n") || !strings.Contains(from, "shipped") {
		t.Errorf("list specs from an empty directory: %q, stderr %q", names, from)
	}
	out, _ := cmd("run", "mean-synthetic", "--quick")
	if !strings.Contains(out, "mean-synthetic: ") || !strings.Contains(out, " cells (0 resumed)") {
		t.Errorf("run mean-synthetic --quick: %s", out)
	}
	spec, err := os.ReadFile(filepath.Join(dir, "out", "mean-synthetic", "spec.toml"))
	want, _ := os.ReadFile(filepath.Join("..", "..", "runs", "mean-synthetic.toml"))
	if err != nil || !bytes.Equal(spec, want) {
		t.Errorf("the run's spec.toml is not the shipped spec's text (%v)", err)
	}
}

// TestRunBatch: several specs (make figures) print one line each (ran,
// skipped and why, failed and why), keep each run's log in its run.log,
// end with the counts and the index, and a failing spec neither stops the
// others nor goes unreported (exit 2). Catches a batch that stops at the
// first failure, a skipped spec not named with its file, and an index
// without the runs or the skipped specs.
func TestRunBatch(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("LDPBENCH_DATA", t.TempDir())
	t.Setenv("LDPBENCH_NO_SHARED", "1")
	small := strings.Replace(strings.Replace(killSpec, "n = [200000]", "n = [1000]", 1), "trials = 30", "trials = 3", 1)
	os.WriteFile("a.toml", []byte(strings.Replace(small, `name = "kill"`, "name = \"a\"\ntitle = \"Fig. 1 of a paper\"", 1)+
		"[[figures]]\nname = \"f\"\nmetric = \"mse\"\nx = \"eps\"\nseries = \"method\"\npanel = \"dataset\"\n"), 0o644)
	os.WriteFile("b.toml", []byte(`name = "b"
kind = "mean"
seed = 1
trials = 2
metrics = ["mse"]
[axes]
method = ["duchi"]
eps = [1]
n = [10]
[[datasets]]
name = "shuttle-a1"
source = "file"
path = "shuttle.tst"
sep = " "
column = 0
`), 0o644)
	os.WriteFile("c.toml", []byte(strings.Replace(small, `name = "kill"`, "name = \"c\"\ntypo = 1", 1)), 0o644)

	stdout, stderr, code := runFull(t, "run", "a.toml", "b.toml", "c.toml", "-j", "2")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != 2 || len(lines) != 7 || !strings.Contains(stderr, "1 of 3 specs failed") {
		t.Fatalf("exit %d, %d lines:\n%s\nstderr: %s", code, len(lines), stdout, stderr)
	}
	for i, want := range []string{
		"[1/3] a ok ",
		"[2/3] b skipped ",
		"[3/3] c FAILED ",
	} {
		if got := strings.Join(strings.Fields(lines[i]), " "); !strings.HasPrefix(got, want) {
			t.Errorf("line %d: %q, want it to start %q", i+1, lines[i], want)
		}
	}
	if !strings.Contains(lines[1], "shuttle.tst") || !strings.Contains(lines[2], `unknown key "typo"`) || !strings.Contains(lines[0], filepath.Join("out", "a", "run.log")) {
		t.Errorf("the lines do not say why:\n%s", stdout)
	}
	if !strings.HasPrefix(lines[4], "1 specs run, 1 skipped, 1 failed, in ") || !strings.Contains(lines[6], filepath.Join("out", "index.md")) {
		t.Errorf("summary:\n%s", strings.Join(lines[3:], "\n"))
	}
	if _, err := os.Stat(filepath.Join("out", "a", "run.log")); err != nil {
		t.Error(err)
	}
	index, err := os.ReadFile(filepath.Join("out", "index.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| [a](a/) | Fig. 1 of a paper | full | ", "[f.png](a/f.png)", "## Skipped in the last batch", "- b: shuttle-a1 (shuttle.tst)"} {
		if !strings.Contains(string(index), want) {
			t.Errorf("index.md lacks %q:\n%s", want, index)
		}
	}
}
