package harness

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/results"
)

// snapshot returns every file of dir and its bytes, but the (empty) lock
// file, which is not a result.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == lockFile {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return files
}

func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// A refused command never touches an earlier run's results: an interrupted
// run's partial rows survive another seed, --quick, another spec and a
// damaged line (whose error names the line of the file), and a finished
// run's files survive another spec.
func TestRefusalKeepsEarlierResults(t *testing.T) {
	s := smallSpec()
	full := runTo(t, s, t.TempDir(), 2)
	lines := bytes.SplitAfter(full, []byte("\n"))
	prefix := bytes.Join(lines[:2+5*7*2], nil) // the headers and five whole cells

	other := smallSpec()
	other.Trials = 3
	quick := smallSpec()
	quick.Quick = &Quick{Trials: 2}
	for _, tc := range []struct {
		name    string
		partial []byte
		spec    *Spec
		opt     Options
		want    string
	}{
		{"another seed", prefix, s, Options{Seed: 9, SeedSet: true}, "--fresh"},
		{"quick", prefix, quick, Options{Quick: true}, "--fresh"},
		{"another spec", prefix, other, Options{}, "--fresh"},
		{"damaged line", bytes.Replace(prefix, lines[29], []byte("unit,beta,gauss,0.5,2000,,x,0,mse,abc,1\n"), 1), s, Options{}, "line 30"},
		{"short line", bytes.Replace(prefix, lines[29], []byte("a,b\n"), 1), s, Options{}, "line 30"},
		{"another build", otherBuild(prefix), s, Options{}, "build (sha256-0000000000000000 in the file, " + BuildID() + " in this run); use --fresh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, PartialFile), tc.partial, 0o644); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, dir)
			tc.opt.OutDir = dir
			_, err := Run(context.Background(), testKinds, tc.spec, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error naming %q", err, tc.want)
			}
			if after := snapshot(t, dir); !sameFiles(before, after) {
				t.Errorf("the refused command changed the directory: %v -> %v", keys(before), keys(after))
			}
		})
	}
	dir := t.TempDir()
	runTo(t, s, dir, 2)
	before := snapshot(t, dir)
	if _, err := Run(context.Background(), testKinds, other, Options{OutDir: dir}); err == nil || !strings.Contains(err.Error(), "--fresh") {
		t.Fatalf("another spec into a finished directory: %v", err)
	}
	if after := snapshot(t, dir); !sameFiles(before, after) {
		t.Error("the refused command changed a finished run's files")
	}
}

// otherBuild returns rows as another build would have written them.
func otherBuild(rows []byte) []byte {
	return bytes.Replace(rows, []byte(" build="+BuildID()), []byte(" build=sha256-0000000000000000"), 1)
}

