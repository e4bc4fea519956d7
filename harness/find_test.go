package harness

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ldpbench/ldpbench/figures"
)

func specText(name, title string) string {
	return `name = "` + name + `"
title = "` + title + `"
kind = "mean"
seed = 1
trials = 2
metrics = ["mse"]
[axes]
method = ["duchi"]
eps = [1]
n = [10]
[[datasets]]
name = "u"
source = "uniform"
`
}

// TestOpenSpecPrecedence: a file wins, then runs/ in the working
// directory, then the shipped specs; a shipped spec keeps its bytes (they
// are copied into the run's directory) and names itself in errors as
// shipped. Catches the shipped copy shadowing a user's edited runs/, a
// path argument looked up by name, and a missing spec not named.
func TestOpenSpecPrecedence(t *testing.T) {
	shipped := fstest.MapFS{
		"a.toml":   {Data: []byte(specText("a", "shipped a"))},
		"b.toml":   {Data: []byte(specText("b", "shipped b"))},
		"bad.toml": {Data: []byte(specText("bad", "bad") + "typo = 1\n")},
	}
	dir := t.TempDir()
	t.Chdir(dir)
	if _, ok := moduleRoot(); ok {
		t.Skip("the temporary directory lies inside a Go module")
	}

	s, err := OpenSpec("a", shipped)
	if err != nil || s.Title != "shipped a" || s.Path != "runs/a.toml"+ShippedSuffix {
		t.Fatalf("shipped a: %+v, %v", s, err)
	}
	if string(s.raw) != specText("a", "shipped a") {
		t.Errorf("shipped a keeps %q, not its text", s.raw)
	}
	if _, err := OpenSpec("bad.toml", shipped); err == nil || !strings.Contains(err.Error(), "runs/bad.toml (shipped)") || !strings.Contains(err.Error(), "typo") {
		t.Errorf("a bad shipped spec: %v", err)
	}
	if _, err := OpenSpec("nope", shipped); err == nil || !strings.Contains(err.Error(), "list specs") {
		t.Errorf("an unknown spec: %v", err)
	}
	if _, err := OpenSpec("elsewhere/a.toml", shipped); err == nil {
		t.Errorf("a path that does not exist was taken for a shipped spec's name")
	}
	l, err := ListSpecs(shipped)
	if err != nil || l.Dir != "" || !slices.Equal(l.Names, []string{"a", "b", "bad"}) || !strings.Contains(l.From(), "shipped") {
		t.Errorf("ListSpecs without runs/: %+v, %v", l, err)
	}

	// A local runs/ wins over the shipped specs, and is what list shows.
	os.Mkdir("runs", 0o755)
	os.WriteFile(filepath.Join("runs", "a.toml"), []byte(specText("a", "local a")), 0o644)
	if s, err := OpenSpec("a", shipped); err != nil || s.Title != "local a" || s.Path != filepath.Join("runs", "a.toml") {
		t.Errorf("local runs/a.toml: %+v, %v", s, err)
	}
	if s, err := OpenSpec("elsewhere/a.toml", shipped); err != nil || s.Title != "local a" {
		t.Errorf("runs/ is searched by base name: %+v, %v", s, err)
	}
	if s, err := OpenSpec("b", shipped); err != nil || s.Title != "shipped b" {
		t.Errorf("b, shipped only: %+v, %v", s, err)
	}
	if l, err := ListSpecs(shipped); err != nil || l.Dir != "runs" || !slices.Equal(l.Names, []string{"a"}) {
		t.Errorf("ListSpecs with runs/: %+v, %v", l, err)
	}
	// A file given by path wins over both.
	os.WriteFile("mine.toml", []byte(specText("a", "mine")), 0o644)
	if s, err := OpenSpec("mine.toml", shipped); err != nil || s.Title != "mine" {
		t.Errorf("a file: %+v, %v", s, err)
	}
	if s, err := OpenSpec("a", nil); err != nil || s.Title != "local a" {
		t.Errorf("no shipped specs: %+v, %v", s, err)
	}
}

// TestTitledFigures: a figure without a title of its own takes its spec's
// (the fl figures had none, and a quick run showed only its scale); one
// with a title keeps it, and the spec's figures are not changed. Catches
// the fallback missing, overriding a figure's own title, or written into
// the spec (its hash and copy would change).
func TestTitledFigures(t *testing.T) {
	s := &Spec{Title: "Zhao et al. Fig. 9", Figures: []figures.Spec{{Name: "a"}, {Name: "b", Title: "own"}}}
	got := s.TitledFigures()
	if got[0].Title != "Zhao et al. Fig. 9" || got[1].Title != "own" || s.Figures[0].Title != "" {
		t.Errorf("titles %q, %q; the spec's first now %q", got[0].Title, got[1].Title, s.Figures[0].Title)
	}
}
