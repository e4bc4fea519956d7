package figures

// The title and the caption of a figure: what its marks mean, the scale it
// was run at, and what was left out or cut.

import (
	"fmt"
	"strings"
)

// quickTag marks the title of a figure drawn from a quick run.
const quickTag = "[quick scale: a pipeline check]"

// title is the spec's title, marked when the figure shows a quick run.
func (f *Figure) title() string {
	if !f.Quick {
		return f.Spec.Title
	}
	if f.Spec.Title == "" {
		return quickTag
	}
	return f.Spec.Title + " " + quickTag
}

// caption says what the marks mean and what was left out.
func (f *Figure) caption() []string {
	spec := f.Spec
	trials := f.trials()
	points := 0
	for _, p := range f.Panels {
		for _, s := range p.Series {
			points += len(s.Points)
		}
	}
	lines := []string{f.marksLine(trials, points) + f.theoryClause()}
	if f.Quick {
		lines = append(lines, fmt.Sprintf("Quick scale (--quick): the spec's [quick] n and trials (%s), a check of the pipeline, not the paper's scale; run without --quick for the paper's figure.", trials))
	}
	if f.Categories != nil && len(f.Series) > 1 {
		marks := "points"
		if spec.boxed() {
			marks = "boxes"
		}
		lines = append(lines, "The x axis is categorical: each category's "+marks+" are spread sideways by series, not joined by lines.")
	}
	if f.ratio() {
		theory := ""
		if f.hasRatioTheory() {
			theory = " (theory by theory, dashed)"
		}
		lines = append(lines, fmt.Sprintf("Lower panels: each series' mean divided by that of %s at the same x%s, without CI.",
			f.label(spec.Series, spec.RatioTo), theory))
	}
	if ref := f.referencesLine(); ref != "" {
		lines = append(lines, ref)
	}
	if line := f.skippedLine(); line != "" {
		lines = append(lines, line)
	}
	if notes := f.notes(points); len(notes) > 0 {
		lines = append(lines, "Note: "+strings.Join(notes, "; ")+".")
	}
	if spec.Note != "" {
		lines = append(lines, spec.Note)
	}
	return lines
}

// trials is the number of trials behind each point: "40 trials", "1
// trial", or their range when the points differ.
func (f *Figure) trials() string {
	trials := fmt.Sprintf("%d trials", f.MinCount)
	if f.MinCount == 1 && f.MaxCount == 1 {
		trials = "1 trial"
	}
	if f.MinCount != f.MaxCount {
		trials = fmt.Sprintf("%d–%d trials", f.MinCount, f.MaxCount)
	}
	return trials
}

// marksLine says what a point (or line, or box) is and what its interval
// or band is, of the figure's points in all: a mean over trials with its
// CI, a spread, a single value, or a constant without CI.
func (f *Figure) marksLine(trials string, points int) string {
	spec := f.Spec
	mark := "Points"
	if spec.LinesOnly {
		mark = "Lines"
	}
	what := mark + ": "
	if spec.YLabel != "" {
		what += spec.YLabel + ", "
	}
	var line string
	switch {
	case spec.boxed():
		w := "Boxes: "
		if spec.YLabel != "" {
			w += spec.YLabel + ", "
		}
		line = f.boxCaption(w, trials)
	case f.MaxCount == 1: // computed values (the theory kind) or single runs
		line = fmt.Sprintf("%s%s, one value per point (no repeated trials, no CI).", what, metricClause(spec.Metric))
	case f.Constant == points:
		line = fmt.Sprintf("%s%s, the same in each of the %s (sd = 0), so no CI.", what, metricClause(spec.Metric), trials)
	case spec.Spread == "sd":
		over := "the trial values"
		if spec.SDFrom != "" {
			over = "every value a trial averages"
		}
		if len(spec.Pool) > 0 {
			over += " of the cells pooled over " + strings.Join(spec.Pool, ", ")
		}
		line = fmt.Sprintf("%s%s; shaded band: ±1 SD of %s (the spread of the values, not a CI of the mean).", what, metricWhat(spec.Metric, trials), over)
		if spec.LogY {
			line += " The y axis is set by the means and the upper edges (mean + 1 SD); where mean − 1 SD is ≤ 0 or below the axis, the band is filled to the panel's bottom edge, without its lower edge line: open, for it reaches further down than a log axis shows."
		}
	default:
		ci := "bars"
		if spec.Band {
			ci = "shaded band"
		}
		line = fmt.Sprintf("%s%s, with its 95%% CI (%s).", what, metricWhat(spec.Metric, trials), ci)
		if spec.Band && spec.LogY {
			line += " The y axis is set by the means and the CIs' upper bounds; where a lower bound is ≤ 0 or below the axis, the band is filled to the panel's bottom edge, without its lower edge line: open."
		}
	}
	return line
}

