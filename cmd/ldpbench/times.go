package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"path/filepath"
	"strconv"
	"text/tabwriter"

	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/results"
)

// measured is what a finished run's times.csv says it cost.
type measured struct {
	Dir, Spec, Scale string
	Complete         bool // rows.csv has its end line
	Calls, Trials    int
	Wall, CPU        float64
	Jobs, CPUs       int // of the last call
	CPUModel         string
}

// readMeasured reads a run directory's spec name, scale and times.
func readMeasured(dir string) (*measured, error) {
	rows, err := harness.ReadTimes(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (a run records its times there since this build; run it again)", dir, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: %s has no rows", dir, harness.TimesFile)
	}
	rowsPath := filepath.Join(dir, harness.RowsFile)
	line, err := firstLine(rowsPath)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	complete, err := results.Complete(rowsPath)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	m := &measured{Dir: dir, Spec: headerValue(line, "experiment"), Scale: "full", Complete: complete, Calls: len(rows)}
	if headerValue(line, "quick") == "true" {
		m.Scale = "quick"
	}
	m.Wall, m.CPU = harness.TotalTimes(rows)
	for _, r := range rows {
		m.Trials += r.Trials
	}
	last := rows[len(rows)-1]
	m.Jobs, m.CPUs, m.CPUModel = last.Jobs, last.CPUs, last.CPUModel
	return m, nil
}

// cmdTimes prints what finished runs cost, from their times.csv.
func cmdTimes(_ context.Context, c *cli, args []string) error {
	fs := c.flags("times")
	asCSV := fs.Bool("csv", false, "print CSV (spec, scale, complete, calls, trials, wall_s, cpu_s, jobs, cpus, cpu_model)")
	iterations := fs.Bool("iterations", false, "print the EM iterations per trial each iterative cell recorded (CSV: cell, iterations), the record plan reads (runs/iterations.csv)")
	pos, err := c.parse(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs("times", pos, 1, -1, "one or more run DIRs"); err != nil {
		return err
	}
	if *iterations {
		var all []harness.IterationRecord
		for _, dir := range pos {
			recs, err := harness.RecordedIterations(c.kinds, dir)
			if err != nil {
				return fmt.Errorf("times: %w", err)
			}
			all = append(all, recs...)
		}
		return harness.WriteIterations(c.stdout, all)
	}
	var all []*measured
	for _, dir := range pos {
		m, err := readMeasured(dir)
		if err != nil {
			return fmt.Errorf("times: %w", err)
		}
		all = append(all, m)
	}
	if *asCSV {
		w := csv.NewWriter(c.stdout)
		w.Write([]string{"spec", "scale", "complete", "calls", "trials", "wall_s", "cpu_s", "jobs", "cpus", "cpu_model"})
		for _, m := range all {
			w.Write([]string{m.Spec, m.Scale, strconv.FormatBool(m.Complete), strconv.Itoa(m.Calls), strconv.Itoa(m.Trials),
				strconv.FormatFloat(m.Wall, 'f', 1, 64), strconv.FormatFloat(m.CPU, 'f', 1, 64),
				strconv.Itoa(m.Jobs), strconv.Itoa(m.CPUs), m.CPUModel})
		}
		w.Flush()
		return w.Error()
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "spec\tscale\ttrials\tCPU\twall\tworkers/CPUs\tcalls")
	for _, m := range all {
		scale := m.Scale
		if !m.Complete {
			scale += " (unfinished)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%d/%d\t%d\n", m.Spec, scale, m.Trials, seconds(m.CPU), seconds(m.Wall), m.Jobs, m.CPUs, m.Calls)
	}
	return tw.Flush()
}

// seconds writes a duration in seconds as h/min/s, to a tenth of a second
// under a minute.
func seconds(s float64) string {
	switch {
	case s < 60:
		return strconv.FormatFloat(s, 'f', 1, 64) + " s"
	case s < 3600:
		return fmt.Sprintf("%d min %02d s", int(s)/60, int(s)%60)
	default:
		return fmt.Sprintf("%d h %02d min", int(s)/3600, int(s)%3600/60)
	}
}
