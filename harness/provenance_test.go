package harness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/datasets/datatest"
	"github.com/ldpbench/ldpbench/results"
)

// realSpecTOML is a toy spec on two datasets of one generated file
// (magic04.data, columns 0 and 3: one file, hashed once) beside a
// synthetic one; skippedTOML adds a dataset whose file `make data` would
// fetch and is absent here, with figures and tables showing it alone, it
// and others, and others alone.
const realSpecTOML = `
name = "real"
kind = "toy"
seed = 5
trials = 3
metrics = ["mse", "abs"]

[axes]
method = ["gauss", "uniform"]
eps = [1, 2]
n = [200]

[[datasets]]
name = "magic-a"
source = "file"
path = "magic04.data"
sep = ","
column = 0

[[datasets]]
name = "magic-b"
source = "file"
path = "magic04.data"
sep = ","
column = 3

[[datasets]]
name = "beta"
source = "beta"
a = 2.0
b = 5.0

[[figures]]
name = "all"
metric = "mse"
x = "eps"
series = "method"
panel = "dataset"
formats = ["svg"]
labels = { "taxi" = "Taxi (NYC)" }
`

const skippedTOML = realSpecTOML + `
[[datasets]]
name = "taxi"
source = "file"
path = "yellow_tripdata_2018-01.pickup.csv"
sep = ","

[[datasets]]
name = "retirement"
source = "file"
path = "sf_total_compensation.csv"

[[figures]]
name = "taxi-only"
metric = "mse"
x = "eps"
series = "method"
formats = ["svg"]
filter = { dataset = ["taxi"] }

[[figures]]
name = "taxi-and-magic"
metric = "mse"
x = "eps"
series = "method"
panel = "dataset"
formats = ["svg"]
filter = { dataset = ["taxi", "magic-a"] }

[[figures]]
name = "magic-only"
metric = "mse"
x = "eps"
series = "method"
formats = ["svg"]
filter = { dataset = ["magic-a"] }

[[tables]]
name = "taxi-table"
metric = "mse"
rows = "eps"
columns = "method"
filter = { dataset = ["taxi"] }

[[tables]]
name = "mixed-table"
metric = "mse"
rows = "eps"
columns = "method"
filter = { dataset = ["magic-b", "taxi"] }
`

// useFixtures puts generated magic04.data and shuttle.tst into a fresh
// directory named by $LDPBENCH_DATA, with the shared fallback off, and
// returns the path of magic04.data.
func useFixtures(t *testing.T) string {
	t.Helper()
	t.Setenv(datasets.EnvNoShared, "1")
	return filepath.Join(datatest.Use(t), "magic04.data")
}

func sha256Of(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// commentLines returns a file's '#' lines before its CSV header.
func commentLines(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(l, "#") {
			break
		}
		out = append(out, l)
	}
	return out
}

