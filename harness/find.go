package harness

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// ShippedSuffix marks the Path of a spec read from the shipped specs
// embedded in the binary rather than from a file.
const ShippedSuffix = " (shipped)"

// OpenSpec finds, reads and validates the spec that arg names: a TOML file,
// or the name of a spec (with or without .toml) in runs/ of the working
// directory, then of the module root, then among the shipped specs (nil:
// none), which an installed binary carries embedded so that it runs them
// from any directory. A file or a local runs/ always wins over the shipped
// copy.
func OpenSpec(arg string, shipped fs.FS) (*Spec, error) {
	if st, err := os.Stat(arg); err == nil && st.Mode().IsRegular() {
		return LoadSpec(arg)
	}
	name := strings.TrimSuffix(filepath.Base(arg), ".toml") + ".toml"
	for _, dir := range localRuns() {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return LoadSpec(p)
		}
	}
	if shipped != nil && !strings.ContainsAny(arg, `/\`) {
		raw, err := fs.ReadFile(shipped, name)
		if err == nil {
			s, err := parseSpec(path.Join("runs", name)+ShippedSuffix, raw)
			if err != nil {
				return nil, errors.New(printable(err.Error()))
			}
			return s, nil
		}
	}
	return nil, fmt.Errorf("spec %q: no such file, no runs/%s here or in the module, and no shipped spec of that name (`ldpbench list specs` lists them)", arg, name)
}

// SpecList is what ListSpecs found: the specs' names (without .toml), in
// order, and where they are.
type SpecList struct {
	// Dir is the runs/ directory they were read from, or "" for the
	// shipped specs.
	Dir   string
	Names []string
}

// From says where the listed specs are, for a reader.
func (l SpecList) From() string {
	if l.Dir == "" {
		return "the shipped specs, embedded in this binary (a runs/ directory here would take their place)"
	}
	return l.Dir
}

// ListSpecs lists the specs that OpenSpec finds by name: those of runs/ in
// the working directory, else of the module root, else the shipped ones.
func ListSpecs(shipped fs.FS) (SpecList, error) {
	for _, dir := range localRuns() {
		files, err := filepath.Glob(filepath.Join(dir, "*.toml"))
		if err != nil {
			return SpecList{}, err
		}
		if len(files) > 0 {
			l := SpecList{Dir: dir}
			for _, f := range files {
				l.Names = append(l.Names, strings.TrimSuffix(filepath.Base(f), ".toml"))
			}
			return l, nil
		}
	}
	if shipped == nil {
		return SpecList{}, nil
	}
	files, err := fs.Glob(shipped, "*.toml")
	if err != nil {
		return SpecList{}, err
	}
	l := SpecList{}
	for _, f := range files {
		l.Names = append(l.Names, strings.TrimSuffix(f, ".toml"))
	}
	slices.Sort(l.Names)
	return l, nil
}

// localRuns are the runs/ directories looked in before the shipped specs:
// the working directory's, then the module root's (tests run in their
// package's directory).
func localRuns() []string {
	dirs := []string{"runs"}
	if root, ok := moduleRoot(); ok {
		if p := filepath.Join(root, "runs"); !sameDir(p, "runs") {
			dirs = append(dirs, p)
		}
	}
	return dirs
}

func sameDir(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// moduleRoot returns the nearest directory at or above the working one
// that holds a go.mod file.
func moduleRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if st, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && st.Mode().IsRegular() {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
