package figures

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/results"
)

// shape writes a figure as panel[series#style:x,x ...] ..., for comparison.
func shape(f *Figure) string {
	var panels []string
	for _, p := range f.Panels {
		var series []string
		for _, s := range p.Series {
			var xs []string
			for _, pt := range s.Points {
				xs = append(xs, strconv.FormatFloat(pt.X, 'g', -1, 64))
			}
			series = append(series, fmt.Sprintf("%s#%d:%s", s.Value, s.Style, strings.Join(xs, ",")))
		}
		panels = append(panels, p.Value+"["+strings.Join(series, " ")+"]")
	}
	return strings.Join(panels, " ")
}

func withParams(s results.Summary, params string) results.Summary {
	s.Params = params
	return s
}

func TestProject(t *testing.T) {
	summaries := []results.Summary{
		sum("b", "pm", 2, "mse", 1, 1),
		sum("b", "pm", 2, "abs", 1, 1),
		sum("b", "duchi", 1, "mse", 1, 1),
		sum("b", "pm", 1, "mse", 1, 1),
		sum("a", "duchi", 1, "mse", 1, 1),
		sum("a", "pm", 1, "mse", 1, 1),
		sum("a", "hm", 0.5, "mse", 1, 1),
	}
	params := []results.Summary{
		withParams(sum("a", "pm", 1, "mse", 1, 1), "k=8;m=4"),
		withParams(sum("a", "pm", 1, "mse", 1, 1), "k=2;m=4"),
	}
	badX := []results.Summary{withParams(sum("a", "pm", 1, "mse", 1, 1), "k=abc")}
	infX := []results.Summary{withParams(sum("a", "pm", 1, "mse", 1, 1), "k=+Inf")}
	base := Spec{Name: "f", Metric: "mse", X: "eps", Series: "method", Panel: "dataset"}
	for _, tc := range []struct {
		name      string
		summaries []results.Summary
		edit      func(*Spec)
		want      string // shape, or a substring of the error
	}{
		{"order of first appearance, styles across panels", summaries, nil,
			"b[pm#0:1,2 duchi#1:1] a[duchi#1:1 pm#0:1 hm#2:0.5]"},
		{"filter on method", summaries, func(s *Spec) { s.Filter = map[string][]string{"method": {"pm", "hm"}} },
			"b[pm#0:1,2] a[pm#0:1 hm#1:0.5]"},
		{"filter on params key", summaries, func(s *Spec) { s.Filter = map[string][]string{"m": {"4"}} },
			"b[pm#0:1,2 duchi#1:1] a[duchi#1:1 pm#0:1 hm#2:0.5]"},
		{"one panel", summaries, func(s *Spec) { s.Panel, s.Filter = "", map[string][]string{"dataset": {"a"}} },
			"[duchi#0:1 pm#1:1 hm#2:0.5]"},
		{"other metric", summaries, func(s *Spec) { s.Metric = "abs" }, "b[pm#0:2]"},
		{"x from params, sorted", params, func(s *Spec) { s.X = "k" }, "a[pm#0:2,8]"},
		{"x from n", summaries[:1], func(s *Spec) { s.X = "n" }, "b[pm#0:1000]"},
		{"x not a number", badX, func(s *Spec) { s.X = "k" },
			`figure "f": key "x": field "k" of summary experiment=demo;dataset=a;method=pm;eps=1;n=1000;k=abc is "abc", not a finite number`},
		{"x not finite", infX, func(s *Spec) { s.X = "k" }, `field "k" of summary`},
		{"missing x field", summaries, func(s *Spec) { s.X = "k" }, `key "x": summary experiment=demo;dataset=b;method=pm;eps=2;n=1000;m=4 has no field "k"`},
		{"missing series field", summaries, func(s *Spec) { s.Series = "k" }, `key "series": summary`},
		{"missing panel field", summaries, func(s *Spec) { s.Panel = "k" }, `key "panel": summary`},
		{"unknown metric", summaries, func(s *Spec) { s.Metric = "rmse" }, `no summary has metric "rmse" (metrics present: mse, abs)`},
		{"filter keeps nothing", summaries, func(s *Spec) { s.Filter = map[string][]string{"method": {"laplace"}} },
			`no summary of metric "mse" passes the filter`},
		{"filter on absent field", summaries, func(s *Spec) { s.Filter = map[string][]string{"k": {"1"}} },
			`passes the filter`},
		{"two summaries on one point", summaries, func(s *Spec) { s.Series = "" },
			`fall on the same point (panel "b", x=1); filter them or add a series or panel field`},
		{"invalid spec", summaries, func(s *Spec) { s.Metric = "" }, `key "metric" is required`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := base
			if tc.edit != nil {
				tc.edit(&spec)
			}
			fig, err := Project(tc.summaries, spec)
			if err != nil {
				if !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %q, want %q", err, tc.want)
				}
				return
			}
			if got := shape(fig); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestProjectValues(t *testing.T) {
	s := []results.Summary{
		sum("a", "pm", 2, "mse", 0.2, 0.25),
		sum("a", "pm", 1, "mse", 0.4, math.NaN()),
	}
	s[1].CILo, s[1].CIHi, s[1].Count = nan, nan, 1
	spec := Spec{Name: "f", Metric: "mse", X: "eps", Series: "method"}
	fig, err := Project(s, spec)
	if err != nil {
		t.Fatal(err)
	}
	got := fig.Panels[0].Series[0]
	if len(got.Theory) != 0 {
		t.Errorf("theory collected without spec.Theory: %v", got.Theory)
	}
	if p := got.Points[0]; p.X != 1 || p.Mean != 0.4 || !math.IsNaN(p.Lo) || !math.IsNaN(p.Hi) {
		t.Errorf("first point %+v, want x=1 mean=0.4 and no CI", p)
	}
	if p := got.Points[1]; p.X != 2 || p.Mean != 0.2 || p.Lo != 0.16 || p.Hi != 0.24000000000000002 {
		t.Errorf("second point %+v", p)
	}
	if fig.NoCI != 1 {
		t.Errorf("NoCI = %d, want 1", fig.NoCI)
	}
	if fig.MinCount != 1 || fig.MaxCount != 50 {
		t.Errorf("counts %d–%d, want 1–50", fig.MinCount, fig.MaxCount)
	}

	spec.Theory = true
	if fig, err = Project(s, spec); err != nil {
		t.Fatal(err)
	}
	if th := fig.Panels[0].Series[0].Theory; len(th) != 1 || th[0] != (XY{2, 0.25}) {
		t.Errorf("theory %v, want [{2 0.25}] (the unknown one left out)", th)
	}
	if len(fig.Warnings) != 0 {
		t.Errorf("warnings %q", fig.Warnings)
	}

	s[0].Theory = nan
	if fig, err = Project(s, spec); err != nil {
		t.Fatal(err)
	}
	if len(fig.Warnings) != 1 || !strings.Contains(fig.Warnings[0], "no summary of metric \"mse\" has a theory value") {
		t.Errorf("warnings %q, want one about missing theory", fig.Warnings)
	}
}

func TestField(t *testing.T) {
	s := sum("adult", "pm", 0.5, "mse", 1, 1)
	for name, want := range map[string]string{
		"experiment": "demo", "dataset": "adult", "method": "pm", "eps": "0.5", "n": "1000",
		"m": "4", "metric": "mse", "normalisation": "minmax[0,1]",
	} {
		if got, ok := Field(&s, name); !ok || got != want {
			t.Errorf("Field(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
	if _, ok := Field(&s, "k"); ok {
		t.Error(`Field("k") found a field that is not there`)
	}
}

// TestProjectReferences: references are kept in spec order with their
// points sorted by x, take the style of their series, and are drawn in black
// with a warning when their series is absent; an absent panel is an error.
func TestProjectReferences(t *testing.T) {
	base := Spec{Name: "f", Metric: "mse", X: "eps", Series: "method", Panel: "dataset"}
	refs := []Reference{
		{Label: "paper, pm", Series: "pm", X: []float64{2, 1}, Y: []float64{0.5, 0.9}},
		{Label: "paper", X: []float64{1}, Y: []float64{0.7}},
		{Label: "paper, duchi, b", Series: "duchi", Panel: "b", X: []float64{1}, Y: []float64{0.8}},
		{Label: "paper, laplace", Series: "laplace", X: []float64{1}, Y: []float64{0.6}},
	}
	lines := func(f *Figure) string {
		var out []string
		for _, r := range f.References {
			var pts []string
			for _, p := range r.Points {
				pts = append(pts, fmt.Sprintf("%g:%g", p.X, p.Y))
			}
			out = append(out, fmt.Sprintf("%s|%s|%s#%d absent=%v %s", r.Label, r.Series, r.Panel, r.Style, r.Absent, strings.Join(pts, ",")))
		}
		return strings.Join(out, "\n")
	}
	for _, tc := range []struct {
		name     string
		edit     func(*Spec)
		want     string // the reference lines, or a substring of the error
		warnings []string
	}{
		{"kept, styled and sorted", func(s *Spec) { s.References = refs[:3] },
			"paper, pm|pm|#0 absent=false 1:0.9,2:0.5\npaper||#-1 absent=false 1:0.7\npaper, duchi, b|duchi|b#1 absent=false 1:0.8",
			nil},
		{"absent series: black, with a warning", func(s *Spec) { s.References = refs[3:] },
			"paper, laplace|laplace|#-1 absent=true 1:0.6",
			[]string{`figure "f": reference[0] "paper, laplace": series "laplace" is not in the summaries (method: "pm", "duchi", "hm"); drawn in black`}},
		{"absent panel: an error", func(s *Spec) {
			s.References = []Reference{refs[1], {Label: "paper", Panel: "c", X: []float64{1}, Y: []float64{1}}}
		}, `figure "f": key "reference[1].panel": "c" is not a panel of the figure (dataset: "b", "a")`, nil},
		{"invalid reference", func(s *Spec) { s.References = []Reference{{Label: "paper"}} },
			`figure "f": key "reference[0].x" needs at least one value`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := base
			tc.edit(&spec)
			summaries := []results.Summary{
				sum("b", "pm", 2, "mse", 1, 1),
				sum("b", "duchi", 1, "mse", 1, 1),
				sum("a", "pm", 1, "mse", 1, 1),
				sum("a", "hm", 0.5, "mse", 1, 1),
			}
			fig, err := Project(summaries, spec)
			if err != nil {
				if !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %q, want %q", err, tc.want)
				}
				return
			}
			// The references don't change the measured points.
			if got := shape(fig); got != "b[pm#0:2 duchi#1:1] a[pm#0:1 hm#2:0.5]" {
				t.Errorf("shape %s", got)
			}
			if got := lines(fig); got != tc.want {
				t.Errorf("references:\n%s\nwant:\n%s", got, tc.want)
			}
			if strings.Join(fig.Warnings, "\n") != strings.Join(tc.warnings, "\n") {
				t.Errorf("warnings %q, want %q", fig.Warnings, tc.warnings)
			}
		})
	}
}

// A run of some of the configurations labels each present value by its
// number (config 1 and 4 of A1-A4 are A1 and A4); values that are not
// such numbers still need one label each.
func TestCategoriesOfASubset(t *testing.T) {
	mk := func(xs ...string) []results.Summary {
		var out []results.Summary
		for _, x := range xs {
			out = append(out, results.Summary{Experiment: "e", Dataset: "d", Method: "m", Eps: 1, N: 10,
				Params: "config=" + x, Metric: "mse", Count: 2, Mean: 1, SD: 0.1, SE: 0.1, CILo: 0.9, CIHi: 1.1, Theory: results.Float(math.NaN())})
		}
		return out
	}
	spec := Spec{Name: "f", Metric: "mse", X: "config", Series: "method", Categories: []string{"A1", "A2", "A3", "A4"}}
	fig, err := Project(mk("1", "4"), spec)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(fig.Categories, ","); got != "A1,A4" {
		t.Errorf("categories %q, want A1,A4", got)
	}
	if _, err := Project(mk("1", "7"), spec); err == nil || !strings.Contains(err.Error(), `"categories"`) {
		t.Errorf("config 7 of four labels: %v, want an error naming categories", err)
	}
}
