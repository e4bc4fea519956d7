package main

import (
	"context"
	"fmt"
	"time"

	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/runs"
)

// cmdPlan prints a spec's cells, trials and estimated cost, from a short
// calibration, and the shard count that brings it under an hour.
func cmdPlan(ctx context.Context, c *cli, args []string) error {
	fs := c.flags("plan")
	scale := addScale(fs)
	budget := fs.Duration("calibrate", 20*time.Second, "CPU `time` the calibration may take")
	calN := fs.Int("calibration-n", 20000, "largest `n` at which a cell is timed (larger ones are scaled by cost)")
	cores := fs.Int("cores", 2, "`cores` per machine, for the wall times")
	verbose := fs.Bool("v", false, "list every cell's estimate")
	itersFrom := fs.String("iterations", "", "`file` of EM iterations recorded at full scale (ldpbench times --iterations DIR); default the shipped runs/iterations.csv, \"none\" to extrapolate every count")
	pos, err := c.parse(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs("plan", pos, 1, 1, "one SPEC"); err != nil {
		return err
	}
	quick, err := scale.isQuick("plan")
	if err != nil {
		return err
	}
	if *cores < 1 {
		return usageErrorf("plan", "--cores %d: want ≥ 1", *cores)
	}
	spec, err := harness.OpenSpec(pos[0], c.shipped)
	if err != nil {
		return err
	}
	iters, err := c.recordedIterations(*itersFrom)
	if err != nil {
		return fmt.Errorf("plan: --iterations: %w", err)
	}
	stdout := c.stdout
	r, err := harness.Budget(ctx, c.kinds, spec, harness.BudgetOptions{Quick: quick, CalibrationN: *calN, CalibrationTime: *budget, Cores: *cores, Iterations: iters})
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	scaleText := "full scale (--quick: the spec's [quick] scale)"
	if quick {
		scaleText = "quick scale"
	}
	fmt.Fprintf(stdout, "%s, %s: %d cells × %d trials = %d trials\n", r.Spec, scaleText, r.Cells, r.Trials, r.Cells*r.Trials)
	if r.Crossed > 0 {
		fmt.Fprintf(stdout, "cells: the %d the spec names ([[cells]], [[exclude]]) of the %d its axes cross\n", r.Cells, r.Crossed)
	}
	if r.Timing {
		fmt.Fprintln(stdout, "timing spec: its trials run one at a time whatever -j, each alone on its machine; the wall times below assume a trial uses every core (a kind's threads)")
	}
	fmt.Fprintf(stdout, "calibration: %d of %d groups (dataset × method × params × n) timed on a few trials at their n, at most %d (at the median ε, and the least and greatest while the calibration has time, interpolated between), in %.1f CPU-s; larger n scaled by the kind's cost model (experiment.CostEstimator) or else by n^b, b timed at %d and 4× that; cells that share their trials (experiment.CostSharer) timed once and charged a share each; untimed groups take a timed one's rate; plus %.1f µs a trial for its rows and trial key and %.1f µs a cell to write them. AN ESTIMATE, not a measurement at this scale\n",
		r.Calibrated, r.Groups, r.CalibrationN, r.CalibrationCPUSeconds, r.CalibrationN, r.TrialOverhead*1e6, r.CellOverhead*1e6)
	if r.Recorded > 0 {
		fmt.Fprintf(stdout, "not calibrated: %d groups whose every cell is costed from its recorded EM iterations (below)\n", r.Recorded)
	}
	if r.IterationTimed > 0 {
		fmt.Fprintf(stdout, "EM cells beyond the calibration: %d groups × sizes timed at their own n with max_iter capped at %d and at %d (8 times further until the iterations stand out of the trial's noise), for a trial's cost beside its iterations and one iteration's (experiment.IterativeCost); times the iterations a full-scale run recorded for %d cells (%s), grown from the calibration's as n^(1/3) for %d, which is off by up to 2× (docs/scale-out.md)\n",
			r.IterationTimed, harness.IterationCapLo, harness.IterationCapLo+harness.IterationStep, r.RecordedIterations, itersSource(*itersFrom), r.ModelledIterations)
	}
	fmt.Fprintf(stdout, "estimated: %s CPU, %s wall on one %d-core machine\n", dur(r.CPUSeconds), dur(r.Wall(1)), r.Cores)
	if r.IterationCPUSeconds > 0 {
		fmt.Fprintf(stdout, "of which EM iterations: %s CPU (%.0f %%): their count times the cost of one at the cell's n, what only another stopping rule would save\n", dur(r.IterationCPUSeconds), 100*r.IterationCPUSeconds/r.CPUSeconds)
	}
	if n := r.ShardsFor(3600, 1024); n > 0 {
		fmt.Fprintf(stdout, "shards of %d cores for ≤ 1 h wall: %d (estimated %s)\n", r.Cores, n, dur(r.Wall(n)))
	} else {
		fmt.Fprintf(stdout, "no shard count up to 1024 brings it under 1 h: its longest cell alone takes %s per trial\n", dur(r.Wall(1024)))
	}
	fmt.Fprint(stdout, "  shards:")
	for _, n := range []int{1, 2, 4, 8, 16, 32} {
		fmt.Fprintf(stdout, "  %d → %s", n, dur(r.Wall(n)))
	}
	fmt.Fprintln(stdout)
	if *verbose {
		for _, c := range r.PerCell {
			mark := ""
			if !c.Measured {
				mark = " (median rate)"
			}
			fmt.Fprintf(stdout, "  %s\t%.3g CPU-s%s\n", c.Key, c.CPUSeconds, mark)
		}
	}
	return nil
}

// recordedIterations reads the EM iterations plan multiplies by
// (BudgetOptions.Iterations): from file, or with "" the shipped record,
// or with "none" none.
func (c *cli) recordedIterations(file string) (map[string]float64, error) {
	switch file {
	case "none":
		return nil, nil
	case "":
		f, err := c.shipped.Open(runs.IterationsFile)
		if err != nil {
			return nil, nil // a test's own shipped specs carry none
		}
		defer f.Close()
		return harness.ReadIterations(f, "runs/"+runs.IterationsFile)
	}
	return harness.ReadIterationsFile(file)
}

// itersSource names where plan's recorded iterations came from.
func itersSource(file string) string {
	if file == "" {
		return "runs/" + runs.IterationsFile
	}
	return file
}

// dur prints seconds as a rounded duration.
func dur(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	default:
		return d.Round(time.Second).String()
	}
}
