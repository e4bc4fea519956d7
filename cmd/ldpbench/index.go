package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/results"
)

// IndexFile names, under the results root, the index that a batch run
// writes.
const IndexFile = "index.md"

// writeIndex writes root/index.md: one row per finished run under root (a
// directory holding spec.toml and summary.csv), with its spec's title (the
// paper figure or table it reproduces), its scale and links to its figures
// and tables; then the specs of the last batch that were skipped and why.
// It is made from what is on disk, so it lists earlier runs too.
func writeIndex(root string, skipped []string) (string, error) {
	entries, err := os.ReadDir(root)
	if err != nil && !os.IsNotExist(err) {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Results under %s/\n\n", root)
	b.WriteString("Written by `ldpbench run` after a batch of specs (`make figures`), from the runs on disk.\n")
	b.WriteString("Each run's directory holds rows.csv, summary.csv, spec.toml and run.log beside the files linked here.\n\n")
	b.WriteString("| spec | reproduces | scale | figures and tables |\n|---|---|---|---|\n")
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if !e.IsDir() || !fileExists(filepath.Join(dir, harness.SummaryFile)) || !fileExists(filepath.Join(dir, harness.SpecFile)) {
			continue
		}
		title := "(spec.toml unreadable by this build)"
		if s, err := harness.LoadSpec(filepath.Join(dir, harness.SpecFile)); err == nil {
			title = s.Title
		}
		scale := "full"
		if line, err := firstLine(filepath.Join(dir, harness.RowsFile)); err == nil && strings.Contains(line, " quick=true") {
			scale = "quick"
		}
		var links []string
		for _, pattern := range []string{"*.png", "*.md"} {
			files, _ := filepath.Glob(filepath.Join(dir, pattern))
			slices.Sort(files)
			for _, f := range files {
				rel := e.Name() + "/" + filepath.Base(f)
				links = append(links, fmt.Sprintf("[%s](%s)", filepath.Base(f), rel))
			}
		}
		fmt.Fprintf(&b, "| [%s](%s/) | %s | %s | %s |\n", e.Name(), e.Name(), cell(title), scale, strings.Join(links, " "))
	}
	if len(skipped) > 0 {
		b.WriteString("\n## Skipped in the last batch: data not fetched\n\nRun `make data` (or set `$LDPBENCH_DATA`), then run them again.\n\n")
		for _, s := range skipped {
			fmt.Fprintf(&b, "- %s\n", s)
		}
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(root, IndexFile)
	return path, results.WriteFileAtomic(path, func(w *bufio.Writer) error {
		_, err := w.WriteString(b.String())
		return err
	})
}

// cell makes text safe in a Markdown table cell.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
