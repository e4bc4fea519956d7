package main

import (
	"bufio"
	"context"
	"errors"

	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ldpbench/ldpbench/compare"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/results"
)

// errMoved is returned by regress when a check moved: main exits 1 on it
// (2 on any other error), so that CI can tell a regression from a failure
// to run.
var errMoved = findingf("regression: some cells moved (see above)")

// BaselineDir holds the shipped specs' baselines, one file per spec.
const BaselineDir = "baselines"

// RegressFile is the verdict regress writes in the run's directory, for
// `ldpbench report`: a line naming the rows it tested (their first line,
// after verdictRowsPrefix), then the report regress printed.
const RegressFile = "regress.txt"

const verdictRowsPrefix = "# verdict on rows: "

// writeVerdict writes r's report to dir's RegressFile, atomically: a
// verdict names the rows it is of, so that a page can tell a verdict on
// rows written since.
func writeVerdict(dir, rowsLine string, r *compare.Regression) error {
	return results.WriteFileAtomic(filepath.Join(dir, RegressFile), func(w *bufio.Writer) error {
		fmt.Fprintf(w, "%s%s\n", verdictRowsPrefix, rowsLine)
		r.Print(w)
		return nil
	})
}

// cmdRegress tests a finished run against the theory in its rows and its
// spec's stored baseline, or (--update-baseline) writes the baseline.
func cmdRegress(_ context.Context, c *cli, args []string) error {
	fs := c.flags("regress")
	basePath := fs.String("baseline", "", "baseline `file` (default "+BaselineDir+"/<spec>.csv)")
	alpha := fs.Float64("alpha", 0, "family-wise false-alarm `probability` (default: the baseline's, else 0.001); with --update-baseline it is stored")
	update := fs.Bool("update-baseline", false, "write DIR's results as the baseline (needs --reason)")
	reason := fs.String("reason", "", "`why` the baseline changes (stored in the baseline file)")
	anyBuild := fs.Bool("any-build", false, "test rows that another build wrote (by default refused: they are not this code's results)")
	pos, err := c.parse(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs("regress", pos, 1, 1, "one output DIR"); err != nil {
		return err
	}
	if *alpha != 0 && !(*alpha > 0 && *alpha < 1) {
		return usageErrorf("regress", "--alpha %v: want 0 < α < 1", *alpha)
	}
	stdout := c.stdout
	dir := pos[0]
	rowsPath := filepath.Join(dir, harness.RowsFile)
	rows, err := results.ReadRowsFile(rowsPath)
	if err != nil {
		return fmt.Errorf("regress: %w (run the spec into %s first)", err, dir)
	}
	line, err := firstLine(rowsPath)
	if err != nil {
		return fmt.Errorf("regress: %w", err)
	}
	spec := headerValue(line, "experiment")
	if spec == "" {
		return fmt.Errorf("regress: %s: no experiment= in its first line", rowsPath)
	}
	if strings.Contains(line, " shard=") {
		return fmt.Errorf("regress: %s holds one shard's rows: merge the shards first (`ldpbench merge`)", dir)
	}
	// A run of other code says nothing about this code: after a rebuild
	// the rows must be written again before they are tested.
	if got, this := headerValue(line, "build"), harness.BuildID(); got != this && !*anyBuild {
		if got == "" {
			got = "unknown (rows written before builds were recorded)"
		}
		return fmt.Errorf("regress: %s was written by build %s, not by this binary (build %s): run the spec again with this binary (ldpbench run SPEC --fresh --out %s), or pass --any-build to test those rows as they are", rowsPath, got, this, dir)
	}
	if *basePath == "" {
		*basePath = filepath.Join(baselineRoot(), spec+".csv")
	}
	var base *compare.Baseline
	if b, err := compare.ReadBaseline(*basePath); err == nil {
		if b.Spec != spec {
			return fmt.Errorf("regress: %s is the baseline of %s, not of %s", *basePath, b.Spec, spec)
		}
		base = b
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("regress: %w", err)
	}

	if *update {
		a := *alpha
		var previous []string
		if base != nil {
			previous = base.Reasons
			if a == 0 {
				a = base.Alpha
			}
		}
		if a == 0 {
			a = compare.DefaultAlpha
		}
		nb, err := compare.NewBaseline(spec, line, rows, a, *reason, previous)
		if err != nil {
			return fmt.Errorf("regress: %w", err)
		}
		if err := nb.Write(*basePath); err != nil {
			return fmt.Errorf("regress: %w", err)
		}
		fmt.Fprintf(stdout, "%s: baseline of %d cell-metrics, α = %g -> %s\n", spec, len(nb.Cells), a, *basePath)
		// The theory is checked all the same: a baseline should not be
		// taken from a run that is off its theory without knowing it.
		r := compare.Regress(spec, line, rows, nil, a)
		r.Print(stdout)
		if err := writeVerdict(dir, line, r); err != nil {
			return fmt.Errorf("regress: %w", err)
		}
		return nil
	}
	if base == nil {
		fmt.Fprintf(stdout, "%s: no baseline (%s): only the theory is checked; write one with `ldpbench regress %s --update-baseline --reason \"...\"`\n", spec, *basePath, dir)
	}
	r := compare.Regress(spec, line, rows, base, *alpha)
	r.Print(stdout)
	if err := writeVerdict(dir, line, r); err != nil {
		return fmt.Errorf("regress: %w", err)
	}
	if len(r.Moved()) > 0 {
		return errMoved
	}
	return nil
}

// baselineRoot is baselines/ in the working directory, else in the module's
// root (tests run in their package's directory).
func baselineRoot() string {
	if st, err := os.Stat(BaselineDir); err == nil && st.IsDir() {
		return BaselineDir
	}
	dir, err := os.Getwd()
	if err != nil {
		return BaselineDir
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, BaselineDir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return BaselineDir
		}
		dir = parent
	}
}

func firstLine(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	buf := make([]byte, 64*1024)
	n, _ := io.ReadFull(f, buf)
	l, _, _ := strings.Cut(string(buf[:n]), "\n")
	return l, nil
}

func headerValue(line, key string) string {
	line, _, _ = strings.Cut(line, " skipped=")
	for _, f := range strings.Fields(line) {
		if k, v, ok := strings.Cut(f, "="); ok && k == key {
			return v
		}
	}
	return ""
}
