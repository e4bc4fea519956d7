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

	"github.com/ldpbench/ldpbench/docs"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/results"
	"github.com/ldpbench/ldpbench/tables"
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

// reportRun is what a run's page and its index entries show.
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
	Timed       string // on what the times were taken (times.csv), "" when unknown
	Skipped     []string
	Figures     []reportFigure
	Tables      []reportTable
	Claims      []reportClaim // the summary rows of claims.csv
	Regress     *reportRegress
	Reproduces  []reproRow // the rows of docs/reproduction.md naming the spec
	Files       []string   // rows, summary, spec, claims, log: the ones present
	Href        string     // the page, relative to the index
	IndexHref   string     // the index, relative to the page
}

// ClaimsHeld counts the claims that hold: inside the paper's range in
// every cell they match.
func (r *reportRun) ClaimsHeld() int {
	n := 0
	for _, c := range r.Claims {
		if c.Holds {
			n++
		}
	}
	return n
}

type reportFigure struct {
	Title, Name string
	Img         string   // file to show, "" when none was drawn
	Links       []string // every format on disk
}

type reportTable struct {
	Title, Name string
	Grid        *tables.Grid // nil when the table cannot be projected
	Missing     string       // why Grid is nil
	Links       []string
}

// reportClaim is one claim of a run: the paper's statement read as a
// range of improvements, beside the range measured over its cells.
type reportClaim struct {
	Source, Note    string
	Metric          string
	Method, Against string
	Paper, Measured string // "45 – 55 %"
	Cells           string
	Significant     string // cells significant at 2 SE
	InRange         string // cells inside the paper's range
	Holds           bool   // every cell in range (and at least one)
}

// reportRegress is the verdict `ldpbench regress` wrote beside the rows.
type reportRegress struct {
	Verdict string // its first line: the counts and how many moved
	Text    string // the whole report
	Moved   bool
	// Stale: the rows were written again after the verdict, which says
	// nothing about them.
	Stale bool
}

// reportIndex is the index page's data: the papers' figures in the order
// of docs/reproduction.md, then the runs no row names.
type reportIndex struct {
	Runs, Quick, Full int
	CPU               string // the runs' CPU seconds, summed
	Papers            []reportPaper
	Other             []*reportRun
}

type reportPaper struct {
	Paper string
	Rows  []reportEntry
}

