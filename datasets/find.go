package datasets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// EnvData is the environment variable that Find consults first: a directory,
// or a list of directories separated by the OS path-list separator (':' on
// Unix).
const EnvData = "LDPBENCH_DATA"

// EnvNoShared is the environment variable that, set to any non-empty value
// (e.g. 1), stops FindIn from looking in ../shared/data and
// <root>/../shared/data. Those directories exist only beside a developer
// checkout, never in a user's clone, so a test that passes only because of
// them passes for developers and fails for users. CI runs `make test` with
// LDPBENCH_NO_SHARED=1 so that CI sees what a user sees; data/, $LDPBENCH_DATA
// and the base directory are still searched.
const EnvNoShared = "LDPBENCH_NO_SHARED"

// ErrNotFound is wrapped by the errors of Find and FindIn (and so of
// Spec.Build) when a data file is missing: the harness skips such a dataset
// (errors.Is(err, ErrNotFound)) instead of failing the run.
var ErrNotFound = errors.New("data file not found")

// Find locates the data file name and returns a path to it; see FindIn.
func Find(name string) (string, error) { return FindIn("", name) }

// FindIn locates the data file name. An absolute name is only checked. A
// relative name is tried, in this order:
//
//  1. as given, relative to the current directory, if it contains a path
//     separator (e.g. "../shared/data/magic04.data");
//  2. in each directory of $LDPBENCH_DATA;
//  3. in base, if not empty (the harness's --data directory);
//  4. in data/ and then ../shared/data/, relative to the current directory
//     (data/ is filled by `make data`; ../shared/data/ exists only beside a
//     developer checkout);
//  5. in <root>/data and <root>/../shared/data, where <root> is the nearest
//     directory at or above the current one holding a go.mod file, so that
//     tests running in a package directory find the same files.
//
// When $LDPBENCH_NO_SHARED ([EnvNoShared]) is not empty, the two
// ../shared/data directories of steps 4 and 5 are skipped: a lookup then
// sees only what a user's clone has (data/, $LDPBENCH_DATA, base).
//
// The first regular file found wins. The returned path is as joined (relative
// when the directory was relative). When nothing is found, the error lists
// every place looked at and suggests `make data` (scripts/fetch_data.sh).
func FindIn(base, name string) (string, error) {
	path, _, err := Locate(base, name)
	return path, err
}

// Locate is FindIn, and also says where the file was found: FoundPath for
// step 1 (or an absolute name), FoundEnv, FoundBase, FoundData or
// FoundShared for steps 2 to 5: a label for the record of a run, which
// holds no directory of the machine it ran on.
func Locate(base, name string) (path, found string, err error) {
	if name == "" {
		return "", "", fmt.Errorf("find data file: empty name")
	}
	if filepath.IsAbs(name) {
		if isFile(name) {
			return name, FoundPath, nil
		}
		return "", "", fmt.Errorf("%w: %s; run \"make data\" (scripts/fetch_data.sh) to fetch the real datasets", ErrNotFound, name)
	}
	var looked []string
	if strings.ContainsRune(name, filepath.Separator) || strings.ContainsRune(name, '/') {
		if isFile(name) {
			return name, FoundPath, nil
		}
		looked = append(looked, "the current directory")
	}
	dirs := searchDirs(base)
	if os.Getenv(EnvData) == "" {
		looked = append(looked, "$"+EnvData+" (unset)")
	}
	for _, d := range dirs {
		p := filepath.Join(d.dir, name)
		if isFile(p) {
			return p, d.found, nil
		}
		looked = append(looked, d.dir)
	}
	var not string
	if noShared() {
		not = " (not in ../shared/data: $" + EnvNoShared + " is set)"
	}
	return "", "", fmt.Errorf("%w: %q; looked in %s%s; run \"make data\" (scripts/fetch_data.sh) to fetch the real datasets, or set $%s",
		ErrNotFound, name, strings.Join(looked, ", "), not, EnvData)
}

// A searchDir is a directory of FindIn's steps 2–5 and the label of the
// step (a Found constant).
type searchDir struct{ dir, found string }

// searchDirs returns the directories of steps 2–5 of FindIn, without
// duplicates (compared as absolute paths; the first step naming a
// directory labels it), and without the ../shared/data ones when
// $LDPBENCH_NO_SHARED is set.
func searchDirs(base string) []searchDir {
	var cand []searchDir
	for _, d := range filepath.SplitList(os.Getenv(EnvData)) {
		cand = append(cand, searchDir{d, FoundEnv})
	}
	if base != "" {
		cand = append(cand, searchDir{base, FoundBase})
	}
	shared := !noShared()
	cand = append(cand, searchDir{"data", FoundData})
	if shared {
		cand = append(cand, searchDir{filepath.Join("..", "shared", "data"), FoundShared})
	}
	if root, ok := moduleRoot(); ok {
		cand = append(cand, searchDir{filepath.Join(root, "data"), FoundData})
		if shared {
			cand = append(cand, searchDir{filepath.Join(filepath.Dir(root), "shared", "data"), FoundShared})
		}
	}
	seen := make(map[string]bool)
	var dirs []searchDir
	for _, d := range cand {
		if d.dir == "" {
			continue
		}
		key := d.dir
		if abs, err := filepath.Abs(d.dir); err == nil {
			key = abs
		}
		if !seen[key] {
			seen[key] = true
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// noShared reports whether $LDPBENCH_NO_SHARED is set to a non-empty value.
func noShared() bool { return os.Getenv(EnvNoShared) != "" }

// moduleRoot returns the nearest directory at or above the current directory
// that holds a go.mod file.
func moduleRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if isFile(filepath.Join(dir, "go.mod")) {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
