package harness

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/ldpbench/ldpbench/results"
)

// resumable inspects the rows of an interrupted run and returns how many
// cells, a prefix of the plan, it holds complete. It truncates anything after
// them (a cell cut short by a kill), so that appending the remaining cells
// gives the same bytes as an uninterrupted run. A missing file means 0.
// The file's data lines must record the same data as this run's (data):
// rows computed on another file are not resumed. A timing spec's file must
// have been timed on this machine (timing, this run's timing lines): its
// times and this machine's would be mixed under one machine's name.
func resumable(path, header string, data, timing []string, cells []planCell, trials int, metrics []string) (int, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	// Only whole lines count.
	raw = raw[:bytes.LastIndexByte(raw, '\n')+1]
	lines := bytes.SplitAfter(raw, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	if len(lines) < 2 {
		// Killed before the header was written: start afresh.
		return 0, os.Remove(path)
	}
	if got := string(bytes.TrimRight(lines[0], "\n")); got != header {
		return 0, fmt.Errorf("%s is an interrupted run of another %s; use --fresh to discard it or --out to write elsewhere", path, HeaderDiff(got, header))
	}
	// The data lines, then the column header.
	head := 1
	var got []string
	for head < len(lines) && bytes.HasPrefix(lines[head], []byte("#")) {
		got = append(got, string(bytes.TrimRight(lines[head], "\n")))
		head++
	}
	if head == len(lines) {
		// Killed before the column header was written: start afresh.
		return 0, os.Remove(path)
	}
	got, gotTiming := splitTiming(got)
	if !sameData(got, data) {
		return 0, fmt.Errorf("%s is an interrupted run on other data: %s; use --fresh to discard it or --out to write elsewhere", path, dataDiff(got, data, "in the file", "in this run"))
	}
	if !slices.Equal(gotTiming, timing) {
		return 0, fmt.Errorf("%s is an interrupted timing run of another machine (%s; this one %s): its times and this machine's would be mixed; use --fresh to time it all here, or resume it there", path, TimingNote(gotTiming), TimingNote(timing))
	}
	if got, want := string(bytes.TrimRight(lines[head], "\n")), results.RowsHeader(); got != want {
		return 0, fmt.Errorf("%s: unexpected column header %q, want %q", path, got, want)
	}
	// The whole prefix, metadata line included (a comment to the CSV
	// reader), so that an error names the line of the file.
	rows, err := results.ReadRows(bytes.NewReader(bytes.Join(lines, nil)))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	perCell := trials * len(metrics)
	done := min(len(rows)/perCell, len(cells))
	for i := 0; i < done*perCell; i++ {
		r, c := &rows[i], cells[i/perCell].cell
		trial, metric := (i%perCell)/len(metrics), metrics[i%len(metrics)]
		if r.Cell() != c || r.Trial != trial || r.Metric != metric {
			return 0, fmt.Errorf("%s: line %d is %s trial %d %s, the plan expects %s trial %d %s; use --fresh to discard it",
				path, i+head+2, r.Cell().Key(), r.Trial, r.Metric, c.Key(), trial, metric)
		}
	}
	keep := 0
	for _, l := range lines[:head+1+done*perCell] {
		keep += len(l)
	}
	if err := os.Truncate(path, int64(keep)); err != nil {
		return 0, err
	}
	return done, nil
}

// firstLine returns the first line of a file.
func firstLine(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	if sc.Scan() {
		return sc.Text(), nil
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%s is empty", path)
}
