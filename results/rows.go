package results

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"os"
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
	if header {
		return gocsv.Marshal(rows, w)
	}
	return gocsv.MarshalWithoutHeaders(rows, w)
}

// commentReader returns a CSV reader that skips '#' metadata lines.
func commentReader(r io.Reader) gocsv.CSVReader {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	return cr
}

// readCSV reads records of type T, skipping '#' metadata lines.
func readCSV[T any](r io.Reader) ([]T, error) {
	var out []T
	if err := gocsv.UnmarshalCSV(commentReader(r), &out); err != nil {
		return nil, err
	}
	return out, nil
}

// readCSVFile reads records of type T from a file; errors name the file.
func readCSVFile[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out, err := readCSV[T](bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// ReadRows reads a rows file written by WriteRows, skipping '#' lines.
func ReadRows(r io.Reader) ([]Row, error) { return readCSV[Row](r) }

// ReadRowsFile reads a rows file; errors name the file.
func ReadRowsFile(path string) ([]Row, error) { return readCSVFile[Row](path) }

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
