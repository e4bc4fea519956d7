package tables

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/ldpbench/ldpbench/results"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// sum is a summary of one cell and metric with a given mean and theory.
func sum(method string, eps float64, params, metric string, mean, theory float64) results.Summary {
	return results.Summary{
		Experiment: "t", Dataset: "none", Method: method, Eps: results.Float(eps), N: 1,
		Params: params, Metric: metric, Count: 1, Mean: results.Float(mean),
		SD: results.Float(math.NaN()), SE: results.Float(math.NaN()),
		CILo: results.Float(math.NaN()), CIHi: results.Float(math.NaN()), Theory: results.Float(theory),
	}
}

// toy is a small theory-like summary: three methods over ε = 0.5 … 3.5 in
// steps of 0.5 (in plan order: method, then ε), where "a" and "b" are
// equal up to 1e-13 below ε = 1.5, "b" is lowest from 1.5 to 3 and "c"
// at 3.5; and a second metric "bits".
func toy() []results.Summary {
	var out []results.Summary
	for _, m := range []string{"a", "b", "c"} {
		for i := 1; i <= 7; i++ {
			eps := float64(i) / 2
			var v float64
			switch m {
			case "a":
				v = 4 / eps
			case "b":
				v = 4 / eps * (1 - 1e-13)
				if eps >= 1.5 {
					v = 3 / eps
				}
			case "c":
				v = 10 / eps / eps
			}
			out = append(out, sum(m, eps, "", "variance", v, v))
			out = append(out, sum(m, eps, "", "bits", float64(1+i/3), math.NaN()))
		}
	}
	return out
}

func render(t *testing.T, tab *Table) (csvText, md string) {
	t.Helper()
	var c, m bytes.Buffer
	dir := t.TempDir()
	spec := tab.Spec
	files := spec.Files(dir)
	if len(files) != 2 {
		t.Fatalf("files %v", files)
	}
	if err := writeBoth(tab, files); err != nil {
		t.Fatal(err)
	}
	cb, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	mb, err := os.ReadFile(files[1])
	if err != nil {
		t.Fatal(err)
	}
	c.Write(cb)
	m.Write(mb)
	return c.String(), m.String()
}

