package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ldpbench/ldpbench/compare"
	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/results"
	"github.com/ldpbench/ldpbench/tables"
)

func cmdList(kinds experiment.Registry, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	verbose := fs.Bool("v", false, "describe each entry")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("list: want one of mechanisms, datasets, specs, kinds")
	}
	switch pos[0] {
	case "mechanisms":
		for _, name := range mechanisms.Names() {
			if *verbose {
				info, _ := mechanisms.Lookup(name)
				fmt.Fprintf(stdout, "%s\t%s\n", name, info.Summary)
			} else {
				fmt.Fprintln(stdout, name)
			}
		}
	case "datasets":
		for _, d := range datasets.Catalogue() {
			if *verbose {
				fmt.Fprintf(stdout, "%s\t%s\n", d.Name, d.Key())
			} else {
				fmt.Fprintln(stdout, d.Name)
			}
		}
	case "specs":
		files, err := harness.ListSpecs()
		if err != nil {
			return err
		}
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), ".toml")
			if *verbose {
				s, err := harness.LoadSpec(f)
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "%s\t%s\n", name, s.Title)
			} else {
				fmt.Fprintln(stdout, name)
			}
		}
	case "kinds":
		for _, name := range kinds.Names() {
			if !*verbose {
				fmt.Fprintln(stdout, name)
				continue
			}
			k, _ := kinds.Lookup(name)
			fmt.Fprintf(stdout, "%s\n  metrics: %s\n", name, strings.Join(k.Metrics(), ", "))
			if _, ok := k.(experiment.MethodLister); ok {
				fmt.Fprintln(stdout, "  methods: \"*\" lists every one")
			}
			if _, ok := k.(experiment.TrialKeyer); ok {
				fmt.Fprintln(stdout, "  paired: its methods see the same reports in each trial")
			}
			for _, p := range k.Params() {
				fmt.Fprintf(stdout, "  params.%s (%s): %s\n", p.Key, p.Describe(), p.Doc)
			}
		}
	default:
		return fmt.Errorf("list: unknown list %q (want mechanisms, datasets, specs or kinds)", pos[0])
	}
	return nil
}

// cmdTheory prints worst-case variances on the common [-1, 1] input scale
// (Square Wave's [0, 1] variance is multiplied by 4, ERRATA E4.5).
func cmdTheory(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("theory", flag.ContinueOnError)
	mechList := fs.String("mech", strings.Join(mechanisms.Names(), ","), "comma-separated mechanism names")
	epsList := fs.String("eps", "0.5,1,2,4,8", "comma-separated privacy budgets")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("theory: unexpected argument %q", pos[0])
	}
	var eps []float64
	for _, f := range strings.Split(*epsList, ",") {
		e, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return fmt.Errorf("theory: --eps: %q is not a number", f)
		}
		eps = append(eps, e)
	}
	w := csv.NewWriter(stdout)
	w.Write([]string{"mechanism", "eps", "worst_case_variance"})
	for _, name := range strings.Split(*mechList, ",") {
		name = strings.TrimSpace(name)
		for _, e := range eps {
			m, err := mechanisms.New(name, e)
			if err != nil {
				return fmt.Errorf("theory: %w", err)
			}
			est, err := mechanisms.Unbiased(m)
			if err != nil {
				return fmt.Errorf("theory: %w", err)
			}
			w.Write([]string{name, strconv.FormatFloat(e, 'g', -1, 64),
				strconv.FormatFloat(est.WorstCaseVariance(), 'g', -1, 64)})
		}
	}
	w.Flush()
	return w.Error()
}

