package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := strings.Replace(goodSpec, tt.from, tt.to, 1)
			if body == goodSpec {
				t.Fatalf("test case did not change the spec")
			}
			_, err := LoadSpec(writeSpec(t, body))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %s", err, tt.want)
			}
		})
	}
	if _, err := LoadSpec(writeSpec(t, goodSpec)); err != nil {
		t.Fatalf("good spec: %v", err)
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
