package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// privateReference matches what a reader of the repository cannot
// follow: "L" and a line number of a private text copy of a paper, a
// section (the sign §) of a private implementation spec, however written
// (after "spec", a paper number or both), an issue number and a private
// paper number. References cite the paper's own section, equation, figure or table, an
// erratum id (docs/errata.md) or a page of docs/. The pattern spells the
// section sign as \x{a7} so that this file does not match itself.
var privateReference = regexp.MustCompile(`\bL[0-9]{2,4}\b|spec \x{a7}|\b[pP][0-9] (spec|\x{a7})|\bspec P[0-9]|\b[Ii]ssue [0-9]+|\bpaper 00[0-4]\b`)

// erratumID is an erratum's id as the code cites it: E<paper>.<n>.
var erratumID = regexp.MustCompile(`\bE[0-4]\.[0-9]+\b`)

// Every tracked source, spec and page of the repository cites only what
// its reader has, and every erratum id it cites is a section of
// docs/errata.md.
func TestReferencesResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	out, err := exec.Command("git", "-C", root, "ls-files").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git checkout)", err)
	}
	errata, err := os.ReadFile(filepath.Join(root, "docs", "errata.md"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range strings.Fields(string(out)) {
		switch filepath.Ext(name) {
		case ".go", ".toml", ".md", ".sh", ".py", ".yaml", ".yml":
		default:
			if filepath.Base(name) != "Makefile" {
				continue
			}
		}
		if strings.Contains(name, "/testdata/") {
			continue
		}
		f, err := os.Open(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for line := 1; sc.Scan(); line++ {
			if m := privateReference.FindString(sc.Text()); m != "" {
				t.Errorf("%s:%d: %q cites what a reader does not have: %s", name, line, m, strings.TrimSpace(sc.Text()))
			}
			for _, id := range erratumID.FindAllString(sc.Text(), -1) {
				if !strings.Contains(string(errata), "\n### "+id+"\n") {
					t.Errorf("%s:%d: erratum %s is not in docs/errata.md", name, line, id)
				}
			}
		}
		f.Close()
		checked++
	}
	if checked < 300 {
		t.Errorf("checked %d files; the repository has more than 300", checked)
	}
}