// reportEntry is one figure or table of a paper and the runs of its specs
// found among the reported ones.
type reportEntry struct {
	reproRow
	Runs []*reportRun
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
	sections := parseReproduction(docs.Reproduction)
	var runs []*reportRun
	for _, dir := range dirs {
		r, err := loadReportRun(dir)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		r.Reproduces, r.Paper = reproducedBy(sections, r.Name)
		runs = append(runs, r)
	}
	for _, r := range runs {
		page := filepath.Join(r.Dir, ReportFile)
		abs, err := filepath.Abs(page)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		rel, err := filepath.Rel(indexDir, abs)
		if err != nil {
			return fmt.Errorf("report: %s: %w", r.Dir, err)
		}
		back, err := filepath.Rel(filepath.Dir(abs), filepath.Join(indexDir, filepath.Base(index)))
		if err != nil {
			return fmt.Errorf("report: %s: %w", r.Dir, err)
		}
		r.Href, r.IndexHref = filepath.ToSlash(rel), filepath.ToSlash(back)
		if err := writeTemplate(page, "run", r); err != nil {
			return fmt.Errorf("report: %s: %w", r.Dir, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(index), 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := writeTemplate(index, "index", buildIndex(sections, runs)); err != nil {
		return fmt.Errorf("report: %s: %w", index, err)
	}
	fmt.Fprintf(c.stdout, "report: %d run pages (report.html in each run directory); index -> %s\n", len(runs), index)
	return nil
}

// reproducedBy returns the rows of the reproduction page that name the
// spec, and the paper of the first ("" when none does).
func reproducedBy(sections []reproSection, spec string) ([]reproRow, string) {
	var rows []reproRow
	for _, s := range sections {
		for _, r := range s.Rows {
			if slices.Contains(r.Specs, spec) {
				rows = append(rows, r)
			}
		}
	}
	if len(rows) == 0 {
		return nil, ""
	}
	return rows, rows[0].Paper
}

// buildIndex lays the runs out by the reproduction page: each paper's
// figures in its order with the runs of their specs, every figure listed
// whether or not it was run, then the runs no row names, by name.
func buildIndex(sections []reproSection, runs []*reportRun) reportIndex {
	byName := map[string][]*reportRun{}
	var cpu float64
	idx := reportIndex{Runs: len(runs)}
	for _, r := range runs {
		byName[r.Name] = append(byName[r.Name], r)
		if r.Scale == "quick" {
			idx.Quick++
		} else {
			idx.Full++
		}
		if v, err := strconv.ParseFloat(r.CPU, 64); err == nil {
			cpu += v
		}
		if len(r.Reproduces) == 0 {
			idx.Other = append(idx.Other, r)
		}
	}
	idx.CPU = strconv.FormatFloat(cpu, 'f', 1, 64)
	for _, s := range sections {
		p := reportPaper{Paper: s.Paper}
		for _, row := range s.Rows {
			e := reportEntry{reproRow: row}
			for _, spec := range row.Specs {
				e.Runs = append(e.Runs, byName[spec]...)
			}
			p.Rows = append(p.Rows, e)
		}
		idx.Papers = append(idx.Papers, p)
	}
	slices.SortStableFunc(idx.Other, func(a, b *reportRun) int { return strings.Compare(a.Name, b.Name) })
	return idx
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
	r := &reportRun{Dir: dir, Name: spec.Name, Title: spec.Title, Description: strings.TrimSpace(spec.Description)}
	head, err := firstLine(filepath.Join(dir, harness.RowsFile))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	r.Build, r.Seed, r.Trials = headerValue(head, "build"), headerValue(head, "seed"), headerValue(head, "trials")
	// A spec without a [quick] block runs at its full scale under --quick.
	switch q := headerValue(head, "quick"); {
	case spec.Quick == nil:
		r.Scale = "full"
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
	// The run's own record of its times, where it has one, over run.log's.
	if rows, err := harness.ReadTimes(dir); err == nil && len(rows) > 0 {
		wall, cpu := harness.TotalTimes(rows)
		r.Wall, r.CPU = strconv.FormatFloat(wall, 'f', 1, 64), strconv.FormatFloat(cpu, 'f', 1, 64)
		r.Timed = fmt.Sprintf("%d call(s) of run, the last with %d workers on %d CPUs (%s)", len(rows), rows[len(rows)-1].Jobs, rows[len(rows)-1].CPUs, rows[len(rows)-1].CPUModel)
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
	r.Tables = loadReportTables(dir, spec)
	if p := filepath.Join(dir, harness.ClaimsFile); fileExists(p) {
		if r.Claims, err = readClaims(p); err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
	}
	r.Regress = readVerdict(filepath.Join(dir, RegressFile), head)
	for _, f := range []string{harness.RowsFile, harness.SummaryFile, harness.SpecFile, harness.ClaimsFile, harness.TimesFile, RegressFile, "run.log"} {
		if fileExists(filepath.Join(dir, f)) {
			r.Files = append(r.Files, f)
		}
	}
	return r, nil
}

// loadReportTables projects the run's summaries into the spec's tables,
// as the run wrote them, so that the page marks the same best cells as
// the Markdown and LaTeX files.
func loadReportTables(dir string, spec *harness.Spec) []reportTable {
	if len(spec.Tables) == 0 {
		return nil
	}
	sums, sumErr := results.ReadSummaryFile(filepath.Join(dir, harness.SummaryFile))
	var out []reportTable
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
		switch proj, err := tables.Project(sums, t); {
		case sumErr != nil:
			tab.Missing = "summary.csv cannot be read: " + sumErr.Error()
		case err != nil:
			tab.Missing = err.Error()
		default:
			g := proj.Grid("in bold")
			g.Description = strings.ReplaceAll(g.Description, "`", "") // Markdown's code marks
			tab.Grid = &g
		}
		out = append(out, tab)
	}
	return out
}

// readClaims reads the summary rows of claims.csv, one per claim.
func readClaims(path string) ([]reportClaim, error) {
	head, rows, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	col := func(rec []string, name string) string {
		if i := slices.Index(head, name); i >= 0 && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	var out []reportClaim
	for _, rec := range rows {
		if col(rec, "row") != "summary" {
			continue
		}
		c := reportClaim{
			Source: col(rec, "source"), Note: col(rec, "note"), Metric: col(rec, "metric"),
			Method: col(rec, "method"), Against: col(rec, "against"),
			Paper:    pctRange(col(rec, "paper_min_pct"), col(rec, "paper_max_pct")),
			Measured: pctRange(col(rec, "measured_min_pct"), col(rec, "measured_max_pct")),
			Cells:    col(rec, "cells"), Significant: col(rec, "significant_cells"), InRange: col(rec, "in_range_cells"),
		}
		c.Holds = c.Cells != "" && c.Cells != "0" && c.InRange == c.Cells
		out = append(out, c)
	}
	return out, nil
}

// pctRange writes a range of percentages to three significant digits.
func pctRange(lo, hi string) string {
	short := func(s string) string {
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			return strconv.FormatFloat(v, 'g', 3, 64)
		}
		return s
	}
	if lo == "" && hi == "" {
		return ""
	}
	return short(lo) + " – " + short(hi) + " %"
}

// readVerdict reads the verdict regress wrote in a run directory (nil
// when there is none); rowsLine is the rows' first line now, which tells
// whether the verdict is of these rows.
func readVerdict(path, rowsLine string) *reportRegress {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	of, text, _ := strings.Cut(string(b), "\n")
	of, _ = strings.CutPrefix(of, verdictRowsPrefix)
	verdict, _, _ := strings.Cut(text, "\n")
	return &reportRegress{
		Verdict: verdict,
		Text:    strings.TrimRight(text, "\n"),
		Moved:   !strings.HasSuffix(verdict, ": 0 moved"),
		Stale:   of != rowsLine,
	}
}

// summaryQuick reports whether summary.csv's first row has quick = true.
func summaryQuick(path string) bool {
	head, rows, err := readCSV(path)
	if err != nil || len(rows) == 0 {
		return false
	}
	i := slices.Index(head, "quick")
	return i >= 0 && i < len(rows[0]) && rows[0][i] == "true"
}

// readCSV reads a CSV file, its # lines skipped, as a header and rows.
func readCSV(path string) (head []string, rows [][]string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, nil, fmt.Errorf("%s: empty", path)
	}
	return recs[0], recs[1:], nil
}
