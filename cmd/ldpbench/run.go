package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ldpbench/ldpbench/compare"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/results"
)

// RunLogFile is where a batch run (several SPECs) keeps each spec's log.
const RunLogFile = "run.log"

func cmdRun(ctx context.Context, c *cli, args []string) error {
	fs := c.flags("run")
	var opt harness.Options
	fs.StringVar(&opt.OutDir, "out", "", "output `directory` (default out/<spec name>); one SPEC only")
	fs.IntVar(&opt.Jobs, "j", 0, "parallel `workers` (default: all cores); results do not depend on it")
	scale := addScale(fs)
	seed := addSeed(fs, 0, "master `seed` (default: the spec's)")
	fs.BoolVar(&opt.Fresh, "fresh", false, "discard earlier results in the output directory")
	shard := fs.String("shard", "", "run only share `i/N` of the cells (i from 0), balanced by estimated cost; join the shards with 'ldpbench merge'; one SPEC only")
	pos, err := c.parse(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs("run", pos, 1, -1, "at least one SPEC"); err != nil {
		return err
	}
	if opt.Quick, err = scale.isQuick("run"); err != nil {
		return err
	}
	if len(pos) > 1 && (opt.OutDir != "" || *shard != "") {
		return usageErrorf("run", "--out and --shard name one spec's output: give one SPEC")
	}
	if *shard != "" {
		if opt.Shard, err = harness.ParseShard(*shard); err != nil {
			return usageErrorf("run", "--shard: %v", err)
		}
	}
	if seed.set {
		opt.Seed, opt.SeedSet = seed.value, true
	}
	if isTerminal(os.Stderr) && c.stderr == os.Stderr {
		opt.Progress = c.stderr
	}
	if len(pos) == 1 {
		opt.Log = c.stderr
		_, _, err := runSpec(ctx, c, pos[0], opt, c.stdout)
		return err
	}
	return runBatch(ctx, c, pos, opt)
}

// runSpec runs one spec and prints what it did to out: the cells and time,
// the files, and the claims.
func runSpec(ctx context.Context, c *cli, arg string, opt harness.Options, out io.Writer) (*harness.Spec, *harness.Result, error) {
	spec, err := harness.OpenSpec(arg, c.shipped)
	if err != nil {
		return nil, nil, err
	}
	// The claims are checked before anything runs, so that a misspelt
	// claim does not surface after hours of work.
	kind, err := spec.Check(c.kinds)
	if err != nil {
		return spec, nil, err
	}
	if err := compare.Validate(spec, kind); err != nil {
		return spec, nil, err
	}
	start, cpu0 := time.Now(), harness.CPUSeconds()
	res, err := harness.Run(ctx, c.kinds, spec, opt)
	if err != nil {
		return spec, nil, err
	}
	took := fmt.Sprintf("in %.1f s wall, %.1f CPU-s", time.Since(start).Seconds(), harness.CPUSeconds()-cpu0)
	if res.Skipped {
		fmt.Fprintf(out, "%s: skipped: data not fetched: %s (run 'make data')\n", spec.Name, strings.Join(res.SkippedData, ", "))
		return spec, res, nil
	}
	if opt.Shard.Active() {
		fmt.Fprintf(out, "%s: shard %s: %d cells (%d resumed), %d trials run %s -> %s (join the shards with 'ldpbench merge')\n",
			spec.Name, opt.Shard, res.Cells, res.Resumed, res.Trials, took, res.OutDir)
		return spec, res, nil
	}
	fmt.Fprintf(out, "%s: %d cells (%d resumed), %d trials run %s -> %s\n",
		spec.Name, res.Cells, res.Resumed, res.Trials, took, res.OutDir)
	for _, f := range slices.Concat(res.Figures, res.Tables) {
		fmt.Fprintln(out, "  ", f)
	}
	if len(res.SkippedData) > 0 {
		// Not a failure: what waits for `make data` is named, with the
		// figures and tables that wait with it.
		fmt.Fprintf(out, "   skipped, data not fetched: %s\n", strings.Join(res.SkippedData, ", "))
	}
	for _, s := range res.SkippedOutputs {
		fmt.Fprintf(out, "   skipped %s\n", s)
	}
	if opt.Quick && len(spec.Claims) > 0 {
		// claims.csv is written all the same (the machinery is what a quick
		// run checks), but its ranges are not the paper's experiment.
		fmt.Fprintln(out, "claims at --quick scale (fewer users and trials than the paper): the measured ranges below test the pipeline, not the paper's statements")
	}
	return spec, res, reportClaims(spec, res.OutDir, out)
}

// runBatch runs several specs one after the other (make figures): one line
// per spec, each spec's log in its directory's run.log, a summary at the
// end and out/index.md. A spec that fails does not stop the others.
func runBatch(ctx context.Context, c *cli, args []string, opt harness.Options) error {
	start, cpu0 := time.Now(), harness.CPUSeconds()
	width := 0
	for _, a := range args {
		width = max(width, len(specName(a)))
	}
	var ran, failed, stale int
	var skipped []string
	for i, arg := range args {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var log bytes.Buffer
		o := opt
		o.Log = &log
		t0, c0 := time.Now(), harness.CPUSeconds()
		spec, res, err := runSpec(ctx, c, arg, o, &log)
		name := specName(arg)
		if spec != nil {
			name = spec.Name
		}
		times := fmt.Sprintf("%7.1f s %7.1f CPU-s", time.Since(t0).Seconds(), harness.CPUSeconds()-c0)
		prefix := fmt.Sprintf("[%*d/%d] %-*s", len(fmt.Sprint(len(args))), i+1, len(args), width, name)
		switch {
		case err != nil:
			failed++
			if strings.Contains(err.Error(), "use --fresh") {
				stale++
			}
			fmt.Fprintf(c.stdout, "%s FAILED  %s: %v\n", prefix, times, err)
		case res.Skipped:
			skipped = append(skipped, fmt.Sprintf("%s: %s", name, strings.Join(res.SkippedData, ", ")))
			fmt.Fprintf(c.stdout, "%s skipped %s: data not fetched: %s\n", prefix, times, strings.Join(res.SkippedData, ", "))
		default:
			ran++
			note := fmt.Sprintf("%d cells, %d files", res.Cells, len(res.Figures)+len(res.Tables))
			switch n := countWarnings(log.Bytes()); {
			case n == 1:
				note += ", 1 figure warning"
			case n > 1:
				note += fmt.Sprintf(", %d figure warnings", n)
			}
			if n := len(res.SkippedOutputs); n > 0 {
				note += fmt.Sprintf(", %d figure(s) or table(s) skipped", n)
			}
			if len(res.SkippedData) > 0 {
				note += ", data not fetched: " + strings.Join(res.SkippedData, ", ")
			}
			logPath := filepath.Join(res.OutDir, RunLogFile)
			if err := writeLog(logPath, log.Bytes()); err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "%s ok      %s: %s -> %s\n", prefix, times, note, logPath)
		}
	}
	fmt.Fprintf(c.stdout, "\n%d specs run, %d skipped, %d failed, in %s wall, %s CPU\n",
		ran, len(skipped), failed, dur(time.Since(start).Seconds()), dur(harness.CPUSeconds()-cpu0))
	if len(skipped) > 0 {
		fmt.Fprintln(c.stdout, "skipped for data not fetched: run 'make data' (or set $LDPBENCH_DATA), then run them again")
	}
	if stale > 0 {
		fmt.Fprintf(c.stdout, "%d of the failed hold results of another build, spec, seed or scale: --fresh (make figures FRESH=1) runs them again\n", stale)
	}
	index, err := writeIndex("out", skipped)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "results: out/<spec>/ (rows.csv, summary.csv, figures as PNG and SVG, tables, run.log); index: %s\n", index)
	if failed > 0 {
		return fmt.Errorf("run: %d of %d specs failed (see above)", failed, len(args))
	}
	return nil
}

// specName is the name a spec argument stands for, before it is read.
func specName(arg string) string {
	return strings.TrimSuffix(filepath.Base(arg), ".toml")
}

// countWarnings counts the figure warnings in a run's log (package figures
// starts each with `figure "name": `).
func countWarnings(log []byte) int {
	n := 0
	for _, l := range bytes.Split(log, []byte("\n")) {
		if bytes.HasPrefix(l, []byte(`figure "`)) {
			n++
		}
	}
	return n
}

func writeLog(path string, log []byte) error {
	return results.WriteFileAtomic(path, func(w *bufio.Writer) error {
		_, err := w.Write(log)
		return err
	})
}
