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
	// SkippedOutputs names the figures and tables not drawn or written
	// because every dataset they show was skipped, as "figure NAME: why"
	// (also in summary.csv's "# skipped" lines).
	SkippedOutputs []string
	Figures        []string
	Tables         []string // the tables' CSV and Markdown files
	Summaries      []results.Summary
	SpecCopied     string
}

// cellState is the runner's book-keeping for one cell.
type cellState struct {
	once      sync.Once
	run       experiment.CellRun
	err       error
	remaining atomic.Int64
	trials    [][]experiment.Measurement
}

// A runner is one call of Run: the spec at its scale, its kind and the
// options with their defaults, and what each step finds for the steps
// after it (the cells, the first line, the output files). Run is a list
// of these steps, in the order in which they may fail: on bad input before
// the output directory is touched, then under its lock.
type runner struct {
	// kept is the cells on disk when execute stopped but kept them for a
	// resume (0 otherwise): their cost goes into times.csv too.
	kept    int
	s       *Spec
	reduced bool // Spec.Reduced: smaller than the spec's own scale
	kind    experiment.Kind
	opt     Options
	// timing is set for a timing spec (Spec.IsTiming): its trials run one
	// at a time, alone in the process (trialGate), and rows.csv records
	// the machine (timingLines, this machine's timingLine).
	timing      bool
	timingLines []string

	// Set by loadCells: the memory limit, the datasets' bytes and what
	// they are (for the memory check of the cells), the datasets (nil:
	// skipped) and the names of the skipped ones, and the cells of the
	// plan whose data is there.
	limit   int64
	dsBytes int64
	dsWhat  string
	data    []*datasets.Dataset
	skipped []string
	cells   []planCell
	// dataLines are rows.csv's "# data" lines, the provenance of the
	// files read (dataLines).
	dataLines []string
	// specs holds each cell's spec, set by checkCells.
	specs []*experiment.CellSpec
	// Set by selectShard: rows.csv's first line, the result, and the
	// paths of the rows, finished and not.
	header                string
	res                   *Result
	rowsPath, partialPath string
	// createdDir is set when this call created the output directory: a
	// refusal then removes it again (abandon).
	createdDir bool
}

// Run executes a spec with the kind that kinds registers under its kind key
// and writes rows.csv, summary.csv, spec.toml and the figures into the
// output directory. It checks everything it can before it writes anything;
// an interrupted run (ctx cancelled, or the process killed) leaves
// rows.csv.partial, from which the same call resumes.
func Run(ctx context.Context, kinds experiment.Registry, spec *Spec, opt Options) (*Result, error) {
	r, err := newRunner(kinds, spec, opt)
	if err != nil {
		return nil, err
	}
	// The spec's external mechanisms, registered until the run returns:
	// the cells below are checked with them.
	stopExternal, err := startExternal(ctx, r.s, r.opt.Jobs, true)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := stopExternal(); err != nil {
			r.logf("%v", err)
		}
	}()

	// Everything that can fail on bad input fails here, before any output.
	if err := r.loadCells(); err != nil {
		return nil, err
	}
	if len(r.cells) == 0 {
		// Not an error: `make figures` runs every spec, and a spec on data
		// that is not fetched yet is skipped as a whole.
		r.logf("%s: nothing to run: every dataset was skipped", r.s.Name)
		return &Result{OutDir: r.opt.OutDir, Skipped: true, SkippedData: r.skipped}, nil
	}
	if err := r.checkCells(); err != nil {
		return nil, err
	}
	r.selectShard()

	// From here on the output directory is touched: under its lock, so
	// that a second run into it is refused at once.
	unlock, err := r.lockOutDir()
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := r.clearOutDir(); err != nil {
		return r.abandon(err)
	}
	upToDate, err := r.upToDate()
	if err != nil {
		return r.abandon(err)
	}
	if upToDate {
		r.logf("%s is up to date; re-summarising and re-drawing", r.rowsPath)
		r.res.UpToDate = true
	} else {
		start, cpu0 := time.Now(), CPUSeconds()
		if err := r.execute(ctx); err != nil {
			// execute abandons the directory where a refusal must; where
			// it keeps the finished cells for a resume (an interruption,
			// an external program's failure), it keeps what they cost too,
			// so that the times of a run resumed to its end are whole.
			if r.kept > 0 {
				if terr := r.recordTimes(start, cpu0, r.kept); terr != nil {
					err = errors.Join(err, terr)
				}
			}
			return nil, err
		}
		if err := r.recordTimes(start, cpu0, len(r.cells)); err != nil {
			return nil, err
		}
	}
	return r.finishRun()
}

