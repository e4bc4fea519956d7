package main

import (
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocMatchesUsage keeps the usage in one source, as x/perf's
// cmd/benchstat does: doc.go's package comment holds the text of
// 'ldpbench help' from "Usage:" on, word for word. Catches a command added,
// renamed or re-described without its documentation.
func TestDocMatchesUsage(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	doc := f.Doc.Text()
	usage := topUsage()
	want := usage[strings.Index(usage, "Usage:"):]
	if !strings.Contains(doc, want) {
		t.Errorf("doc.go's comment does not hold the usage; put this after its first paragraph:\n%s", want)
	}
}

// TestReadmeListsCommands: the README's command-line section has one line
// per command, its usage line, and no other. Catches a command missing from
// the README or one the README still shows after it is gone or renamed.
func TestReadmeListsCommands(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(raw)
	i := strings.Index(section, "## The command line")
	if i < 0 {
		t.Fatal(`README.md has no "## The command line" section`)
	}
	section = section[i:]
	if j := strings.Index(section[3:], "\n## "); j >= 0 {
		section = section[:j+3]
	}
	var got, want []string
	for _, l := range strings.Split(section, "\n") {
		if m := regexp.MustCompile(`^ldpbench [a-z]+.*?(\s+#|$)`).FindString(l); m != "" {
			got = append(got, strings.TrimSpace(strings.TrimSuffix(m, "#")))
		}
	}
	for _, c := range append(slices.Clone(commands), helpCommand) {
		want = append(want, c.usageLine())
	}
	if !slices.Equal(got, want) {
		t.Errorf("README's command lines:\n%s\nwant, in this order:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCIRecipeIsRun: every command of the CI recipes in docs/ci.md (the
// GitHub "- run:" steps and the GitLab script lines) is a command that
// .ci/run runs, up to the specs named, so that the recipe cannot rot
// without this repository's CI failing first.
func TestCIRecipeIsRun(t *testing.T) {
	doc, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	specs := regexp.MustCompile(`SPECS_ONLY="[^"]*"`)
	var run []string
	for _, l := range strings.Split(string(ci), "\n") {
		run = append(run, specs.ReplaceAllString(strings.TrimSpace(l), `SPECS_ONLY=""`))
	}
	step := regexp.MustCompile(`^\s*- (?:run: )?(make .*)$`)
	n := 0
	for _, l := range strings.Split(string(doc), "\n") {
		m := step.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		n++
		if cmd := specs.ReplaceAllString(m[1], `SPECS_ONLY=""`); !slices.Contains(run, cmd) {
			t.Errorf("docs/ci.md runs %q, which .ci/run does not", m[1])
		}
	}
	if n < 4 {
		t.Errorf("docs/ci.md has %d recipe steps, want the GitHub and the GitLab ones (≥ 4)", n)
	}
}
