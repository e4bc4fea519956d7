package main

import (
	"bytes"
	"context"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/docs"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/results"
)

// TestReport writes the page of a quick mean-synthetic run, given a
// claims.csv, a run.log and a table with best cells added to its spec copy,
// and an index elsewhere: the page has the spec's title, one image per
// figure drawn, the claims with whether each holds, the scale, the times,
// the skipped datasets, and the table with the lowest cell of each row in
// bold; the index links to the page; every relative src and href of both
// resolves to a file.
func TestReport(t *testing.T) {
	dir := quickRun(t, "mean-synthetic")
	claims := "claim,row,source,metric,method,against,paper_min_pct,paper_max_pct,measured_min_pct,measured_max_pct,cells,significant_cells,in_range_cells,note\n" +
		"0,cell,Fig. 1 <b>,mse,pm,duchi,45,55,,,,,,\n" +
		"0,summary,Fig. 1 <b>,mse,pm,duchi,45,55,48.85415699649,50.1,9,9,9,a note\n" +
		"1,summary,Fig. 2,mse,hm,pm,0,100,-3,20,4,2,3,\n"
	writeFile(t, filepath.Join(dir, harness.ClaimsFile), claims)
	log := "mean-synthetic: 12 cells (0 resumed), 480 trials run in 1.5 s wall, 2.9 CPU-s -> out/mean-synthetic\n" +
		"other: skipped: data not fetched: adult, bank (run 'make data')\n"
	writeFile(t, filepath.Join(dir, "run.log"), log)
	// Without the run's own times.csv, the page reads run.log's line
	// (TestReportIndexByFigure reads times.csv).
	if err := os.Remove(filepath.Join(dir, harness.TimesFile)); err != nil {
		t.Fatal(err)
	}
	appendFile(t, filepath.Join(dir, harness.SpecFile), bestTable)
	index := filepath.Join(t.TempDir(), "site", "index.html")
	var out, errOut bytes.Buffer
	if err := run(context.Background(), kinds, []string{"report", dir, "--out", index}, &out, &errOut); err != nil {
		t.Fatalf("report: %v\n%s%s", err, out.String(), errOut.String())
	}
	spec, err := harness.LoadSpec(filepath.Join(dir, harness.SpecFile))
	if err != nil {
		t.Fatal(err)
	}
	pagePath := filepath.Join(dir, ReportFile)
	page := readPage(t, pagePath)
	if !strings.Contains(page, "<h1>"+html.EscapeString(spec.Title)+"</h1>") {
		t.Errorf("page lacks the spec's title %q", spec.Title)
	}
	drawn := 0
	for _, f := range spec.Figures {
		if fileExists(filepath.Join(dir, f.Name+".png")) {
			drawn++
			if !strings.Contains(page, `<img src="`+f.Name+`.png"`) {
				t.Errorf("page lacks the image of figure %s", f.Name)
			}
		}
	}
	if drawn == 0 {
		t.Fatal("the quick run drew no figure")
	}
	if n := strings.Count(page, "<img "); n != drawn {
		t.Errorf("page has %d images, want %d (one per figure drawn)", n, drawn)
	}
	for _, want := range []string{
		"<h2>Claims</h2>", "45 – 55 %", "48.9 – 50.1 %", "Fig. 1 &lt;b&gt;", "a note",
		`<span class="holds">holds</span>`, `<span class="fails">does not hold</span>`, "1/2 claims hold",
		"quick (the spec's [quick]", "1.5 s", "2.9 CPU-s", "<li>adult</li>", "<li>bank</li>",
		"No figure or table of the papers",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script") {
		t.Error("page has a script")
	}
	checkBestBold(t, dir, page)
	idx := readPage(t, index)
	rel, err := filepath.Rel(filepath.Dir(index), pagePath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(idx, `href="`+filepath.ToSlash(rel)+`"`) {
		t.Errorf("index does not link to the page by %q:\n%s", rel, idx)
	}
	if !strings.Contains(idx, "<h2>Beyond the papers' figures</h2>") || !strings.Contains(idx, "mean-synthetic</a> · quick") {
		t.Errorf("index lacks the group or the scale:\n%s", idx)
	}
	checkLinks(t, pagePath, page)
	checkLinks(t, index, idx)
}

// bestTable is a table with best = "min" added to a mean-synthetic spec.
const bestTable = `
[[tables]]
name = "mse-best"
title = "MSE by ε"
metric = "mse"
rows = "eps"
columns = "method"
best = "min"
filter = { dataset = ["uniform"], method = ["duchi", "pm", "hm"] }
`

// checkBestBold: the page's table marks exactly the lowest value cell of
// each row, as the summaries give it (the worst cell, or the first, bold
// would fail).
func checkBestBold(t *testing.T, dir, page string) {
	t.Helper()
	sums, err := results.ReadSummaryFile(filepath.Join(dir, harness.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	mean := map[string]float64{} // "eps method" -> mean mse on uniform
	for _, s := range sums {
		if s.Metric == "mse" && s.Dataset == "uniform" {
			mean[strconv.FormatFloat(float64(s.Eps), 'g', -1, 64)+" "+s.Method] = float64(s.Mean)
		}
	}
	_, tab, ok := strings.Cut(page, "<h3>MSE by ε</h3>")
	if !ok {
		t.Fatal("page lacks the table mse-best")
	}
	tab, _, _ = strings.Cut(tab, "</table>")
	_, tab, _ = strings.Cut(tab, "<tbody>")
	rows := regexp.MustCompile(`<tr><th>([^<]*)</th>(.*?)</tr>`).FindAllStringSubmatch(tab, -1)
	if len(rows) != 5 {
		t.Fatalf("table has %d rows, want 5 (one per ε):\n%s", len(rows), tab)
	}
	cell := regexp.MustCompile(`<td class="num">(<strong>)?([^<]*)`)
	for _, r := range rows {
		eps := r[1]
		best, bold := "", ""
		cells := cell.FindAllStringSubmatch(r[2], -1)
		if len(cells) != 4 {
			t.Fatalf("ε = %s: %d cells, want 3 values and the best column", eps, len(cells))
		}
		for i, c := range cells[:3] {
			m := []string{"duchi", "pm", "hm"}[i]
			if best == "" || mean[eps+" "+m] < mean[eps+" "+best] {
				best = m
			}
			if c[1] != "" {
				if bold != "" {
					t.Errorf("ε = %s: two cells in bold", eps)
				}
				bold = m
			}
		}
		if bold != best {
			t.Errorf("ε = %s: %q in bold, want the lowest, %q", eps, bold, best)
		}
	}
}

// TestReportIndexByFigure: a run of a spec that docs/reproduction.md names
// is listed under its paper, at its figure's row, beside the figure's
// status; the rows keep the page's (the paper's) order; the page of the
// run says what it reproduces; and a verdict regress wrote is on the page,
// marked stale once the rows change.
func TestReportIndexByFigure(t *testing.T) {
	dir := quickRun(t, "mean-synthetic")
	if _, err := runCLI(t, "regress", dir, "--any-build"); err != nil {
		t.Fatalf("regress: %v", err)
	}
	if !fileExists(filepath.Join(dir, RegressFile)) {
		t.Fatalf("regress wrote no %s", RegressFile)
	}
	// The run poses as noutput-mean, which the page names at Baek &
	// Chung's Fig. 3, Beta.
	specPath := filepath.Join(dir, harness.SpecFile)
	b, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, specPath, strings.Replace(string(b), `name = "mean-synthetic"`, `name = "noutput-mean"`, 1))
	index := filepath.Join(t.TempDir(), "index.html")
	if _, err := runCLI(t, "report", dir, "--out", index); err != nil {
		t.Fatal(err)
	}
	idx := readPage(t, index)
	baek := strings.Index(idx, "<h2>Baek &amp; Chung</h2>")
	kulesza := strings.Index(idx, "<h2>Kulesza, Suresh, Wang</h2>")
	fig3 := strings.Index(idx, "<td>Fig. 3, Beta</td>")
	fig2 := strings.Index(idx, "<td>Fig. 2</td>")
	fig4 := strings.Index(idx, "<td>Fig. 4, Beta</td>")
	link := strings.Index(idx, ">noutput-mean</a>")
	if baek < 0 || !(baek < fig2 && fig2 < fig3 && fig3 < link && link < fig4 && fig4 < kulesza) {
		t.Errorf("index: Baek & Chung at %d, Fig. 2 %d, Fig. 3 %d, the run %d, Fig. 4 %d, Kulesza %d: want them in that order", baek, fig2, fig3, link, fig4, kulesza)
	}
	if row := idx[fig3:fig4]; !strings.Contains(row, `<td class="status">differs</td>`) || !strings.Contains(row, "regress: nothing moved") {
		t.Errorf("Fig. 3's row lacks its status or the verdict:\n%s", row)
	}
	if !strings.Contains(idx, "<td>Fig. 3, Voltage and NYtaxi</td>") || !strings.Contains(idx, "not run") {
		t.Error("index leaves out the figures that were not run")
	}
	page := readPage(t, filepath.Join(dir, ReportFile))
	times, err := harness.ReadTimes(dir)
	if err != nil {
		t.Fatal(err)
	}
	wall, cpu := harness.TotalTimes(times)
	for _, want := range []string{"Baek &amp; Chung, Fig. 3, Beta", "<h2>Regression verdict</h2>", ": 0 moved",
		strconv.FormatFloat(wall, 'f', 1, 64) + " s", strconv.FormatFloat(cpu, 'f', 1, 64) + " CPU-s", "1 call(s) of run, the last with 2 workers"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "stale") {
		t.Error("a fresh verdict is called stale")
	}
	// Rows written again (another seed): the verdict is of older rows.
	rowsPath := filepath.Join(dir, harness.RowsFile)
	rows, err := os.ReadFile(rowsPath)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, rowsPath, strings.Replace(string(rows), " seed=", " seed=1", 1))
	if _, err := runCLI(t, "report", dir, "--out", index); err != nil {
		t.Fatal(err)
	}
	if page := readPage(t, filepath.Join(dir, ReportFile)); !strings.Contains(page, "stale: the rows were written again since") {
		t.Error("a verdict on other rows is not called stale")
	}
}

// TestParseReproduction reads the embedded docs/reproduction.md: as many
// rows per paper as its Counts table says, each with a known status; every
// name in a spec column a shipped spec or a figure or table of one.
func TestParseReproduction(t *testing.T) {
	sections := parseReproduction(docs.Reproduction)
	counts := map[string]int{}
	for _, line := range strings.Split(docs.Reproduction[strings.Index(docs.Reproduction, "## Counts"):], "\n") {
		cells := splitRow(line)
		if len(cells) == 8 && cells[0] != "paper" && cells[0] != "all" && !strings.HasPrefix(cells[0], "---") {
			n, err := strconv.Atoi(cells[1])
			if err != nil {
				t.Fatalf("counts row %q: %v", line, err)
			}
			counts[cells[0]] = n
		}
	}
	if len(sections) != 5 || len(counts) != 5 {
		t.Fatalf("%d paper sections and %d count rows, want 5 and 5", len(sections), len(counts))
	}
	status := []string{"reproduced", "reproduced with an erratum", "differs", "needs data", "not run at full scale", "not applicable"}
	specs, err := filepath.Glob(filepath.Join("..", "..", "runs", "*.toml"))
	if err != nil || len(specs) == 0 {
		t.Fatalf("no specs in runs/: %v", err)
	}
	names := map[string]bool{}
	for _, p := range specs {
		s, err := harness.LoadSpec(p)
		if err != nil {
			t.Fatal(err)
		}
		names[s.Name] = true
		for _, f := range s.Figures {
			names[f.Name] = true
		}
		for _, tb := range s.Tables {
			names[tb.Name] = true
		}
	}
	for _, s := range sections {
		if counts[s.Paper] != len(s.Rows) {
			t.Errorf("%s: %d rows parsed, the page counts %d", s.Paper, len(s.Rows), counts[s.Paper])
		}
		for _, r := range s.Rows {
			if !slices.Contains(status, r.Status) {
				t.Errorf("%s, %s: status %q is none of %q", s.Paper, r.Figure, r.Status, status)
			}
			for _, name := range r.Specs {
				// Patterns ("aquila-*"), suffixes ("-d8") and test names
				// are prose, not names of files.
				if specLike.MatchString(name) && !names[name] {
					t.Errorf("%s, %s: %q is no shipped spec, figure or table", s.Paper, r.Figure, name)
				}
			}
		}
	}
}

var specLike = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func readPage(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var srcHref = regexp.MustCompile(`(?:src|href)="([^"]*)"`)

// checkLinks: every relative src and href of the page at path names a file.
func checkLinks(t *testing.T, path, page string) {
	t.Helper()
	n := 0
	for _, m := range srcHref.FindAllStringSubmatch(page, -1) {
		u, err := url.Parse(html.UnescapeString(m[1]))
		if err != nil {
			t.Errorf("%s: bad link %q: %v", path, m[1], err)
			continue
		}
		if u.Scheme != "" || u.Host != "" || strings.HasPrefix(u.Path, "/") {
			t.Errorf("%s: link %q is not relative", path, m[1])
			continue
		}
		n++
		if target := filepath.Join(filepath.Dir(path), filepath.FromSlash(u.Path)); !fileExists(target) {
			t.Errorf("%s: link %q: no file %s", path, m[1], target)
		}
	}
	if n == 0 {
		t.Errorf("%s has no links", path)
	}
}

// TestReportBadDir: a directory that is not a run is an error naming it,
// and writes nothing; no runs under out/ is an error saying so.
func TestReportBadDir(t *testing.T) {
	bad := t.TempDir()
	index := filepath.Join(t.TempDir(), "index.html")
	out, err := runCLI(t, "report", bad, "--out", index)
	if err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("report %s: err %v, want one naming the directory\n%s", bad, err, out)
	}
	if fileExists(index) {
		t.Error("a failed report wrote the index")
	}
	t.Chdir(t.TempDir())
	if _, err := runCLI(t, "report"); err == nil || !strings.Contains(err.Error(), "no runs under out/: run make figures first") {
		t.Errorf("report with no runs: err %v", err)
	}
}
