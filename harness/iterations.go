package harness

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/results"
)

// Recorded iterations: what a full-scale run of an iterative kind
// (experiment.IterativeCost) says about its cells' iteration counts, for
// `ldpbench plan` (BudgetOptions.Iterations). A count is a result of the
// spec and its seed, the same on every machine, and under a stopping rule
// that tightens with n no timing at a smaller n foresees it; with it, plan
// times the cost of one iteration at the cell's own n and multiplies.

// IterationsHeader is the header of an iterations file: the cell's key
// (results.Cell.Key) and the mean iterations per trial its run recorded.
var IterationsHeader = []string{"cell", "iterations"}

// IterationRecord is one cell's recorded mean iterations per trial.
type IterationRecord struct {
	Cell       string
	Iterations float64
}

// RecordedIterations reads the iteration counts of the finished
// full-scale run in dir: the mean, over its trials, of each iterative
// cell's iteration metric in summary.csv. It refuses a quick run (its
// counts are of other sizes) and an unfinished one.
func RecordedIterations(kinds experiment.Registry, dir string) ([]IterationRecord, error) {
	spec, err := LoadSpec(filepath.Join(dir, SpecFile))
	if err != nil {
		return nil, err
	}
	kind, err := kinds.Lookup(spec.Kind)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, SpecFile), err)
	}
	iterative, ok := kind.(experiment.IterativeCost)
	if !ok {
		return nil, nil
	}
	rows := filepath.Join(dir, RowsFile)
	complete, err := results.Complete(rows)
	if err != nil {
		return nil, err
	}
	if !complete {
		return nil, fmt.Errorf("%s: the run is unfinished: its counts would be of some cells only", rows)
	}
	path := filepath.Join(dir, SummaryFile)
	sums, err := results.ReadSummaryFile(path)
	if err != nil {
		return nil, err
	}
	var out []IterationRecord
	for _, s := range sums {
		if s.Quick {
			return nil, fmt.Errorf("%s: a quick run: its iteration counts are of the [quick] sizes, not the spec's", path)
		}
		params, err := kind.Params().Parse(results.ParseParams(s.Params))
		if err != nil {
			return nil, fmt.Errorf("%s: cell %s: %w", path, s.Cell().Key(), err)
		}
		metric, _, ok := iterative.Iterations(&experiment.CellSpec{Experiment: s.Experiment, Method: s.Method, Eps: float64(s.Eps), N: s.N, Params: params})
		if !ok || s.Metric != metric || !(float64(s.Mean) > 0) {
			continue
		}
		out = append(out, IterationRecord{Cell: s.Cell().Key(), Iterations: float64(s.Mean)})
	}
	return out, nil
}

// WriteIterations writes records as an iterations file, sorted by cell.
func WriteIterations(w io.Writer, recs []IterationRecord) error {
	recs = slices.Clone(recs)
	slices.SortFunc(recs, func(a, b IterationRecord) int { return cmp.Compare(a.Cell, b.Cell) })
	cw := csv.NewWriter(w)
	cw.Write(IterationsHeader)
	for _, r := range recs {
		cw.Write([]string{r.Cell, strconv.FormatFloat(r.Iterations, 'f', 1, 64)})
	}
	cw.Flush()
	return cw.Error()
}

// ReadIterations reads an iterations file (WriteIterations) into a map by
// cell key; name is where it came from, for errors, which give the line.
func ReadIterations(r io.Reader, name string) (map[string]float64, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = len(IterationsHeader)
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty: want the header %v", name, IterationsHeader)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !slices.Equal(head, IterationsHeader) {
		return nil, fmt.Errorf("%s:1: header %v, want %v", name, head, IterationsHeader)
	}
	out := map[string]float64{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		v, err := strconv.ParseFloat(rec[1], 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s:%d: iterations %q: want a positive number", name, line, rec[1])
		}
		if _, dup := out[rec[0]]; dup {
			return nil, fmt.Errorf("%s:%d: cell %s recorded twice", name, line, rec[0])
		}
		out[rec[0]] = v
	}
}

// ReadIterationsFile is ReadIterations of the file at path.
func ReadIterationsFile(path string) (map[string]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadIterations(f, path)
}
