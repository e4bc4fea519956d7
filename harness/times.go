package harness

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/ldpbench/ldpbench/results"
)

// TimesFile is the record of how long a run took, in its output
// directory: one row per call of Run that ran trials (a resumed run adds
// a row; a shard's rows travel into the merge), so that tables, reports
// and docs/times.md read measured times instead of typed ones. It is kept
// apart from rows.csv, whose bytes must not depend on the machine.
const TimesFile = "times.csv"

// TimesHeader is times.csv's header: when the call started (UTC), the
// build, the scale, the shard ("" for a whole run), the workers and the
// machine's CPUs, the cells it ran and resumed, the trials it ran, and its
// wall and CPU seconds (the process's user + system time over the call).
var TimesHeader = []string{"started", "build", "scale", "shard", "jobs", "cpus", "cpu_model", "cells", "resumed", "trials", "wall_s", "cpu_s"}

// Times is one row of times.csv.
type Times struct {
	Started        time.Time
	Build          string
	Scale          string // "quick" or "full"
	Shard          string
	Jobs, CPUs     int
	CPUModel       string
	Cells, Resumed int
	Trials         int
	Wall, CPU      float64 // seconds
}

func (t Times) record() []string {
	return []string{
		t.Started.UTC().Format(time.RFC3339), t.Build, t.Scale, t.Shard,
		strconv.Itoa(t.Jobs), strconv.Itoa(t.CPUs), t.CPUModel,
		strconv.Itoa(t.Cells), strconv.Itoa(t.Resumed), strconv.Itoa(t.Trials),
		strconv.FormatFloat(t.Wall, 'f', 3, 64), strconv.FormatFloat(t.CPU, 'f', 3, 64),
	}
}

// AppendTimes adds rows to dir's times.csv, writing the header first when
// the file is new. The file is rewritten whole and renamed into place
// (results.WriteFileAtomic), so that a kill leaves the old record or the
// new one, never half a row.
func AppendTimes(dir string, rows ...Times) error {
	old, err := ReadTimes(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return writeTimes(dir, append(old, rows...))
}

// writeTimes writes dir's times.csv whole: the header and rows.
func writeTimes(dir string, rows []Times) error {
	return results.WriteFileAtomic(filepath.Join(dir, TimesFile), func(bw *bufio.Writer) error {
		w := csv.NewWriter(bw)
		w.Write(TimesHeader)
		for _, t := range rows {
			w.Write(t.record())
		}
		w.Flush()
		return w.Error()
	})
}

// mergeTimes writes into out the times of every shard directory, in the
// order given: the merged run's record is its shards' (a shard without
// times.csv, from an earlier ldpbench, adds nothing).
func mergeTimes(out string, dirs []string) error {
	var all []Times
	for _, d := range dirs {
		rows, err := ReadTimes(d)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		all = append(all, rows...)
	}
	if len(all) == 0 {
		return nil
	}
	return writeTimes(out, all)
}

// ReadTimes reads dir's times.csv (an error wrapping os.ErrNotExist when
// there is none).
func ReadTimes(dir string) ([]Times, error) {
	path := filepath.Join(dir, TimesFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readTimes(f, path)
}

func readTimes(r io.Reader, path string) ([]Times, error) {
	cr := csv.NewReader(r)
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 || strings.Join(recs[0], ",") != strings.Join(TimesHeader, ",") {
		return nil, fmt.Errorf("%s: not a times file (its header is not %s)", path, strings.Join(TimesHeader, ","))
	}
	var out []Times
	for i, rec := range recs[1:] {
		line := i + 2
		var t Times
		var errs []error
		num := func(col int) int {
			v, err := strconv.Atoi(rec[col])
			errs = append(errs, err)
			return v
		}
		sec := func(col int) float64 {
			v, err := strconv.ParseFloat(rec[col], 64)
			errs = append(errs, err)
			return v
		}
		t.Started, err = time.Parse(time.RFC3339, rec[0])
		errs = append(errs, err)
		t.Build, t.Scale, t.Shard, t.CPUModel = rec[1], rec[2], rec[3], rec[6]
		t.Jobs, t.CPUs = num(4), num(5)
		t.Cells, t.Resumed, t.Trials = num(7), num(8), num(9)
		t.Wall, t.CPU = sec(10), sec(11)
		if err := errors.Join(errs...); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// TotalTimes sums the rows of a run's times.csv: the wall and CPU time of
// every call that ran its trials, resumed ones and shards included.
func TotalTimes(rows []Times) (wall, cpu float64) {
	for _, t := range rows {
		wall += t.Wall
		cpu += t.CPU
	}
	return wall, cpu
}

// cpuModel is the machine's processor as /proc/cpuinfo names it ("" where
// there is no such file).
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

// recordTimes appends this call's row to the output directory's times.csv,
// once its rows are on disk: cells of them (those of an interrupted call
// that it kept, resumed ones included, or all).
func (r *runner) recordTimes(start time.Time, cpu0 float64, cells int) error {
	scale := "full"
	if r.reduced {
		scale = "quick"
	}
	shard := ""
	if r.opt.Shard.Active() {
		shard = r.opt.Shard.String()
	}
	t := Times{
		Started: start, Build: BuildID(), Scale: scale, Shard: shard,
		Jobs: r.opt.Jobs, CPUs: runtime.NumCPU(), CPUModel: cpuModel(),
		Cells: cells, Resumed: r.res.Resumed, Trials: r.res.Trials,
		Wall: time.Since(start).Seconds(), CPU: CPUSeconds() - cpu0,
	}
	if err := AppendTimes(r.opt.OutDir, t); err != nil {
		return fmt.Errorf("recording the run's times in %s: %w", filepath.Join(r.opt.OutDir, TimesFile), err)
	}
	return nil
}
