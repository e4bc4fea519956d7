package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/datasets/datatest"
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
	t.Setenv(EnvNoShared, "") // the developer's order, ../shared/data included

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
	t.Setenv(EnvNoShared, "")
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

// TestFindNoShared: with $LDPBENCH_NO_SHARED set, FindIn never returns a
// file of ../shared/data or <root>/../shared/data, while data/,
// <root>/data, base and $LDPBENCH_DATA still count; unset (or empty), both
// shared directories are searched. A scratch module as in TestFindOrder:
// top/main/go.mod, the test in top/main/pkg, so that ../shared/data is
// top/main/shared/data and <root>/../shared/data is top/shared/data. Catches
// the variable ignored (the shared files are found with it set), only one
// of the two shared directories dropped, and the other places dropped with
// them.
func TestFindNoShared(t *testing.T) {
	top := t.TempDir()
	root := filepath.Join(top, "main")
	touch(t, root, "go.mod")
	pkg := filepath.Join(root, "pkg")
	env := filepath.Join(top, "env")
	base := filepath.Join(top, "base")
	rootShared := touch(t, filepath.Join(top, "shared", "data"), "root-shared.csv") // <root>/../shared/data
	relShared := touch(t, filepath.Join(root, "shared", "data"), "rel-shared.csv")  // ../shared/data from pkg
	touch(t, filepath.Join(top, "shared", "data"), "both.csv")
	both := touch(t, filepath.Join(root, "shared", "data"), "both.csv")
	inData := touch(t, filepath.Join(pkg, "data"), "in-data.csv")
	inRootData := touch(t, filepath.Join(root, "data"), "in-root-data.csv")
	inEnv := touch(t, env, "in-env.csv")
	inBase := touch(t, base, "in-base.csv")
	// In data/ and in ../shared/data: data/ wins either way.
	dataFirst := touch(t, filepath.Join(pkg, "data"), "data-first.csv")
	touch(t, filepath.Join(root, "shared", "data"), "data-first.csv")
	t.Chdir(pkg)
	t.Setenv(EnvData, env)

	for _, tc := range []struct {
		noShared string
		name     string
		want     string // "" = not found
	}{
		{"", "root-shared.csv", rootShared},
		{"", "rel-shared.csv", relShared},
		{"", "both.csv", both}, // ../shared/data before <root>/../shared/data
		{"1", "root-shared.csv", ""},
		{"1", "rel-shared.csv", ""},
		{"1", "both.csv", ""},
		{"yes", "root-shared.csv", ""},
		{"0", "rel-shared.csv", ""}, // any non-empty value, even "0"
		{"1", "in-data.csv", inData},
		{"1", "in-root-data.csv", inRootData},
		{"1", "in-env.csv", inEnv},
		{"1", "in-base.csv", inBase},
		{"1", "data-first.csv", dataFirst},
		{"", "data-first.csv", dataFirst},
		{"", "in-env.csv", inEnv},
	} {
		t.Run(tc.noShared+"/"+tc.name, func(t *testing.T) {
			t.Setenv(EnvNoShared, tc.noShared)
			got, err := FindIn(base, tc.name)
			if tc.want == "" {
				if !errors.Is(err, ErrNotFound) {
					t.Fatalf("$%s=%q: FindIn(%s) = %s, %v; want ErrNotFound", EnvNoShared, tc.noShared, tc.name, got, err)
				}
				if !strings.Contains(err.Error(), "$"+EnvNoShared+" is set") {
					t.Errorf("error %q does not say $%s is set", err, EnvNoShared)
				}
				rel := filepath.Join("..", "shared", "data")
				if msg := err.Error(); strings.Contains(msg, filepath.Join(top, "shared")) || strings.Contains(msg, filepath.Join(root, "shared")) ||
					strings.Contains(msg, rel+",") || strings.Contains(msg, rel+";") {
					t.Errorf("error %q lists a shared directory as looked at", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("$%s=%q: FindIn(%s): %v", EnvNoShared, tc.noShared, tc.name, err)
			}
			if !sameFile(t, got, tc.want) {
				t.Errorf("$%s=%q: FindIn(%s) = %s, want %s", EnvNoShared, tc.noShared, tc.name, got, tc.want)
			}
		})
	}
}

// TestFindSharedFromPackageDir: run from this package directory, the module
// root walk finds the UCI files of a developer's ../shared/data (skipped
// where there is none, as in a user's clone, and with $LDPBENCH_NO_SHARED
// set, which stops the loaders from looking there).
func TestFindSharedFromPackageDir(t *testing.T) {
	if v := os.Getenv(EnvNoShared); v != "" {
		t.Skipf("$%s=%s: the loaders do not look in ../shared/data", EnvNoShared, v)
	}
	p := filepath.Join(sharedData, "magic04.data")
	if !isFile(p) {
		t.Skipf("%s absent: ../shared/data exists only beside a developer checkout", p)
	}
	t.Setenv(EnvData, "")
	got, err := Find("magic04.data")
	if err != nil {
		t.Fatal(err)
	}
	if !sameFile(t, got, p) {
		t.Errorf("Find = %s, want the file in %s", got, sharedData)
	}
}

// TestDatatestEnv: the fixture helper sets the variable the loaders read.
func TestDatatestEnv(t *testing.T) {
	if datatest.EnvData != EnvData {
		t.Errorf("datatest.EnvData = %q, want %q", datatest.EnvData, EnvData)
	}
	dir := datatest.Use(t)
	for _, f := range datatest.Files() {
		if got, err := Find(f.Name); err != nil || !sameFile(t, got, filepath.Join(dir, f.Name)) {
			t.Errorf("Find(%s) = %s, %v; want the fixture in %s", f.Name, got, err, dir)
		}
	}
}
