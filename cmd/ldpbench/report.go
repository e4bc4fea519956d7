package main

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/csv"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/results"
)

// ReportFile names, in a run's directory, the page that `ldpbench report`
// writes; ReportIndexFile the index it writes under the results root.
const (
	ReportFile      = "report.html"
	ReportIndexFile = "index.html"
)

//go:embed report.html.tmpl
var reportTemplates string

// reportTmpl holds the two pages, "run" and "index": html/template escapes
// every value, and the pages carry no script and load nothing from the
// network, so that they open from file://.
var reportTmpl = template.Must(template.New("report").Parse(reportTemplates))

// papers maps a spec name's prefix to the paper it reproduces, in the
// order the index lists them; the first prefix that matches wins.
var papers = []struct {
	prefixes []string
	paper    string
}{
	{[]string{"central-"}, "Kulesza et al."},
	{[]string{"fl-zhao-", "zhao-"}, "Zhao et al."},
	{[]string{"fl-baek-", "noutput-"}, "Baek & Chung"},
	{[]string{"groupmean-"}, "Raab et al."},
	{[]string{"multiservice-"}, "Du et al."},
}

const otherPaper = "other"

// paperOf infers the paper of a spec from its name's prefix.
func paperOf(name string) string {
	for _, p := range papers {
		for _, pre := range p.prefixes {
			if strings.HasPrefix(name, pre) {
				return p.paper
			}
		}
	}
	return otherPaper
}

// reportRun is what a run's page and its index entry show.
type reportRun struct {
	Dir         string
	Name        string
	Title       string
	Description string
	Paper       string
	Build       string
	Seed        string
	Trials      string
	Scale       string // "quick" or "full"
	Cells       string // "" when run.log has no summary line
	Wall, CPU   string // seconds, "" when unknown
	Skipped     []string
	Figures     []reportFigure
	Tables      []reportTable
	Claims      *htmlTable // nil without claims.csv
	Files       []string   // rows, summary, spec, log: the ones present
	Href        string     // the page, relative to the index
}

type reportFigure struct {
	Title, Name string
	Img         string   // file to show, "" when none was drawn
	Links       []string // every format on disk
}

type reportTable struct {
	Title, Name string
	Table       *htmlTable // nil when <name>.csv is missing or unreadable
	Links       []string
}

type htmlTable struct {
	Head []string
	Rows [][]string
}

// reportIndex is the index page's data.
type reportIndex struct {
	Groups []reportGroup
}

type reportGroup struct {
	Paper string
	Runs  []*reportRun
}

