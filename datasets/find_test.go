package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func touch(t *testing.T, dir, name string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFindOrder(t *testing.T) {
	// A scratch "module": root/go.mod, root/data, root/../shared/data, and
	// the test runs in root/pkg like a package test.
	top := t.TempDir()
	root := filepath.Join(top, "main")
	touch(t, root, "go.mod")
	pkg := filepath.Join(root, "pkg")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	env := filepath.Join(top, "env")
	base := filepath.Join(top, "base")
	t.Chdir(pkg)
	t.Setenv(EnvData, "")

	touch(t, filepath.Join(top, "shared", "data"), "f.csv")
	check := func(want string) {
		t.Helper()
		got, err := Find("f.csv")
		if err != nil {
			t.Fatal(err)
		}
		if !sameFile(t, got, want) {
			t.Errorf("Find = %s, want %s", got, want)
		}
	}
	check(filepath.Join(top, "shared", "data", "f.csv")) // <root>/../shared/data
	check2 := touch(t, filepath.Join(root, "data"), "f.csv")
	check(check2) // <root>/data beats <root>/../shared/data
	touch(t, filepath.Join(root, "shared", "data"), "f.csv")
	check(filepath.Join(root, "shared", "data", "f.csv")) // ../shared/data from pkg
	touch(t, filepath.Join(pkg, "data"), "f.csv")
	check(filepath.Join(pkg, "data", "f.csv")) // data/ beats ../shared/data

	// base beats the fixed places.
	touch(t, base, "f.csv")
	if got, err := FindIn(base, "f.csv"); err != nil || !sameFile(t, got, filepath.Join(base, "f.csv")) {
		t.Errorf("FindIn(base) = %s, %v", got, err)
	}
	// $LDPBENCH_DATA beats base; a list is searched in order.
	touch(t, env, "f.csv")
	t.Setenv(EnvData, filepath.Join(top, "empty")+string(os.PathListSeparator)+env)
	if got, err := FindIn(base, "f.csv"); err != nil || !sameFile(t, got, filepath.Join(env, "f.csv")) {
		t.Errorf("FindIn with $%s = %s, %v", EnvData, got, err)
	}

	// A name with a separator is tried as given first; an absolute one only
	// as given.
	touch(t, filepath.Join(pkg, "sub"), "g.csv")
	if got, err := Find(filepath.Join("sub", "g.csv")); err != nil || got != filepath.Join("sub", "g.csv") {
		t.Errorf("Find(sub/g.csv) = %s, %v", got, err)
	}
	abs := filepath.Join(env, "f.csv")
	if got, err := Find(abs); err != nil || got != abs {
		t.Errorf("Find(%s) = %s, %v", abs, got, err)
	}
	if _, err := Find(filepath.Join(env, "nope.csv")); !errors.Is(err, ErrNotFound) {
		t.Errorf("absolute missing: err = %v", err)
	}
	// A directory is not a data file.
	if err := os.MkdirAll(filepath.Join(env, "dir.csv"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Find("dir.csv"); !errors.Is(err, ErrNotFound) {
		t.Errorf("directory: err = %v, want ErrNotFound", err)
	}
}

func sameFile(t *testing.T, a, b string) bool {
	t.Helper()
	fa, err := os.Stat(a)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := os.Stat(b)
	if err != nil {
		t.Fatal(err)
	}
	return os.SameFile(fa, fb)
}

func TestFindNotFound(t *testing.T) {
	t.Setenv(EnvData, "")
	_, err := FindIn("somewhere", "no-such-file.dat")
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	msg := err.Error()
	for _, w := range []string{`"no-such-file.dat"`, "$LDPBENCH_DATA (unset)", "somewhere", "data", filepath.Join("..", "shared", "data"), `make data`, "scripts/fetch_data.sh"} {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not mention %q", msg, w)
		}
	}
	if _, err := Find(""); err == nil {
		t.Error("Find(\"\"): no error")
	}
}

// TestFindSharedFromPackageDir: run from this package directory, the module
// root walk finds the shared UCI files.
func TestFindSharedFromPackageDir(t *testing.T) {
	sharedFile(t, "magic04.data")
	t.Setenv(EnvData, "")
	got, err := Find("magic04.data")
	if err != nil {
		t.Fatal(err)
	}
	if !sameFile(t, got, filepath.Join(sharedData, "magic04.data")) {
		t.Errorf("Find = %s, want the file in %s", got, sharedData)
	}
}
