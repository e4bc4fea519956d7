package harness

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/results"
)

// MergeOptions control Merge.
type MergeOptions struct {
	// Spec is the spec the shards ran; nil: the spec.toml copy in the
	// first shard directory (a shard of a spec read from a file has one).
	Spec *Spec
	// Log receives one-line notes (figure warnings).
	Log io.Writer
}

// Merge joins the rows of the shards of one run (`ldpbench run SPEC --shard
// i/N` into each of dirs) into out: rows.csv, summary.csv, spec.toml, the
// figures and the tables, byte for byte what a single run of the spec
// writes. It refuses, naming the directories and cells, shards of another
// spec, seed, scale, seeding, build or shard count, a shard that has not
// finished, and a cell that is duplicated, missing or not in the plan.
// Nothing is written before every check has passed.
func Merge(kinds experiment.Registry, out string, dirs []string, opt MergeOptions) (*Result, error) {
	if len(dirs) == 0 {
		return nil, errors.New("merge: no shard directories given")
	}
	m := &merger{out: out, opt: opt}
	if err := m.readShards(dirs); err != nil {
		return nil, err
	}
	if err := m.loadSpec(kinds); err != nil {
		return nil, err
	}
	// The plan needs the external mechanisms' names ("*"), not their
	// programs.
	stopExternal, err := startExternal(context.Background(), m.s, 0, false)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	defer stopExternal()
	if err := m.checkPlan(); err != nil {
		return nil, err
	}
	if err := m.collectRows(); err != nil {
		return nil, err
	}
	return m.write()
}

// A merger is one call of Merge: the shards' first lines, the plan of
// their spec, and every shard's rows by plan cell, each found by one step
// for the next.
type merger struct {
	out string
	opt MergeOptions

	shards []shardOut
	first  shardOut // shards[0], the one the others must agree with
	absent []string // the shard indices of the count that no dir holds

	spec    *Spec // as given, or as the first shard copied it
	s       *Spec // spec at the shards' seed and scale
	kind    experiment.Kind
	fields  map[string]string // of the shards' first line
	quick   bool
	skipped map[string]bool // the "name (path)" of the datasets the shards skipped
	// skippedList holds them in spec order, as the single run lists them.
	skippedList []string
	// data are the shards' data lines (the provenance of their files),
	// those of the lowest shard index.
	data []string

	plan    []planCell
	perCell int             // rows per cell: trials × metrics
	byCell  [][]results.Row // by plan cell
}

// A shardOut is one shard directory and its rows file's first line, split
// into the line of the whole run and its shard, and its data lines.
type shardOut struct {
	dir   string
	base  string
	shard Shard
	data  []string
}

func (m *merger) logf(format string, args ...any) {
	if m.opt.Log != nil {
		fmt.Fprintf(m.opt.Log, format+"\n", args...)
	}
}

// readShards reads each directory's first line and checks that they are
// finished shards of one run and one count, each index once, and notes the
// indices not given (for the error on missing cells).
func (m *merger) readShards(dirs []string) error {
	m.shards = make([]shardOut, len(dirs))
	for i, dir := range dirs {
		rowsPath := filepath.Join(dir, RowsFile)
		line, err := firstLine(rowsPath)
		if err != nil {
			if fileExists(filepath.Join(dir, PartialFile)) {
				return fmt.Errorf("merge: %s has not finished (only %s): run its `ldpbench run ... --shard` command again to resume it", dir, PartialFile)
			}
			return fmt.Errorf("merge: %s: %w", dir, err)
		}
		base, sh, ok := splitShardLine(line)
		if !ok {
			return fmt.Errorf("merge: %s is not a shard's output: its first line has no shard=i/N (%s)", rowsPath, line)
		}
		_, data, err := headerLines(rowsPath)
		if err != nil {
			return fmt.Errorf("merge: %s: %w", dir, err)
		}
		m.shards[i] = shardOut{dir, base, sh, data}
	}
	first := m.shards[0]
	m.first = first
	seen := make(map[int]string)
	for _, sh := range m.shards {
		if sh.shard.Count != first.shard.Count {
			return fmt.Errorf("merge: %s is shard %s, %s is shard %s: shards of different counts N", first.dir, first.shard, sh.dir, sh.shard)
		}
		if d, dup := seen[sh.shard.Index]; dup {
			return fmt.Errorf("merge: %s and %s are both shard %s", d, sh.dir, sh.shard)
		}
		seen[sh.shard.Index] = sh.dir
		if sh.base != first.base {
			return fmt.Errorf("merge: %s and %s are shards of different runs: %s", first.dir, sh.dir, headerDiff(first.base, sh.base, "in "+first.dir, "in "+sh.dir))
		}
		// Shards timed on different machines are one run: the merged
		// rows name each shard's machine (mergeTiming).
		firstData, _ := splitTiming(first.data)
		if shData, _ := splitTiming(sh.data); !sameData(firstData, shData) {
			return fmt.Errorf("merge: %s and %s are shards run on different data: %s", first.dir, sh.dir, dataDiff(firstData, shData, "in "+first.dir, "in "+sh.dir))
		}
	}
	// Shards that found the same files in different places agree on the
	// data; the merged rows take the lowest shard's lines, whatever the
	// order of the directories given.
	low := m.shards[0]
	for _, sh := range m.shards {
		if sh.shard.Index < low.shard.Index {
			low = sh
		}
	}
	lowData, _ := splitTiming(low.data)
	m.data = append(lowData, mergeTiming(m.shards)...)
	for i := 0; i < first.shard.Count; i++ {
		if _, ok := seen[i]; !ok {
			m.absent = append(m.absent, strconv.Itoa(i))
		}
	}
	return nil
}

