package runs_test

import (
	"io/fs"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/runs"
)

// TestEmbedded: the binary carries every spec of runs/, byte for byte, and
// each one loads. Catches a spec added beside the embed pattern's reach and
// an embedded copy that differs from the file.
func TestEmbedded(t *testing.T) {
	onDisk, _ := filepath.Glob("*.toml")
	embedded, err := fs.Glob(runs.FS, "*.toml")
	if err != nil || len(onDisk) < 60 || !slices.Equal(onDisk, embedded) {
		t.Fatalf("%d specs on disk, %d embedded (%v)", len(onDisk), len(embedded), err)
	}
	hashes := map[string]string{}
	for _, name := range onDisk {
		s, err := harness.LoadSpec(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		hashes[name] = s.Hash()
	}
	// Away from the module, a name finds the shipped copy.
	t.Chdir(t.TempDir())
	for _, name := range embedded {
		s, err := harness.OpenSpec(name, runs.FS)
		if err != nil || s.Hash() != hashes[name] || s.Path != "runs/"+name+harness.ShippedSuffix {
			t.Errorf("%s: the shipped spec differs: %v", name, err)
		}
	}
}