// newRunner scales the spec, checks it against its kind and fills in the
// options' defaults: the spec's own errors come before any option's, and
// nothing is read or written yet.
func newRunner(kinds experiment.Registry, spec *Spec, opt Options) (*runner, error) {
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
	r := &runner{s: s, reduced: reduced, kind: kind, opt: opt, timing: s.IsTiming()}
	if r.timing {
		r.timingLines = []string{timingLine()}
	}
	return r, nil
}

// logf writes a one-line note to the run's log, if it has one.
func (r *runner) logf(format string, args ...any) {
	if r.opt.Log != nil {
		fmt.Fprintf(r.opt.Log, format+"\n", args...)
	}
}

// loadCells checks that the datasets fit in memory, loads them and expands
// the plan into the cells whose data is there: a dataset whose file is not
// fetched yet is skipped, with a note, not refused.
func (r *runner) loadCells() error {
	r.limit = memoryLimit(r.opt)
	r.dsBytes, r.dsWhat = datasetBytes(r.s)
	if err := checkMemory(r.s, r.dsBytes, r.limit, r.dsWhat); err != nil {
		return err
	}
	data, skipped, err := loadDatasets(r.s)
	if err != nil {
		return err
	}
	r.data, r.skipped = data, skipped
	r.dataLines = dataLines(r.s, data)
	for _, name := range skipped {
		r.logf("dataset %s skipped: its file is not fetched yet (run `make data`, or set $%s to where it is)", name, datasets.EnvData)
	}
	r.cells = slices.DeleteFunc(expand(r.s, r.kind), func(c planCell) bool { return data[c.dataset] == nil })
	return nil
}

// checkCells builds every cell's spec and has the kind check it, then
// checks that the cells' memory fits beside the datasets': a cell the kind
// refuses fails the run before its first trial, not in the middle of it.
func (r *runner) checkCells() error {
	s, kind := r.s, r.kind
	r.specs = make([]*experiment.CellSpec, len(r.cells))
	for i, c := range r.cells {
		d := r.data[c.dataset]
		// The one size check, on rows (a row holds Dim() values): a kind
		// may rely on Dataset holding at least N rows.
		if c.cell.N > d.Rows() {
			return fmt.Errorf("%s: dataset %q has %d rows, fewer than n = %d (key axes.n)", s.where(), d.Name, d.Rows(), c.cell.N)
		}
		params, err := kind.Params().Parse(c.params)
		if err != nil {
			return fmt.Errorf("%s: cell %s: kind %s: %w", s.where(), c.cell.Key(), kind.Name(), err)
		}
		r.specs[i] = &experiment.CellSpec{
			Experiment: s.Name, Dataset: d, Method: c.cell.Method, Eps: float64(c.cell.Eps),
			N: c.cell.N, Params: params, Metrics: s.Metrics, Seed: s.Seed,
		}
		if err := kind.Check(r.specs[i]); err != nil {
			return fmt.Errorf("%s: cell %s: %w", s.where(), c.cell.Key(), err)
		}
	}
	if need := cellBytes(kind, r.specs, r.opt.Jobs); need > 0 {
		if err := checkMemory(s, r.dsBytes+need, r.limit, fmt.Sprintf("%s; the cells of kind %s: %s with -j %d", r.dsWhat, kind.Name(), formatBytes(need), r.opt.Jobs)); err != nil {
			return err
		}
	}
	return nil
}

