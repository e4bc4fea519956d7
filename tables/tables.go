package tables

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ldpbench/ldpbench/figures"
	"github.com/ldpbench/ldpbench/results"
)

// Spec describes one table as a projection of an experiment's summaries.
// Specs are usually read from a spec's [[tables]] blocks.
type Spec struct {
	Name  string `toml:"name"`  // file stem: <dir>/<name>.csv and <name>.md
	Title string `toml:"title"` // heading of the Markdown file; "" for none
	// Metric is the metric whose summaries fill the cells. When Rows or
	// Columns is "metric", Metrics lists the metrics instead, in order.
	Metric  string   `toml:"metric"`
	Metrics []string `toml:"metrics"`
	// Rows and Columns are the fields whose values make the rows and the
	// columns: eps, n, method, dataset, metric, normalisation, experiment
	// or a params key.
	Rows    string `toml:"rows"`
	Columns string `toml:"columns"`
	// Filter keeps only the summaries whose field value is in the list; a
	// summary without the field is dropped. The order of a list is the
	// order of the rows or columns it filters (for a non-numeric field).
	Filter map[string][]string `toml:"filter"`
	// Value is what a cell shows: "mean" (the default: the mean over
	// trials), "sd" (the standard deviation of the trial values; of every
	// value behind the pooled cells with Pool; from SDFrom when set) or
	// "theory" (the summary's theory value).
	Value string `toml:"value"`
	// Pool lists fields (dataset, n or params keys) whose values are
	// merged into one cell, as a paper pools its errors over datasets
	// (results.Pool: the mean and SD of every trial value behind the
	// merged cells, the count-weighted theory). The filter applies before
	// pooling.
	Pool []string `toml:"pool"`
	// SDFrom names a companion metric holding, per trial, the mean of the
	// squares of what the metric averages (over the groups of a
	// group-means trial): with value = "sd" the SD is then √(E[x²] − E[x]²)
	// over every averaged value (Raab et al.'s Tables 8–10), not over trial
	// means (results.Pool).
	SDFrom string `toml:"sd_from"`
	// Heatmap also draws the table as a heat map, <name>.svg and
	// <name>.png (figures.HeatMap): cells coloured by value on a log scale
	// when every value is > 0, annotated with the table's text, the best of
	// each row outlined.
	Heatmap bool `toml:"heatmap"`
	// Digits is the number of significant digits of a cell, 1 to 17;
	// 0 means 6.
	Digits int `toml:"digits"`
	// Best, "min" or "max", adds a column "best" naming the column with
	// the lowest (highest) value in each row; columns within a relative
	// Tie of it (default 1e-9) are named too, joined by " = ".
	Best string  `toml:"best"`
	Tie  float64 `toml:"tie"`
	// BestOnly keeps only the best column.
	BestOnly bool `toml:"best_only"`
	// Ranges merges every run of consecutive rows whose cells are all
	// equal into one row "first – last"; the rows field must be numeric.
	Ranges bool `toml:"ranges"`
	// Labels are the Markdown headers of column values (a method, a
	// metric), of "best", and of the rows field; the CSV keeps the plain
	// names.
	Labels map[string]string `toml:"labels"`
	// Note is a line printed under the Markdown table (and at the end of
	// the LaTeX table's caption).
	Note string `toml:"note"`
	// Formats are further files of the table beside <name>.csv and
	// <name>.md, which are always written: "tex" writes <name>.tex, a
	// LaTeX table (WriteLaTeX).
	Formats []string `toml:"formats"`
}

// Formats are the further formats a table can be written in (Spec.Formats).
var Formats = []string{"tex"}

// DefaultDigits is the number of significant digits when Digits is 0.
const DefaultDigits = 6

// DefaultTie is the relative tolerance of a tie for Best when Tie is 0.
const DefaultTie = 1e-9

// reserved are stems of the files the runner writes into the same
// directory (rows.csv, summary.csv, claims.csv): a table must not replace
// them.
var reserved = []string{"rows", "summary", "claims"}

// nonNumeric are the fields whose values are never numbers.
var nonNumeric = []string{"experiment", "dataset", "method", "metric", "normalisation"}

