package harness

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/external"
	"github.com/ldpbench/ldpbench/figures"
	"github.com/ldpbench/ldpbench/metrics"
	"github.com/ldpbench/ldpbench/results"
	"github.com/ldpbench/ldpbench/tables"
)

// Output file names inside the output directory.
const (
	RowsFile = "rows.csv"
	// PartialFile holds the rows of a run until it finishes (then renamed
	// RowsFile); a killed run resumes from it.
	PartialFile = RowsFile + ".partial"
	SummaryFile = "summary.csv"
	// SpecFile is a copy of the spec, so that `ldpbench plot DIR` can
	// re-draw the figures from the directory alone.
	SpecFile = "spec.toml"
	// ClaimsFile is the claims report that package compare writes beside
	// the rows (the runner only removes it, with --fresh).
	ClaimsFile = "claims.csv"
)

// Options control one run.
type Options struct {
	// OutDir receives the results; default out/<spec name>.
	OutDir string
	// Jobs is the number of workers; default runtime.GOMAXPROCS(0). The
	// results do not depend on it.
	Jobs int
	// Quick runs at the spec's [quick] scale.
	Quick bool
	// Seed, when SeedSet, replaces the spec's master seed.
	Seed    uint64
	SeedSet bool
	// Fresh discards results of an earlier run in OutDir (finished or not)
	// instead of reusing or resuming them.
	Fresh bool
	// Progress, when not nil, receives a progress line with an ETA.
	Progress io.Writer
	// Log receives one-line notes (resuming, up to date, figure warnings).
	Log io.Writer
	// Shard, when active, runs only that share of the cells (AssignShards)
	// into its own directory (default out/<spec>/shard-<i>-of-<N>): its
	// rows.csv holds those cells, in plan order, under the single run's
	// first line with " shard=i/N" appended, and no summary or figures;
	// Merge joins the shards into the single run's files. A shard resumes
	// like any run.
	Shard Shard
	// MemoryLimit bounds the memory the run may plan to use, in bytes; 0
	// means GOMEMLIMIT when set, else the machine's physical memory. A run
	// whose estimate is over it is refused before anything large is
	// allocated.
	MemoryLimit int64
}

// Result says what a run produced.
type Result struct {
	OutDir   string
	Cells    int
	Trials   int // trials run by this call (not resumed or reused ones)
	Resumed  int // cells taken from an interrupted run
	UpToDate bool
	Skipped  bool // every dataset's file was absent; nothing was run or written
	// SkippedData names the datasets whose files were absent, as
	// "name (file)": the whole run's when Skipped, else the ones left out.
	SkippedData []string
	Figures     []string
	Tables      []string // the tables' CSV and Markdown files
	Summaries   []results.Summary
	SpecCopied  string
}

// cellState is the runner's book-keeping for one cell.
type cellState struct {
	once      sync.Once
	run       experiment.CellRun
	err       error
	remaining atomic.Int64
	trials    [][]experiment.Measurement
}