// selectShard sets rows.csv's first line and, for a shard, keeps only its
// share of the cells and marks the line with it: a shard's rows are then
// never taken for a whole run's, nor another shard's.
func (r *runner) selectShard() {
	r.header = metadataLine(r.s, r.kind, r.opt.Quick, r.skipped)
	if sh := r.opt.Shard; sh.Active() {
		// The assignment depends on the whole plan and the kind's cost
		// estimates alone, so every shard computes it alike.
		assign := AssignShards(cellCosts(r.kind, r.specs, r.s.Trials), sh.Count)
		var keepCells []planCell
		var keepSpecs []*experiment.CellSpec
		for i := range r.cells {
			if assign[i] == sh.Index {
				keepCells, keepSpecs = append(keepCells, r.cells[i]), append(keepSpecs, r.specs[i])
			}
		}
		r.logf("shard %s: %d of %d cells", sh, len(keepCells), len(r.cells))
		r.cells, r.specs = keepCells, keepSpecs
		r.header += sh.suffix()
	}
	r.res = &Result{OutDir: r.opt.OutDir, Cells: len(r.cells), SkippedData: r.skipped}
	r.rowsPath = filepath.Join(r.opt.OutDir, RowsFile)
	r.partialPath = filepath.Join(r.opt.OutDir, PartialFile)
}

// lockOutDir creates the output directory if need be and takes its lock,
// so that a second run into it is refused at once; a directory this call
// created is removed again when the lock is refused.
func (r *runner) lockOutDir() (unlock func(), err error) {
	dir := r.opt.OutDir
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		r.createdDir = true
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	unlock, err = lockDir(dir)
	if err != nil {
		if r.createdDir {
			os.Remove(dir)
		}
		return nil, err
	}
	return unlock, nil
}

// abandon returns a refusal found under the lock, and leaves a directory
// this call created as it found it: absent.
func (r *runner) abandon(err error) (*Result, error) {
	if r.createdDir {
		os.Remove(filepath.Join(r.opt.OutDir, lockFile))
		os.Remove(r.opt.OutDir) // only succeeds if empty
	}
	return nil, err
}

// clearOutDir removes the temporary files a killed run left and, with
// --fresh, an earlier run's outputs: what follows sees only whole files.
func (r *runner) clearOutDir() error {
	if stale, err := results.RemoveTemps(r.opt.OutDir); err != nil {
		return err
	} else if len(stale) > 0 {
		r.logf("removed %d temporary file(s) that a killed run left in %s", len(stale), r.opt.OutDir)
	}
	if r.opt.Fresh {
		return removeOutputs(r.opt.OutDir, r.s, r.logf)
	}
	return nil
}

// upToDate decides what to do with an earlier run's rows.csv: a finished
// run of the same first line is up to date (true); one cut short becomes
// the partial file to resume from; one of another run, or one cut short
// beside a partial file, is refused rather than overwritten.
func (r *runner) upToDate() (bool, error) {
	line, err := firstLine(r.rowsPath)
	if err != nil {
		return false, nil
	}
	if line != r.header {
		return false, fmt.Errorf("%s holds results of another %s; use --fresh to replace them or --out to write elsewhere", r.rowsPath, HeaderDiff(line, r.header))
	}
	// A finished timing run is up to date on any machine: its timing
	// line says where it was timed.
	if _, lines, err := headerLines(r.rowsPath); err != nil {
		return false, err
	} else if data, _ := splitTiming(lines); !sameData(data, r.dataLines) {
		return false, fmt.Errorf("%s holds results computed on other data: %s; use --fresh to replace them or --out to write elsewhere", r.rowsPath, dataDiff(data, r.dataLines, "in the file", "in this run"))
	}
	complete, err := results.Complete(r.rowsPath)
	if err != nil {
		return false, err
	}
	switch {
	case complete:
		return true, nil
	case fileExists(r.partialPath):
		return false, fmt.Errorf("%s has no end line (cut short, or written by an earlier ldpbench) and %s exists too: keep the one you want (rename it %s) or use --fresh", r.rowsPath, r.partialPath, PartialFile)
	}
	// A rows file cut short is an interrupted run: resume from its whole
	// cells (an earlier version's whole file resumes with nothing left to
	// run, and gains its end line).
	r.logf("%s has no end line (cut short, or written by an earlier ldpbench): resuming from its whole cells", r.rowsPath)
	return false, os.Rename(r.rowsPath, r.partialPath)
}

