package main

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// shared holds the quick runs that several tests read (quickRun), made
// once per test process: mean-synthetic's quick run takes about 2 s.
var shared struct {
	mu   sync.Mutex
	root string
	dirs map[string]string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.root != "" {
		os.RemoveAll(shared.root)
	}
	os.Exit(code)
}

// quickRun returns a directory of the test's own holding the outputs of
// `ldpbench run SPEC --quick -j 2` (SPEC a shipped name). The run is made
// once per process and copied, so a test may change its copy.
func quickRun(t *testing.T, spec string) string {
	t.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	src, ok := shared.dirs[spec]
	if !ok {
		if shared.root == "" {
			root, err := os.MkdirTemp("", "ldpbench-quick")
			if err != nil {
				t.Fatal(err)
			}
			shared.root, shared.dirs = root, map[string]string{}
		}
		src = filepath.Join(shared.root, spec)
		if out, err := runCLI(t, "run", spec, "--quick", "-j", "2", "--out", src); err != nil {
			os.RemoveAll(src)
			t.Fatalf("run %s --quick: %v\n%s", spec, err, out)
		}
		shared.dirs[spec] = src
	}
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
