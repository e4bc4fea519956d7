package main

import (
	"bytes"
	"context"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/harness"
)

// TestReport writes the page of a quick mean-synthetic run, given a
// claims.csv and a run.log, and an index elsewhere: the page has the
// spec's title, one image per figure drawn, the claims, the scale, the
// times and the skipped datasets; the index links to the page; and every
// relative src and href of both resolves to a file.
func TestReport(t *testing.T) {
	dir := quickRun(t, "mean-synthetic")
	claims := "# a comment line\nclaim,source,paper_min_pct,paper_max_pct,measured_min_pct,measured_max_pct,significant\n0,Fig. 1 <b>,45,55,48.85415699649,50.1,true\n"
	if err := os.WriteFile(filepath.Join(dir, harness.ClaimsFile), []byte(claims), 0o644); err != nil {
		t.Fatal(err)
	}
	log := "mean-synthetic: 12 cells (0 resumed), 480 trials run in 1.5 s wall, 2.9 CPU-s -> out/mean-synthetic\n" +
		"other: skipped: data not fetched: adult, bank (run 'make data')\n"
	if err := os.WriteFile(filepath.Join(dir, "run.log"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
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
		"<h2>Claims</h2>", "<th>paper_min_pct</th>", "<td>48.85</td>", "Fig. 1 &lt;b&gt;",
		"<tr><th>scale</th><td>quick</td></tr>", "1.5 s", "2.9 CPU-s", "<li>adult</li>", "<li>bank</li>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script") {
		t.Error("page has a script")
	}
	idx := readPage(t, index)
	rel, err := filepath.Rel(filepath.Dir(index), pagePath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(idx, `href="`+filepath.ToSlash(rel)+`"`) {
		t.Errorf("index does not link to the page by %q:\n%s", rel, idx)
	}
	if !strings.Contains(idx, "<h2>other</h2>") || !strings.Contains(idx, "<td>quick</td>") {
		t.Errorf("index lacks the group or the scale:\n%s", idx)
	}
	checkLinks(t, pagePath, page)
	checkLinks(t, index, idx)
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