// loadSpec scales the spec to the seed and scale of the shards' first line
// and checks it against its kind: the plan is that of the run the shards
// were cut from, whatever the spec's own seed.
func (m *merger) loadSpec(kinds experiment.Registry) error {
	m.spec = m.opt.Spec
	if m.spec == nil {
		var err error
		if m.spec, err = LoadSpec(filepath.Join(m.first.dir, SpecFile)); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
	}
	m.fields = headerFields(m.first.base)
	m.quick = m.fields["quick"] == "true"
	seed, err := strconv.ParseUint(m.fields["seed"], 10, 64)
	if err != nil {
		return fmt.Errorf("merge: %s: unreadable seed in its first line (%s)", m.first.dir, m.first.base)
	}
	m.s = m.spec.Scaled(m.quick)
	m.s.Seed = seed
	if m.kind, err = m.s.Check(kinds); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	return nil
}

// checkPlan checks that the spec is the one the shards ran (its hash, and the
// whole first line this ldpbench would write) and expands it into the
// cells of the datasets the shards did not skip.
func (m *merger) checkPlan() error {
	s, first := m.s, m.first
	if got := s.Hash(); got != m.fields["spec_sha256"] {
		return fmt.Errorf("merge: the spec %s (spec_sha256=%s at seed %d, quick=%t) is not the one the shards ran (spec_sha256=%s)", m.spec.where(), got, s.Seed, m.quick, m.fields["spec_sha256"])
	}
	m.skipped = skippedDatasets(first.base)
	var names []string
	for i := range s.Datasets {
		if m.skipped[s.Datasets[i].Name+" ("+s.Datasets[i].Path+")"] {
			names = append(names, s.Datasets[i].Name+" ("+s.Datasets[i].Path+")")
		}
	}
	m.skippedList = names
	if want := metadataLine(s, m.kind, m.quick, names); want != first.base {
		return fmt.Errorf("merge: the shards' first line is not the one this ldpbench writes for their spec: %s", headerDiff(first.base, want, "in the shards", "from this ldpbench"))
	}
	m.plan = slices.DeleteFunc(expand(s, m.kind), func(c planCell) bool {
		d := &s.Datasets[c.dataset]
		return m.skipped[d.Name+" ("+d.Path+")"]
	})
	return nil
}

// collectRows reads every shard's rows and files them by plan cell,
// refusing a cell not in the plan, one in two shards, one cut short or out
// of order, and a plan cell in no shard.
func (m *merger) collectRows() error {
	s := m.s
	index := make(map[results.Cell]int, len(m.plan))
	for i, c := range m.plan {
		index[c.cell] = i
	}
	m.perCell = s.Trials * len(s.Metrics)
	perCell := m.perCell
	m.byCell = make([][]results.Row, len(m.plan))
	from := make([]string, len(m.plan))
	for _, sh := range m.shards {
		rows, err := results.ReadRowsFile(filepath.Join(sh.dir, RowsFile))
		if err != nil {
			if errors.Is(err, results.ErrIncomplete) {
				return fmt.Errorf("merge: %w: run its `ldpbench run ... --shard %s` command again to finish it", err, sh.shard)
			}
			return fmt.Errorf("merge: %w", err)
		}
		for start := 0; start < len(rows); start += perCell {
			c := rows[start].Cell()
			i, ok := index[c]
			if !ok {
				return fmt.Errorf("merge: %s holds cell %s, which is not in the plan of %s", sh.dir, c.Key(), s.Name)
			}
			if from[i] != "" {
				return fmt.Errorf("merge: cell %s is in both %s and %s", c.Key(), from[i], sh.dir)
			}
			if start+perCell > len(rows) {
				return fmt.Errorf("merge: %s: cell %s has %d rows, want %d (trials × metrics)", sh.dir, c.Key(), len(rows)-start, perCell)
			}
			cellRows := rows[start : start+perCell]
			if err := checkCellRows(sh.dir, c, cellRows, s.Metrics); err != nil {
				return err
			}
			m.byCell[i], from[i] = cellRows, sh.dir
		}
	}
	return m.checkMissing(from)
}