// execute runs the cells not yet on disk into the partial file and, once
// every cell is there, ends it and renames it rows.csv. A failure keeps
// the finished cells when the run can be resumed (an interruption, an
// external program's failure) and leaves nothing of this call behind when
// the input is bad.
func (r *runner) execute(ctx context.Context) error {
	resuming := fileExists(r.partialPath)
	onDisk, err := r.runCells(ctx)
	if err != nil {
		if ctx.Err() != nil {
			r.kept = onDisk
			return fmt.Errorf("interrupted: %d of %d cells finished and kept in %s; run the same command again to resume: %w", onDisk, len(r.cells), r.partialPath, err)
		}
		if ext := (*external.Error)(nil); errors.As(err, &ext) {
			// An external program failed (a crash, a hang): not bad
			// input, so the finished cells are kept.
			r.kept = onDisk
			return fmt.Errorf("%w\n%d of %d cells finished and kept in %s; run the same command again to resume", err, onDisk, len(r.cells), r.partialPath)
		}
		if !resuming {
			// Bad input found mid-run: leave nothing behind. Never
			// remove a partial file this call did not create: it holds
			// an earlier run's finished cells, and a refusal to resume
			// it (another spec, a damaged line) must keep them.
			os.Remove(r.partialPath)
		}
		_, err = r.abandon(err)
		return err
	}
	if err := endRows(r.partialPath, len(r.cells)*r.s.Trials*len(r.s.Metrics)); err != nil {
		return err
	}
	return os.Rename(r.partialPath, r.rowsPath)
}