func cmdRun(ctx context.Context, kinds experiment.Registry, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var opt harness.Options
	fs.StringVar(&opt.OutDir, "out", "", "output directory (default out/<spec name>)")
	fs.IntVar(&opt.Jobs, "j", 0, "parallel workers (default: all cores); results do not depend on it")
	fs.BoolVar(&opt.Quick, "quick", false, "run at the spec's [quick] scale")
	seed := fs.String("seed", "", "master seed (default: the spec's)")
	fs.BoolVar(&opt.Fresh, "fresh", false, "discard earlier results in the output directory")
	shard := fs.String("shard", "", "run only share i/N of the cells (i from 0), balanced by estimated cost; join with `ldpbench merge`")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("run: want one SPEC, got %d arguments", len(pos))
	}
	if *shard != "" {
		if opt.Shard, err = harness.ParseShard(*shard); err != nil {
			return fmt.Errorf("run: %w", err)
		}
	}
	if *seed != "" {
		opt.Seed, err = strconv.ParseUint(*seed, 10, 64)
		if err != nil {
			return fmt.Errorf("run: --seed %q: want a non-negative integer", *seed)
		}
		opt.SeedSet = true
	}
	path, err := harness.FindSpec(pos[0])
	if err != nil {
		return err
	}
	spec, err := harness.LoadSpec(path)
	if err != nil {
		return err
	}
	// The claims are checked before anything runs, so that a misspelt
	// claim does not surface after hours of work.
	kind, err := spec.Check(kinds)
	if err != nil {
		return err
	}
	if err := compare.Validate(spec, kind); err != nil {
		return err
	}
	opt.Log = stderr
	if isTerminal(os.Stderr) && stderr == os.Stderr {
		opt.Progress = stderr
	}
	start, cpu0 := time.Now(), harness.CPUSeconds()
	res, err := harness.Run(ctx, kinds, spec, opt)
	if err != nil {
		return err
	}
	took := fmt.Sprintf("in %.1f s wall, %.1f CPU-s", time.Since(start).Seconds(), harness.CPUSeconds()-cpu0)
	if res.Skipped {
		fmt.Fprintf(stdout, "%s: skipped (data not fetched)\n", spec.Name)
		return nil
	}
	if opt.Shard.Active() {
		fmt.Fprintf(stdout, "%s: shard %s: %d cells (%d resumed), %d trials run %s -> %s (join the shards with `ldpbench merge`)\n",
			spec.Name, opt.Shard, res.Cells, res.Resumed, res.Trials, took, res.OutDir)
		return nil
	}
	fmt.Fprintf(stdout, "%s: %d cells (%d resumed), %d trials run %s -> %s\n",
		spec.Name, res.Cells, res.Resumed, res.Trials, took, res.OutDir)
	for _, f := range slices.Concat(res.Figures, res.Tables) {
		fmt.Fprintln(stdout, "  ", f)
	}
	if opt.Quick && len(spec.Claims) > 0 {
		// claims.csv is written all the same (the machinery is what a quick
		// run checks), but its ranges are not the paper's experiment.
		fmt.Fprintln(stdout, "claims at --quick scale (fewer users and trials than the paper): the measured ranges below test the pipeline, not the paper's statements")
	}
	return reportClaims(spec, res.OutDir, stdout)
}

func cmdPlot(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	out := fs.String("out", "", "results directory when the argument is a spec (default out/<spec name>)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("plot: want one SPEC or DIR")
	}
	dir, specPath := pos[0], ""
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		specPath = filepath.Join(dir, harness.SpecFile)
	} else {
		if specPath, err = harness.FindSpec(pos[0]); err != nil {
			return err
		}
		dir = ""
	}
	spec, err := harness.LoadSpec(specPath)
	if err != nil {
		return err
	}
	if dir == "" {
		dir = *out
		if dir == "" {
			dir = filepath.Join("out", spec.Name)
		}
	}
	summaries, err := results.ReadSummaryFile(filepath.Join(dir, harness.SummaryFile))
	if err != nil {
		return fmt.Errorf("plot: %w (run the spec first)", err)
	}
	files, err := harness.DrawFigures(spec.Figures, summaries, dir, func(f string, a ...any) { fmt.Fprintf(stderr, f+"\n", a...) })
	if err != nil {
		return err
	}
	tabs, err := tables.WriteAll(summaries, spec.Tables, dir)
	if err != nil {
		return err
	}
	for _, f := range slices.Concat(files, tabs) {
		fmt.Fprintln(stdout, f)
	}
	return nil
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
