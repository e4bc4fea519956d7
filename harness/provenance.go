package harness

// The record of a run's data: a "# data" line per file dataset in rows.csv
// and summary.csv (which file, found where, its SHA-256, the rows read and
// dropped), and in summary.csv a "# skipped" line per dataset, figure and
// table left out (docs/outputs.md).

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/results"
	"github.com/ldpbench/ldpbench/tables"
)

// dataPrefix starts the provenance line of a file dataset.
const dataPrefix = "# data "

// dataLines returns the provenance line of every file dataset that was
// loaded, in spec order: the same on every shard and at any -j, since it
// depends on the files and on the largest n alone.
func dataLines(s *Spec, data []*datasets.Dataset) []string {
	var lines []string
	for i, d := range data {
		if d == nil || d.File == nil {
			continue
		}
		lines = append(lines, dataPrefix+"dataset="+strconv.Quote(s.Datasets[i].Name)+" "+d.File.Fields())
	}
	return lines
}

// foundRE matches the found= field of a data line, after the quoted
// dataset and file names (which may hold anything, escaped).
var foundRE = regexp.MustCompile(`^(# data dataset="(?:[^"\\]|\\.)*" file="(?:[^"\\]|\\.)*") found=\S*`)

// dataKey is a data line without where the file was found: the same file
// (same hash and rows) found in data/ by one run and in $LDPBENCH_DATA by
// another is the same data, so that the rows resume, are up to date and
// merge alike.
func dataKey(line string) string { return foundRE.ReplaceAllString(line, "$1") }

// sameData reports whether two lists of data lines record the same data.
func sameData(a, b []string) bool {
	return slices.EqualFunc(a, b, func(x, y string) bool { return dataKey(x) == dataKey(y) })
}

// dataDiff says how the data lines found in a file differ from those of
// this run, naming the first line that differs.
func dataDiff(found, want []string, foundName, wantName string) string {
	for i := range max(len(found), len(want)) {
		f, w := "none", "none"
		if i < len(found) {
			f = strings.TrimPrefix(found[i], dataPrefix)
		}
		if i < len(want) {
			w = strings.TrimPrefix(want[i], dataPrefix)
		}
		if i >= len(found) || i >= len(want) || dataKey(found[i]) != dataKey(want[i]) {
			return fmt.Sprintf("data file (%s %s; %s %s)", f, foundName, w, wantName)
		}
	}
	return "data files"
}

// headerLines returns a rows file's first line and the '#' lines after it,
// up to the CSV header (the data lines).
func headerLines(path string) (first string, data []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if first == "" && data == nil {
			first = l
			data = []string{}
			continue
		}
		if !strings.HasPrefix(l, "#") {
			return first, data, nil
		}
		data = append(data, l)
	}
	if err := sc.Err(); err != nil {
		return "", nil, err
	}
	if data == nil {
		return "", nil, fmt.Errorf("%s is empty", path)
	}
	return first, data, nil
}

// skippedNames returns the names of the skipped datasets' "name (path)"
// entries (Result.SkippedData, the first line's skipped= field).
func skippedNames(entries []string) []string {
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if i := strings.LastIndex(e, " ("); i >= 0 && strings.HasSuffix(e, ")") {
			e = e[:i]
		}
		names = append(names, e)
	}
	return names
}

// SkippedIn returns the names of the datasets that the run in dir skipped
// for want of their files, from its rows.csv's first line; none when dir
// holds no rows.
func SkippedIn(dir string) []string {
	line, err := firstLine(filepath.Join(dir, RowsFile))
	if err != nil {
		return nil
	}
	m := skippedRE.FindStringSubmatch(line)
	if m == nil {
		return nil
	}
	// In the line's order, the spec's, as the run named them (a caption
	// lists them so): split as skippedDatasets does.
	var entries []string
	for _, e := range strings.SplitAfter(m[1], "),") {
		entries = append(entries, strings.TrimSuffix(e, ","))
	}
	return skippedNames(entries)
}

// leftOut says what the skipped datasets (names) take from a figure or
// table with filter: the skipped datasets it would have shown, in the
// filter's order (the skipped order without a dataset filter), and
// whether that is every dataset it shows, when it is drawn or written
// not at all. A figure without a dataset filter shows every dataset, and
// a run whose every dataset is skipped runs nothing: such a figure is
// never left out whole.
func leftOut(filter map[string][]string, skipped []string) (missing []string, all bool) {
	shown, ok := filter["dataset"]
	if !ok {
		return slices.Clone(skipped), false
	}
	for _, d := range shown {
		if slices.Contains(skipped, d) {
			missing = append(missing, d)
		}
	}
	return missing, len(shown) > 0 && len(missing) == len(shown)
}

// skippedLine is summary.csv's record of an output left out.
func skippedLine(what, name, why string) string {
	return fmt.Sprintf("# skipped %s=%s: %s", what, strconv.Quote(name), why)
}

// outputSkips returns the "# skipped" lines of the figures and tables of s
// that the skipped datasets (names) leave out whole.
func outputSkips(s *Spec, skipped []string) []string {
	var lines []string
	for _, f := range s.Figures {
		if missing, all := leftOut(f.Filter, skipped); all {
			lines = append(lines, skippedLine("figure", f.Name, allSkipped(missing)))
		}
	}
	for _, t := range s.Tables {
		if missing, all := leftOut(t.Filter, skipped); all {
			lines = append(lines, skippedLine("table", t.Name, allSkipped(missing)))
		}
	}
	return lines
}

func allSkipped(missing []string) string {
	return "every dataset it shows was skipped (" + strings.Join(missing, ", ") + ")"
}

// WriteTables writes the tables of a finished run in dir from its
// summaries, as tables.WriteAll does, but for the datasets the run
// skipped (SkippedIn): a table that shows only skipped datasets is not
// written (a note to logf), one that shows some of them names them in its
// note.
func WriteTables(summaries []results.Summary, specs []tables.Spec, dir string, logf func(string, ...any)) ([]string, error) {
	files, _, err := writeTables(summaries, TimedTables(specs, dir), dir, SkippedIn(dir), logf)
	return files, err
}

// writeTables is WriteTables with the skipped datasets' names; it also
// returns the tables left out, as "table NAME: why".
func writeTables(summaries []results.Summary, specs []tables.Spec, dir string, skipped []string, logf func(string, ...any)) (files, left []string, err error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	var keep []tables.Spec
	for _, t := range specs {
		missing, all := leftOut(t.Filter, skipped)
		switch {
		case all:
			why := allSkipped(missing)
			logf("skipped table %q: %s", t.Name, why)
			left = append(left, fmt.Sprintf("table %s: %s", t.Name, why))
			continue
		case len(missing) > 0:
			note := "Not shown: " + plural(len(missing), "dataset") + " skipped, data file not found (" + strings.Join(missing, ", ") + ")."
			if t.Note != "" {
				note = t.Note + " " + note
			}
			t.Note = note
		}
		keep = append(keep, t)
	}
	files, err = tables.WriteAll(summaries, keep, dir)
	return files, left, err
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
