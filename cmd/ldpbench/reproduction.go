package main

import (
	"regexp"
	"strings"
)

// reproRow is one row of docs/reproduction.md: a figure or table of a
// paper, the specs that reproduce it, and its status.
type reproRow struct {
	Paper  string // the section's heading before its colon: "Du et al."
	Figure string // "Fig. 8a (Beta+Sin)", "Table 1"
	Shows  string
	Specs  []string // every backticked name of the spec column
	Status string   // "reproduced", "differs", ... (the words before ':', ';' or '(')
	Detail string   // the status column whole, links stripped
}

// reproSection is one paper's part of docs/reproduction.md, in the page's
// order (the papers' own order of figures within).
type reproSection struct {
	Paper string
	Rows  []reproRow
}

var (
	reproBacktick = regexp.MustCompile("`([^`]+)`")
	reproLink     = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// parseReproduction reads the per-paper tables of docs/reproduction.md:
// a "## Paper: title" heading starts a section, and a table row of five
// cells (figure, shows, spec, status, numbers) is a figure's row. The
// headline table (an image in the first cell) and the counts are skipped,
// as is any row without a spec.
func parseReproduction(page string) []reproSection {
	var out []reproSection
	var cur *reproSection
	for _, line := range strings.Split(page, "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			paper, _, found := strings.Cut(h, ":")
			cur = nil
			if found {
				out = append(out, reproSection{Paper: strings.TrimSpace(paper)})
				cur = &out[len(out)-1]
			}
			continue
		}
		if cur == nil || !strings.HasPrefix(line, "|") {
			continue
		}
		cells := splitRow(line)
		if len(cells) != 5 || cells[0] == "" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		row := reproRow{Paper: cur.Paper, Figure: cells[0], Shows: plainText(cells[1]), Detail: plainText(cells[3])}
		for _, m := range reproBacktick.FindAllStringSubmatch(cells[2], -1) {
			row.Specs = append(row.Specs, m[1])
		}
		status := row.Detail
		if i := strings.IndexAny(status, ":(;"); i >= 0 {
			status = status[:i]
		}
		row.Status = strings.TrimSpace(status)
		if len(row.Specs) > 0 || row.Status != "" {
			cur.Rows = append(cur.Rows, row)
		}
	}
	return out
}

// splitRow splits a Markdown table row into its trimmed cells; "\|" is a
// bar inside a cell.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	line = strings.TrimSuffix(line, "|")
	line = strings.ReplaceAll(line, `\|`, "\x00")
	cells := strings.Split(line, "|")
	for i, c := range cells {
		cells[i] = strings.TrimSpace(strings.ReplaceAll(c, "\x00", "|"))
	}
	return cells
}

// plainText drops Markdown links' targets and code marks.
func plainText(s string) string {
	s = reproLink.ReplaceAllString(s, "$1")
	return strings.ReplaceAll(s, "`", "")
}
