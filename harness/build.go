package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
)

// BuildID names the code of the running binary, for the first line of
// rows.csv: a run never takes rows that another build wrote as its own
// (resumed, or up to date), so a result is always the current code's.
//
//   - "git-<revision>" for a build from a clean checkout (the VCS fields
//     that go build records);
//   - "sha256-<digest>" of the executable otherwise (no VCS fields, as
//     with -buildvcs=false, go run or a test binary), and
//     "git-<revision>-modified-sha256-<digest>" from a modified checkout:
//     the executable changes whenever the compiled code does.
//
// The revision and the digest are cut to 16 hex digits. It is computed
// once per process.
func BuildID() string {
	buildOnce.Do(func() { buildID = computeBuildID() })
	return buildID
}

var (
	buildOnce sync.Once
	buildID   string
)

func computeBuildID() string {
	var revision, modified string
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
	}
	if revision != "" && modified == "false" {
		return "git-" + cut16(revision)
	}
	digest := "sha256-" + executableDigest()
	if revision != "" {
		return "git-" + cut16(revision) + "-modified-" + digest
	}
	return digest
}

// executableDigest is the SHA-256 of the running executable, or "unknown"
// when it cannot be read (then every build looks alike, as before build
// identities were recorded).
func executableDigest() string {
	path, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	f, err := os.Open(path)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unknown"
	}
	return cut16(hex.EncodeToString(h.Sum(nil)))
}

func cut16(s string) string {
	if len(s) > 16 {
		return s[:16]
	}
	return s
}

// HeaderDiff says how the first line of a rows file (found) differs from
// the one this run would write (want), field by field, naming each as a
// reader would: "build (sha256-1a2b… in the file, sha256-3c4d… in this
// run)".
func HeaderDiff(found, want string) string {
	return headerDiff(found, want, "in the file", "in this run")
}

// headerDiff names the fields in which two first lines differ, in their
// order, with a's value as aName and b's as bName.
func headerDiff(a, b, aName, bName string) string {
	fa, fb := headerFields(a), headerFields(b)
	var keys []string
	for _, line := range []string{a, b} {
		line, _, _ = strings.Cut(line, " skipped=")
		for _, f := range strings.Fields(line) {
			if k, _, ok := strings.Cut(f, "="); ok && !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	var diffs []string
	for _, k := range keys {
		if fa[k] != fb[k] {
			diffs = append(diffs, fmt.Sprintf("%s (%s %s, %s %s)", headerName(k), orNone(fa[k]), aName, orNone(fb[k]), bName))
		}
	}
	if sa, sb := skippedPart(a), skippedPart(b); sa != sb {
		diffs = append(diffs, fmt.Sprintf("datasets skipped (%s %s, %s %s)", orNone(sa), aName, orNone(sb), bName))
	}
	if len(diffs) == 0 {
		return fmt.Sprintf("first line (%q %s, %q %s)", a, aName, b, bName)
	}
	return strings.Join(diffs, ", ")
}

func skippedPart(line string) string {
	_, s, _ := strings.Cut(line, " skipped=")
	return s
}

// headerName is what a reader calls a field of the rows' first line.
func headerName(key string) string {
	switch key {
	case "experiment":
		return "spec"
	case "spec_sha256":
		return "spec content"
	case "quick":
		return "scale (quick)"
	case "module":
		return "module version"
	case "go":
		return "Go version"
	}
	return key
}

func orNone(v string) string {
	if v == "" {
		return "none"
	}
	return v
}
