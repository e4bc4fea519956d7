package compare

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/ldpbench/ldpbench/results"
)

// Check is one regression test of one cell and metric of a run: against
// the kind's exact theory (the predicted mean of the metric) or against a
// stored baseline.
type Check struct {
	Cell    results.Cell
	Metric  string
	Against string // "theory" or "baseline"
	// Test names the test: "chi2" (Σx/theory ~ χ²_k, squared errors),
	// "t" or "t-logmean" (Student's t of the mean, or of its log, against
	// theory), "paired-t" (trial-by-trial differences, same seeds), "F"
	// (ratio of two means of squared errors), "welch" (Welch's t of two
	// means), "exact" (no spread: the values must agree to 1e-9).
	Test string
	Ref  float64 // theory, or the baseline's mean
	Mean float64 // the run's mean
	Stat float64 // the test's statistic (t, χ², F)
	P    float64 // two-sided p-value
	PAdj float64 // Holm-adjusted over every check of the spec
	// Moved is PAdj ≤ α: the cell's metric differs from theory or from
	// the baseline beyond what chance explains at the spec's α.
	Moved bool
}

// Effect is the relative change of the mean, Mean/Ref − 1.
func (c Check) Effect() float64 { return c.Mean/c.Ref - 1 }

// Side says which way the mean moved: "higher" or "lower" than Ref.
func (c Check) Side() string {
	if c.Mean > c.Ref {
		return "higher"
	}
	return "lower"
}

// Regression is the outcome of `ldpbench regress` for one run.
type Regression struct {
	Spec   string
	Alpha  float64
	Checks []Check
	// Paired is true when the run and the baseline share their seed, so
	// that the baseline tests compare trial with trial.
	Paired bool
	// Untested counts the cells and metrics with a theory or a baseline
	// that no test applies to (one trial and a value that differs, a
	// negative mean where a ratio is needed).
	Untested int
	// Notes are what the report should say beside the checks (a baseline
	// of another scale, a changed spec).
	Notes []string
	// NoBaseline names the run's cell-metrics that the baseline has no
	// value for (a new method, dataset or ε): tested against theory alone,
	// and never silently. NotInRun names the baseline's cell-metrics that
	// the run lacks (a dataset skipped, another scale, the spec changed).
	// Both are "cell metric", in the run's and the baseline's order.
	NoBaseline, NotInRun []string
	// HasBaseline says whether a baseline was given. RunBuild and
	// BaseBuild are the builds that wrote the run's rows and the
	// baseline's ("" when the line has no build= field).
	HasBaseline         bool
	RunBuild, BaseBuild string
}

// Moved returns the checks that moved.
func (r *Regression) Moved() []Check {
	var out []Check
	for _, c := range r.Checks {
		if c.Moved {
			out = append(out, c)
		}
	}
	return out
}

// Regress tests every cell and metric of a run (rows, and rowsLine the
// first line of its rows.csv) against the exact theory where the rows have
// one, and against base (nil: none) where it has the cell and metric, and
// marks as moved the checks that Holm's step-down procedure rejects at the
// family-wise false-alarm probability alpha (the baseline's when alpha is
// 0). The test is the dual of the summary's confidence interval of that
// metric (its ci_method): χ² for squared errors, t or t on the log of the
// mean otherwise; against a baseline drawn from the same seed, the paired
// t test of the trial-by-trial differences, else F on the ratio of means of
// squared errors and Welch's t otherwise.
func Regress(spec, rowsLine string, rows []results.Row, base *Baseline, alpha float64) *Regression {
	if alpha == 0 {
		alpha = DefaultAlpha
		if base != nil {
			alpha = base.Alpha
		}
	}
	r := &Regression{Spec: spec, Alpha: alpha, RunBuild: headerField(rowsLine, "build")}
	type key struct {
		cell   results.Cell
		metric string
	}
	values := map[key][]float64{}
	theory := map[key]float64{}
	var order []key
	for _, row := range rows {
		k := key{row.Cell(), row.Metric}
		if _, ok := values[k]; !ok {
			order = append(order, k)
			theory[k] = float64(row.Theory)
		}
		values[k] = append(values[k], float64(row.Value))
	}
	method := map[key]string{}
	for _, s := range results.Summarise(rows) {
		method[key{s.Cell(), s.Metric}] = s.CIMethod
	}
	baseValues := map[key][]float64{}
	if base != nil {
		for _, c := range base.Cells {
			baseValues[key{c.Cell, c.Metric}] = c.Values
		}
		r.HasBaseline, r.BaseBuild = true, headerField(base.RowsLine, "build")
		r.Paired = headerField(base.RowsLine, "seed") == headerField(rowsLine, "seed") && headerField(rowsLine, "seed") != ""
		sameScale := true
		if a, b := headerField(base.RowsLine, "quick"), headerField(rowsLine, "quick"); a != b {
			sameScale = false
			r.Notes = append(r.Notes, fmt.Sprintf("the baseline was run with quick=%s, this run with quick=%s: only the cells they share are compared", a, b))
		}
		// The hash covers the seed and the scale: compare it only between
		// runs of one seed and scale.
		if a, b := headerField(base.RowsLine, "spec_sha256"), headerField(rowsLine, "spec_sha256"); r.Paired && sameScale && a != b {
			r.Notes = append(r.Notes, fmt.Sprintf("the spec changed since the baseline (spec_sha256 %s, now %s)", a, b))
		}
	}
	for _, k := range order {
		xs := values[k]
		mean, _ := meanSD(xs)
		if th := theory[k]; !math.IsNaN(th) {
			c := Check{Cell: k.cell, Metric: k.metric, Against: "theory", Ref: th, Mean: mean}
			var ok bool
			switch method[k] {
			case "chi2":
				c.Test = "chi2"
				c.P, c.Stat, ok = chi2Theory(xs, th)
			case "t-logmean":
				c.Test = "t-logmean"
				c.P, c.Stat, ok = tTheory(xs, th, true)
			default:
				c.Test = "t"
				c.P, c.Stat, ok = tTheory(xs, th, false)
			}
			if ok && c.Stat == 0 && c.Test != "chi2" {
				c.Test = "exact"
			}
			if ok {
				r.Checks = append(r.Checks, c)
			} else {
				r.Untested++
			}
		}
		bs, ok := baseValues[k]
		if !ok {
			if base != nil {
				r.NoBaseline = append(r.NoBaseline, cellLabel(k.cell)+" "+k.metric)
			}
			continue
		}
		delete(baseValues, k)
		bm, _ := meanSD(bs)
		c := Check{Cell: k.cell, Metric: k.metric, Against: "baseline", Ref: bm, Mean: mean}
		switch {
		case r.Paired && len(bs) == len(xs):
			c.Test = "paired-t"
			c.P, c.Stat, ok = pairedT(xs, bs)
		case method[k] == "chi2":
			c.Test = "F"
			c.P, c.Stat, ok = fRatio(xs, bs)
		default:
			c.Test = "welch"
			c.P, c.Stat, ok = welch(xs, bs)
			if ok && c.Stat == 0 {
				c.Test = "exact"
			}
		}
		if ok {
			r.Checks = append(r.Checks, c)
		} else {
			r.Untested++
		}
	}
	if base != nil {
		for _, c := range base.Cells {
			if _, ok := baseValues[key{c.Cell, c.Metric}]; ok {
				r.NotInRun = append(r.NotInRun, cellLabel(c.Cell)+" "+c.Metric)
			}
		}
	}
	if base != nil && len(baseValues) == len(base.Cells) && len(base.Cells) > 0 {
		r.Notes = append(r.Notes, "no cell of this run is in the baseline")
	}
	p := make([]float64, len(r.Checks))
	for i, c := range r.Checks {
		p[i] = c.P
	}
	for i, a := range Holm(p) {
		r.Checks[i].PAdj = a
		r.Checks[i].Moved = a <= alpha
	}
	return r
}

