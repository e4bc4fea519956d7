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
	logf := func(format string, args ...any) {
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, format+"\n", args...)
		}
	}
	type shardOut struct {
		dir   string
		base  string
		shard Shard
	}
	shards := make([]shardOut, len(dirs))
	for i, dir := range dirs {
		rowsPath := filepath.Join(dir, RowsFile)
		line, err := firstLine(rowsPath)
		if err != nil {
			if fileExists(filepath.Join(dir, PartialFile)) {
				return nil, fmt.Errorf("merge: %s has not finished (only %s): run its `ldpbench run ... --shard` command again to resume it", dir, PartialFile)
			}
			return nil, fmt.Errorf("merge: %s: %w", dir, err)
		}
		base, sh, ok := splitShardLine(line)
		if !ok {
			return nil, fmt.Errorf("merge: %s is not a shard's output: its first line has no shard=i/N (%s)", rowsPath, line)
		}
		shards[i] = shardOut{dir, base, sh}
	}
	first := shards[0]
	seen := make(map[int]string)
	for _, sh := range shards {
		if sh.shard.Count != first.shard.Count {
			return nil, fmt.Errorf("merge: %s is shard %s, %s is shard %s: shards of different counts N", first.dir, first.shard, sh.dir, sh.shard)
		}
		if d, dup := seen[sh.shard.Index]; dup {
			return nil, fmt.Errorf("merge: %s and %s are both shard %s", d, sh.dir, sh.shard)
		}
		seen[sh.shard.Index] = sh.dir
		if sh.base != first.base {
			return nil, fmt.Errorf("merge: %s and %s are shards of different runs: %s", first.dir, sh.dir, headerDiff(first.base, sh.base, "in "+first.dir, "in "+sh.dir))
		}
	}
	var absent []string
	for i := 0; i < first.shard.Count; i++ {
		if _, ok := seen[i]; !ok {
			absent = append(absent, strconv.Itoa(i))
		}
	}

	// The plan, from the spec at the shards' seed and scale.
	spec := opt.Spec
	if spec == nil {
		var err error
		if spec, err = LoadSpec(filepath.Join(first.dir, SpecFile)); err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
	}
	fields := headerFields(first.base)
	quick := fields["quick"] == "true"
	seed, err := strconv.ParseUint(fields["seed"], 10, 64)
	if err != nil {
		return nil, fmt.Errorf("merge: %s: unreadable seed in its first line (%s)", first.dir, first.base)
	}
	s := spec.Scaled(quick)
	s.Seed = seed
	kind, err := s.Check(kinds)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	// The plan needs the external mechanisms' names ("*"), not their
	// programs.
	stopExternal, err := startExternal(context.Background(), s, 0, false)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	defer stopExternal()
	if got := s.Hash(); got != fields["spec_sha256"] {
		return nil, fmt.Errorf("merge: the spec %s (spec_sha256=%s at seed %d, quick=%t) is not the one the shards ran (spec_sha256=%s)", spec.where(), got, seed, quick, fields["spec_sha256"])
	}
	skipped := skippedDatasets(first.base)
	var names []string
	for i := range s.Datasets {
		if skipped[s.Datasets[i].Name+" ("+s.Datasets[i].Path+")"] {
			names = append(names, s.Datasets[i].Name+" ("+s.Datasets[i].Path+")")
		}
	}
	if want := metadataLine(s, kind, quick, names); want != first.base {
		return nil, fmt.Errorf("merge: the shards' first line is not the one this ldpbench writes for their spec: %s", headerDiff(first.base, want, "in the shards", "from this ldpbench"))
	}
	plan := expand(s, kind)
	plan = slices.DeleteFunc(plan, func(c planCell) bool {
		d := &s.Datasets[c.dataset]
		return skipped[d.Name+" ("+d.Path+")"]
	})
	index := make(map[results.Cell]int, len(plan))
	for i, c := range plan {
		index[c.cell] = i
	}

	// Every shard's rows, by plan cell.
	perCell := s.Trials * len(s.Metrics)
	byCell := make([][]results.Row, len(plan))
	from := make([]string, len(plan))
	for _, sh := range shards {
		rows, err := results.ReadRowsFile(filepath.Join(sh.dir, RowsFile))
		if err != nil {
			if errors.Is(err, results.ErrIncomplete) {
				return nil, fmt.Errorf("merge: %w: run its `ldpbench run ... --shard %s` command again to finish it", err, sh.shard)
			}
			return nil, fmt.Errorf("merge: %w", err)
		}
		for start := 0; start < len(rows); start += perCell {
			c := rows[start].Cell()
			i, ok := index[c]
			if !ok {
				return nil, fmt.Errorf("merge: %s holds cell %s, which is not in the plan of %s", sh.dir, c.Key(), s.Name)
			}
			if from[i] != "" {
				return nil, fmt.Errorf("merge: cell %s is in both %s and %s", c.Key(), from[i], sh.dir)
			}
			if start+perCell > len(rows) {
				return nil, fmt.Errorf("merge: %s: cell %s has %d rows, want %d (trials × metrics)", sh.dir, c.Key(), len(rows)-start, perCell)
			}
			cellRows := rows[start : start+perCell]
			for j := range cellRows {
				r := &cellRows[j]
				trial, metric := j/len(s.Metrics), s.Metrics[j%len(s.Metrics)]
				if r.Cell() != c || r.Trial != trial || r.Metric != metric {
					return nil, fmt.Errorf("merge: %s: row %d of cell %s is %s trial %d %s, want trial %d %s", sh.dir, j+1, c.Key(), r.Cell().Key(), r.Trial, r.Metric, trial, metric)
				}
			}
			byCell[i], from[i] = cellRows, sh.dir
		}
	}
	var missing []string
	for i := range plan {
		if from[i] == "" {
			missing = append(missing, plan[i].cell.Key())
		}
	}
	if len(missing) > 0 {
		const show = 10
		msg := strings.Join(missing[:min(len(missing), show)], "\n  ")
		if len(missing) > show {
			msg += fmt.Sprintf("\n  … and %d more", len(missing)-show)
		}
		hint := ""
		if len(absent) > 0 {
			hint = fmt.Sprintf(" (shard(s) %s of %d not given)", strings.Join(absent, ", "), first.shard.Count)
		}
		return nil, fmt.Errorf("merge: %d of %d cells are in no shard%s:\n  %s", len(missing), len(plan), hint, msg)
	}

	// Write, under out's lock, what the single run writes.
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
		if err := results.WriteRowsHeader(w); err != nil {
			return err
		}
		for _, rows := range byCell {
			if err := results.WriteRows(w, rows, false); err != nil {
				return err
			}
		}
		return results.WriteEnd(w, len(plan)*perCell)
	}); err != nil {
		return nil, err
	}
	os.Remove(filepath.Join(out, PartialFile))
	if s.Path == "" {
		s.Path = filepath.Join(first.dir, SpecFile)
		if !fileExists(s.Path) {
			s.Path = ""
		}
	}
	res := &Result{OutDir: out, Cells: len(plan)}
	if err := finish(s, kind, Options{OutDir: out}, spec.Reduced(quick), res, logf); err != nil {
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