// Run executes a spec with the kind that kinds registers under its kind key
// and writes rows.csv, summary.csv, spec.toml and the figures into the
// output directory. It checks everything it can before it writes anything;
// an interrupted run (ctx cancelled, or the process killed) leaves
// rows.csv.partial, from which the same call resumes.
func Run(ctx context.Context, kinds experiment.Registry, spec *Spec, opt Options) (*Result, error) {
	s := spec.Scaled(opt.Quick)
	reduced := spec.Reduced(opt.Quick)
	if opt.SeedSet {
		s.Seed = opt.Seed
	}
	kind, err := s.Check(kinds)
	if err != nil {
		return nil, err
	}
	if opt.Jobs < 0 {
		return nil, fmt.Errorf("-j %d: want the number of workers, ≥ 1 (0: one per core)", opt.Jobs)
	}
	if opt.Jobs == 0 {
		opt.Jobs = runtime.GOMAXPROCS(0)
	}
	if opt.OutDir == "" {
		opt.OutDir = filepath.Join("out", s.Name)
		if opt.Shard.Active() {
			opt.OutDir = filepath.Join(opt.OutDir, fmt.Sprintf("shard-%d-of-%d", opt.Shard.Index, opt.Shard.Count))
		}
	}
	if opt.Shard.Active() && (opt.Shard.Index < 0 || opt.Shard.Index >= opt.Shard.Count) {
		return nil, fmt.Errorf("--shard %s: want 0 ≤ i < N", opt.Shard)
	}
	logf := func(format string, args ...any) {
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, format+"\n", args...)
		}
	}

	// The spec's external mechanisms, registered until the run returns:
	// the cells below are checked with them.
	stopExternal, err := startExternal(ctx, s, opt.Jobs, true)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := stopExternal(); err != nil {
			logf("%v", err)
		}
	}()

	// Everything that can fail on bad input fails here, before any output.
	limit := memoryLimit(opt)
	dsBytes, dsWhat := datasetBytes(s)
	if err := checkMemory(s, dsBytes, limit, dsWhat); err != nil {
		return nil, err
	}
	data, skipped, err := loadDatasets(s)
	if err != nil {
		return nil, err
	}
	for _, name := range skipped {
		logf("dataset %s skipped: its file is not fetched yet (run `make data`, or set $%s to where it is)", name, datasets.EnvData)
	}
	cells := expand(s, kind)
	cells = slices.DeleteFunc(cells, func(c planCell) bool { return data[c.dataset] == nil })
	if len(cells) == 0 {
		// Not an error: `make figures` runs every spec, and a spec on data
		// that is not fetched yet is skipped as a whole.
		logf("%s: nothing to run: every dataset was skipped", s.Name)
		return &Result{OutDir: opt.OutDir, Skipped: true, SkippedData: skipped}, nil
	}
	specs := make([]*experiment.CellSpec, len(cells))
	for i, c := range cells {
		d := data[c.dataset]
		// The one size check, on rows (a row holds Dim() values): a kind
		// may rely on Dataset holding at least N rows.
		if c.cell.N > d.Rows() {
			return nil, fmt.Errorf("%s: dataset %q has %d rows, fewer than n = %d (key axes.n)", s.where(), d.Name, d.Rows(), c.cell.N)
		}
		params, err := kind.Params().Parse(c.params)
		if err != nil {
			return nil, fmt.Errorf("%s: cell %s: kind %s: %w", s.where(), c.cell.Key(), kind.Name(), err)
		}
		specs[i] = &experiment.CellSpec{
			Experiment: s.Name, Dataset: d, Method: c.cell.Method, Eps: float64(c.cell.Eps),
			N: c.cell.N, Params: params, Metrics: s.Metrics, Seed: s.Seed,
		}
		if err := kind.Check(specs[i]); err != nil {
			return nil, fmt.Errorf("%s: cell %s: %w", s.where(), c.cell.Key(), err)
		}
	}

	if need := cellBytes(kind, specs, opt.Jobs); need > 0 {
		if err := checkMemory(s, dsBytes+need, limit, fmt.Sprintf("%s; the cells of kind %s: %s with -j %d", dsWhat, kind.Name(), formatBytes(need), opt.Jobs)); err != nil {
			return nil, err
		}
	}

	header := metadataLine(s, kind, opt.Quick, skipped)
	if opt.Shard.Active() {
		// The assignment depends on the whole plan and the kind's cost
		// estimates alone, so every shard computes it alike.
		assign := AssignShards(cellCosts(kind, specs, s.Trials), opt.Shard.Count)
		var keepCells []planCell
		var keepSpecs []*experiment.CellSpec
		for i := range cells {
			if assign[i] == opt.Shard.Index {
				keepCells, keepSpecs = append(keepCells, cells[i]), append(keepSpecs, specs[i])
			}
		}
		logf("shard %s: %d of %d cells", opt.Shard, len(keepCells), len(cells))
		cells, specs = keepCells, keepSpecs
		header += opt.Shard.suffix()
	}
	res := &Result{OutDir: opt.OutDir, Cells: len(cells), SkippedData: skipped}
	rowsPath := filepath.Join(opt.OutDir, RowsFile)
	partialPath := filepath.Join(opt.OutDir, PartialFile)

	// From here on the output directory is touched: under its lock, so
	// that a second run into it is refused at once.
	createdDir := false
	if _, err := os.Stat(opt.OutDir); errors.Is(err, os.ErrNotExist) {
		createdDir = true
	}
	if err := os.MkdirAll(opt.OutDir, 0o755); err != nil {
		return nil, err
	}
	unlock, err := lockDir(opt.OutDir)
	if err != nil {
		if createdDir {
			os.Remove(opt.OutDir)
		}
		return nil, err
	}
	defer unlock()
	// A refusal below leaves a directory this call created as it found it:
	// absent.
	abandon := func(err error) (*Result, error) {
		if createdDir {
			os.Remove(filepath.Join(opt.OutDir, lockFile))
			os.Remove(opt.OutDir) // only succeeds if empty
		}
		return nil, err
	}
	if stale, err := results.RemoveTemps(opt.OutDir); err != nil {
		return abandon(err)
	} else if len(stale) > 0 {
		logf("removed %d temporary file(s) that a killed run left in %s", len(stale), opt.OutDir)
	}
	if opt.Fresh {
		if err := removeOutputs(opt.OutDir, s, logf); err != nil {
			return abandon(err)
		}
	}

	upToDate := false
	if line, err := firstLine(rowsPath); err == nil {
		if line != header {
			return abandon(fmt.Errorf("%s holds results of another %s; use --fresh to replace them or --out to write elsewhere", rowsPath, HeaderDiff(line, header)))
		}
		complete, err := results.Complete(rowsPath)
		if err != nil {
			return abandon(err)
		}
		switch {
		case complete:
			upToDate = true
		case fileExists(partialPath):
			return abandon(fmt.Errorf("%s has no end line (cut short, or written by an earlier ldpbench) and %s exists too: keep the one you want (rename it %s) or use --fresh", rowsPath, partialPath, PartialFile))
		default:
			// A rows file cut short is an interrupted run: resume from
			// its whole cells (an earlier version's whole file resumes
			// with nothing left to run, and gains its end line).
			logf("%s has no end line (cut short, or written by an earlier ldpbench): resuming from its whole cells", rowsPath)
			if err := os.Rename(rowsPath, partialPath); err != nil {
				return abandon(err)
			}
		}
	}
	if upToDate {
		logf("%s is up to date; re-summarising and re-drawing", rowsPath)
		res.UpToDate = true
	} else {
		resuming := fileExists(partialPath)
		onDisk, err := runCells(ctx, s, kind, cells, specs, header, partialPath, opt, res, logf)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("interrupted: %d of %d cells finished and kept in %s; run the same command again to resume: %w", onDisk, len(cells), partialPath, err)
			}
			if ext := (*external.Error)(nil); errors.As(err, &ext) {
				// An external program failed (a crash, a hang): not bad
				// input, so the finished cells are kept.
				return nil, fmt.Errorf("%w\n%d of %d cells finished and kept in %s; run the same command again to resume", err, onDisk, len(cells), partialPath)
			}
			if !resuming {
				// Bad input found mid-run: leave nothing behind. Never
				// remove a partial file this call did not create: it holds
				// an earlier run's finished cells, and a refusal to resume
				// it (another spec, a damaged line) must keep them.
				os.Remove(partialPath)
			}
			return abandon(err)
		}
		if err := endRows(partialPath, len(cells)*s.Trials*len(s.Metrics)); err != nil {
			return nil, err
		}
		if err := os.Rename(partialPath, rowsPath); err != nil {
			return nil, err
		}
	}
	if opt.Shard.Active() {
		// A shard's summary and figures would be of a part of the plan:
		// Merge writes them from every shard's rows. The spec copy is what
		// Merge plans from.
		return res, copySpec(s, opt.OutDir, res)
	}
	if err := finish(s, kind, opt, reduced, res, logf); err != nil {
		return nil, err
	}
	return res, nil
}

