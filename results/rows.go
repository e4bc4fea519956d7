package results

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gocarina/gocsv"
)

// Row is one measurement: one metric of one trial of one cell. Rows are tidy:
// the columns name the cell (experiment, dataset, method, eps, n and any other
// swept parameters), then the trial, the metric and its value. Theory is the
// cell's predicted mean of the metric where one is known (empty otherwise);
// it is repeated on every trial so that rows.csv alone determines the summary.
type Row struct {
	Experiment string `csv:"experiment"`
	Dataset    string `csv:"dataset"`
	Method     string `csv:"method"`
	Eps        Float  `csv:"eps"`
	N          int    `csv:"n"`
	// Params holds the other swept parameters as sorted key=value pairs
	// joined by ';' (see FormatParams).
	Params string `csv:"params"`
	// Normalisation records how the dataset was mapped to the mechanism's
	// domain, with the bounds used.
	Normalisation string `csv:"normalisation"`
	Trial         int    `csv:"trial"`
	Metric        string `csv:"metric"`
	Value         Float  `csv:"value"`
	Theory        Float  `csv:"theory"`
}

// Cell is the identity of a cell: every column of a row that does not vary
// with the trial or the metric.
type Cell struct {
	Experiment, Dataset, Method string
	Eps                         Float
	N                           int
	Params                      string
}

// Cell returns the row's cell.
func (r *Row) Cell() Cell {
	return Cell{r.Experiment, r.Dataset, r.Method, r.Eps, r.N, r.Params}
}

// Key is a canonical text form of the cell, used for seeding and resuming.
func (c Cell) Key() string {
	eps, _ := c.Eps.MarshalCSV()
	return fmt.Sprintf("experiment=%s;dataset=%s;method=%s;eps=%s;n=%d;%s",
		c.Experiment, c.Dataset, c.Method, eps, c.N, c.Params)
}

// FormatParams writes parameters as sorted key=value pairs joined by ';'.
func FormatParams(params map[string]string) string {
	keys := slices.Sorted(maps.Keys(params))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + params[k]
	}
	return strings.Join(parts, ";")
}

// ParseParams is the inverse of FormatParams.
func ParseParams(s string) map[string]string {
	params := make(map[string]string)
	if s == "" {
		return params
	}
	for _, kv := range strings.Split(s, ";") {
		k, v, _ := strings.Cut(kv, "=")
		params[k] = v
	}
	return params
}

// Field returns the value of a named column or parameter as text, for
// projections: experiment, dataset, method, eps, n, metric, normalisation, or
// any key of Params.
func (c Cell) Field(name string) (string, bool) {
	switch name {
	case "experiment":
		return c.Experiment, true
	case "dataset":
		return c.Dataset, true
	case "method":
		return c.Method, true
	case "eps":
		s, _ := c.Eps.MarshalCSV()
		return s, true
	case "n":
		return strconv.Itoa(c.N), true
	}
	v, ok := ParseParams(c.Params)[name]
	return v, ok
}

// WriteRows writes rows as CSV, with the header when header is true.
func WriteRows(w io.Writer, rows []Row, header bool) error {
	if len(rows) == 0 {
		return nil
	}
	return writeCSV(w, func(b *bytes.Buffer) error {
		if header {
			return gocsv.Marshal(rows, b)
		}
		return gocsv.MarshalWithoutHeaders(rows, b)
	})
}

// writeCSV writes what marshal produces so that readCSV reads back the very
// records: a record whose first field starts with '#' gets that field
// quoted (else it would read as a comment line), and a field holding a
// carriage return is refused (encoding/csv reads "\r\n" inside quotes as
// "\n", so it could not come back as written).
func writeCSV(w io.Writer, marshal func(*bytes.Buffer) error) error {
	var b bytes.Buffer
	if err := marshal(&b); err != nil {
		return err
	}
	raw := b.Bytes()
	if i := bytes.IndexByte(raw, '\r'); i >= 0 {
		return fmt.Errorf("record on line %d: a field holds a carriage return, which CSV cannot keep", bytes.Count(raw[:i], []byte("\n"))+1)
	}
	inQuote := false
	for _, line := range bytes.SplitAfter(raw, []byte("\n")) {
		if !inQuote && len(line) > 0 && line[0] == '#' {
			// An unquoted first field holds no quote, comma or newline: it
			// ends at the first of them.
			i := bytes.IndexAny(line, ",\n")
			if i < 0 {
				i = len(line)
			}
			line = slices.Concat([]byte(`"`), line[:i], []byte(`"`), line[i:])
		}
		if bytes.Count(line, []byte(`"`))%2 == 1 {
			inQuote = !inQuote
		}
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// readCSV reads records of type T, skipping '#' metadata lines. A parse
// error names the line of the input, comment lines counted (encoding/csv and
// gocsv would otherwise disagree on whether to count them).
func readCSV[T any](r io.Reader) ([]T, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var kept bytes.Buffer
	var lineOf []int // lineOf[k-1]: the input line of the k-th kept line
	inQuote := false // inside a quoted field that spans lines
	for i, line := range bytes.SplitAfter(raw, []byte("\n")) {
		if len(line) == 0 || (!inQuote && line[0] == '#') {
			continue
		}
		if bytes.Count(line, []byte(`"`))%2 == 1 {
			inQuote = !inQuote
		}
		kept.Write(line)
		lineOf = append(lineOf, i+1)
	}
	fileLine := func(k int) int {
		if k >= 1 && k <= len(lineOf) {
			return lineOf[k-1]
		}
		return k
	}
	var out []T
	if err := gocsv.UnmarshalCSV(csv.NewReader(&kept), &out); err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			pe.Line, pe.StartLine = fileLine(pe.Line), fileLine(pe.StartLine)
			if pe.StartLine == 0 || pe.StartLine > pe.Line {
				pe.StartLine = pe.Line
			}
		}
		return nil, err
	}
	return out, nil
}

// ReadRows reads rows written by WriteRows, skipping '#' lines; it does not
// ask for an end line (an unfinished run's rows have none).
func ReadRows(r io.Reader) ([]Row, error) { return readCSV[Row](r) }

// ReadRowsFile reads a finished rows file: it must end with its end line
// (WriteEnd), else the error wraps ErrIncomplete. Errors name the file.
func ReadRowsFile(path string) ([]Row, error) { return readCompleteFile[Row](path) }

// RowsHeader returns the CSV header line of a rows file.
func RowsHeader() string {
	s, err := gocsv.MarshalString([]Row{{}})
	if err != nil {
		panic(err)
	}
	header, _, _ := strings.Cut(s, "\n")
	return header
}

// WriteRowsHeader writes the CSV header line of a rows file.
func WriteRowsHeader(w io.Writer) error {
	_, err := io.WriteString(w, RowsHeader()+"\n")
	return err
}

// WriteComments writes header lines above a file's CSV header: each must
// start with '#' (CSV readers skip it; ReadRows and ReadSummaries do) and
// hold no line break.
func WriteComments(w io.Writer, lines []string) error {
	for _, l := range lines {
		if !strings.HasPrefix(l, "#") || strings.ContainsAny(l, "\r\n") {
			return fmt.Errorf("header line %q: want a '#' line without line breaks", l)
		}
		if _, err := io.WriteString(w, l+"\n"); err != nil {
			return err
		}
	}
	return nil
}