// Validate checks what the spec says on its own: a name that is a plain
// file stem and not that of the runner's own files, the rows and columns
// fields (two different ones), a metric or (with the field "metric") a
// list of distinct metrics, the value, digits, best, tie and ranges keys,
// non-empty filter lists and labels. Every error names the table and the
// key; all problems are reported, in a fixed order.
func (s Spec) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("table %q: key %q "+format, append([]any{s.Name, key}, args...)...))
	}
	switch {
	case s.Name == "":
		bad("name", "is required (the files are <name>.csv and <name>.md)")
	case s.Name == "." || s.Name == ".." || strings.ContainsAny(s.Name, `/\`) || strings.ContainsFunc(s.Name, isControl):
		bad("name", "must be a file stem, not a path: %q", s.Name)
	case slices.Contains(reserved, s.Name):
		bad("name", "%q would replace the run's own %s.csv: choose another", s.Name, s.Name)
	}
	if s.Rows == "" {
		bad("rows", "is required (the field whose values make the rows: eps, n, method, dataset, metric or a params key)")
	}
	if s.Columns == "" {
		bad("columns", "is required (the field whose values make the columns: method, dataset, metric, eps, n or a params key)")
	}
	if s.Rows != "" && s.Rows == s.Columns {
		bad("columns", "repeats the rows field %q", s.Rows)
	}
	byMetric := s.Rows == "metric" || s.Columns == "metric"
	switch {
	case byMetric && s.Metric != "":
		bad("metric", "is %q, but the rows or columns are the metrics: list them in \"metrics\"", s.Metric)
	case byMetric && len(s.Metrics) == 0:
		bad("metrics", "is required when the rows or columns field is \"metric\" (the metrics, in order)")
	case !byMetric && len(s.Metrics) > 0:
		bad("metrics", "lists metrics, but neither rows nor columns is \"metric\": use \"metric\" for the one metric of the cells")
	case !byMetric && s.Metric == "":
		bad("metric", "is required (the metric of the cells)")
	}
	for i, m := range s.Metrics {
		if m == "" {
			bad(fmt.Sprintf("metrics[%d]", i), "is empty")
		} else if j := slices.Index(s.Metrics[:i], m); j >= 0 {
			bad(fmt.Sprintf("metrics[%d]", i), "%q is metrics[%d] again: each metric once", m, j)
		}
	}
	if s.Value != "" && s.Value != "mean" && s.Value != "sd" && s.Value != "theory" {
		bad("value", "must be \"mean\", \"sd\" or \"theory\", got %q", s.Value)
	}
	for i, f := range s.Pool {
		key := fmt.Sprintf("pool[%d]", i)
		switch {
		case !results.CanPool(f):
			bad(key, "is %q; it takes dataset, n or a params key", f)
		case f == s.Rows || f == s.Columns:
			bad(key, "is %q, the table's rows or columns field: a pooled field has one value", f)
		case slices.Contains(s.Pool[:i], f):
			bad(key, "repeats %q", f)
		}
	}
	switch {
	case s.SDFrom != "" && s.Value != "sd":
		bad("sd_from", "needs value = \"sd\": it gives the SD of the cells")
	case s.SDFrom != "" && byMetric:
		bad("sd_from", "names one companion metric, but the rows or columns are several metrics")
	case s.SDFrom != "" && s.SDFrom == s.Metric:
		bad("sd_from", "is the table's metric itself")
	}
	switch {
	case s.Heatmap && s.BestOnly:
		bad("heatmap", "has no values to colour with best_only = true")
	case s.Heatmap && byMetric:
		bad("heatmap", "colours every cell on one scale, but the rows or columns are different metrics")
	}
	if s.Digits < 0 || s.Digits > 17 {
		bad("digits", "must be 1 to 17 significant digits (0 or absent: %d), got %d", DefaultDigits, s.Digits)
	}
	switch s.Best {
	case "", "min", "max":
	default:
		bad("best", "must be \"min\" or \"max\", got %q", s.Best)
	}
	if s.Best != "" && s.Columns == "metric" {
		bad("best", "compares the columns, which are different metrics here (columns = \"metric\")")
	}
	if math.IsNaN(s.Tie) || math.IsInf(s.Tie, 0) || s.Tie < 0 || s.Tie >= 1 {
		bad("tie", "must be a relative tolerance in [0, 1), got %v", s.Tie)
	} else if s.Tie != 0 && s.Best == "" {
		bad("tie", "is set, but best is not")
	}
	if s.BestOnly && s.Best == "" {
		bad("best_only", "needs best = \"min\" or \"max\"")
	}
	if s.Ranges && slices.Contains(nonNumeric, s.Rows) {
		bad("ranges", "needs a numeric rows field (eps, n or a numeric params key), not %q", s.Rows)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Filter)) {
		if k == "" {
			bad("filter", "has an empty field name")
		} else if len(s.Filter[k]) == 0 {
			bad("filter."+k, "has an empty list, which would keep nothing")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Labels)) {
		if k == "" {
			bad("labels", "has an empty key")
		} else if strings.ContainsFunc(s.Labels[k], isControl) {
			bad("labels."+k, "holds a control character")
		}
	}
	if strings.ContainsFunc(s.Title, isControl) {
		bad("title", "holds a control character")
	}
	if strings.ContainsFunc(s.Note, isControl) {
		bad("note", "holds a control character")
	}
	for i, f := range s.Formats {
		switch {
		case !slices.Contains(Formats, f):
			bad("formats", "has unknown format %q (known: %s; <name>.csv and <name>.md are always written)", f, strings.Join(Formats, ", "))
		case slices.Contains(s.Formats[:i], f):
			bad("formats", "repeats %q", f)
		}
	}
	return errors.Join(errs...)
}

// ValidateAll validates every spec and refuses two tables of one name
// (they would write the same files). Errors name the table's index.
func ValidateAll(specs []Spec) error {
	for i, s := range specs {
		if err := s.Validate(); err != nil {
			return fmt.Errorf("tables[%d]: %w", i, err)
		}
		for j := range i {
			if specs[j].Name == s.Name {
				return fmt.Errorf("tables[%d]: table %q: key \"name\" is also tables[%d]'s: each table writes <name>.csv and <name>.md", i, s.Name, j)
			}
		}
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// Files returns the paths that Write writes for the table into dir: the
// CSV and Markdown files, the LaTeX file with formats = ["tex"], and the
// heat map's SVG and PNG with Heatmap.
func (s Spec) Files(dir string) []string {
	files := []string{filepath.Join(dir, s.Name+".csv"), filepath.Join(dir, s.Name+".md")}
	if slices.Contains(s.Formats, "tex") {
		files = append(files, filepath.Join(dir, s.Name+".tex"))
	}
	if s.Heatmap {
		files = append(files, filepath.Join(dir, s.Name+".svg"), filepath.Join(dir, s.Name+".png"))
	}
	return files
}

func (s Spec) digits() int {
	if s.Digits == 0 {
		return DefaultDigits
	}
	return s.Digits
}

func (s Spec) tie() float64 {
	if s.Tie == 0 {
		return DefaultTie
	}
	return s.Tie
}

func (s Spec) label(v string) string {
	if l, ok := s.Labels[v]; ok {
		return l
	}
	return v
}

// Table is a spec applied to summaries: the cells that Write writes.
type Table struct {
	Spec Spec
	// Columns are the value columns' field values, in order, then "best"
	// if the spec asks for it (only "best" with BestOnly).
	Columns []string
	// ValueColumns are the value columns' field values, in order, even
	// with BestOnly: those of Row.Values and Row.Best.
	ValueColumns []string
	Rows         []Row
	// Quick is set when any summary in the table was run at the spec's
	// quick scale (results.Summary.Quick): the Markdown file and the heat
	// map say it is a pipeline check.
	Quick bool
}

// A Row is one row of a table: the rows field's value (From = To), or
// with Ranges the first and last values of a run of equal rows, and the
// formatted cells, one per column ("" where no summary fills it).
type Row struct {
	From, To string
	Cells    []string
	// Values are the unrounded values of the value columns (NaN where no
	// summary fills one), and Best marks those that are the best of the
	// row (nil without the spec's Best).
	Values []float64
	Best   []bool
}

// Field returns the value of a named field of a summary: metric,
// normalisation, or any field of its cell (experiment, dataset, method,
// eps, n, or a params key).
func Field(s *results.Summary, name string) (string, bool) {
	switch name {
	case "metric":
		return s.Metric, true
	case "normalisation":
		return s.Normalisation, true
	}
	return s.Cell().Field(name)
}

// keep reports whether a summary passes every filter.
func keep(s *results.Summary, filter map[string][]string) bool {
	for name, values := range filter {
		v, ok := Field(s, name)
		if !ok || !slices.Contains(values, v) {
			return false
		}
	}
	return true
}

// Project applies a spec to summaries. It fails when the spec is invalid,
// when no summary is kept, when a kept summary lacks the rows or columns
// field, when two summaries fall in the same cell, and when ranges are
// asked for and a row value is not a number.
func Project(summaries []results.Summary, spec Spec) (*Table, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	errorf := func(format string, args ...any) error {
		return fmt.Errorf("table %q: "+format, append([]any{spec.Name}, args...)...)
	}
	wanted := []string{spec.Metric}
	if len(spec.Metrics) > 0 {
		wanted = spec.Metrics
	}
	filter := spec.Filter
	if len(spec.Pool) > 0 || spec.SDFrom != "" {
		kept := func(s *results.Summary) bool { return keep(s, spec.Filter) }
		for _, m := range wanted {
			var err error
			if summaries, err = results.Pool(summaries, m, spec.SDFrom, spec.Pool, kept); err != nil {
				return nil, errorf("%w", err)
			}
		}
		// Pooling applied the filter; a pooled field now reads "pooled".
		filter = maps.Clone(filter)
		for _, f := range spec.Pool {
			delete(filter, f)
		}
	}
	type key struct{ row, col string }
	values := map[key]float64{}
	seen := map[key]string{}
	var rowVals, colVals, present []string
	quick := false
	for i := range summaries {
		s := &summaries[i]
		if !slices.Contains(present, s.Metric) {
			present = append(present, s.Metric)
		}
		if !slices.Contains(wanted, s.Metric) || !keep(s, filter) {
			continue
		}
		cell := s.Cell().Key()
		r, ok := Field(s, spec.Rows)
		if !ok {
			return nil, errorf("key \"rows\": summary %s has no field %q", cell, spec.Rows)
		}
		c, ok := Field(s, spec.Columns)
		if !ok {
			return nil, errorf("key \"columns\": summary %s has no field %q", cell, spec.Columns)
		}
		k := key{r, c}
		if other, dup := seen[k]; dup {
			return nil, errorf("summaries %s and %s (metric %s) fall in the same cell (%s = %s, %s = %s): filter them apart", other, cell, s.Metric, spec.Rows, r, spec.Columns, c)
		}
		seen[k] = cell + " " + s.Metric
		v := float64(s.Mean)
		switch spec.Value {
		case "theory":
			v = float64(s.Theory)
		case "sd":
			v = float64(s.SD)
		}
		values[k] = v
		quick = quick || s.Quick
		if !slices.Contains(rowVals, r) {
			rowVals = append(rowVals, r)
		}
		if !slices.Contains(colVals, c) {
			colVals = append(colVals, c)
		}
	}
	if len(seen) == 0 {
		return nil, errorf("no summary of metric %s passes the filter (metrics present: %s)", strings.Join(wanted, ", "), strings.Join(present, ", "))
	}
	if spec.Columns == "metric" {
		colVals = slices.DeleteFunc(slices.Clone(wanted), func(m string) bool { return !slices.Contains(colVals, m) })
	}
	colVals = order(colVals, spec.Filter[spec.Columns])
	if spec.Rows == "metric" {
		rowVals = slices.DeleteFunc(slices.Clone(wanted), func(m string) bool { return !slices.Contains(rowVals, m) })
	}
	rowVals = order(rowVals, spec.Filter[spec.Rows])
	if spec.Ranges {
		for _, r := range rowVals {
			if _, ok := number(r); !ok {
				return nil, errorf("key \"ranges\": the rows field %q has the value %q, not a number", spec.Rows, r)
			}
		}
	}

	t := &Table{Spec: spec, ValueColumns: slices.Clone(colVals), Quick: quick}
	if !spec.BestOnly {
		t.Columns = slices.Clone(colVals)
	}
	if spec.Best != "" {
		t.Columns = append(t.Columns, "best")
	}
	digits := spec.digits()
	for _, r := range rowVals {
		row := Row{From: r, To: r}
		for _, c := range colVals {
			v, ok := values[key{r, c}]
			if !ok {
				v = math.NaN()
			}
			row.Values = append(row.Values, v)
			if !spec.BestOnly {
				row.Cells = append(row.Cells, format(v, digits))
			}
		}
		if spec.Best != "" {
			row.Best = bestOf(row.Values, spec.Best == "max", spec.tie())
			var names []string
			for i, b := range row.Best {
				if b {
					names = append(names, colVals[i])
				}
			}
			row.Cells = append(row.Cells, strings.Join(names, " = "))
		}
		if n := len(t.Rows); spec.Ranges && n > 0 && slices.Equal(t.Rows[n-1].Cells, row.Cells) {
			t.Rows[n-1].To = r
			continue
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// order returns vals in the order of the filter's list when there is one,
// else numerically when every value is a number, else as they came (the
// order in which the summaries first name them: plan order).
func order(vals, filter []string) []string {
	if len(filter) > 0 {
		var out []string
		for _, f := range filter {
			if slices.Contains(vals, f) && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
		return out
	}
	for _, v := range vals {
		if _, ok := number(v); !ok {
			return vals
		}
	}
	out := slices.Clone(vals)
	slices.SortStableFunc(out, func(a, b string) int {
		x, _ := number(a)
		y, _ := number(b)
		return cmp.Compare(x, y)
	})
	return out
}

func number(s string) (float64, bool) {
	x, err := strconv.ParseFloat(s, 64)
	return x, err == nil && !math.IsNaN(x) && !math.IsInf(x, 0)
}

// format renders a cell: "" for a missing or NaN value.
func format(v float64, digits int) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', digits, 64)
}

// bestOf marks the values that are the lowest (highest with max) of the
// row's finite values, and those within the relative tolerance tie of it;
// none when no value is finite.
func bestOf(vals []float64, max bool, tie float64) []bool {
	marks := make([]bool, len(vals))
	b, found := 0.0, false
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		if !found || (max && v > b) || (!max && v < b) {
			b, found = v, true
		}
	}
	if !found {
		return marks
	}
	for i, v := range vals {
		marks[i] = !math.IsNaN(v) && !math.IsInf(v, 0) && math.Abs(v-b) <= tie*math.Abs(b)
	}
	return marks
}

// Write projects the summaries by spec and writes <name>.csv, <name>.md
// and the files of its formats and heat map into dir (Spec.Files), each
// atomically; it returns the paths written.
func Write(summaries []results.Summary, spec Spec, dir string) ([]string, error) {
	t, err := Project(summaries, spec)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range []struct {
		ext   string
		write func(*bufio.Writer) error
	}{{".csv", t.WriteCSV}, {".md", t.WriteMarkdown}, {".tex", t.WriteLaTeX}} {
		if f.ext == ".tex" && !slices.Contains(spec.Formats, "tex") {
			continue
		}
		path := filepath.Join(dir, spec.Name+f.ext)
		if err := results.WriteFileAtomic(path, f.write); err != nil {
			return files, err
		}
		files = append(files, path)
	}
	if spec.Heatmap {
		if _, err := figures.RenderHeatMap(t.HeatMap(), dir); err != nil {
			return files, fmt.Errorf("table %q: key \"heatmap\": %w", spec.Name, err)
		}
		files = spec.Files(dir)
	}
	return files, nil
}

// WriteAll writes every table of specs into dir and returns the files
// written; it stops at the first error, which names the table.
func WriteAll(summaries []results.Summary, specs []Spec, dir string) ([]string, error) {
	var all []string
	for _, s := range specs {
		files, err := Write(summaries, s, dir)
		if err != nil {
			return all, err
		}
		all = append(all, files...)
	}
	return all, nil
}

// WriteCSV writes the table as CSV: a header of the plain field values
// (the rows field, or <rows>_from and <rows>_to with ranges, then the
// columns), then one line per row.
func (t *Table) WriteCSV(w *bufio.Writer) error {
	c := csv.NewWriter(w)
	head := []string{t.Spec.Rows}
	if t.Spec.Ranges {
		head = []string{t.Spec.Rows + "_from", t.Spec.Rows + "_to"}
	}
	if err := c.Write(append(head, t.Columns...)); err != nil {
		return err
	}
	for _, r := range t.Rows {
		lead := []string{r.From}
		if t.Spec.Ranges {
			lead = []string{r.From, r.To}
		}
		if err := c.Write(append(lead, r.Cells...)); err != nil {
			return err
		}
	}
	c.Flush()
	return c.Error()
}
