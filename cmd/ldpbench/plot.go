package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/results"
)

// cmdPlot re-draws a finished run's figures and tables from its summary
// and the spec: DIR's own copy, or SPEC's (a file, a name in runs/ or a
// shipped one) over --out or out/<name>.
func cmdPlot(_ context.Context, c *cli, args []string) error {
	fs := c.flags("plot")
	out := fs.String("out", "", "results `directory` when the argument is a spec (default out/<spec name>)")
	pos, err := c.parse(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs("plot", pos, 1, 1, "one SPEC or DIR"); err != nil {
		return err
	}
	var spec *harness.Spec
	dir := pos[0]
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		spec, err = harness.LoadSpec(filepath.Join(dir, harness.SpecFile))
		if err != nil {
			return err
		}
	} else {
		if spec, err = harness.OpenSpec(pos[0], c.shipped); err != nil {
			return err
		}
		dir = *out
		if dir == "" {
			dir = filepath.Join("out", spec.Name)
		}
	}
	summaries, err := results.ReadSummaryFile(filepath.Join(dir, harness.SummaryFile))
	if err != nil {
		return fmt.Errorf("plot: %w (run the spec first)", err)
	}
	kind, err := c.kinds.Lookup(spec.Kind)
	if err != nil {
		return err
	}
	logf := func(f string, a ...any) { fmt.Fprintf(c.stderr, f+"\n", a...) }
	files, err := harness.DrawFigures(spec.TitledFigures(), summaries, dir, kind, spec.GroupLabels(), logf)
	if err != nil {
		return err
	}
	tabs, err := harness.WriteTables(summaries, spec.Tables, dir, logf)
	if err != nil {
		return err
	}
	for _, f := range slices.Concat(files, tabs) {
		fmt.Fprintln(c.stdout, f)
	}
	return nil
}
