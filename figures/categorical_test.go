package figures

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/metrics"
	"github.com/ldpbench/ldpbench/results"
)

// TestProjectCategorical: categories are placed in numeric order of their
// values (else in order of first appearance), labelled by the spec, and a
// reference names a category by its value.
func TestProjectCategorical(t *testing.T) {
	var s []results.Summary
	for _, c := range []string{"10", "2", "1"} { // first appearance is not the order
		for _, m := range []string{"ua", "uwa"} {
			s = append(s, withParams(sum("a", m, 1, "mse", 1, 1), "group="+c))
		}
	}
	base := Spec{Name: "f", Metric: "mse", X: "group", Series: "method", Categories: []string{"G1", "G2", "G10"}}
	fig, err := Project(s, base)
	if err != nil {
		t.Fatal(err)
	}
	if got := shape(fig); got != "[ua#0:0,1,2 uwa#1:0,1,2]" {
		t.Errorf("shape %s", got)
	}
	if !slices.Equal(fig.Categories, []string{"G1", "G2", "G10"}) || !slices.Equal(fig.CategoryValues, []string{"1", "2", "10"}) {
		t.Errorf("categories %q, values %q", fig.Categories, fig.CategoryValues)
	}
	// The first point of ua is group 1 (place 0), whatever the summaries' order.
	if p := fig.Panels[0].Series[0].Points[0]; p.X != 0 || p.Mean != 1 {
		t.Errorf("first point %+v", p)
	}

	ref := base
	ref.References = []Reference{{Label: "paper", Series: "uwa", X: []float64{10, 1}, Y: []float64{3, 4}}}
	if fig, err = Project(s, ref); err != nil {
		t.Fatal(err)
	}
	if got := fig.References[0].Points; !slices.Equal(got, []XY{{0, 4}, {2, 3}}) {
		t.Errorf("reference points %v, want at places 0 and 2", got)
	}

	// Values that are not numbers: x_categorical, in order of first appearance.
	var named []results.Summary
	for _, m := range []string{"single-sr", "ua", "uwa"} {
		named = append(named, sum("a", m, 1, "mse", 1, 1), sum("b", m, 1, "mse", 1, 1))
	}
	fig, err = Project(named, Spec{Name: "f", Metric: "mse", X: "method", Series: "dataset", XCategorical: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fig.Categories, []string{"single-sr", "ua", "uwa"}) || shape(fig) != "[a#0:0,1,2 b#1:0,1,2]" {
		t.Errorf("categories %q, shape %s", fig.Categories, shape(fig))
	}

	for _, tc := range []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"too few labels", func(s *Spec) { s.Categories = []string{"G1", "G2"} },
			`figure "f": key "categories" has 2 labels, but x (group) has 3 values: "1", "2", "10"`},
		{"reference off the categories", func(s *Spec) {
			s.References = []Reference{{Label: "paper", X: []float64{3}, Y: []float64{1}}}
		}, `figure "f": key "reference[0].x[0]": 3 is not a category of x (group: "1", "2", "10")`},
	} {
		spec := base
		tc.edit(&spec)
		if _, err := Project(s, spec); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestProjectRatios: each series over the named one at the same x, theory
// over theory; an unknown name is an error, a panel without it a warning.
func TestProjectRatios(t *testing.T) {
	s := []results.Summary{
		sum("a", "uwa", 1, "mse", 0.0102, 0.01),
		sum("a", "uwa", 2, "mse", 0.0051, math.NaN()),
		sum("a", "uwa-oracle", 1, "mse", 0.01, 0.01),
		sum("a", "uwa-oracle", 2, "mse", 0.005, 0.005),
		sum("a", "ua", 4, "mse", 0.004, 0.004), // no uwa-oracle at x = 4
		sum("b", "uwa", 1, "mse", 0.03, 0.03),
	}
	spec := Spec{Name: "f", Metric: "mse", X: "eps", Series: "method", Panel: "dataset", Theory: true, LogY: true, RatioTo: "uwa-oracle"}
	fig, err := Project(s, spec)
	if err != nil {
		t.Fatal(err)
	}
	r := fig.Panels[0].Ratios
	if len(r) != 1 || r[0].Value != "uwa" || r[0].Style != 0 {
		t.Fatalf("ratios %+v, want uwa's alone", r)
	}
	if p := r[0].Points; len(p) != 2 || math.Abs(p[0].Mean-1.02) > 1e-12 || math.Abs(p[1].Mean-1.02) > 1e-12 || !math.IsNaN(p[0].Lo) {
		t.Errorf("ratio points %+v", p)
	}
	if th := r[0].Theory; len(th) != 1 || th[0] != (XY{1, 1}) {
		t.Errorf("ratio theory %v, want [{1 1}]", th)
	}
	if len(fig.Panels[1].Ratios) != 0 || !slices.Contains(fig.Warnings, `figure "f": panel "b": no series "uwa-oracle", so no ratios`) {
		t.Errorf("panel b: ratios %v, warnings %q", fig.Panels[1].Ratios, fig.Warnings)
	}
	if fig.RatioLog {
		t.Error("ratios within 2 % on a log axis")
	}
	spec.RatioTo = "ule"
	if _, err := Project(s, spec); err == nil || !strings.Contains(err.Error(), `key "ratio_to": "ule" is not a series of the figure (method: "uwa", "uwa-oracle", "ua")`) {
		t.Errorf("error %v", err)
	}
}

// TestProjectConstant: a metric with the same value in every trial (sd 0,
// up to the rounding of its mean) has no CI, and is counted apart from the
// points with fewer than two trials.
func TestProjectConstant(t *testing.T) {
	s := []results.Summary{
		sum("a", "pm", 1, "em_iterations", 3, math.NaN()),
		sum("a", "pm", 2, "em_iterations", 5, math.NaN()),
		sum("a", "pm", 4, "em_iterations", 7, math.NaN()),
	}
	s[0].SD, s[0].CILo, s[0].CIHi = 0, 3, 3
	s[1].SD = 5e-16 // a mean of equal values, rounded
	s[2].Count, s[2].SD, s[2].CILo, s[2].CIHi = 1, nan, nan, nan
	fig, err := Project(s, Spec{Name: "f", Metric: "em_iterations", X: "eps"})
	if err != nil {
		t.Fatal(err)
	}
	pts := fig.Panels[0].Series[0].Points
	if !pts[0].Constant || !pts[1].Constant || pts[2].Constant || !math.IsNaN(pts[0].Lo) || !math.IsNaN(pts[1].Hi) {
		t.Errorf("points %+v", pts)
	}
	if fig.Constant != 2 || fig.NoCI != 1 {
		t.Errorf("constant %d, no CI %d; want 2 and 1", fig.Constant, fig.NoCI)
	}
}

func TestValidateNewKeys(t *testing.T) {
	ok := Spec{Name: "f", Metric: "mse", X: "config", Series: "method", Categories: []string{"A1", "A2"}, RatioTo: "uwa-oracle"}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid spec: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"categories on log x", func(s *Spec) { s.LogX = true }, `key "categories" cannot go with logx = true`},
		{"x_categorical with a band", func(s *Spec) { s.Categories, s.XCategorical, s.Band = nil, true, true }, `key "x_categorical" cannot go with band = true`},
		{"categories with lines only", func(s *Spec) { s.LinesOnly = true }, `key "categories" cannot go with lines_only = true`},
		{"empty category", func(s *Spec) { s.Categories = []string{"A1", " "} }, `key "categories[1]" is empty`},
		{"repeated category", func(s *Spec) { s.Categories = []string{"A1", "A1"} }, `key "categories[1]" repeats "A1"`},
		{"ratio without series", func(s *Spec) { s.Series = "" }, `key "ratio_to" is "uwa-oracle", but the figure has no series field`},
	} {
		s := ok
		tc.edit(&s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate() = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestFieldLabel(t *testing.T) {
	for _, tc := range []struct{ field, value, want string }{
		{"eps", "4", "ε = 4"}, {"m", "8", "m = 8"}, {"dataset", "taxi", "taxi"}, {"method", "pm", "pm"}, {"", "x", "x"},
	} {
		if got := fieldLabel(tc.field, tc.value); got != tc.want {
			t.Errorf("fieldLabel(%q, %q) = %q, want %q", tc.field, tc.value, got, tc.want)
		}
	}
	for metric, want := range map[string]string{
		"worst_case_ratio": "worst case variance over that of a reference mechanism at the same ε",
		"rmse":             "√(mean squared error (est − truth)² of the estimate)",
		"no-such-metric":   "no-such-metric",
	} {
		if got := metricLabel(metric); got != want {
			t.Errorf("metricLabel(%q) = %q, want %q", metric, got, want)
		}
	}
	if got := fmt.Sprint(metricWhat("rmse", "20 trials")); got != "the square root of the mean over 20 trials of squared error (est − truth)² of the estimate" {
		t.Errorf("metricWhat(rmse) = %q", got)
	}
}

// Every metric's caption clause reads as a noun phrase after "the mean
// over 20 trials of": its parentheses close (a clause cut at a ";" inside
// them is garbled), and it does not start with words that need the
// metric's name before them ("as quantile-mse ...", "compat only: ...").
func TestMetricClausesRead(t *testing.T) {
	for _, name := range metrics.Names {
		c := metricClause(name)
		if strings.Count(c, "(") != strings.Count(c, ")") {
			t.Errorf("%s: clause %q has unbalanced parentheses", name, c)
		}
		for _, bad := range []string{"as ", "compat"} {
			if strings.HasPrefix(c, bad) {
				t.Errorf("%s: clause %q starts with %q", name, c, bad)
			}
		}
	}
}
