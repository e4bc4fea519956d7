package main

import (
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/ldpbench/ldpbench/compare"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/harness"
)

// cmdMerge joins the outputs of `ldpbench run SPEC --shard i/N` (one
// directory per shard, on any machines) into OUT: the rows, summary,
// figures, tables and claims a single run would have written.
func cmdMerge(kinds experiment.Registry, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return fmt.Errorf("merge: want OUT and at least one SHARD_DIR, got %d arguments", len(pos))
	}
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
