package main

import (
	"context"
	"encoding/csv"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The programs of docs/outputs.md's "Reading the files" that read rows.csv
// and summary.csv: each is a fenced block of its language whose first line
// is "# ldpbench-snippet: NAME".
var outputsSnippets = []struct{ name, lang, arg string }{
	{"pandas", "python", "sys.argv[1]"},
	{"R", "r", "commandArgs(trailingOnly = TRUE)[1]"},
}

// outputsSnippet returns the program NAME of docs/outputs.md, in a fenced
// block of language lang, or fails the test.
func outputsSnippet(t *testing.T, name, lang string) string {
	t.Helper()
	page, err := os.ReadFile("../../docs/outputs.md")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?ms)^```" + regexp.QuoteMeta(lang) + "\n(.*?)^```\n")
	var found []string
	for _, m := range block.FindAllStringSubmatch(string(page), -1) {
		if first, _, _ := strings.Cut(m[1], "\n"); first == "# ldpbench-snippet: "+name {
			found = append(found, m[1])
		}
	}
	if len(found) != 1 {
		t.Fatalf("docs/outputs.md has %d ```%s blocks starting with %q, want 1", len(found), lang, "# ldpbench-snippet: "+name)
	}
	return found[0]
}

// TestOutputsSnippetsInPage: docs/outputs.md shows both readers, each a
// program that takes the output directory as its argument. Runs without
// any interpreter, so that a page that lost a reader fails everywhere.
func TestOutputsSnippetsInPage(t *testing.T) {
	for _, s := range outputsSnippets {
		src := outputsSnippet(t, s.name, s.lang)
		if !strings.Contains(src, s.arg) {
			t.Errorf("the %s reader of docs/outputs.md does not take the directory as %s", s.name, s.arg)
		}
		for _, f := range []string{"rows.csv", "summary.csv", "# end records="} {
			if !strings.Contains(src, f) {
				t.Errorf("the %s reader of docs/outputs.md does not mention %q", s.name, f)
			}
		}
	}
}

// TestOutputsSnippetPandas runs the pandas reader of docs/outputs.md on a
// quick run of mean-synthetic, with python3 on $PATH or Debian's
// /usr/bin/python3 (where apt's python3-pandas goes), whichever imports
// pandas; skips when neither does.
func TestOutputsSnippetPandas(t *testing.T) {
	src := outputsSnippet(t, "pandas", "python")
	py := ""
	for _, c := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(c, "-c", "import pandas").Run() == nil {
			py = c
			break
		}
	}
	if py == "" {
		t.Skip("no python3 imports pandas: apt-get install python3-pandas")
	}
	checkOutputsReader(t, src, "read_outputs.py", py)
}

// TestOutputsSnippetR runs the R reader of docs/outputs.md on a quick run
// of mean-synthetic; skips without Rscript.
func TestOutputsSnippetR(t *testing.T) {
	src := outputsSnippet(t, "R", "r")
	rs, err := exec.LookPath("Rscript")
	if err != nil {
		t.Skip("no Rscript on $PATH: apt-get install r-base-core")
	}
	checkOutputsReader(t, src, "read_outputs.R", rs)
}

// checkOutputsReader runs `interp FILE DIR` with FILE holding src and DIR a
// quick run of mean-synthetic, and checks what it prints against the files
// as Go reads them: the provenance line, the number of rows of rows.csv and
// of summary.csv, and the mean value of rows.csv's first metric.
func checkOutputsReader(t *testing.T, src, file, interp string) {
	t.Helper()
	dir := quickRun(t, "mean-synthetic")
	prog := filepath.Join(t.TempDir(), file)
	if err := os.WriteFile(prog, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, provenance := readOutputsCSV(t, filepath.Join(dir, "rows.csv"))
	summary, _ := readOutputsCSV(t, filepath.Join(dir, "summary.csv"))
	metric, mean := firstMetricMean(t, rows)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, interp, prog, dir)
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s %s: %v\n%s", interp, file, dir, err, out)
	}
	t.Logf("%s %s:\n%s", interp, file, out)
	got := string(out)
	if first, _, _ := strings.Cut(got, "\n"); strings.TrimSpace(first) != provenance {
		t.Errorf("first line printed %q, want rows.csv's provenance line %q", first, provenance)
	}
	for _, c := range []struct {
		file string
		n    int
	}{{"rows.csv", len(rows) - 1}, {"summary.csv", len(summary) - 1}} {
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(c.file) + `: (\d+) rows$`).FindStringSubmatch(got)
		if m == nil {
			t.Errorf("printed no %q line", c.file+": N rows")
		} else if m[1] != strconv.Itoa(c.n) {
			t.Errorf("printed %s: %s rows, want %d", c.file, m[1], c.n)
		}
	}
	m := regexp.MustCompile(`(?m)^mean ` + regexp.QuoteMeta(metric) + `: (\S+)$`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("printed no %q line", "mean "+metric+": X")
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil || math.Abs(v-mean) > 1e-9*math.Abs(mean) {
		t.Errorf("printed mean %s: %s, want %.17g (the mean of rows.csv's %s values)", metric, m[1], mean, metric)
	}
}

// readOutputsCSV returns the records of a rows.csv or summary.csv, header
// first, without its "#" lines, and its first line (rows.csv's provenance
// line). It fails the test
// unless the file ends with "# end records=N", N its number of data rows.
func readOutputsCSV(t *testing.T, path string) (records [][]string, first string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	first, _, _ = strings.Cut(text, "\n")
	r := csv.NewReader(strings.NewReader(text))
	r.Comment = '#'
	records, err = r.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if end := lines[len(lines)-1]; end != "# end records="+strconv.Itoa(len(records)-1) {
		t.Fatalf("%s: %d data rows, last line %q", path, len(records)-1, end)
	}
	if len(records) < 2 {
		t.Fatalf("%s: no data rows", path)
	}
	return records, first
}

// firstMetricMean returns the metric of rows.csv's first data row and the
// mean of its value over every row of that metric.
func firstMetricMean(t *testing.T, rows [][]string) (string, float64) {
	t.Helper()
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	metric := rows[1][col["metric"]]
	var sum float64
	n := 0
	for _, r := range rows[1:] {
		if r[col["metric"]] != metric {
			continue
		}
		v, err := strconv.ParseFloat(r[col["value"]], 64)
		if err != nil {
			t.Fatalf("rows.csv value %q: %v", r[col["value"]], err)
		}
		sum += v
		n++
	}
	return metric, sum / float64(n)
}
