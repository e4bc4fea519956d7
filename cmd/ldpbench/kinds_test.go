package main

import (
	"go/build"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/compare"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/metrics"
)

// Every shipped spec loads, names a registered kind, asks for metrics the
// kind measures and package metrics describes, and has valid claims; the
// multi-service figure specs with a stated improvement in the paper carry
// [[claims]].
func TestShippedSpecsCheck(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "runs", "*.toml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no specs: %v", err)
	}
	withClaims := map[string]bool{}
	for _, f := range files {
		s, err := harness.LoadSpec(f)
		if err != nil {
			t.Error(err)
			continue
		}
		kind, err := s.Check(kinds)
		if err != nil {
			t.Error(err)
			continue
		}
		if err := compare.Validate(s, kind); err != nil {
			t.Error(err)
		}
		if len(s.Claims) > 0 {
			withClaims[s.Name] = true
		}
	}
	for _, name := range []string{"multiservice-fig4", "multiservice-fig4-dist", "multiservice-fig5",
		"multiservice-fig5-dist", "multiservice-fig6a", "multiservice-fig6b", "multiservice-fig7b",
		"multiservice-fig7c", "multiservice-fig7d", "multiservice-fig8", "multiservice-fig8d"} {
		if !withClaims[name] {
			t.Errorf("%s has no [[claims]]", name)
		}
	}
}

// Every registered kind's metrics are in the metrics vocabulary, and its
// parameters are documented; no two kinds share a name.
func TestRegisteredKinds(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range kinds {
		if seen[k.Name()] {
			t.Errorf("kind %q registered twice", k.Name())
		}
		seen[k.Name()] = true
		for _, m := range k.Metrics() {
			if !slices.Contains(metrics.Names, m) {
				t.Errorf("kind %s: metric %q is not in metrics.Names", k.Name(), m)
			}
		}
		for _, p := range k.Params() {
			if p.Doc == "" {
				t.Errorf("kind %s: params.%s has no Doc", k.Name(), p.Key)
			}
		}
	}
}

// Imports point down (README, Layout): the runner knows no kind, a kind
// knows no runner (outside its tests), the contract knows neither, and
// mechanisms import nothing of the project but leaf helpers under
// internal/ (packages that import nothing of it). A file moved the wrong way
// fails here rather than in review.
func TestImportsPointDown(t *testing.T) {
	const mod = "github.com/ldpbench/ldpbench/"
	forbid := map[string][]string{
		"harness":            {"kinds/", "compare", "estimators", "mechanisms"},
		"experiment":         {"harness", "kinds/", "compare", "estimators"}, // mechanisms: a kind states its needs as capabilities (experiment.MethodNeeds)
		"kinds/mean":         {"harness", "compare"},
		"kinds/multiservice": {"harness", "compare"},
		"mechanisms":         {""},
		"estimators":         {"harness", "kinds/", "experiment"},
	}
	for dir, bad := range forbid {
		pkg, err := build.ImportDir(filepath.Join("..", "..", dir), 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range pkg.Imports {
			rest, ok := strings.CutPrefix(imp, mod)
			if !ok {
				continue
			}
			if strings.HasPrefix(rest, "internal/") && isLeaf(t, rest, mod) {
				continue // a leaf helper (internal/binomial) sits below every layer
			}
			for _, b := range bad {
				if strings.HasPrefix(rest, b) {
					t.Errorf("%s imports %s", dir, imp)
				}
			}
		}
	}
}

// isLeaf reports whether the module's package at dir imports no package
// of the module.
func isLeaf(t *testing.T, dir, mod string) bool {
	t.Helper()
	pkg, err := build.ImportDir(filepath.Join("..", "..", dir), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if strings.HasPrefix(imp, mod) {
			return false
		}
	}
	return true
}
