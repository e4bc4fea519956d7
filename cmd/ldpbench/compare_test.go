package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const claimsSpec = `name = "claims-tiny"
kind = "mean"
seed = 7
trials = 6
metrics = ["mse"]

[axes]
method = ["duchi", "pm"]
eps = [0.5, 4]
n = [500]

[[datasets]]
name = "uniform"
source = "uniform"
lo = -1.0
hi = 1.0

[[claims]]
source = "test, PM over SR"
metric = "mse"
method = "pm"
against = "duchi"
paper_min = 0
paper_max = 100
`

// compare recomputes claims.csv from the output directory alone, byte for
// byte as the run wrote it.
func TestCompareMatchesRun(t *testing.T) {
	dir := t.TempDir()
	specPath := filepath.Join(dir, "claims-tiny.toml")
	if err := os.WriteFile(specPath, []byte(claimsSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	log, err := runCLI(t, "run", specPath, "--out", out, "-j", "2")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, log)
	}
	for _, want := range []string{"test, PM over SR", "paired-delta", "claims.csv"} {
		if !strings.Contains(log, want) {
			t.Errorf("run output lacks %q:\n%s", want, log)
		}
	}
	claimsPath := filepath.Join(out, "claims.csv")
	fromRun, err := os.ReadFile(claimsPath)
	if err != nil {
		t.Fatal(err)
	}
	// One cell row per eps and one summary row, under a header.
	if lines := strings.Count(string(fromRun), "\n"); lines != 4 {
		t.Errorf("claims.csv has %d lines, want 4:\n%s", lines, fromRun)
	}
	if err := os.Remove(claimsPath); err != nil {
		t.Fatal(err)
	}
	log2, err := runCLI(t, "compare", out)
	if err != nil {
		t.Fatalf("compare: %v\n%s", err, log2)
	}
	fromCompare, err := os.ReadFile(claimsPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fromRun, fromCompare) {
		t.Errorf("compare differs from run:\nrun:\n%s\ncompare:\n%s", fromRun, fromCompare)
	}
	if !strings.HasPrefix(log2, strings.SplitN(log, "\n", 2)[1]) {
		t.Errorf("compare printed\n%s\nwant the run's table\n%s", log2, log)
	}

	// Claims added after the run: --spec takes them from another file.
	noClaims := filepath.Join(dir, "out2")
	bare := strings.SplitN(claimsSpec, "[[claims]]", 2)[0]
	if err := os.WriteFile(specPath, []byte(bare), 0o644); err != nil {
		t.Fatal(err)
	}
	if log, err := runCLI(t, "run", specPath, "--out", noClaims, "-j", "2"); err != nil || strings.Contains(log, "claims.csv") {
		t.Fatalf("run without claims: %v\n%s", err, log)
	}
	if _, err := runCLI(t, "compare", noClaims); err == nil || !strings.Contains(err.Error(), "no [[claims]]") {
		t.Errorf("compare without claims: %v", err)
	}
	withClaims := filepath.Join(dir, "with.toml")
	if err := os.WriteFile(withClaims, []byte(claimsSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	if log, err := runCLI(t, "compare", noClaims, "--spec", withClaims); err != nil {
		t.Fatalf("compare --spec: %v\n%s", err, log)
	}
	other := filepath.Join(dir, "other.toml")
	if err := os.WriteFile(other, []byte(strings.Replace(claimsSpec, "claims-tiny", "other", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, "compare", noClaims, "--spec", other); err == nil || !strings.Contains(err.Error(), `holds experiment "claims-tiny", not "other"`) {
		t.Errorf("compare with another spec's claims: %v", err)
	}
	fromSpec, err := os.ReadFile(filepath.Join(noClaims, "claims.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fromRun, fromSpec) {
		t.Errorf("compare --spec differs from run:\n%s\n%s", fromRun, fromSpec)
	}
}
