package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/harness"
)

// `run --shard i/N` then `merge` on a shipped spec (multiservice-fig8a:
// paired seeding, claims, a ratio figure) gives the single run's bytes,
// PNGs included, and the claims table; catches a CLI that drops --shard,
// merges without the claims, or runs a shard into the single run's
// directory.
func TestShardMergeCLI(t *testing.T) {
	root := t.TempDir()
	single := filepath.Join(root, "single")
	if _, err := runCLI(t, "run", "multiservice-fig8a", "--quick", "-j", "2", "--out", single); err != nil {
		t.Fatal(err)
	}
	const n = 3
	var dirs []string
	for i := 0; i < n; i++ {
		d := filepath.Join(root, "shard"+strconv.Itoa(i))
		out, err := runCLI(t, "run", "multiservice-fig8a", "--quick", "-j", "2", "--shard", strconv.Itoa(i)+"/"+strconv.Itoa(n), "--out", d)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "shard "+strconv.Itoa(i)+"/3") {
			t.Errorf("shard %d's output does not name it: %s", i, out)
		}
		dirs = append(dirs, d)
	}
	merged := filepath.Join(root, "merged")
	out, err := runCLI(t, append([]string{"merge", merged}, dirs...)...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "claims.csv") {
		t.Errorf("merge did not report the claims:\n%s", out)
	}
	ents, _ := os.ReadDir(single)
	for _, e := range ents {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") || e.Name() == harness.TimesFile {
			continue // times.csv holds the machine's times, not results
		}
		want, _ := os.ReadFile(filepath.Join(single, e.Name()))
		got, err := os.ReadFile(filepath.Join(merged, e.Name()))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("merged %s differs from the single run's (%v)", e.Name(), err)
		}
	}
	if _, err := runCLI(t, "run", "multiservice-fig8a", "--shard", "3/3"); err == nil || !strings.Contains(err.Error(), "0 ≤ i < N") {
		t.Errorf("--shard 3/3: %v, want a refusal", err)
	}
}