// theoryClause says how the theory is drawn, when it is.
func (f *Figure) theoryClause() string {
	switch {
	case !f.hasTheory():
		return ""
	case f.Spec.boxed():
		return " Dark dashes across the boxes: theory (the expected value)."
	case f.Categories != nil:
		return " Short dashes: theory (the expected value), in the series' colour and dashes."
	}
	return " Dashed lines: theory (the expected value), in the series' colour and dashes."
}

// referencesLine says what the drawn references are, in which colours,
// and which are in black for want of their series; "" when none is drawn.
func (f *Figure) referencesLine() string {
	var drawn, coloured int
	var absent []string
	for _, r := range f.References {
		if !f.drawn(r) {
			continue
		}
		drawn++
		if r.Style >= 0 {
			coloured++
		}
		if r.Absent {
			absent = append(absent, fmt.Sprintf("%q, %s", r.Label, f.label(f.Spec.Series, r.Series)))
		}
	}
	if drawn == 0 {
		return ""
	}
	ref := "Hollow diamonds on dotted lines, reference: printed values of the paper, not measured here"
	if f.Categories != nil {
		ref = "Hollow diamonds, reference: printed values of the paper, not measured here"
	}
	if coloured > 0 {
		ref += ", in the colour of their series"
	}
	if len(absent) > 0 {
		ref += "; in black where their series is not in this run (" + strings.Join(absent, "; ") + ")"
	}
	return ref + "."
}

// notes counts what the figure leaves out, cuts or hides, of its points
// in all: points without a CI, cut CI ends, dropped points, clamped
// bounds, open bands, values beyond the axes and hidden series.
func (f *Figure) notes(points int) []string {
	boxed := f.Spec.boxed()
	var notes []string
	if f.NoCI > 0 && f.MaxCount > 1 && !boxed {
		notes = append(notes, fmt.Sprintf("%s without a CI (fewer than 2 trials)", plural(f.NoCI, "point")))
	}
	if f.Constant > 0 && f.Constant < points && !boxed {
		notes = append(notes, fmt.Sprintf("%s without a CI (the same value in every trial, sd = 0)", plural(f.Constant, "point")))
	}
	if f.BandCut > 0 {
		notes = append(notes, fmt.Sprintf("%s cut: a band may reach beyond the means only as far as they spread", plural(f.BandCut, "band edge")))
	}
	if f.Cut > 0 {
		notes = append(notes, fmt.Sprintf("%s cut (arrowheads): an interval may reach beyond the means only as far as they spread", plural(f.Cut, "CI end")))
	}
	if f.Dropped > 0 {
		notes = append(notes, fmt.Sprintf("%s not shown (not finite, or ≤ 0 on a log axis)", plural(f.Dropped, "point")))
	}
	if f.Clamped > 0 {
		notes = append(notes, fmt.Sprintf("%s ≤ 0 cut at the panel's smallest positive value", plural(f.Clamped, "CI lower bound")))
	}
	if f.openBands > 0 {
		notes = append(notes, fmt.Sprintf("%s open at the panel's bottom edge (≤ 0 or below the axis)", plural(f.openBands, "band lower edge")))
	}
	if f.beyondValues > 0 {
		n := plural(f.beyondValues, "trial value")
		if f.beyondMeans > 0 {
			n += " and " + plural(f.beyondMeans, "mean")
		}
		notes = append(notes, n+" beyond the y axes (triangles on the edges)")
	}
	if h := f.hidden(); len(h) > 0 {
		notes = append(notes, strings.Join(h, "; ")+" (within a marker's width)")
	}
	return notes
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// skippedLine names the datasets the figure leaves out because the run
// skipped them (their data files were not found); "" when none is.
func (f *Figure) skippedLine() string {
	if len(f.skipped) == 0 {
		return ""
	}
	labels := make([]string, len(f.skipped))
	for i, d := range f.skipped {
		labels[i] = f.label("dataset", d)
	}
	what := "dataset skipped: its data file was not found; make data fetches it"
	if len(labels) > 1 {
		what = "datasets skipped: their data files were not found; make data fetches them"
	}
	return fmt.Sprintf("Not shown: %s (%s).", strings.Join(labels, ", "), what)
}
