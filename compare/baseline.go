package compare

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ldpbench/ldpbench/results"
)

// A Baseline is what `ldpbench regress` tests a new run against: every
// trial value of every cell and metric of one earlier run of a spec (at
// quick scale for the shipped specs, baselines/<spec>.csv), the run's first
// rows line (its seed, scale and spec hash), the false-alarm probability α
// of the spec's regression test, and why it was last written. Keeping the
// trial values rather than only their mean and SD is what allows the
// paired test where the seeds coincide.
type Baseline struct {
	Spec string
	// Alpha is the probability that regress reports a move of a run that
	// did not change (family-wise over the spec's tests, Holm).
	Alpha float64
	// RowsLine is the first line of the rows the baseline was made from.
	RowsLine string
	// Reasons are why it was written, newest first: every update adds
	// one, and keeps the earlier ones.
	Reasons []string
	Cells   []BaselineCell
}

// BaselineCell is one cell and metric of a baseline.
type BaselineCell struct {
	Cell   results.Cell
	Metric string
	Values []float64 // in trial order
}

// DefaultAlpha is the family-wise false-alarm probability of a new
// baseline: over the 40-odd shipped specs re-seeded, about one spec in
// 2,500 would report a move that is not there.
const DefaultAlpha = 1e-3

// NewBaseline builds a baseline from a run's rows (rowsLine: the first
// line of its rows.csv).
func NewBaseline(spec, rowsLine string, rows []results.Row, alpha float64, reason string, previous []string) (*Baseline, error) {
	if strings.TrimSpace(reason) == "" {
		return nil, errors.New("a baseline needs a reason (--reason \"...\": why the expected results changed)")
	}
	if !(alpha > 0 && alpha < 1) {
		return nil, fmt.Errorf("alpha = %v: want 0 < α < 1", alpha)
	}
	b := &Baseline{Spec: spec, Alpha: alpha, RowsLine: rowsLine, Reasons: append([]string{oneLine(reason)}, previous...)}
	type key struct {
		cell   results.Cell
		metric string
	}
	index := map[key]int{}
	for _, r := range rows {
		k := key{r.Cell(), r.Metric}
		i, ok := index[k]
		if !ok {
			i = len(b.Cells)
			index[k] = i
			b.Cells = append(b.Cells, BaselineCell{Cell: k.cell, Metric: r.Metric})
		}
		if r.Trial != len(b.Cells[i].Values) {
			return nil, fmt.Errorf("cell %s metric %s: trial %d out of order", k.cell.Key(), r.Metric, r.Trial)
		}
		b.Cells[i].Values = append(b.Cells[i].Values, float64(r.Value))
	}
	return b, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// baselineDigits is the precision of a baseline's stored values.
const baselineDigits = 10

var baselineHeader = []string{"experiment", "dataset", "method", "eps", "n", "params", "metric", "values"}

// Write writes the baseline atomically.
func (b *Baseline) Write(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return results.WriteFileAtomic(path, func(w *bufio.Writer) error {
		fmt.Fprintf(w, "# ldpbench baseline spec=%s alpha=%s\n", b.Spec, strconv.FormatFloat(b.Alpha, 'g', -1, 64))
		fmt.Fprintf(w, "# rows: %s\n", b.RowsLine)
		for _, r := range b.Reasons {
			fmt.Fprintf(w, "# reason: %s\n", r)
		}
		cw := csv.NewWriter(w)
		cw.Write(baselineHeader)
		for _, c := range b.Cells {
			vals := make([]string, len(c.Values))
			for i, v := range c.Values {
				// Ten significant digits: a same-seed rerun agrees to
				// 1e-9 (pairedT's identity), at 60 % of the bytes.
				vals[i] = strconv.FormatFloat(v, 'g', baselineDigits, 64)
			}
			eps, _ := c.Cell.Eps.MarshalCSV()
			cw.Write([]string{c.Cell.Experiment, c.Cell.Dataset, c.Cell.Method, eps, strconv.Itoa(c.Cell.N), c.Cell.Params, c.Metric, strings.Join(vals, " ")})
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		return results.WriteEnd(w, len(b.Cells))
	})
}

// ReadBaseline reads a baseline file; a file cut short (no end line
// matching its records) is an error.
func ReadBaseline(path string) (*Baseline, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b := &Baseline{}
	lines := strings.Split(string(raw), "\n")
	end := -1
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "# ldpbench baseline "):
			for _, f := range strings.Fields(strings.TrimPrefix(l, "# ldpbench baseline ")) {
				k, v, _ := strings.Cut(f, "=")
				switch k {
				case "spec":
					b.Spec = v
				case "alpha":
					if b.Alpha, err = strconv.ParseFloat(v, 64); err != nil || !(b.Alpha > 0 && b.Alpha < 1) {
						return nil, fmt.Errorf("%s: alpha=%q: want a number in (0, 1)", path, v)
					}
				}
			}
		case strings.HasPrefix(l, "# rows: "):
			b.RowsLine = strings.TrimPrefix(l, "# rows: ")
		case strings.HasPrefix(l, "# reason: "):
			b.Reasons = append(b.Reasons, strings.TrimPrefix(l, "# reason: "))
		case strings.HasPrefix(l, "# end records="):
			end, err = strconv.Atoi(strings.TrimPrefix(l, "# end records="))
			if err != nil {
				return nil, fmt.Errorf("%s: bad end line %q", path, l)
			}
		}
	}
	if b.Spec == "" || b.Alpha == 0 {
		return nil, fmt.Errorf("%s: not a baseline (no \"# ldpbench baseline spec=... alpha=...\" line)", path)
	}
	r := csv.NewReader(strings.NewReader(string(raw)))
	r.Comment = '#'
	r.FieldsPerRecord = len(baselineHeader)
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if strings.Join(head, ",") != strings.Join(baselineHeader, ",") {
		return nil, fmt.Errorf("%s: header %q, want %q", path, strings.Join(head, ","), strings.Join(baselineHeader, ","))
	}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := r.FieldPos(0)
		var c BaselineCell
		var eps results.Float
		if err := eps.UnmarshalCSV(rec[3]); err != nil {
			return nil, fmt.Errorf("%s:%d: eps %q: %w", path, line, rec[3], err)
		}
		n, err := strconv.Atoi(rec[4])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: n %q: %w", path, line, rec[4], err)
		}
		c.Cell = results.Cell{Experiment: rec[0], Dataset: rec[1], Method: rec[2], Eps: eps, N: n, Params: rec[5]}
		c.Metric = rec[6]
		for _, f := range strings.Fields(rec[7]) {
			var v results.Float
			if err := v.UnmarshalCSV(f); err != nil {
				return nil, fmt.Errorf("%s:%d: value %q: %w", path, line, f, err)
			}
			c.Values = append(c.Values, float64(v))
		}
		b.Cells = append(b.Cells, c)
	}
	if end != len(b.Cells) {
		return nil, fmt.Errorf("%s: %w", path, results.ErrIncomplete)
	}
	return b, nil
}
