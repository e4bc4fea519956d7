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
	// trials) or "theory" (the summary's theory value).
	Value string `toml:"value"`
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
	// Note is a line printed under the Markdown table.
	Note string `toml:"note"`
}

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
	if s.Value != "" && s.Value != "mean" && s.Value != "theory" {
		bad("value", "must be \"mean\" or \"theory\", got %q", s.Value)
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

// Files returns the paths that Write writes for the table into dir.
func (s Spec) Files(dir string) []string {
	return []string{filepath.Join(dir, s.Name+".csv"), filepath.Join(dir, s.Name+".md")}
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
	Rows    []Row
}

// A Row is one row of a table: the rows field's value (From = To), or
// with Ranges the first and last values of a run of equal rows, and the
// formatted cells, one per column ("" where no summary fills it).
type Row struct {
	From, To string
	Cells    []string
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
	type key struct{ row, col string }
	values := map[key]float64{}
	seen := map[key]string{}
	var rowVals, colVals, present []string
	for i := range summaries {
		s := &summaries[i]
		if !slices.Contains(present, s.Metric) {
			present = append(present, s.Metric)
		}
		if !slices.Contains(wanted, s.Metric) || !keep(s, spec.Filter) {
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
		if spec.Value == "theory" {
			v = float64(s.Theory)
		}
		values[k] = v
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

	t := &Table{Spec: spec}
	if !spec.BestOnly {
		t.Columns = slices.Clone(colVals)
	}
	if spec.Best != "" {
		t.Columns = append(t.Columns, "best")
	}
	digits := spec.digits()
	for _, r := range rowVals {
		row := Row{From: r, To: r}
		var nums []float64
		for _, c := range colVals {
			v, ok := values[key{r, c}]
			if !ok {
				v = math.NaN()
			}
			nums = append(nums, v)
			if !spec.BestOnly {
				row.Cells = append(row.Cells, format(v, digits))
			}
		}
		if spec.Best != "" {
			row.Cells = append(row.Cells, best(colVals, nums, spec.Best == "max", spec.tie()))
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

// best names the columns whose value is the lowest (highest with max) in
// the row, ties within the relative tolerance tie joined by " = ", in
// column order; "" when no column has a finite value.
func best(cols []string, vals []float64, max bool, tie float64) string {
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
		return ""
	}
	var names []string
	for i, v := range vals {
		if !math.IsNaN(v) && !math.IsInf(v, 0) && math.Abs(v-b) <= tie*math.Abs(b) {
			names = append(names, cols[i])
		}
	}
	return strings.Join(names, " = ")
}

// Write projects the summaries by spec and writes <name>.csv and <name>.md
// into dir, each atomically; it returns their paths.
func Write(summaries []results.Summary, spec Spec, dir string) ([]string, error) {
	t, err := Project(summaries, spec)
	if err != nil {
		return nil, err
	}
	files := spec.Files(dir)
	if err := results.WriteFileAtomic(files[0], t.WriteCSV); err != nil {
		return nil, err
	}
	if err := results.WriteFileAtomic(files[1], t.WriteMarkdown); err != nil {
		return nil, err
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

// WriteMarkdown writes the table as a Markdown document: the title as a
// heading, the table with the spec's labels as headers, and a line saying
// what the cells are (and the spec's note).
func (t *Table) WriteMarkdown(w *bufio.Writer) error {
	s := t.Spec
	if s.Title != "" {
		fmt.Fprintf(w, "### %s\n\n", s.Title)
	}
	rowHead := s.Rows
	if s.Rows == "eps" {
		rowHead = "ε"
	}
	if l, ok := s.Labels[s.Rows]; ok {
		rowHead = l
	}
	head := []string{cellText(rowHead)}
	for _, c := range t.Columns {
		head = append(head, cellText(s.label(c)))
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(head, " | "))
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(head)))
	for _, r := range t.Rows {
		lead := r.From
		if r.To != r.From {
			lead = r.From + " – " + r.To
		}
		line := []string{cellText(lead)}
		for _, c := range r.Cells {
			line = append(line, cellText(c))
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(line, " | "))
	}
	fmt.Fprintf(w, "\n%s\n", t.describe())
	if s.Note != "" {
		fmt.Fprintf(w, "\n%s\n", s.Note)
	}
	return nil
}

// describe says in words what the cells of the table are.
func (t *Table) describe() string {
	s := t.Spec
	what := "mean over trials"
	if s.Value == "theory" {
		what = "theory value"
	}
	of := fmt.Sprintf("metric `%s`", s.Metric)
	if len(s.Metrics) > 0 {
		of = "the metrics " + quoteAll(s.Metrics)
	}
	word := "lowest"
	if s.Best == "max" {
		word = "highest"
	}
	var b strings.Builder
	if s.BestOnly {
		fmt.Fprintf(&b, "Cells: the `%s` with the %s %s of %s in the row (ties within a relative %g joined by \"=\"); rows: `%s`",
			s.Columns, word, what, of, s.tie(), s.Rows)
	} else {
		fmt.Fprintf(&b, "Cells: the %s of %s, %d significant digits; rows: `%s`; columns: `%s`", what, of, s.digits(), s.Rows, s.Columns)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Filter)) {
		if k == s.Rows || k == s.Columns {
			continue
		}
		fmt.Fprintf(&b, "; %s: %s", k, quoteAll(s.Filter[k]))
	}
	if s.Best != "" && !s.BestOnly {
		fmt.Fprintf(&b, ". Best: the %s value in the row (ties within a relative %g joined by \"=\")", word, s.tie())
	}
	if s.Ranges {
		fmt.Fprintf(&b, ". Consecutive rows with equal cells are merged into \"first – last\" (values of the `%s` grid, not exact boundaries)", s.Rows)
	}
	b.WriteString(".")
	return b.String()
}

func quoteAll(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = "`" + v + "`"
	}
	return strings.Join(q, ", ")
}

// cellText escapes what Markdown would read as a column break.
func cellText(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}