func writeBoth(tab *Table, files []string) error {
	if err := results.WriteFileAtomic(files[0], tab.WriteCSV); err != nil {
		return err
	}
	return results.WriteFileAtomic(files[1], tab.WriteMarkdown)
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./tables -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test ./tables -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// TestBestRangesGolden: best = "min" with best_only and ranges turns the
// grid into ε ranges, ties within 1e-9 joined by " = "; the Markdown file
// is golden, the CSV checked line by line.
func TestBestRangesGolden(t *testing.T) {
	spec := Spec{
		Name: "best", Title: "Lowest variance, by ε", Metric: "variance", Rows: "eps", Columns: "method",
		Best: "min", BestOnly: true, Ranges: true, Labels: map[string]string{"best": "best method"},
		Note: "A toy table.",
	}
	tab, err := Project(toy(), spec)
	if err != nil {
		t.Fatal(err)
	}
	csvText, md := render(t, tab)
	wantCSV := "eps_from,eps_to,best\n0.5,1,a = b\n1.5,3,b\n3.5,3.5,c\n"
	if csvText != wantCSV {
		t.Errorf("CSV:\n%s\nwant\n%s", csvText, wantCSV)
	}
	golden(t, "best-ranges.golden.md", md)
}

// TestValuesGolden: the values themselves, columns in the filter's order,
// with the best column, 4 significant digits, the theory value.
func TestValuesGolden(t *testing.T) {
	spec := Spec{
		Name: "values", Metric: "variance", Rows: "eps", Columns: "method", Value: "theory", Digits: 4,
		Filter: map[string][]string{"method": {"c", "a"}, "eps": {"1", "3", "0.5"}}, Best: "max",
	}
	tab, err := Project(toy(), spec)
	if err != nil {
		t.Fatal(err)
	}
	csvText, md := render(t, tab)
	// Rows in the filter's order (a filter fixes the order), columns c, a.
	wantCSV := "eps,c,a,best\n1,10,4,c\n3,1.111,1.333,a\n0.5,40,8,c\n"
	if csvText != wantCSV {
		t.Errorf("CSV:\n%s\nwant\n%s", csvText, wantCSV)
	}
	golden(t, "values.golden.md", md)
}

// TestMetricColumns: columns = "metric" takes the metrics in the listed
// order, and ranges merge rows on all of them.
func TestMetricColumns(t *testing.T) {
	spec := Spec{
		Name: "bits", Metrics: []string{"bits", "variance"}, Rows: "eps", Columns: "metric",
		Filter: map[string][]string{"method": {"a"}}, Ranges: true, Digits: 2,
	}
	tab, err := Project(toy(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tab.Columns, ","); got != "bits,variance" {
		t.Errorf("columns %s", got)
	}
	// variance 4/ε at 2 digits: 8, 4, 2.7, 2, 1.6, 1.3, 1.1; bits 1,1,2,2,2,3,3:
	// no two rows equal.
	if len(tab.Rows) != 7 {
		t.Errorf("%d rows, want 7: %+v", len(tab.Rows), tab.Rows)
	}
	spec.Metrics = []string{"bits"}
	tab, err = Project(toy(), spec)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range tab.Rows {
		got = append(got, r.From+"-"+r.To+":"+strings.Join(r.Cells, ","))
	}
	if want := "0.5-1:1 1.5-2.5:2 3-3.5:3"; strings.Join(got, " ") != want {
		t.Errorf("rows %q, want %q", strings.Join(got, " "), want)
	}
}

// TestProjectErrors: what cannot be projected is refused with the table
// and the key named.
func TestProjectErrors(t *testing.T) {
	base := Spec{Name: "x", Metric: "variance", Rows: "eps", Columns: "method"}
	withParams := append(toy(), sum("a", 0.5, "k=1", "variance", 1, 1))
	for _, c := range []struct {
		name string
		sums []results.Summary
		mod  func(*Spec)
		want string
	}{
		{"no such metric", toy(), func(s *Spec) { s.Metric = "mse" }, `table "x": no summary of metric mse passes the filter (metrics present: variance, bits)`},
		{"filter keeps nothing", toy(), func(s *Spec) { s.Filter = map[string][]string{"method": {"z"}} }, "no summary of metric variance passes the filter"},
		{"missing rows field", toy(), func(s *Spec) { s.Rows = "k" }, `key "rows": summary experiment=t;dataset=none;method=a;eps=0.5;n=1; has no field "k"`},
		{"missing columns field", toy(), func(s *Spec) { s.Columns = "k" }, `key "columns": summary experiment=t;dataset=none;method=a;eps=0.5;n=1; has no field "k"`},
		{"two in one cell", withParams, func(*Spec) {}, "fall in the same cell (eps = 0.5, method = a): filter them apart"},
		{"ranges over a non-numeric param", []results.Summary{sum("a", 1, "k=x", "variance", 1, 1)}, func(s *Spec) { s.Rows, s.Ranges = "k", true }, `key "ranges": the rows field "k" has the value "x", not a number`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := base
			c.mod(&s)
			_, err := Project(c.sums, s)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// TestValidate: every key is checked, and the error names the table and
// the key.
func TestValidate(t *testing.T) {
	good := Spec{Name: "t", Metric: "mse", Rows: "eps", Columns: "method"}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mod  func(*Spec)
		want string
	}{
		{func(s *Spec) { s.Name = "" }, `table "": key "name" is required`},
		{func(s *Spec) { s.Name = "a/b" }, `key "name" must be a file stem`},
		{func(s *Spec) { s.Name = "summary" }, `key "name" "summary" would replace the run's own summary.csv`},
		{func(s *Spec) { s.Rows = "" }, `key "rows" is required`},
		{func(s *Spec) { s.Columns = "" }, `key "columns" is required`},
		{func(s *Spec) { s.Columns = "eps" }, `key "columns" repeats the rows field "eps"`},
		{func(s *Spec) { s.Metric = "" }, `key "metric" is required`},
		{func(s *Spec) { s.Metrics = []string{"abs"} }, `key "metrics" lists metrics, but neither rows nor columns is "metric"`},
		{func(s *Spec) { s.Columns = "metric" }, `key "metric" is "mse", but the rows or columns are the metrics`},
		{func(s *Spec) { s.Columns, s.Metric = "metric", "" }, `key "metrics" is required when the rows or columns field is "metric"`},
		{func(s *Spec) { s.Columns, s.Metric, s.Metrics = "metric", "", []string{"mse", "abs", "mse"} }, `key "metrics[2]" "mse" is metrics[0] again`},
		{func(s *Spec) { s.Value = "median" }, `key "value" must be "mean", "sd" or "theory", got "median"`},
		{func(s *Spec) { s.Pool = []string{"method"} }, `key "pool[0]" is "method"; it takes dataset, n or a params key`},
		{func(s *Spec) { s.Pool = []string{"dataset", "eps"} }, `key "pool[1]" is "eps"; it takes`},
		{func(s *Spec) { s.Rows, s.Pool = "split", []string{"split"} }, `key "pool[0]" is "split", the table's rows or columns field`},
		{func(s *Spec) { s.Pool = []string{"dataset", "dataset"} }, `key "pool[1]" repeats "dataset"`},
		{func(s *Spec) { s.SDFrom = "mse_sq" }, `key "sd_from" needs value = "sd"`},
		{func(s *Spec) { s.Value, s.SDFrom = "sd", "mse" }, `key "sd_from" is the table's metric itself`},
		{func(s *Spec) {
			s.Columns, s.Metric, s.Metrics, s.Value, s.SDFrom = "metric", "", []string{"mse"}, "sd", "sq"
		}, `key "sd_from" names one companion metric`},
		{func(s *Spec) { s.Heatmap, s.Best, s.BestOnly = true, "min", true }, `key "heatmap" has no values to colour with best_only = true`},
		{func(s *Spec) { s.Heatmap, s.Columns, s.Metric, s.Metrics = true, "metric", "", []string{"mse", "abs"} }, `key "heatmap" colours every cell on one scale`},
		{func(s *Spec) { s.Digits = 18 }, `key "digits" must be 1 to 17`},
		{func(s *Spec) { s.Digits = -1 }, `key "digits" must be 1 to 17`},
		{func(s *Spec) { s.Best = "lowest" }, `key "best" must be "min" or "max", got "lowest"`},
		{func(s *Spec) { s.Columns, s.Metric, s.Metrics, s.Best = "metric", "", []string{"mse"}, "min" }, `key "best" compares the columns, which are different metrics`},
		{func(s *Spec) { s.Best, s.Tie = "min", math.NaN() }, `key "tie" must be a relative tolerance in [0, 1), got NaN`},
		{func(s *Spec) { s.Best, s.Tie = "min", -1 }, `key "tie" must be a relative tolerance`},
		{func(s *Spec) { s.Tie = 1e-6 }, `key "tie" is set, but best is not`},
		{func(s *Spec) { s.BestOnly = true }, `key "best_only" needs best = "min" or "max"`},
		{func(s *Spec) { s.Rows, s.Columns, s.Ranges = "method", "eps", true }, `key "ranges" needs a numeric rows field (eps, n or a numeric params key), not "method"`},
		{func(s *Spec) { s.Filter = map[string][]string{"method": {}} }, `key "filter.method" has an empty list`},
		{func(s *Spec) { s.Filter = map[string][]string{"": {"a"}} }, `key "filter" has an empty field name`},
		{func(s *Spec) { s.Labels = map[string]string{"": "x"} }, `key "labels" has an empty key`},
		{func(s *Spec) { s.Labels = map[string]string{"a": "x\ny"} }, `key "labels.a" holds a control character`},
		{func(s *Spec) { s.Title = "a\rb" }, `key "title" holds a control character`},
		{func(s *Spec) { s.Note = "\x1b[2J" }, `key "note" holds a control character`},
	} {
		s := good
		c.mod(&s)
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
	if err := ValidateAll([]Spec{good, good}); err == nil || !strings.Contains(err.Error(), `tables[1]: table "t": key "name" is also tables[0]'s`) {
		t.Errorf("two tables of one name: %v", err)
	}
	bad := good
	bad.Rows = ""
	if err := ValidateAll([]Spec{good, bad}); err == nil || !strings.HasPrefix(err.Error(), "tables[1]: ") {
		t.Errorf("ValidateAll does not name the index: %v", err)
	}
}

// TestDecodeTOML: the spec's keys as a [[tables]] block spells them.
func TestDecodeTOML(t *testing.T) {
	var doc struct {
		Tables []Spec `toml:"tables"`
	}
	md, err := toml.Decode(`
[[tables]]
name = "t1"
title = "T"
metrics = ["bits", "bits_table2"]
rows = "eps"
columns = "metric"
filter = { method = ["n-output"] }
value = "theory"
digits = 3
ranges = true
pool = ["dataset"]
labels = { bits = "bits (⌈log2 N⌉)" }
note = "n"

[[tables]]
name = "t2"
metric = "worst_case_variance"
rows = "eps"
columns = "method"
best = "min"
best_only = true
tie = 1e-6

[[tables]]
name = "t3"
metric = "scaled_abs_error"
rows = "eps"
columns = "split"
value = "sd"
sd_from = "scaled_abs_error_sq"
pool = ["dataset"]
best = "min"
heatmap = true
formats = ["tex"]
`, &doc)
	if err != nil {
		t.Fatal(err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		t.Fatalf("undecoded keys %v", u)
	}
	if err := ValidateAll(doc.Tables); err != nil {
		t.Fatal(err)
	}
	a, b := doc.Tables[0], doc.Tables[1]
	if a.Digits != 3 || !a.Ranges || a.Value != "theory" || a.Labels["bits"] != "bits (⌈log2 N⌉)" || a.Filter["method"][0] != "n-output" || a.Note != "n" {
		t.Errorf("t1 %+v", a)
	}
	if b.Best != "min" || !b.BestOnly || b.Tie != 1e-6 {
		t.Errorf("t2 %+v", b)
	}
	if c := doc.Tables[2]; c.Value != "sd" || c.SDFrom != "scaled_abs_error_sq" || len(c.Pool) != 1 || c.Pool[0] != "dataset" || !c.Heatmap || len(c.Formats) != 1 || c.Formats[0] != "tex" {
		t.Errorf("t3 %+v", c)
	}
	if a.Pool[0] != "dataset" {
		t.Errorf("t1 pool %v", a.Pool)
	}
}

// TestWriteAtomic: Write leaves the two files and no temporary file; a
// table that cannot be projected writes nothing.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	specs := []Spec{
		{Name: "one", Metric: "variance", Rows: "eps", Columns: "method"},
		{Name: "two", Metric: "nothing", Rows: "eps", Columns: "method"},
	}
	files, err := WriteAll(toy(), specs, dir)
	if err == nil || !strings.Contains(err.Error(), `table "two"`) {
		t.Fatalf("err %v", err)
	}
	if len(files) != 2 {
		t.Errorf("files %v", files)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "one.csv one.md" {
		t.Errorf("directory holds %v", names)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "one.csv"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 8 || lines[0] != "eps,a,b,c" {
		t.Errorf("one.csv:\n%s", b)
	}
	// Full precision at digits 17: the CSV cell parses back to the mean.
	spec := Spec{Name: "p", Metric: "variance", Rows: "eps", Columns: "method", Digits: 17}
	tab, err := Project(toy(), spec)
	if err != nil {
		t.Fatal(err)
	}
	v, err := strconv.ParseFloat(tab.Rows[2].Cells[2], 64)
	if err != nil || v != 10/1.5/1.5 {
		t.Errorf("c at ε = 1.5: %q", tab.Rows[2].Cells[2])
	}
}

// TestMarkdownEscapes: a value holding "|" does not break the table.
func TestMarkdownEscapes(t *testing.T) {
	sums := []results.Summary{sum("a|b", 1, "", "variance", 1, 1)}
	tab, err := Project(sums, Spec{Name: "e", Metric: "variance", Rows: "eps", Columns: "method"})
	if err != nil {
		t.Fatal(err)
	}
	_, md := render(t, tab)
	if !strings.Contains(md, `| ε | a\|b |`) {
		t.Errorf("markdown:\n%s", md)
	}
}

// The caption writes a field or metric the spec labels by its label, and
// any other in code style: "rows: ε; columns: ε₁/ε", not "rows: `eps`".
func TestDescribeUsesLabels(t *testing.T) {
	tab := &Table{Spec: Spec{Metric: "scaled_abs_error", Rows: "eps", Columns: "split",
		Labels: map[string]string{"eps": "ε", "split": "ε₁/ε", "scaled_abs_error": "scaled absolute error"}}}
	got := tab.describe("in bold")
	for _, want := range []string{"metric scaled absolute error", "rows: ε;", "columns: ε₁/ε"} {
		if !strings.Contains(got, want) {
			t.Errorf("describe() = %q, want it to contain %q", got, want)
		}
	}
	tab.Spec.Labels = nil
	if got := tab.describe("in bold"); !strings.Contains(got, "rows: `eps`; columns: `split`") {
		t.Errorf("no labels: describe() = %q, want the fields in code style", got)
	}
}
