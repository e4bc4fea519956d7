package harness

import (
	"slices"
	"testing"

	"github.com/ldpbench/ldpbench/datasets"
)

// A spec's groups take its stand-ins' labels when they agree (the four
// AQUILA-by-disease attributes: AS, PsA), and none when they do not (by
// disease and by gender) or when no dataset has labels.
func TestGroupLabels(t *testing.T) {
	standin := func(name string) datasets.Spec {
		return datasets.Spec{Name: name, Source: "standin", Standin: name}
	}
	for _, c := range []struct {
		name string
		ds   []datasets.Spec
		want []string
	}{
		{"agree", []datasets.Spec{standin("aquila-disease-age"), standin("aquila-disease-bmi")}, []string{"AS", "PsA"}},
		{"by name", []datasets.Spec{{Name: "aquila-gender-age", Source: "standin"}}, []string{"F", "M"}},
		{"disagree", []datasets.Spec{standin("aquila-disease-age"), standin("aquila-gender-age")}, nil},
		{"no stand-in", []datasets.Spec{{Name: "u", Source: "uniform"}}, nil},
	} {
		s := &Spec{Datasets: c.ds}
		if got := s.GroupLabels(); !slices.Equal(got, c.want) {
			t.Errorf("%s: GroupLabels() = %q, want %q", c.name, got, c.want)
		}
	}
}
