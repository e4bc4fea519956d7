package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ldpbench/ldpbench/compare"
	"github.com/ldpbench/ldpbench/harness"
)

// cmdCompare recomputes claims.csv from an output directory: its rows.csv
// and the [[claims]] of its spec.toml copy (or of --spec, for claims
// written after the run), without re-running anything.
func cmdCompare(_ context.Context, c *cli, args []string) error {
	fs := c.flags("compare")
	specArg := fs.String("spec", "", "take the claims from this `spec` (a file, a name in runs/ or a shipped one) instead of DIR/"+harness.SpecFile)
	pos, err := c.parse(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs("compare", pos, 1, 1, "one output DIR"); err != nil {
		return err
	}
	kinds, stdout := c.kinds, c.stdout
	dir := pos[0]
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("compare: %s is not an output directory (run the spec first)", dir)
	}
	var spec *harness.Spec
	if *specArg != "" {
		spec, err = harness.OpenSpec(*specArg, c.shipped)
	} else {
		spec, err = harness.LoadSpec(filepath.Join(dir, harness.SpecFile))
	}
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	if len(spec.Claims) == 0 {
		return fmt.Errorf("compare: %s has no [[claims]] (give --spec SPEC to take them from another spec)", spec.Path)
	}
	kind, err := spec.Check(kinds)
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	if err := compare.Validate(spec, kind); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	if _, err := compare.Report(spec, dir, stdout); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	fmt.Fprintln(stdout, "->", filepath.Join(dir, compare.ClaimsFile))
	return nil
}

// reportClaims writes claims.csv after a run and prints the table; a spec
// without claims prints nothing.
func reportClaims(spec *harness.Spec, dir string, stdout io.Writer) error {
	rows, err := compare.Report(spec, dir, stdout)
	if err == nil && rows != nil {
		fmt.Fprintln(stdout, "->", filepath.Join(dir, compare.ClaimsFile))
	}
	return err
}
