package metrics

import (
	"slices"
	"strings"
	"testing"
)

func TestNames(t *testing.T) {
	// The names the experiment specs use (runs/, docs/specs.md, ERRATA E0.2
	// and E4.1) must all be present.
	for _, name := range []string{
		"mse", "abs", "scaled-abs", "w1", "js-div", "js-dist", "kl",
		"var-mse", "quantile-mse", "w1-authors",
	} {
		if !slices.Contains(Names, name) {
			t.Errorf("Names lacks %q", name)
		}
	}
	seen := map[string]bool{}
	for _, name := range Names {
		if seen[name] {
			t.Errorf("Names lists %q twice", name)
		}
		seen[name] = true
		if d, ok := Describe(name); !ok || d == "" {
			t.Errorf("Describe(%q) = %q, %v", name, d, ok)
		}
	}
	for _, d := range Derived {
		if seen[d.Name] {
			t.Errorf("derived metric %q is also a per-trial name", d.Name)
		}
		seen[d.Name] = true
		if !slices.Contains(Names, d.From) {
			t.Errorf("derived metric %q comes from unknown %q", d.Name, d.From)
		}
		if desc, ok := Describe(d.Name); !ok || !strings.Contains(desc, d.From) {
			t.Errorf("Describe(%q) = %q, %v; want a description naming %q", d.Name, desc, ok, d.From)
		}
	}
	if len(seen) != len(descriptions) {
		t.Errorf("%d described metrics, %d listed in Names and Derived", len(descriptions), len(seen))
	}
	for _, bad := range []string{"", "rmse ", "MSE", "js", "wasserstein"} {
		if _, ok := Describe(bad); ok {
			t.Errorf("Describe(%q) reports a known metric", bad)
		}
	}
}
