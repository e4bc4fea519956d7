package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/ldpbench/ldpbench/compare"
	"github.com/ldpbench/ldpbench/harness"
)

// cmdMerge joins the outputs of 'ldpbench run SPEC --shard i/N' (one
// directory per shard, on any machines) into OUT: the rows, summary,
// figures, tables and claims a single run would have written.
func cmdMerge(_ context.Context, c *cli, args []string) error {
	fs := c.flags("merge")
	pos, err := c.parse(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs("merge", pos, 2, -1, "OUT and at least one SHARD_DIR"); err != nil {
		return err
	}
	kinds, stdout, stderr := c.kinds, c.stdout, c.stderr
	res, err := harness.Merge(kinds, pos[0], pos[1:], harness.MergeOptions{Log: stderr})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %d shard directories: %d cells -> %s\n", len(pos)-1, res.Cells, res.OutDir)
	for _, f := range slices.Concat(res.Figures, res.Tables) {
		fmt.Fprintln(stdout, "  ", f)
	}
	spec, err := harness.LoadSpec(res.SpecCopied)
	if err != nil || len(spec.Claims) == 0 {
		return nil
	}
	kind, err := spec.Check(kinds)
	if err != nil {
		return err
	}
	if err := compare.Validate(spec, kind); err != nil {
		return err
	}
	return reportClaims(spec, res.OutDir, stdout)
}