// A figure or table whose every dataset was skipped is left out with a
// note, a "# skipped" line in summary.csv and an entry in
// Result.SkippedOutputs, and the run succeeds; one that shows some
// skipped datasets is drawn and names them (by their labels) in its
// caption, a table in its note; one that shows none says nothing. Catches
// the run failing on the empty figure (the exit status 2 of a quick
// multiservice-fig4-dist-real without its Taxi file), a figure dropped
// when only some of its datasets are skipped, and a caption that names
// datasets the figure never showed; and a re-draw (ldpbench plot) that
// lists them in another order than the run (sorted, not the spec's).
func TestSkippedDatasetsLeaveOutputsOut(t *testing.T) {
	useFixtures(t)
	s := writeShardSpec(t, skippedTOML)
	dir := t.TempDir()
	var log bytes.Buffer
	res, err := Run(context.Background(), testKinds, s, Options{OutDir: dir, Jobs: 2, Log: &log})
	if err != nil {
		t.Fatalf("run: %v\nlog:\n%s", err, log.String())
	}
	wantLeft := []string{
		"figure taxi-only: every dataset it shows was skipped (taxi)",
		"table taxi-table: every dataset it shows was skipped (taxi)",
	}
	if !slices.Equal(res.SkippedOutputs, wantLeft) {
		t.Errorf("SkippedOutputs = %q, want %q", res.SkippedOutputs, wantLeft)
	}
	summaryHead := commentLines(t, filepath.Join(dir, SummaryFile))
	for _, want := range []string{
		`# skipped dataset="taxi": data file "yellow_tripdata_2018-01.pickup.csv" not found`,
		`# skipped dataset="retirement": data file "sf_total_compensation.csv" not found`,
		`# skipped figure="taxi-only": every dataset it shows was skipped (taxi)`,
		`# skipped table="taxi-table": every dataset it shows was skipped (taxi)`,
	} {
		if !slices.Contains(summaryHead, want) {
			t.Errorf("summary.csv header lacks %q:\n%s", want, strings.Join(summaryHead, "\n"))
		}
	}
	for _, want := range []string{`skipped figure "taxi-only"`, `skipped table "taxi-table"`} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	cases := []struct {
		file string
		// wantFile: written; note: the text about the skipped datasets it
		// must hold ("" for none).
		wantFile bool
		note     string
	}{
		{"taxi-only.svg", false, ""},
		{"taxi-table.csv", false, ""},
		{"taxi-table.md", false, ""},
		// In spec order, not sorted (a re-draw by plot must agree).
		{"all.svg", true, "Not shown: Taxi (NYC), retirement (datasets skipped"},
		{"taxi-and-magic.svg", true, "Not shown: taxi (dataset skipped"}, // no label: the name
		{"magic-only.svg", true, ""},
		{"mixed-table.md", true, "Not shown: 1 dataset skipped, data file not found (taxi)."},
	}
	for _, tc := range cases {
		raw, err := os.ReadFile(filepath.Join(dir, tc.file))
		switch {
		case !tc.wantFile && err == nil:
			t.Errorf("%s was written; every dataset it shows was skipped", tc.file)
		case !tc.wantFile:
		case err != nil:
			t.Errorf("%s: %v", tc.file, err)
		case tc.note != "" && !bytes.Contains(raw, []byte(tc.note)):
			t.Errorf("%s does not say %q", tc.file, tc.note)
		case tc.note == "" && bytes.Contains(raw, []byte("Not shown")):
			t.Errorf("%s names skipped datasets it never showed", tc.file)
		}
	}
	// `ldpbench plot DIR` re-draws through DrawFigures and WriteTables,
	// which read the skipped datasets from the run's rows: the same
	// figures, the same bytes.
	before, _ := os.ReadFile(filepath.Join(dir, "all.svg"))
	os.Remove(filepath.Join(dir, "all.svg"))
	files, err := DrawFigures(s.TitledFigures(), res.Summaries, dir, toyKind{}, nil, nil)
	if err != nil {
		t.Fatalf("re-draw: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "all.svg")); !bytes.Equal(before, after) || slices.Contains(files, filepath.Join(dir, "taxi-only.svg")) {
		t.Errorf("re-drawn figures differ from the run's (files %v)", files)
	}
	if _, err := WriteTables(res.Summaries, s.Tables, dir, nil); err != nil {
		t.Errorf("re-written tables: %v", err)
	}
}

// Every file dataset is recorded in rows.csv and summary.csv: a "# data"
// line after the first line with the file's base name, where it was found,
// its SHA-256 (sha256sum's) and its rows, the same lines at -j 1 and 3 and
// in the merge of shards (byte for byte the single run's files), and the
// files still read as rows and summaries. Catches a header that depends on
// the worker count or the shard, a merge that drops the lines, a digest
// of part of the file, and a reader that takes a data line for a record.
func TestProvenanceLines(t *testing.T) {
	magic := useFixtures(t)
	sum := sha256Of(t, magic)
	s := writeShardSpec(t, realSpecTOML)
	single := t.TempDir()
	if _, err := Run(context.Background(), testKinds, s, Options{OutDir: single, Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	head := commentLines(t, filepath.Join(single, RowsFile))
	rest := " found=LDPBENCH_DATA sha256=" + sum + " bytes=" + strconv.Itoa(len(mustRead(t, magic))) +
		" rows_in_file=" + strconv.Itoa(datatest.MagicRows) + " rows_read=200 dropped=0 dropped_missing=0 dropped_filtered=0 rows_used=200"
	want := []string{
		`# data dataset="magic-a" file="magic04.data"` + rest,
		`# data dataset="magic-b" file="magic04.data"` + rest,
	}
	if len(head) != 3 || !strings.HasPrefix(head[0], "# ldpbench rows ") || !slices.Equal(head[1:], want) {
		t.Fatalf("rows.csv header\n%s\nwant the first line, then\n%s", strings.Join(head, "\n"), strings.Join(want, "\n"))
	}
	if got := commentLines(t, filepath.Join(single, SummaryFile)); !slices.Equal(got, want) {
		t.Errorf("summary.csv header\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	rows, err := results.ReadRowsFile(filepath.Join(single, RowsFile))
	if err != nil || len(rows) != 3*4*3*2 {
		t.Errorf("rows.csv: %d rows, %v; want %d", len(rows), err, 3*4*3*2)
	}
	if _, err := results.ReadSummaryFile(filepath.Join(single, SummaryFile)); err != nil {
		t.Errorf("summary.csv: %v", err)
	}
	wantFiles := outputs(t, single)
	other := t.TempDir()
	if _, err := Run(context.Background(), testKinds, s, Options{OutDir: other, Jobs: 3}); err != nil {
		t.Fatal(err)
	}
	if got := outputs(t, other); !bytes.Equal(got[RowsFile], wantFiles[RowsFile]) || !bytes.Equal(got[SummaryFile], wantFiles[SummaryFile]) {
		t.Error("-j 3 wrote other rows or summary than -j 1")
	}
	dirs := runShards(t, s, 3, Options{Jobs: 2})
	for _, d := range dirs {
		if got := commentLines(t, filepath.Join(d, RowsFile)); !slices.Equal(got[1:], want) {
			t.Errorf("shard %s: data lines %q, want %q", d, got[1:], want)
		}
	}
	out := t.TempDir()
	// Given in reverse: the merge must not depend on the order.
	slices.Reverse(dirs)
	if _, err := Merge(testKinds, out, dirs, MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	got := outputs(t, out)
	for _, f := range []string{RowsFile, SummaryFile, "all.svg"} {
		if !bytes.Equal(got[f], wantFiles[f]) {
			t.Errorf("merged %s differs from the single run's", f)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A file dataset whose file holds fewer data rows than its rows key is
// refused at quick scale too, naming the file and both counts, before
// anything is written: no output directory, no partial rows. Catches the
// check left to full scale (a quick run would pass on a truncated file)
// and a refusal that leaves a partial file behind.
func TestShortFileRefusedBeforeOutput(t *testing.T) {
	magic := useFixtures(t)
	body := strings.Replace(realSpecTOML, "column = 3\n", "column = 3\nrows = 5000\n", 1) + `
[quick]
trials = 1
n = [20]
`
	s := writeShardSpec(t, body)
	for _, quick := range []bool{true, false} {
		out := filepath.Join(t.TempDir(), "out")
		_, err := Run(context.Background(), testKinds, s, Options{OutDir: out, Quick: quick})
		if err == nil {
			t.Fatalf("quick=%t: a file of %d rows passed for rows = 5000", quick, datatest.MagicRows)
		}
		for _, want := range []string{magic, strconv.Itoa(datatest.MagicRows) + " data rows", "5000", "magic-b"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("quick=%t: error %q does not name %q", quick, err, want)
			}
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("quick=%t: the refused run left its output directory", quick)
		}
	}
}

// Rows computed on one file are neither up to date nor resumed once the
// file has changed (another digest), and are both when the same file is
// found elsewhere (found= differs, the data do not). Catches a resume
// that mixes the cells of two files, and one that refuses a run because
// `make data` copied the file it used into data/.
func TestChangedDataFileRefused(t *testing.T) {
	magic := useFixtures(t)
	s := writeShardSpec(t, realSpecTOML)
	dir := t.TempDir()
	run := func() (*Result, error) {
		return Run(context.Background(), testKinds, s, Options{OutDir: dir, Jobs: 2})
	}
	if _, err := run(); err != nil {
		t.Fatal(err)
	}
	// The same bytes in data/ of the working directory.
	work := t.TempDir()
	if err := os.Mkdir(filepath.Join(work, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "data", "magic04.data"), mustRead(t, magic), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	t.Setenv(datasets.EnvData, "")
	if res, err := run(); err != nil || !res.UpToDate {
		t.Fatalf("the same file found in data/: %+v, %v; want up to date", res, err)
	}
	// Another file: one more row.
	raw := mustRead(t, magic)
	changed := append(raw[:len(raw):len(raw)], raw[:bytes.IndexByte(raw, '\n')+1]...)
	if err := os.WriteFile(filepath.Join(work, "data", "magic04.data"), changed, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := run()
	if err == nil || !strings.Contains(err.Error(), "other data") || !strings.Contains(err.Error(), "--fresh") {
		t.Fatalf("finished rows on a changed file: %v; want a refusal naming the data and --fresh", err)
	}
	// The same as an interrupted run: rows.csv without its end line.
	rows := mustRead(t, filepath.Join(dir, RowsFile))
	cut := rows[:bytes.LastIndex(rows[:len(rows)-1], []byte("\n"))+1]
	if err := os.Remove(filepath.Join(dir, RowsFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, PartialFile), cut, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = run()
	if err == nil || !strings.Contains(err.Error(), "interrupted run on other data") {
		t.Fatalf("partial rows on a changed file: %v; want a refusal", err)
	}
	if got := mustRead(t, filepath.Join(dir, PartialFile)); !bytes.Equal(got, cut) {
		t.Error("the refused resume changed the partial file")
	}
	// Back to the first file: the partial rows resume to the same bytes.
	if err := os.WriteFile(filepath.Join(work, "data", "magic04.data"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run(); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, filepath.Join(dir, RowsFile)); !bytes.Equal(dataKeys(got), dataKeys(rows)) {
		t.Error("the resumed rows differ from the uninterrupted run's")
	}
}

// dataKeys is a rows file with every data line's found= field removed.
func dataKeys(raw []byte) []byte {
	lines := strings.Split(string(raw), "\n")
	for i, l := range lines {
		lines[i] = dataKey(l)
	}
	return []byte(strings.Join(lines, "\n"))
}
