package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func writeSpec(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.toml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const goodSpec = `
name = "t"
kind = "toy"
trials = 2
metrics = ["mse"]
[axes]
method = ["gauss"]
eps = [1.0]
n = [100]
[[datasets]]
name = "u"
source = "uniform"
lo = -1.0
hi = 1.0
`

func TestLoadSpecErrorsNameTheKey(t *testing.T) {
	tests := []struct {
		name, from, to, want string
	}{
		{"unknown key", `trials = 2`, "trials = 2\ntrails = 3", `"trails"`},
		{"eps zero", `eps = [1.0]`, `eps = [1.0, 0.0]`, `axes.eps[1]`},
		{"eps negative", `eps = [1.0]`, `eps = [-2.0]`, `axes.eps[0]`},
		{"eps nan", `eps = [1.0]`, `eps = [nan]`, `axes.eps[0]`},
		{"eps inf", `eps = [1.0]`, `eps = [inf]`, `axes.eps[0]`},
		{"wrong type", `trials = 2`, `trials = "two"`, `trials`},
		{"no trials", `trials = 2`, `trials = 0`, `"trials"`},
		{"bad n", `n = [100]`, `n = [0]`, `axes.n[0]`},
		{"syntax", `trials = 2`, `trials = = 2`, `line`},
		{"dataset key", `lo = -1.0`, `lo = 2.0`, `datasets[0]`},
		{"negative seed", `trials = 2`, "trials = 2\nseed = -1", `key "seed": must be ≥ 0, got -1`},
		{"eps too small", `eps = [1.0]`, `eps = [1.0, 1e-300]`, `axes.eps[1]": 1e-300 is outside [1e-06, 100]`},
		{"eps too large", `eps = [1.0]`, `eps = [1e3]`, `axes.eps[0]`},
		{"duplicate method", `method = ["gauss"]`, `method = ["gauss", "uniform", "gauss"]`, `axes.method[2]": "gauss" is axes.method[0] again`},
		{"duplicate eps", `eps = [1.0]`, `eps = [1.0, 0.5, 1]`, `axes.eps[2]`},
		{"duplicate n", `n = [100]`, `n = [100, 100]`, `axes.n[1]`},
		{"duplicate param", `n = [100]`, "n = [100]\nparams = { scale = [\"1\", \"2\", \"1\"] }", `axes.params.scale[2]`},
		{"name dot-dot", `name = "t"`, `name = ".."`, `key "name": ".."`},
		{"name hidden", `name = "t"`, `name = ".t"`, `key "name"`},
		{"name with slash", `name = "t"`, `name = "a/b"`, `key "name"`},
		{"key in capitals", `trials = 2`, `TRIALS = 7`, `key "TRIALS": keys are case-sensitive: did you mean "trials"?`},
		{"key twice in two cases", `trials = 2`, "trials = 2\nTrials = 7", `key "Trials": keys are case-sensitive`},
		{"nested key case", `lo = -1.0`, `Lo = -1.0`, `key "datasets.Lo": keys are case-sensitive: did you mean "datasets.lo"?`},
		{"string for an integer", `trials = 2`, `trials = "2"`, `key "trials": want an integer, got a string`},
		{"bool for a float list", `eps = [1.0]`, `eps = true`, `key "axes.eps": want an array, got a boolean`},
		// Two problems: the first in the file is reported, every time.
		{"two type errors", `trials = 2`, "trials = true\nseed = true", `key "trials": want an integer`},
		{"array in a float array", `eps = [1.0]`, `eps = [1.0, []]`, `key "axes.eps[1]": want a number, got an array`},
		{"number in a string array", `method = ["gauss"]`, `method = ["gauss", -0.0]`, `key "axes.method[1]": want a string, got a float`},
		{"control character in a method", `method = ["gauss"]`, `method = ["gau\r\nss"]`, `axes.method[0]": "gau\r\nss" holds a control character`},
		{"control character in a param", `n = [100]`, "n = [100]\nparams = { scale = [\"1\\u001b\"] }", `axes.params.scale[0]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := strings.Replace(goodSpec, tt.from, tt.to, 1)
			if body == goodSpec {
				t.Fatalf("test case did not change the spec")
			}
			p := writeSpec(t, body)
			_, err := LoadSpec(p)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %s", err, tt.want)
			}
			for range 20 { // the same error every time, whatever the map order
				if _, again := LoadSpec(p); again == nil || again.Error() != err.Error() {
					t.Fatalf("loaded again: %v, first %v", again, err)
				}
			}
		})
	}
	if _, err := LoadSpec(writeSpec(t, goodSpec)); err != nil {
		t.Fatalf("good spec: %v", err)
	}
}

// Binary garbage as a spec is refused with an error that a terminal shows
// as text: no control byte of the file is echoed.
func TestGarbageSpecErrorIsPrintable(t *testing.T) {
	garbage := []byte("name = \"x\x1b[2J\x07\"\ntrials = \x00\x01\x1b]0;pwned\x07\n\xff\xfe")
	p := filepath.Join(t.TempDir(), "garbage.toml")
	if err := os.WriteFile(p, garbage, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadSpec(p)
	if err == nil {
		t.Fatal("garbage accepted")
	}
	for _, r := range err.Error() {
		if r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == utf8.RuneError) {
			t.Fatalf("the error holds control character %U: %q", r, err)
		}
	}
	if !strings.Contains(err.Error(), p) {
		t.Errorf("the error does not name the file: %v", err)
	}
}

// -j must be ≥ 0 (0: one worker per core).
func TestNegativeJobsRefused(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Run(context.Background(), testKinds, smallSpec(), Options{OutDir: out, Jobs: -1}); err == nil || !strings.Contains(err.Error(), "-j -1") {
		t.Fatalf("got %v, want an error naming -j", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Error("the refused run created its output directory")
	}
}

// Errors found before the run (unknown method, metric, kind or parameter,
// unreadable data) must
// leave no output at all.
func TestBadInputLeavesNoOutput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.csv")
	os.WriteFile(bad, []byte("1\n2\nabc\n4\n"), 0o644)
	tests := []struct {
		name, from, to string
		want           []string
	}{
		{"unknown method", `method = ["gauss"]`, `method = ["gauss", "gaus"]`, []string{`"gaus"`, "uniform"}},
		{"unknown metric", `metrics = ["mse"]`, `metrics = ["mse", "msee"]`, []string{`metrics[1]`, "valid: mse, abs"}},
		{"unknown kind", `kind = "toy"`, `kind = "median"`, []string{`valid: toy`}},
		{"unknown parameter", "n = [100]", "n = [100]\nparams = { scale = [\"1\"], foo = [\"2\"] }", []string{"axes.params.foo", "valid: scale"}},
		{"parameter out of bounds", "n = [100]", "n = [100]\nparams = { scale = [\"1\", \" -2\"] }", []string{"axes.params.scale", `"-2"`, "number > 0"}},
		{"unreadable data", "source = \"uniform\"\nlo = -1.0\nhi = 1.0",
			"source = \"file\"\npath = \"" + bad + "\"\ncolumn = 0\nnormalise = \"minmax\"", []string{"bad.csv:3"}},
		{"n larger than the file", "source = \"uniform\"\nlo = -1.0\nhi = 1.0",
			"source = \"file\"\npath = \"" + bad + "\"\ncolumn = 0\nnormalise = \"minmax\"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := strings.Replace(goodSpec, tt.from, tt.to, 1)
			if tt.want == nil { // the file parses once fixed, but has 4 rows < n = 100
				os.WriteFile(bad, []byte("1\n2\n3\n4\n"), 0o644)
				tt.want = []string{"axes.n", "4 rows"}
			}
			out := filepath.Join(t.TempDir(), "out")
			var err error
			s, lerr := LoadSpec(writeSpec(t, body))
			if lerr != nil {
				err = lerr
			} else {
				_, err = Run(context.Background(), testKinds, s, Options{OutDir: out})
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %s", err, w)
				}
			}
			if _, serr := os.Stat(out); !errors.Is(serr, os.ErrNotExist) {
				t.Errorf("output directory %s exists after an error", out)
			}
		})
	}
}

// A trial that overflows is an error naming the cell and the metric, and
// the run leaves nothing behind: a row of +Inf is never written.
func TestNonFiniteValueRefused(t *testing.T) {
	s := smallSpec()
	s.Axes.Params = map[string][]string{"scale": {"1e308"}}
	s.Axes.Eps = []float64{1e-3}
	out := filepath.Join(t.TempDir(), "out")
	_, err := Run(context.Background(), testKinds, s, Options{OutDir: out})
	if err == nil || !strings.Contains(err.Error(), "not a finite number") || !strings.Contains(err.Error(), "scale=1e308") {
		t.Fatalf("got %v, want a non-finite error naming the cell", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Error("the refused run left its output directory")
	}
}

// n = 10¹² is refused with the key and an estimate before anything is
// allocated (it used to die out of memory with a goroutine dump), and a
// kind's own estimate counts (toy at n = 1000 with a 40 KiB limit).
func TestMemoryEstimateRefuses(t *testing.T) {
	s := smallSpec()
	s.Axes.N = []int{1_000_000_000_000}
	out := filepath.Join(t.TempDir(), "out")
	_, err := Run(context.Background(), testKinds, s, Options{OutDir: out, MemoryLimit: 64 << 30})
	if err == nil || !strings.Contains(err.Error(), `key "axes.n"`) || !strings.Contains(err.Error(), "TiB") {
		t.Fatalf("got %v, want a refusal naming axes.n and the estimate", err)
	}
	s.Axes.N = []int{1000}
	// Datasets 2 × 1000 × 16 B = 31.2 KiB; cells 2 workers × 8000 B.
	if _, err := Run(context.Background(), testKinds, s, Options{OutDir: out, Jobs: 2, MemoryLimit: 40 << 10}); err == nil || !strings.Contains(err.Error(), "toy") {
		t.Fatalf("got %v, want the kind's cells counted", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused run created its output directory")
	}
}
