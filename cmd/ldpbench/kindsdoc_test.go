package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/experiment"
)

var updateKinds = flag.Bool("update", false, "rewrite docs/kinds.md from the kinds' descriptions")

// docs/kinds.md is what writeKinds prints for the registered kinds: a kind
// whose methods or params change changes the page in the same commit
// (go test ./cmd/ldpbench -run TestKindsDocCurrent -update).
func TestKindsDocCurrent(t *testing.T) {
	var b bytes.Buffer
	writeKinds(&b, kinds, true)
	path := filepath.Join("..", "..", "docs", "kinds.md")
	if *updateKinds {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, b.Bytes()) {
		t.Errorf("docs/kinds.md is not what the kinds describe: run go test ./cmd/ldpbench -run TestKindsDocCurrent -update")
	}
}

// Every registered kind describes its methods, each with a name and a
// sentence, and `list kinds -v` prints them with the params: the command,
// the page and the code have one source.
func TestEveryKindDescribesMethods(t *testing.T) {
	for _, k := range kinds {
		d, ok := k.(experiment.MethodDescriber)
		if !ok || len(d.Methods()) == 0 {
			t.Errorf("kind %s does not describe its methods (experiment.MethodDescriber)", k.Name())
			continue
		}
		for _, m := range d.Methods() {
			if m.Name == "" || len(m.Doc) < 20 || !strings.HasSuffix(m.Doc, ".") {
				t.Errorf("kind %s: method %q: doc %q is not a sentence", k.Name(), m.Name, m.Doc)
			}
		}
	}
	var out, errOut strings.Builder
	if err := run(t.Context(), kinds, []string{"list", "kinds", "-v"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"multiservice\n", "  method uwa: User-level weighted averaging", "  method single-<s>: ", "  params.services ("} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("list kinds -v lacks %q", want)
		}
	}
}