// headerField returns a key=value field of a rows file's first line.
func headerField(line, key string) string {
	line, _, _ = strings.Cut(line, " skipped=")
	for _, f := range strings.Fields(line) {
		if k, v, ok := strings.Cut(f, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// Print writes the report: one line of counts, the notes, and a table of
// the checks that moved (cell, metric, against what, the test, reference
// and new mean, relative effect, p-value, Holm-adjusted p-value, side).
func (r *Regression) Print(w io.Writer) {
	var theory, base int
	for _, c := range r.Checks {
		if c.Against == "theory" {
			theory++
		} else {
			base++
		}
	}
	moved := r.Moved()
	against := "unpaired"
	if r.Paired {
		against = "paired: same seed"
	}
	fmt.Fprintf(w, "%s: %d checks (%d against theory, %d against the baseline, %s), α = %g family-wise (Holm): %d moved\n",
		r.Spec, len(r.Checks), theory, base, against, r.Alpha, len(moved))
	fmt.Fprintf(w, "  run written by build %s", orUnknown(r.RunBuild))
	if r.HasBaseline {
		fmt.Fprintf(w, "; baseline by build %s", orUnknown(r.BaseBuild))
	}
	fmt.Fprintln(w)
	if r.Untested > 0 {
		fmt.Fprintf(w, "  %d cell-metrics could not be tested (one trial, or no spread to test a ratio)\n", r.Untested)
	}
	if len(r.NoBaseline) > 0 {
		fmt.Fprintf(w, "  note: %s of this run have no baseline (tested against theory only; add them with --update-baseline): %s\n",
			plural(len(r.NoBaseline), "cell-metric"), firstFew(r.NoBaseline, 3))
	}
	if len(r.NotInRun) > 0 {
		fmt.Fprintf(w, "  note: %s of the baseline are not in this run (a dataset skipped, another scale, or the spec changed): %s\n",
			plural(len(r.NotInRun), "cell-metric"), firstFew(r.NotInRun, 3))
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, "  note:", n)
	}
	if len(moved) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  cell\tmetric\tagainst\ttest\tref\tmean\teffect\tp\tp_holm\tside")
	for _, c := range moved {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%.4g\t%.4g\t%+.2f%%\t%.2g\t%.2g\t%s\n",
			cellLabel(c.Cell), c.Metric, c.Against, c.Test, c.Ref, c.Mean, 100*c.Effect(), c.P, c.PAdj, c.Side())
	}
	tw.Flush()
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown (rows written before builds were recorded)"
	}
	return s
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// firstFew lists the first n items and counts the rest.
func firstFew(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(items[:n], "; "), len(items)-n)
}

// cellLabel is the cell key without the experiment, which the report's
// first line names.
func cellLabel(c results.Cell) string {
	k := c.Key()
	_, rest, _ := strings.Cut(k, ";")
	return strings.TrimSuffix(rest, ";")
}