// checkCellRows checks that the rows of cell c are its trials' metrics in
// order: a shard's rows are appended as they are.
func checkCellRows(dir string, c results.Cell, rows []results.Row, metrics []string) error {
	for j := range rows {
		r := &rows[j]
		trial, metric := j/len(metrics), metrics[j%len(metrics)]
		if r.Cell() != c || r.Trial != trial || r.Metric != metric {
			return fmt.Errorf("merge: %s: row %d of cell %s is %s trial %d %s, want trial %d %s", dir, j+1, c.Key(), r.Cell().Key(), r.Trial, r.Metric, trial, metric)
		}
	}
	return nil
}

// checkMissing refuses plan cells that no shard holds (from[i] empty),
// naming the first few and the shards not given.
func (m *merger) checkMissing(from []string) error {
	var missing []string
	for i := range m.plan {
		if from[i] == "" {
			missing = append(missing, m.plan[i].cell.Key())
		}
	}
	if len(missing) == 0 {
		return nil
	}
	const show = 10
	msg := strings.Join(missing[:min(len(missing), show)], "\n  ")
	if len(missing) > show {
		msg += fmt.Sprintf("\n  … and %d more", len(missing)-show)
	}
	hint := ""
	if len(m.absent) > 0 {
		hint = fmt.Sprintf(" (shard(s) %s of %d not given)", strings.Join(m.absent, ", "), m.first.shard.Count)
	}
	return fmt.Errorf("merge: %d of %d cells are in no shard%s:\n  %s", len(missing), len(m.plan), hint, msg)
}

// write writes, under out's lock, what the single run writes: the rows in
// plan order under the run's first line, then its summary, spec copy,
// figures and tables. Rows of another run in out are refused, not
// replaced.
func (m *merger) write() (*Result, error) {
	out, first, s := m.out, m.first, m.s
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	unlock, err := lockDir(out)
	if err != nil {
		return nil, err
	}
	defer unlock()
	rowsPath := filepath.Join(out, RowsFile)
	if line, err := firstLine(rowsPath); err == nil && line != first.base {
		return nil, fmt.Errorf("merge: %s holds results of another run (%s); remove it or merge elsewhere", rowsPath, line)
	}
	if _, err := results.RemoveTemps(out); err != nil {
		return nil, err
	}
	if err := results.WriteFileAtomic(rowsPath, func(w *bufio.Writer) error {
		if _, err := fmt.Fprintln(w, first.base); err != nil {
			return err
		}
		if err := results.WriteComments(w, m.data); err != nil {
			return err
		}
		if err := results.WriteRowsHeader(w); err != nil {
			return err
		}
		for _, rows := range m.byCell {
			if err := results.WriteRows(w, rows, false); err != nil {
				return err
			}
		}
		return results.WriteEnd(w, len(m.plan)*m.perCell)
	}); err != nil {
		return nil, err
	}
	os.Remove(filepath.Join(out, PartialFile))
	dirs := make([]string, len(m.shards))
	for i, sh := range m.shards {
		dirs[i] = sh.dir
	}
	if err := mergeTimes(out, dirs); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	if s.Path == "" {
		s.Path = filepath.Join(first.dir, SpecFile)
		if !fileExists(s.Path) {
			s.Path = ""
		}
	}
	res := &Result{OutDir: out, Cells: len(m.plan), SkippedData: m.skippedList}
	if err := finish(s, m.kind, Options{OutDir: out}, m.spec.Reduced(m.quick), m.skippedList, res, m.logf); err != nil {
		return nil, err
	}
	return res, nil
}

// headerFields splits a rows file's first line into its key=value fields
// (skipped=, the last, may hold spaces and is left out).
func headerFields(line string) map[string]string {
	line, _, _ = strings.Cut(line, " skipped=")
	out := make(map[string]string)
	for _, f := range strings.Fields(line) {
		if k, v, ok := strings.Cut(f, "="); ok {
			out[k] = v
		}
	}
	return out
}

var skippedRE = regexp.MustCompile(` skipped=(.*)$`)

// skippedDatasets returns the "name (path)" entries of a first line's
// skipped= field.
func skippedDatasets(line string) map[string]bool {
	out := make(map[string]bool)
	m := skippedRE.FindStringSubmatch(line)
	if m == nil {
		return out
	}
	// Entries are "name (path)" joined by ","; a name may hold a comma,
	// so split only after a closing parenthesis.
	for _, e := range strings.SplitAfter(m[1], "),") {
		out[strings.TrimSuffix(e, ",")] = true
	}
	return out
}