// endRows appends the end line to a finished partial rows file, so that a
// reader can tell the whole file from one cut short.
func endRows(path string, rows int) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if err := results.WriteEnd(f, rows); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// removeOutputs removes, for --fresh, what an earlier run wrote into dir:
// its rows (finished or not), summary, claims, spec copy, and the figures
// named by that spec copy and by s. Other files are left alone.
func removeOutputs(dir string, s *Spec, logf func(string, ...any)) error {
	paths := []string{RowsFile, PartialFile, SummaryFile, ClaimsFile, SpecFile}
	for i := range paths {
		paths[i] = filepath.Join(dir, paths[i])
	}
	figs, tabs := s.Figures, s.Tables
	if old, err := LoadSpec(filepath.Join(dir, SpecFile)); err == nil {
		figs = append(slices.Clone(figs), old.Figures...)
		tabs = append(slices.Clone(tabs), old.Tables...)
	}
	for _, f := range figs {
		paths = append(paths, f.Files(dir)...)
	}
	for _, t := range tabs {
		paths = append(paths, t.Files(dir)...)
	}
	removed := 0
	for _, p := range paths {
		err := os.Remove(p)
		if err == nil {
			removed++
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if removed > 0 {
		logf("--fresh: removed %d file(s) of an earlier run from %s", removed, dir)
	}
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// loadDatasets builds every dataset once at the largest n of the spec; a
// cell of size n uses the first n values, so the samples are nested across
// n (common random numbers). Synthetic data is seeded from the master seed
// and the dataset's key alone, so every spec with the same seed sees the
// same data. A dataset whose file is not found is skipped (nil, and its name
// in skipped); any other failure is an error.
func loadDatasets(s *Spec) (data []*datasets.Dataset, skipped []string, err error) {
	maxN := 0
	for _, n := range s.Axes.N {
		maxN = max(maxN, n)
	}
	out := make([]*datasets.Dataset, len(s.Datasets))
	for i := range s.Datasets {
		d := &s.Datasets[i]
		ds, err := d.Build(maxN, datasetRand(s.Seed, d))
		if errors.Is(err, datasets.ErrNotFound) {
			if !datasets.Fetchable(d.Path) {
				// Only data that `make data` will bring may be absent; any
				// other path is a typo or a forgotten file.
				return nil, nil, fmt.Errorf("%s: datasets[%d].path: %w", s.where(), i, err)
			}
			skipped = append(skipped, d.Name+" ("+d.Path+")")
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: datasets[%d] (%s): %w", s.where(), i, d.Name, err)
		}
		out[i] = ds
	}
	return out, skipped, nil
}

// metadataLine is the first line of rows.csv: what produced it. It must not
// depend on -j or on the time, since the file is byte-identical across runs.
// The build (BuildID) is part of it, so that rows written by other code are
// neither resumed nor taken as up to date.
// Skipped datasets are part of it, so that a run made before a data file
// was fetched is not taken as up to date afterwards. A kind that seeds its
// trials from its own key (experiment.TrialKeyer: common random numbers
// across methods) is named by a seeding tag, so that rows drawn under the
// per-cell seeding of earlier versions are neither taken as up to date nor
// resumed.
func metadataLine(s *Spec, kind experiment.Kind, quick bool, skipped []string) string {
	module := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		module = bi.Main.Path + "@" + bi.Main.Version
	}
	line := fmt.Sprintf("# ldpbench rows experiment=%s spec_sha256=%s seed=%d trials=%d quick=%t module=%s go=%s build=%s",
		s.Name, s.Hash(), s.Seed, s.Trials, quick, module, runtime.Version(), BuildID())
	if _, ok := kind.(experiment.TrialKeyer); ok {
		line += " seeding=" + pairedSeeding
	}
	if len(skipped) > 0 {
		line += " skipped=" + strings.Join(skipped, ",")
	}
	return line
}

// runCells runs the cells not yet in the partial rows file and appends
// them; it returns how many cells are on disk.
func runCells(ctx context.Context, s *Spec, kind experiment.Kind, cells []planCell, specs []*experiment.CellSpec,
	header, partialPath string, opt Options, res *Result, logf func(string, ...any)) (onDisk int, err error) {
	rowsPerCell := s.Trials * len(s.Metrics)
	done, err := resumable(partialPath, header, cells, s.Trials, s.Metrics)
	if err != nil {
		return 0, err
	}
	onDisk = done
	res.Resumed = done
	if done > 0 {
		logf("resuming %s: %d of %d cells already finished", partialPath, done, len(cells))
	}
	f, err := os.OpenFile(partialPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return onDisk, err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	// Write the headers unless they are there already: a run interrupted
	// after its headers but before its first whole cell resumes with done
	// == 0 and a file that holds them (resumable truncated it to them).
	fi, err := f.Stat()
	if err != nil {
		return onDisk, err
	}
	if fi.Size() == 0 {
		if _, err := fmt.Fprintln(w, header); err != nil {
			return onDisk, err
		}
		if err := results.WriteRowsHeader(w); err != nil {
			return onDisk, err
		}
		if err := w.Flush(); err != nil {
			return onDisk, err
		}
	}

	states := make([]*cellState, len(cells))
	for i := done; i < len(cells); i++ {
		st := &cellState{trials: make([][]experiment.Measurement, s.Trials)}
		st.remaining.Store(int64(s.Trials))
		states[i] = st
	}
	total := (len(cells) - done) * s.Trials
	var finished atomic.Int64
	stopProgress := startProgress(opt.Progress, s.Name, total, &finished)
	defer stopProgress()

	g, gctx := errgroup.WithContext(ctx)
	type task struct{ cell, trial int }
	tasks := make(chan task)
	completed := make(chan int, len(cells))

	g.Go(func() error { // feeder, in plan order
		defer close(tasks)
		for ci := done; ci < len(cells); ci++ {
			for t := 0; t < s.Trials; t++ {
				select {
				case tasks <- task{ci, t}:
				case <-gctx.Done():
					return gctx.Err()
				}
			}
		}
		return nil
	})
	// The writer drains completed until every worker has stopped, so that a
	// cancelled run still writes the cells finished before the cancellation.
	var workers sync.WaitGroup
	workers.Add(opt.Jobs)
	go func() { workers.Wait(); close(completed) }()
	for j := 0; j < opt.Jobs; j++ {
		g.Go(func() error {
			defer workers.Done()
			for tk := range tasks {
				st := states[tk.cell]
				st.once.Do(func() { st.run, st.err = kind.Prepare(gctx, specs[tk.cell]) })
				if st.err != nil {
					return fmt.Errorf("cell %s: %w", cells[tk.cell].cell.Key(), st.err)
				}
				key := cells[tk.cell].cell.Key()
				rng := TrialRand(s.Seed, s.Name, TrialKey(kind, specs[tk.cell], key), tk.trial)
				ms, err := st.run.Trial(gctx, tk.trial, rng, make([]experiment.Measurement, 0, len(s.Metrics)))
				if err != nil {
					return fmt.Errorf("cell %s trial %d: %w", key, tk.trial, err)
				}
				if err := checkMeasurements(ms, s.Metrics); err != nil {
					return fmt.Errorf("cell %s trial %d: kind %s: %w", key, tk.trial, kind.Name(), err)
				}
				if err := checkFinite(ms, st.run); err != nil {
					return fmt.Errorf("cell %s trial %d: %w", key, tk.trial, err)
				}
				st.trials[tk.trial] = ms
				finished.Add(1)
				if st.remaining.Add(-1) == 0 {
					completed <- tk.cell // buffered: never blocks
				}
			}
			return nil
		})
	}
	g.Go(func() error { // writer: whole cells, in plan order
		ready := make(map[int]bool)
		next := done
		rows := make([]results.Row, 0, rowsPerCell)
		for ci := range completed {
			ready[ci] = true
			for ready[next] {
				delete(ready, next)
				rows = cellRows(rows[:0], cells[next].cell, specs[next], states[next])
				if err := results.WriteRows(w, rows, false); err != nil {
					return err
				}
				if err := w.Flush(); err != nil {
					return err
				}
				states[next] = nil // free the measurements
				next++
				onDisk = next
			}
		}
		return nil
	})
	err = g.Wait()
	res.Trials = int(finished.Load())
	if err != nil {
		return onDisk, err
	}
	return onDisk, f.Sync()
}

// checkMeasurements enforces the trial contract: one value per requested
// metric, in order.
func checkMeasurements(ms []experiment.Measurement, metrics []string) error {
	if len(ms) != len(metrics) {
		return fmt.Errorf("returned %d measurements for %d metrics", len(ms), len(metrics))
	}
	for i, m := range ms {
		if m.Metric != metrics[i] {
			return fmt.Errorf("measurement %d is %q, want %q", i, m.Metric, metrics[i])
		}
	}
	return nil
}

// checkFinite refuses a NaN or infinite measurement (but for a metric that
// may be +Inf, such as kl) and an infinite theory (NaN is "no theory"): a
// row of +Inf is an overflow or a division by zero in a kind, never a
// result, and a summary would silently average it.
func checkFinite(ms []experiment.Measurement, run experiment.CellRun) error {
	for _, m := range ms {
		if math.IsNaN(m.Value) || (math.IsInf(m.Value, 0) && !(math.IsInf(m.Value, 1) && metrics.MayBeInfinite(m.Metric))) {
			return fmt.Errorf("metric %s = %v: not a finite number (an overflow or a division by zero; at an extreme ε or n?)", m.Metric, m.Value)
		}
		if v, ok := run.Theory(m.Metric); ok && math.IsInf(v, 0) {
			return fmt.Errorf("metric %s: theory = %v: not a finite number (an overflow; at an extreme ε or n?)", m.Metric, v)
		}
	}
	return nil
}

func cellRows(rows []results.Row, c results.Cell, spec *experiment.CellSpec, st *cellState) []results.Row {
	norm := spec.Dataset.Normalisation.String()
	for t, ms := range st.trials {
		for _, m := range ms {
			theory := math.NaN()
			if v, ok := st.run.Theory(m.Metric); ok {
				theory = v
			}
			rows = append(rows, results.Row{
				Experiment: c.Experiment, Dataset: c.Dataset, Method: c.Method, Eps: c.Eps,
				N: c.N, Params: c.Params, Normalisation: norm, Trial: t,
				Metric: m.Metric, Value: results.Float(m.Value), Theory: results.Float(theory),
			})
		}
	}
	return rows
}

// finish summarises rows.csv, draws the figures (with kind's names of its
// methods) and writes the tables, all written atomically.
func finish(s *Spec, kind experiment.Kind, opt Options, reduced bool, res *Result, logf func(string, ...any)) error {
	rows, err := results.ReadRowsFile(filepath.Join(opt.OutDir, RowsFile))
	if err != nil {
		return err
	}
	res.Summaries = results.Summarise(rows)
	for i := range res.Summaries {
		res.Summaries[i].Quick = reduced // summary.csv's quick column: figures can mark a pipeline check
	}
	if err := results.WriteFileAtomic(filepath.Join(opt.OutDir, SummaryFile), func(w *bufio.Writer) error {
		return results.WriteSummaries(w, res.Summaries)
	}); err != nil {
		return err
	}
	if err := copySpec(s, opt.OutDir, res); err != nil {
		return err
	}
	files, err := DrawFigures(s.TitledFigures(), res.Summaries, opt.OutDir, kind, s.GroupLabels(), logf)
	res.Figures = files
	if err != nil {
		return err
	}
	res.Tables, err = tables.WriteAll(res.Summaries, s.Tables, opt.OutDir)
	return err
}

// copySpec writes the spec's text, as it was read, into dir (a spec built
// in Go, without a file, has none).
func copySpec(s *Spec, dir string, res *Result) error {
	raw := s.raw
	if raw == nil {
		if s.Path == "" {
			return nil
		}
		var err error
		if raw, err = os.ReadFile(s.Path); err != nil {
			return err
		}
	}
	res.SpecCopied = filepath.Join(dir, SpecFile)
	return results.WriteFileAtomic(res.SpecCopied, func(w *bufio.Writer) error {
		_, err := w.Write(raw)
		return err
	})
}

// DrawFigures renders every figure of a spec from summaries into dir, its
// methods named as kind names them (experiment.Label; kind may be nil) and
// its groups as the datasets' stand-ins label them (groupLabels).
func DrawFigures(figs []figures.Spec, summaries []results.Summary, dir string, kind experiment.Kind, groups []string, logf func(string, ...any)) ([]string, error) {
	names := func(field, value string) (string, bool) {
		switch {
		case field == "method" && kind != nil:
			return experiment.Label(kind, value), true
		case field == "group":
			if g, err := strconv.Atoi(value); err == nil && g >= 0 && g < len(groups) {
				return groups[g], true
			}
		}
		return "", false
	}
	var all []string
	for _, fig := range figs {
		files, err := figures.Render(summaries, fig, dir, figures.WithWarnf(logf), figures.WithNames(names))
		if err != nil {
			return all, fmt.Errorf("figure %q: %w", fig.Name, err)
		}
		all = append(all, files...)
	}
	return all, nil
}

// startProgress prints a progress line with an ETA every half second until
// the returned function is called.
func startProgress(w io.Writer, name string, total int, finished *atomic.Int64) func() {
	if w == nil || total == 0 {
		return func() {}
	}
	start := time.Now()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		print := func() {
			n := finished.Load()
			elapsed := time.Since(start)
			eta := "?"
			if n > 0 {
				eta = (time.Duration(float64(elapsed) * float64(int64(total)-n) / float64(n))).Round(time.Second).String()
			}
			fmt.Fprintf(w, "\r%s: %d/%d trials  elapsed %s  ETA %s   ", name, n, total, elapsed.Round(time.Second), eta)
		}
		for {
			select {
			case <-tick.C:
				print()
			case <-stop:
				print()
				fmt.Fprintln(w)
				return
			}
		}
	}()
	return func() { close(stop); wg.Wait() }
}