// cmdReport writes report.html in each run directory and an index of them.
func cmdReport(_ context.Context, c *cli, args []string) error {
	fs := c.flags("report")
	outFlag := fs.String("out", "", "write the index to this `file` (default out/"+ReportIndexFile+")")
	pos, err := c.parse(fs, args)
	if err != nil {
		return err
	}
	const root = "out"
	dirs := pos
	if len(dirs) == 0 {
		dirs = findRuns(root)
		if len(dirs) == 0 {
			return fmt.Errorf("report: no runs under %s/: run make figures first", root)
		}
	}
	index := *outFlag
	if index == "" {
		index = filepath.Join(root, ReportIndexFile)
	}
	indexDir, err := filepath.Abs(filepath.Dir(index))
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	var runs []*reportRun
	for _, dir := range dirs {
		r, err := loadReportRun(dir)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		runs = append(runs, r)
	}
	for _, r := range runs {
		page := filepath.Join(r.Dir, ReportFile)
		if err := writeTemplate(page, "run", r); err != nil {
			return fmt.Errorf("report: %s: %w", r.Dir, err)
		}
		abs, err := filepath.Abs(page)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		rel, err := filepath.Rel(indexDir, abs)
		if err != nil {
			return fmt.Errorf("report: %s: %w", r.Dir, err)
		}
		r.Href = filepath.ToSlash(rel)
		fmt.Fprintln(c.stdout, "->", page)
	}
	var idx reportIndex
	order := []string{}
	for _, p := range papers {
		order = append(order, p.paper)
	}
	for _, p := range append(order, otherPaper) {
		g := reportGroup{Paper: p}
		for _, r := range runs {
			if r.Paper == p {
				g.Runs = append(g.Runs, r)
			}
		}
		if len(g.Runs) > 0 {
			slices.SortStableFunc(g.Runs, func(a, b *reportRun) int { return strings.Compare(a.Name, b.Name) })
			idx.Groups = append(idx.Groups, g)
		}
	}
	if err := os.MkdirAll(filepath.Dir(index), 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := writeTemplate(index, "index", idx); err != nil {
		return fmt.Errorf("report: %s: %w", index, err)
	}
	fmt.Fprintln(c.stdout, "->", index)
	return nil
}

// findRuns returns the directories of root holding rows.csv and spec.toml.
func findRuns(root string) []string {
	entries, _ := os.ReadDir(root)
	var dirs []string
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if e.IsDir() && fileExists(filepath.Join(dir, harness.RowsFile)) && fileExists(filepath.Join(dir, harness.SpecFile)) {
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

func writeTemplate(path, name string, data any) error {
	return results.WriteFileAtomic(path, func(w *bufio.Writer) error {
		return reportTmpl.ExecuteTemplate(w, name, data)
	})
}

var (
	runLogTimes   = regexp.MustCompile(`(\d+) cells \((\d+) resumed\), (\d+) trials run in ([0-9.]+) s wall, ([0-9.]+) CPU-s`)
	runLogSkipped = regexp.MustCompile(`data not fetched: (.*?)(?: \(run 'make data'\))?\s*$`)
)

// loadReportRun reads what a run's page shows from its directory.
func loadReportRun(dir string) (*reportRun, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s is not a run directory (no such directory)", dir)
	}
	for _, f := range []string{harness.SpecFile, harness.RowsFile} {
		if !fileExists(filepath.Join(dir, f)) {
			return nil, fmt.Errorf("%s is not a run directory: it has no %s (run the spec first)", dir, f)
		}
	}
	spec, err := harness.LoadSpec(filepath.Join(dir, harness.SpecFile))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	r := &reportRun{Dir: dir, Name: spec.Name, Title: spec.Title, Description: strings.TrimSpace(spec.Description), Paper: paperOf(spec.Name)}
	head, err := firstLine(filepath.Join(dir, harness.RowsFile))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	r.Build, r.Seed, r.Trials = headerValue(head, "build"), headerValue(head, "seed"), headerValue(head, "trials")
	switch q := headerValue(head, "quick"); {
	case q == "true" || q == "" && summaryQuick(filepath.Join(dir, harness.SummaryFile)):
		r.Scale = "quick"
	default:
		r.Scale = "full"
	}
	if _, s, ok := strings.Cut(head, " skipped="); ok {
		r.Skipped = append(r.Skipped, strings.Split(strings.TrimSpace(s), ",")...)
	}
	if log, err := os.ReadFile(filepath.Join(dir, "run.log")); err == nil {
		for _, l := range strings.Split(string(log), "\n") {
			if m := runLogTimes.FindStringSubmatch(l); m != nil {
				r.Cells, r.Wall, r.CPU = m[1], m[4], m[5]
			}
			if m := runLogSkipped.FindStringSubmatch(l); m != nil && !strings.HasPrefix(m[1], "run ") {
				r.Skipped = append(r.Skipped, strings.Split(m[1], ", ")...)
			}
		}
	}
	slices.Sort(r.Skipped)
	r.Skipped = slices.Compact(r.Skipped)
	for _, f := range spec.TitledFigures() {
		fig := reportFigure{Title: f.Title, Name: f.Name}
		for _, ext := range []string{"png", "svg", "pdf"} {
			if fileExists(filepath.Join(dir, f.Name+"."+ext)) {
				fig.Links = append(fig.Links, f.Name+"."+ext)
				if fig.Img == "" && ext != "pdf" {
					fig.Img = f.Name + "." + ext
				}
			}
		}
		r.Figures = append(r.Figures, fig)
	}
	for _, t := range spec.Tables {
		tab := reportTable{Title: t.Title, Name: t.Name}
		if tab.Title == "" {
			tab.Title = t.Name
		}
		for _, ext := range []string{"csv", "md", "tex"} {
			if fileExists(filepath.Join(dir, t.Name+"."+ext)) {
				tab.Links = append(tab.Links, t.Name+"."+ext)
			}
		}
		tab.Table, _ = readHTMLTable(filepath.Join(dir, t.Name+".csv"))
		r.Tables = append(r.Tables, tab)
	}
	if p := filepath.Join(dir, harness.ClaimsFile); fileExists(p) {
		if r.Claims, err = readHTMLTable(p); err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
	}
	for _, f := range []string{harness.RowsFile, harness.SummaryFile, harness.SpecFile, harness.ClaimsFile, "run.log"} {
		if fileExists(filepath.Join(dir, f)) {
			r.Files = append(r.Files, f)
		}
	}
	return r, nil
}

// summaryQuick reports whether summary.csv's first row has quick = true.
func summaryQuick(path string) bool {
	t, err := readHTMLTable(path)
	if err != nil || len(t.Rows) == 0 {
		return false
	}
	i := slices.Index(t.Head, "quick")
	return i >= 0 && i < len(t.Rows[0]) && t.Rows[0][i] == "true"
}

// readHTMLTable reads a CSV file (its # lines skipped) as a header and
// rows, long floats shortened to four significant digits.
func readHTMLTable(path string) (*htmlTable, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty", path)
	}
	t := &htmlTable{Head: recs[0]}
	for _, rec := range recs[1:] {
		for i, s := range rec {
			if v, err := strconv.ParseFloat(s, 64); err == nil && len(s) > 8 {
				rec[i] = strconv.FormatFloat(v, 'g', 4, 64)
			}
		}
		t.Rows = append(t.Rows, rec)
	}
	return t, nil
}