// TestOtherBuildRefused: a finished run's rows written by another build
// are neither taken as up to date nor silently replaced: the run is
// refused naming both builds, and --fresh runs it again (with the same
// rows, since only the line changed). Catches a rebuilt binary passing on
// stale rows (the planted-bias scenario of a CI regression check).
func TestOtherBuildRefused(t *testing.T) {
	s := smallSpec()
	dir := t.TempDir()
	want := runTo(t, s, dir, 2)
	if !bytes.Contains(want, []byte(" build="+BuildID()+"\n")) || !strings.HasPrefix(BuildID(), "sha256-") && !strings.HasPrefix(BuildID(), "git-") {
		t.Fatalf("the rows do not record the build %q: %s", BuildID(), bytes.SplitN(want, []byte("\n"), 2)[0])
	}
	rows := filepath.Join(dir, RowsFile)
	os.WriteFile(rows, otherBuild(want), 0o644)
	before := snapshot(t, dir)
	_, err := Run(context.Background(), testKinds, s, Options{OutDir: dir})
	if err == nil || !strings.Contains(err.Error(), "build (sha256-0000000000000000 in the file, "+BuildID()+" in this run)") {
		t.Fatalf("rows of another build: %v", err)
	}
	if after := snapshot(t, dir); !sameFiles(before, after) {
		t.Error("the refused run changed the directory")
	}
	if _, err := Run(context.Background(), testKinds, s, Options{OutDir: dir, Fresh: true, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(rows); !bytes.Equal(got, want) {
		t.Error("--fresh did not write this build's rows")
	}
}

func keys(m map[string]string) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	return k
}

// A second run into a directory that a run is writing is refused at once,
// naming the directory, and changes nothing; once the lock is released the
// directory is usable again.
func TestConcurrentRunIsRefused(t *testing.T) {
	s := smallSpec()
	dir := t.TempDir()
	runTo(t, s, dir, 2)
	before := snapshot(t, dir)
	unlock, err := lockDir(dir) // the first run, as far as the second can tell
	if err != nil {
		t.Fatal(err)
	}
	for _, opt := range []Options{{OutDir: dir}, {OutDir: dir, Fresh: true}} {
		if _, err := Run(context.Background(), testKinds, s, opt); err == nil || !strings.Contains(err.Error(), "another ldpbench run is writing") {
			t.Errorf("fresh=%v: got %v, want a refusal", opt.Fresh, err)
		}
	}
	if after := snapshot(t, dir); !sameFiles(before, after) {
		t.Error("a refused concurrent run changed the directory")
	}
	unlock()
	if _, err := Run(context.Background(), testKinds, s, Options{OutDir: dir}); err != nil {
		t.Fatalf("after the lock is released: %v", err)
	}
}

// rows.csv and summary.csv end with an end line; a rows.csv cut at a line
// boundary is resumed from its whole cells to the same bytes, and a cut
// summary.csv is refused by its reader and rewritten by the next run.
func TestCutFilesAreDetected(t *testing.T) {
	s := smallSpec()
	ref := t.TempDir()
	full := runTo(t, s, ref, 2)
	if !bytes.HasSuffix(full, []byte("# end records=168\n")) {
		t.Fatalf("rows.csv does not end with its end line: %q", full[max(0, len(full)-60):])
	}
	lines := bytes.SplitAfter(full, []byte("\n"))
	for _, keep := range []int{len(lines) - 2, 2 + 7*2*6, 2 + 5} {
		dir := t.TempDir()
		cut := bytes.Join(lines[:keep], nil)
		if err := os.WriteFile(filepath.Join(dir, RowsFile), cut, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := results.ReadRowsFile(filepath.Join(dir, RowsFile)); !errors.Is(err, results.ErrIncomplete) {
			t.Errorf("cut to %d lines: ReadRowsFile error %v, want ErrIncomplete", keep, err)
		}
		if got := runTo(t, s, dir, 3); !bytes.Equal(got, full) {
			t.Errorf("cut to %d lines: resumed rows differ from an uninterrupted run", keep)
		}
	}
	sum, err := os.ReadFile(filepath.Join(ref, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	sl := bytes.SplitAfter(sum, []byte("\n"))
	if err := os.WriteFile(filepath.Join(ref, SummaryFile), bytes.Join(sl[:len(sl)-3], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := results.ReadSummaryFile(filepath.Join(ref, SummaryFile)); !errors.Is(err, results.ErrIncomplete) {
		t.Errorf("a cut summary.csv: %v, want ErrIncomplete", err)
	}
	if res, err := Run(context.Background(), testKinds, s, Options{OutDir: ref}); err != nil || !res.UpToDate {
		t.Fatalf("re-run: %+v, %v", res, err)
	}
	if again, _ := os.ReadFile(filepath.Join(ref, SummaryFile)); !bytes.Equal(again, sum) {
		t.Error("the re-run did not restore summary.csv")
	}
}

// --fresh removes what the earlier run wrote (rows, summary, claims, spec
// copy, the figures its spec copy names) and nothing else; temporary files
// of a killed atomic write are removed; the outputs are readable by all.
func TestFreshAndLeftovers(t *testing.T) {
	s := smallSpec()
	dir := t.TempDir()
	runTo(t, s, dir, 2)
	oldSpec := "name = \"old\"\nkind = \"toy\"\ntrials = 1\nmetrics = [\"mse\"]\n[axes]\nmethod = [\"gauss\"]\neps = [1.0]\nn = [10]\n" +
		"[[datasets]]\nname = \"u\"\nsource = \"uniform\"\n[[figures]]\nname = \"oldfig\"\nmetric = \"mse\"\nx = \"eps\"\nseries = \"method\"\n"
	for name, body := range map[string]string{
		SpecFile: oldSpec, ClaimsFile: "claim\n", "oldfig.svg": "<svg/>", "oldfig.png": "png", "notes.txt": "mine",
		".summary.csv.123.ldpbench-tmp": "half", ".summary.csv.tmp456": "half",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Run(context.Background(), testKinds, s, Options{OutDir: dir, Fresh: true}); err != nil {
		t.Fatal(err)
	}
	got := snapshot(t, dir)
	for _, gone := range []string{ClaimsFile, SpecFile, "oldfig.svg", "oldfig.png", ".summary.csv.123.ldpbench-tmp", ".summary.csv.tmp456"} {
		if _, ok := got[gone]; ok {
			t.Errorf("%s survived --fresh", gone)
		}
	}
	if got["notes.txt"] != "mine" {
		t.Error("--fresh removed a file the run did not write")
	}
	for _, f := range []string{RowsFile, SummaryFile} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm()&0o044 != 0o044 {
			t.Errorf("%s has mode %v, want it readable by all", f, st.Mode().Perm())
		}
	}
}
