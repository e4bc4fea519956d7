package figures

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	ok := Spec{Name: "mse-vs-eps", Metric: "mse", X: "eps"}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid spec: %v", err)
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
