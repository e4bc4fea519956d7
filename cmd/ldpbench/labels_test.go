package main

import (
	"path/filepath"
	"testing"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/figures"
	"github.com/ldpbench/ldpbench/harness"
)

// Every method of a shipped spec that a figure draws as a series has a
// name a reader of its paper knows, with a look of its own (the same in
// every figure): the kind's label, or the figure's own labels key. A new
// method whose legend would read "central-alg3-lap" or "single-1", or that
// would take its colour from its place in the figure, fails here.
func TestShippedMethodsNamed(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "runs", "*.toml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no specs: %v", err)
	}
	plain := map[string]bool{"non-private": true} // the paper's own word
	checked := 0
	for _, f := range files {
		s, err := harness.LoadSpec(f)
		if err != nil {
			t.Fatal(err)
		}
		kind, err := kinds.Lookup(s.Kind)
		if err != nil {
			t.Fatal(err)
		}
		methods := s.Axes.Method
		if len(methods) == 1 && methods[0] == "*" {
			if l, ok := kind.(experiment.MethodLister); ok {
				methods = l.AllMethods()
			}
		}
		for _, fig := range s.Figures {
			if fig.Series != "method" {
				continue
			}
			for _, m := range methods {
				if want := fig.Filter["method"]; len(want) > 0 && !contains(want, m) {
					continue
				}
				label, own := fig.Labels[m]
				if !own {
					label = experiment.Label(kind, m)
				}
				checked++
				switch {
				case label == m && !plain[m]:
					t.Errorf("%s, figure %s: method %s has no label (a kind's MethodLabel, a mechanism's Label or the figure's labels key)", s.Name, fig.Name, m)
				case !own && !figures.HasLook(label):
					t.Errorf("%s, figure %s: method %s's label %q has no look in figures/looks.go", s.Name, fig.Name, m, label)
				}
			}
		}
	}
	t.Logf("%d (figure, method) pairs", checked)
	if checked < 600 {
		t.Errorf("checked %d (figure, method) pairs; the shipped specs have more than 600", checked)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
