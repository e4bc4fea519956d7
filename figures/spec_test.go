package figures

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func TestValidate(t *testing.T) {
	ok := Spec{Name: "mse-vs-eps", Metric: "mse", X: "eps"}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid spec: %v", err)
	}
	ref := Reference{Label: "paper", X: []float64{0.5, 1}, Y: []float64{2, 1}}
	withRef := ok
	withRef.Series, withRef.Panel, withRef.LogX, withRef.LogY = "method", "dataset", true, true
	withRef.References = []Reference{ref, {Label: "paper, pm", Series: "pm", Panel: "adult", X: []float64{1}, Y: []float64{1}}}
	if err := withRef.Validate(); err != nil {
		t.Fatalf("valid spec with references: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"no name", func(s *Spec) { s.Name = "" }, `figure "": key "name" is required`},
		{"path name", func(s *Spec) { s.Name = "out/fig" }, `key "name" must be a file stem`},
		{"dot name", func(s *Spec) { s.Name = ".." }, `key "name" must be a file stem`},
		{"no metric", func(s *Spec) { s.Metric = "" }, `figure "mse-vs-eps": key "metric" is required`},
		{"no x", func(s *Spec) { s.X = "" }, `figure "mse-vs-eps": key "x" is required`},
		{"series is x", func(s *Spec) { s.Series = "eps" }, `key "series" repeats the x field "eps"`},
		{"panel is series", func(s *Spec) { s.Series, s.Panel = "method", "method" }, `key "panel" repeats`},
		{"empty filter", func(s *Spec) { s.Filter = map[string][]string{"method": {}} }, `key "filter.method" has an empty list`},
		{"negative columns", func(s *Spec) { s.Columns = -1 }, `key "columns" must be >= 0`},
		{"unknown format", func(s *Spec) { s.Formats = []string{"svg", "jpeg"} }, `key "formats" has unknown format "jpeg" (known: svg, png, pdf)`},
		{"repeated format", func(s *Spec) { s.Formats = []string{"png", "png"} }, `key "formats" repeats "png"`},
		{"reference without label", func(s *Spec) { s.References = []Reference{{X: []float64{1}, Y: []float64{2}}} },
			`figure "mse-vs-eps": key "reference[0].label" is required`},
		{"reference without points", func(s *Spec) { s.References = []Reference{{Label: "paper"}} },
			`key "reference[0].x" needs at least one value`},
		{"reference lengths differ", func(s *Spec) {
			s.References = []Reference{ref, {Label: "paper", X: []float64{1, 2}, Y: []float64{3}}}
		}, `key "reference[1].y" has 1 values, x has 2`},
		{"reference y not finite", func(s *Spec) { s.References = []Reference{{Label: "paper", X: []float64{1}, Y: []float64{math.NaN()}}} },
			`key "reference[0].y[0]" must be finite, got NaN`},
		{"reference x infinite", func(s *Spec) {
			s.References = []Reference{{Label: "paper", X: []float64{1, math.Inf(1)}, Y: []float64{1, 2}}}
		}, `key "reference[0].x[1]" must be finite, got +Inf`},
		{"reference y zero on log y", func(s *Spec) {
			s.LogY, s.References = true, []Reference{{Label: "paper", X: []float64{1}, Y: []float64{0}}}
		},
			`key "reference[0].y[0]" must be > 0 on a log axis, got 0`},
		{"reference x negative on log x", func(s *Spec) {
			s.LogX, s.References = true, []Reference{{Label: "paper", X: []float64{-1}, Y: []float64{1}}}
		},
			`key "reference[0].x[0]" must be > 0 on a log axis, got -1`},
		{"reference series without series field", func(s *Spec) {
			s.References = []Reference{{Label: "paper", Series: "pm", X: []float64{1}, Y: []float64{1}}}
		},
			`key "reference[0].series" is "pm", but the figure has no series field`},
		{"reference panel without panel field", func(s *Spec) {
			s.References = []Reference{{Label: "paper", Panel: "adult", X: []float64{1}, Y: []float64{1}}}
		},
			`key "reference[0].panel" is "adult", but the figure has no panel field`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := ok
			tc.edit(&s)
			err := s.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestValidateReportsEveryKey(t *testing.T) {
	err := Spec{Name: "f"}.Validate()
	for _, key := range []string{`key "metric"`, `key "x"`} {
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("Validate() = %v, want it to name %s", err, key)
		}
	}
}

func TestColumns(t *testing.T) {
	for _, tc := range []struct{ columns, panels, want int }{
		{0, 1, 1}, {0, 2, 2}, {0, 3, 3}, {0, 7, 3}, {2, 7, 2}, {5, 2, 2},
	} {
		if got := (Spec{Columns: tc.columns}).columns(tc.panels); got != tc.want {
			t.Errorf("columns=%d, %d panels: got %d, want %d", tc.columns, tc.panels, got, tc.want)
		}
	}
}

// TestReferenceTOML reads references in the form the specs in runs/ use.
func TestReferenceTOML(t *testing.T) {
	const src = `
name = "seconds-vs-m"
metric = "aggregation_seconds"
x = "m"
series = "n"
logy = true

[[reference]]
label = "paper (RTX 3090), n=1M"
series = "1000000"
x = [4, 8, 12, 16]
y = [3.45, 6.73, 9.87, 13.16]
`
	var s Spec
	md, err := toml.Decode(src, &s)
	if err != nil {
		t.Fatal(err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		t.Fatalf("undecoded keys %v", u)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	want := Reference{Label: "paper (RTX 3090), n=1M", Series: "1000000",
		X: []float64{4, 8, 12, 16}, Y: []float64{3.45, 6.73, 9.87, 13.16}}
	if len(s.References) != 1 || !slices.Equal(s.References[0].X, want.X) || !slices.Equal(s.References[0].Y, want.Y) ||
		s.References[0].Label != want.Label || s.References[0].Series != want.Series {
		t.Errorf("references %+v, want [%+v]", s.References, want)
	}
}