// finishRun writes what follows from rows.csv: a shard only its spec
// copy, a whole run its summary, spec copy, figures and tables.
func (r *runner) finishRun() (*Result, error) {
	if r.opt.Shard.Active() {
		// A shard's summary and figures would be of a part of the plan:
		// Merge writes them from every shard's rows. The spec copy is what
		// Merge plans from.
		return r.res, copySpec(r.s, r.opt.OutDir, r.res)
	}
	if err := finish(r.s, r.kind, r.opt, r.reduced, r.skipped, r.res, r.logf); err != nil {
		return nil, err
	}
	return r.res, nil
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
// its rows (finished or not), summary, claims, spec copy, times, and the figures
// named by that spec copy and by s. Other files are left alone.
func removeOutputs(dir string, s *Spec, logf func(string, ...any)) error {
	paths := []string{RowsFile, PartialFile, SummaryFile, ClaimsFile, SpecFile, TimesFile}
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
//
// The files are hashed as they are read, each once (datasets.FileDigests),
// for their provenance lines (Dataset.File); a file with fewer data rows
// than a dataset's rows key is an error at any scale.
func loadDatasets(s *Spec) (data []*datasets.Dataset, skipped []string, err error) {
	maxN := 0
	for _, n := range s.Axes.N {
		maxN = max(maxN, n)
	}
	digests := datasets.NewFileDigests()
	out := make([]*datasets.Dataset, len(s.Datasets))
	for i := range s.Datasets {
		d := &s.Datasets[i]
		ds, err := d.BuildWith(maxN, datasetRand(s.Seed, d), digests)
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
	if s.IsTiming() {
		// Its wall times were taken one trial at a time (the machine is in
		// the "# timing" line: a merge elsewhere writes this line alike).
		line += " timing=serial"
	}
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
func (r *runner) runCells(ctx context.Context) (onDisk int, err error) {
	done, err := resumable(r.partialPath, r.header, r.dataLines, r.timingLines, r.cells, r.s.Trials, r.s.Metrics)
	if err != nil {
		return 0, err
	}
	r.res.Resumed = done
	if done > 0 {
		r.logf("resuming %s: %d of %d cells already finished", r.partialPath, done, len(r.cells))
	}
	f, w, err := openPartial(r.partialPath, r.header, append(slices.Clone(r.dataLines), r.timingLines...))
	if err != nil {
		return done, err
	}
	defer f.Close()

	p := newCellPool(r, done, w)
	stopProgress := startProgress(r.opt.Progress, r.s.Name, (len(r.cells)-done)*r.s.Trials, &p.finished)
	defer stopProgress()
	err = p.run(ctx)
	r.res.Trials = int(p.finished.Load())
	if err != nil {
		return p.onDisk, err
	}
	return p.onDisk, f.Sync()
}

// openPartial opens the partial rows file for appending and writes its
// headers (the first line, the data lines, the CSV header) unless they are
// there already: a run interrupted after its headers but before its first
// whole cell resumes with no cell done and a file that holds them
// (resumable truncated it to them).
func openPartial(path, header string, data []string) (*os.File, *bufio.Writer, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, err
	}
	w := bufio.NewWriter(f)
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if fi.Size() == 0 {
		if _, err := fmt.Fprintln(w, header); err != nil {
			f.Close()
			return nil, nil, err
		}
		if err := results.WriteComments(w, data); err != nil {
			f.Close()
			return nil, nil, err
		}
		if err := results.WriteRowsHeader(w); err != nil {
			f.Close()
			return nil, nil, err
		}
		if err := w.Flush(); err != nil {
			f.Close()
			return nil, nil, err
		}
	}
	return f, w, nil
}

// A cellPool runs the trials of the cells from done on: a feeder hands out
// the trials in plan order, opt.Jobs workers run them, and a writer appends
// each cell once it and every cell before it are finished, so that the
// file is the same whatever the number of workers.
type cellPool struct {
	r        *runner
	done     int // cells on disk before this call
	states   []*cellState
	w        *bufio.Writer
	finished atomic.Int64 // trials run
	onDisk   int          // cells on disk, set by the writer
}

// A trialTask is one trial of one cell, by their indices.
type trialTask struct{ cell, trial int }

func newCellPool(r *runner, done int, w *bufio.Writer) *cellPool {
	p := &cellPool{r: r, done: done, w: w, onDisk: done, states: make([]*cellState, len(r.cells))}
	for i := done; i < len(r.cells); i++ {
		st := &cellState{trials: make([][]experiment.Measurement, r.s.Trials)}
		st.remaining.Store(int64(r.s.Trials))
		p.states[i] = st
	}
	return p
}

// run runs the feeder, the workers and the writer until every trial is
// written or one of them fails.
func (p *cellPool) run(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	tasks := make(chan trialTask)
	completed := make(chan int, len(p.r.cells))
	g.Go(func() error { return p.feed(gctx, tasks) })
	// The writer drains completed until every worker has stopped, so that a
	// cancelled run still writes the cells finished before the cancellation.
	// A timing spec's trials run one at a time, whatever -j.
	jobs := p.r.opt.Jobs
	if p.r.timing {
		jobs = 1
	}
	var workers sync.WaitGroup
	workers.Add(jobs)
	go func() { workers.Wait(); close(completed) }()
	for j := 0; j < jobs; j++ {
		g.Go(func() error {
			defer workers.Done()
			return p.work(gctx, tasks, completed)
		})
	}
	g.Go(func() error { return p.write(completed) })
	return g.Wait()
}

// feed hands out the trials in plan order.
func (p *cellPool) feed(ctx context.Context, tasks chan<- trialTask) error {
	defer close(tasks)
	for ci := p.done; ci < len(p.r.cells); ci++ {
		for t := 0; t < p.r.s.Trials; t++ {
			select {
			case tasks <- trialTask{ci, t}:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return nil
}

// work runs trials, preparing each cell once, checks their measurements
// and sends a cell to the writer when its last trial is done.
func (p *cellPool) work(ctx context.Context, tasks <-chan trialTask, completed chan<- int) error {
	s, kind := p.r.s, p.r.kind
	for tk := range tasks {
		st := p.states[tk.cell]
		// The preparation and the trial under the gate: a timing spec's
		// alone in the process, any other's beside the others'.
		release := p.r.gate()
		st.once.Do(func() { st.run, st.err = kind.Prepare(ctx, p.r.specs[tk.cell]) })
		if st.err != nil {
			release()
			return fmt.Errorf("cell %s: %w", p.r.cells[tk.cell].cell.Key(), st.err)
		}
		key := p.r.cells[tk.cell].cell.Key()
		rng := TrialRand(s.Seed, s.Name, TrialKey(kind, p.r.specs[tk.cell], key), tk.trial)
		ms, err := st.run.Trial(ctx, tk.trial, rng, make([]experiment.Measurement, 0, len(s.Metrics)))
		release()
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
		p.finished.Add(1)
		if st.remaining.Add(-1) == 0 {
			completed <- tk.cell // buffered: never blocks
		}
	}
	return nil
}

// write appends whole cells, in plan order, as they complete.
func (p *cellPool) write(completed <-chan int) error {
	ready := make(map[int]bool)
	next := p.done
	rows := make([]results.Row, 0, p.r.s.Trials*len(p.r.s.Metrics))
	for ci := range completed {
		ready[ci] = true
		for ready[next] {
			delete(ready, next)
			rows = cellRows(rows[:0], p.r.cells[next].cell, p.r.specs[next], p.states[next])
			if err := results.WriteRows(p.w, rows, false); err != nil {
				return err
			}
			if err := p.w.Flush(); err != nil {
				return err
			}
			p.states[next] = nil // free the measurements
			next++
			p.onDisk = next
		}
	}
	return nil
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
// methods) and writes the tables, all written atomically. skipped are the
// "name (path)" entries of the datasets the run skipped: a figure or table
// that shows only those is left out (a note, and Result.SkippedOutputs),
// one that shows some of them says so. summary.csv starts with rows.csv's
// data lines, then a "# skipped" line per skipped dataset, figure and
// table.
func finish(s *Spec, kind experiment.Kind, opt Options, reduced bool, skipped []string, res *Result, logf func(string, ...any)) error {
	rowsPath := filepath.Join(opt.OutDir, RowsFile)
	rows, err := results.ReadRowsFile(rowsPath)
	if err != nil {
		return err
	}
	_, data, err := headerLines(rowsPath)
	if err != nil {
		return err
	}
	names := skippedNames(skipped)
	comments := slices.Clone(data)
	for i, e := range skipped {
		file := strings.TrimSuffix(strings.TrimPrefix(e[len(names[i]):], " ("), ")")
		comments = append(comments, skippedLine("dataset", names[i], "data file "+strconv.Quote(file)+" not found"))
	}
	comments = append(comments, outputSkips(s, names)...)
	res.Summaries = results.Summarise(rows)
	for i := range res.Summaries {
		res.Summaries[i].Quick = reduced // summary.csv's quick column: figures can mark a pipeline check
	}
	if err := results.WriteFileAtomic(filepath.Join(opt.OutDir, SummaryFile), func(w *bufio.Writer) error {
		if err := results.WriteComments(w, comments); err != nil {
			return err
		}
		return results.WriteSummaries(w, res.Summaries)
	}); err != nil {
		return err
	}
	if err := copySpec(s, opt.OutDir, res); err != nil {
		return err
	}
	// A timing spec's figures and tables say where it was timed.
	_, timing := splitTiming(data)
	note := TimingNote(timing)
	files, leftFigs, err := drawFigures(timedFigures(s.TitledFigures(), note), res.Summaries, opt.OutDir, kind, s.GroupLabels(), names, logf)
	res.Figures = files
	res.SkippedOutputs = leftFigs
	if err != nil {
		return err
	}
	tabs, leftTabs, err := writeTables(res.Summaries, timedTables(s.Tables, note), opt.OutDir, names, logf)
	res.Tables = tabs
	res.SkippedOutputs = append(res.SkippedOutputs, leftTabs...)
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
// its groups as the datasets' stand-ins label them (groupLabels). The
// datasets that the run in dir skipped (SkippedIn) are left out as a run
// leaves them out: a figure that shows only skipped datasets is not drawn
// (a note to logf), one that shows some of them names them in its caption.
// A timing run's captions end with where it was timed (TimingIn).
func DrawFigures(figs []figures.Spec, summaries []results.Summary, dir string, kind experiment.Kind, groups []string, logf func(string, ...any)) ([]string, error) {
	files, _, err := drawFigures(timedFigures(figs, TimingNote(TimingIn(dir))), summaries, dir, kind, groups, SkippedIn(dir), logf)
	return files, err
}

// drawFigures is DrawFigures with the names of the skipped datasets; it
// also returns the figures left out, as "figure NAME: why".
func drawFigures(figs []figures.Spec, summaries []results.Summary, dir string, kind experiment.Kind, groups []string, skipped []string, logf func(string, ...any)) (all, left []string, err error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
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
	for _, fig := range figs {
		missing, whole := leftOut(fig.Filter, skipped)
		if whole {
			// Not an error: the figure waits for `make data`, like the
			// datasets it shows.
			why := allSkipped(missing)
			logf("skipped figure %q: %s", fig.Name, why)
			left = append(left, fmt.Sprintf("figure %s: %s", fig.Name, why))
			continue
		}
		files, err := figures.Render(summaries, fig, dir, figures.WithWarnf(logf), figures.WithNames(names), figures.WithSkipped(missing))
		if err != nil {
			return all, left, fmt.Errorf("figure %q: %w", fig.Name, err)
		}
		all = append(all, files...)
	}
	return all, left, nil
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
