package figures

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/results"
)

var update = flag.Bool("update", false, "rewrite the golden SVG files in testdata (go test ./figures -run Golden -update)")

// tiny is the fixed summary of the golden figure: two methods, three eps,
// a theory line for each and one point without a CI.
func tiny() []results.Summary {
	s := []results.Summary{
		sum("uniform", "duchi", 0.5, "mse", 0.02, 0.021),
		sum("uniform", "duchi", 1, "mse", 0.006, 0.0055),
		sum("uniform", "duchi", 2, "mse", 0.0015, 0.0016),
		sum("uniform", "pm", 0.5, "mse", 0.012, 0.0125),
		sum("uniform", "pm", 1, "mse", 0.004, 0.0039),
		sum("uniform", "pm", 2, "mse", 0.0011, 0.001),
	}
	s[5].CILo, s[5].CIHi, s[5].Count = nan, nan, 1
	return s
}

var tinySpec = Spec{
	Name: "golden", Title: "MSE vs ε", Metric: "mse", X: "eps", Series: "method",
	LogY: true, Theory: true, Formats: []string{"svg"},
}

func TestGoldenSVG(t *testing.T) {
	files, err := Render(tiny(), tinySpec, t.TempDir(), WithWarnf(t.Errorf))
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, files[0], "golden.svg")
}

// checkGolden compares the file at path with testdata/<golden>, after
// rewriting it with -update.
func checkGolden(t *testing.T, path, golden string) []byte {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden = filepath.Join("testdata", golden)
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./figures -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		out := filepath.Join(t.TempDir(), "got.svg")
		os.WriteFile(out, got, 0o644)
		t.Errorf("SVG differs from %s; got %s (run with -update if the change is intended)", golden, out)
	}
	return got
}

// refSpec is tinySpec with the paper's values beside the measurements: one
// reference of the series pm, one of no series at a single point, and one
// of a series the summaries do not have.
func refSpec() Spec {
	spec := tinySpec
	spec.Name = "reference"
	spec.References = []Reference{
		{Label: "paper, pm", Series: "pm", X: []float64{2, 0.5, 1}, Y: []float64{0.0012, 0.013, 0.0042}},
		{Label: "paper, bound", X: []float64{1}, Y: []float64{0.009}},
		{Label: "paper, hm", Series: "hm", X: []float64{0.5, 2}, Y: []float64{0.011, 0.001}},
	}
	return spec
}

func TestGoldenReference(t *testing.T) {
	var warnings []string
	warnf := func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) }
	files, err := Render(tiny(), refSpec(), t.TempDir(), WithWarnf(warnf))
	if err != nil {
		t.Fatal(err)
	}
	want := `figure "reference": reference[2] "paper, hm": series "hm" is not in the summaries (method: "duchi", "pm"); drawn in black`
	if len(warnings) != 1 || warnings[0] != want {
		t.Errorf("warnings %q, want [%q]", warnings, want)
	}
	svg := string(checkGolden(t, files[0], "reference.svg"))
	for _, text := range []string{
		">paper, pm</text>", ">paper, bound</text>", ">paper, hm</text>", // legend
		"reference: printed values of the paper", // caption
		"stroke-dasharray:1.5,2",                 // the dotted lines
	} {
		if !strings.Contains(svg, text) {
			t.Errorf("the SVG does not contain %q", text)
		}
	}
}

// TestByteStable renders the same figure twice: SVG and PNG must come out
// byte for byte the same (PDF stamps the time, so it is only checked to
// exist).
func TestByteStable(t *testing.T) {
	spec := tinySpec
	spec.Formats = []string{"svg", "png"}
	spec.Band = true
	var runs [2][][]byte
	for i := range runs {
		files, err := Render(tiny(), spec, t.TempDir(), WithWarnf(t.Errorf))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			runs[i] = append(runs[i], b)
		}
	}
	for i, format := range spec.Formats {
		if !bytes.Equal(runs[0][i], runs[1][i]) {
			t.Errorf("%s differs between two renders", format)
		}
	}
}

func TestRenderFormats(t *testing.T) {
	magic := map[string]string{"svg": "<?xml", "png": "\x89PNG", "pdf": "%PDF"}
	for _, formats := range [][]string{nil, {"pdf", "svg", "png"}} {
		dir := filepath.Join(t.TempDir(), "out", "demo") // Render creates it
		spec := Spec{Name: "mse-vs-eps", Title: "MSE", Metric: "mse", X: "eps", Series: "method", Panel: "dataset",
			LogY: true, LogX: true, Theory: true, Formats: formats}
		files, err := Render(sweep(), spec, dir, WithWarnf(t.Errorf))
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"mse-vs-eps.svg", "mse-vs-eps.png"}
		if formats != nil {
			want = []string{"mse-vs-eps.pdf", "mse-vs-eps.svg", "mse-vs-eps.png"}
		}
		var got []string
		for _, f := range files {
			got = append(got, filepath.Base(f))
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			format := filepath.Ext(f)[1:]
			if !bytes.HasPrefix(b, []byte(magic[format])) {
				t.Errorf("%s does not start with %q", f, magic[format])
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("files %v, want %v", got, want)
		}
		// Nothing else in dir: no temporary files left behind.
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		slices.Sort(names)
		slices.Sort(want)
		if !slices.Equal(names, want) {
			t.Errorf("dir holds %v, want %v", names, want)
		}
	}
}

func TestRenderErrors(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	spec := tinySpec
	if _, err := Render(tiny(), spec, filepath.Join(blocker, "sub"), WithWarnf(nil)); err == nil {
		t.Error("Render into a path under a file succeeded")
	}
	spec.Formats = []string{"gif"}
	if _, err := Render(tiny(), spec, dir, WithWarnf(nil)); err == nil {
		t.Error("Render with an unknown format succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("failed renders left files: %v", entries)
	}
}

// TestManyPanels draws more panels than columns, with a panel missing a
// series and a theory known at one point only, in every format.
func TestManyPanels(t *testing.T) {
	s := grid()
	spec := Spec{Name: "many", Metric: "mse", X: "eps", Series: "method", Panel: "dataset", Theory: true, Band: true, Columns: 2,
		Formats: []string{"svg", "png", "pdf"}}
	fig, err := Project(s, spec)
	if err != nil {
		t.Fatal(err)
	}
	if got := shape(fig); got != "a[pm#0:1,2,3 duchi#1:1,2,3 hm#2:1,2,3] b[pm#0:1,2,3 duchi#1:1,2,3 hm#2:1,2,3] c[duchi#1:1,2,3 hm#2:1,2,3] d[pm#0:1,2,3 duchi#1:1,2,3 hm#2:1,2,3] e[pm#0:1,2,3 duchi#1:1,2,3 hm#2:1,2,3]" {
		t.Errorf("shape %s", got)
	}
	if _, err := Render(s, spec, t.TempDir(), WithWarnf(t.Errorf)); err != nil {
		t.Fatal(err)
	}
}
