package figures

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/ldpbench/ldpbench/results"
)

// Figure is a spec applied to summaries: the panels, series and points that
// Render draws, decided before anything is drawn.
type Figure struct {
	Spec   Spec
	Panels []Panel
	// Series lists every series value in order of first appearance; a
	// series' index here picks its colour and marker in every panel.
	Series []string
	// MinCount and MaxCount bound the number of trials behind the
	// projected summaries.
	MinCount, MaxCount int
	// Dropped counts points left out (non-finite, or ≤ 0 on a log axis);
	// Clamped counts CI lower bounds ≤ 0 raised to the smallest positive
	// value of their panel on a log y axis. Warnings say which: one per
	// dropped point, and one for all the clamped bounds (a quick run's
	// wide intervals clamp hundreds), naming the first.
	Dropped, Clamped int
	// Cut counts the interval ends cut to the reach of their panel's
	// means, theory and references (cutIntervals).
	Cut int
	// BandCut counts the band edges cut there (no arrowheads: the band
	// stops at the cut, and the caption says so).
	BandCut int
	// firstClamp describes the first clamped bound, for that warning.
	firstClamp string
	// NoCI counts the points drawn without a confidence interval because
	// they have fewer than two trials; Constant counts those whose metric
	// took the same value in every trial (sd = 0), which have no interval
	// either.
	NoCI, Constant int
	// Categories labels the places of a categorical x axis (Spec.XCategorical
	// or Spec.Categories), in order: a point's X is its category's index.
	// CategoryValues are the x field's values at those places. Both are nil
	// for a numeric x axis.
	Categories, CategoryValues []string
	// RatioLog is set when the ratio panels (Spec.RatioTo) have a log y
	// axis: the figure's y axis is, and the ratios span at least a factor
	// of 10, all > 0.
	RatioLog bool
	// Quick is set when any projected summary was run at the spec's quick
	// scale (results.Summary.Quick): the figure is then marked as a
	// pipeline check, in its title and caption, so that a reader does not
	// take it for the paper's scale.
	Quick bool

	catRoom vg.Length // the width of one point of a category, set by layout
	// names gives the label of a value (a kind's name of its methods,
	// WithNames); nil leaves values to Spec.Labels and fieldLabel.
	names func(field, value string) (string, bool)
	looks []int // the look of each of Series, set by assignLooks
	// beyondValues and beyondMeans count the outliers and the means of a
	// box plot beyond their panel's y axis, openBands the band lower
	// bounds below a log y axis: set by layout, once the axes are.
	beyondValues, beyondMeans, openBands int
	// skipped names the datasets the figure would show but the run
	// skipped (WithSkipped), for the caption.
	skipped []string
	// References are the spec's references, in spec order.
	References []RefLine
	Warnings   []string
}

// A RefLine is a Reference of the spec placed in the figure.
type RefLine struct {
	Label, Series, Panel string
	// Style is the index into Figure.Series of the reference's series,
	// whose colour it takes, or -1 (black) when it names no series or one
	// the summaries do not have (Absent).
	Style  int
	Absent bool
	Points []XY // sorted by x
}

// A Panel is the points of one value of the spec's Panel field.
type Panel struct {
	Value  string
	Series []Series
	// Ratios holds, when the spec asks for them (Spec.RatioTo), each other
	// series' means divided by those of the named series at the same x
	// (no CI), and its theory by the named series' theory.
	Ratios []Series
}

// A Series is the points of one value of the spec's Series field in one
// panel, sorted by x.
type Series struct {
	Value  string
	Style  int     // index into Figure.Series: the same value has the same style in every panel
	Points []Point // measured means
	Theory []XY    // theory values, where known and asked for
}

// A Point is a mean with its 95% confidence interval; Lo and Hi are NaN
// when the interval is not known (fewer than two trials) or when the metric
// took the same value in every trial (Constant: sd = 0, up to rounding).
type Point struct {
	X, Mean, Lo, Hi float64
	Constant        bool
	// LoCut and HiCut are set when that end of the interval was cut to
	// the reach of the panel's means (cutIntervals): the bar ends in an
	// arrowhead there.
	LoCut, HiCut bool
	// Box is the five-number summary of the trial values, for a box plot
	// (Spec.Style = "box"; nil otherwise), whose Lo and Hi are NaN: it
	// draws no CI.
	Box *Box
}

// An XY is a point of a theory line.
type XY struct{ X, Y float64 }

// Field returns the value of a named field of a summary: metric,
// normalisation, or any field of its cell (experiment, dataset, method, eps,
// n, or a params key).
func Field(s *results.Summary, name string) (string, bool) {
	switch name {
	case "metric":
		return s.Metric, true
	case "normalisation":
		return s.Normalisation, true
	}
	return s.Cell().Field(name)
}

// Project applies a spec to summaries. It keeps the summaries of the spec's
// metric that pass its filter, groups them into panels and series in order
// of first appearance, sorts each series by x, and leaves out the points a
// log axis cannot show, with a warning for each. It fails when the spec is
// invalid, when nothing matches, when a kept summary lacks the x, series or
// panel field or has an x that is not a finite number, when two summaries
// fall on the same point (a field missing from the projection) and when a
// reference names a panel that no kept summary has. A reference naming a
// series that no kept summary has is kept, in black, with a warning.
func Project(summaries []results.Summary, spec Spec) (*Figure, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	summaries, err := pool(summaries, spec)
	if err != nil {
		return nil, err
	}
	pr := newProjection(spec)
	if err := pr.addAll(summaries); err != nil {
		return nil, err
	}
	fig := pr.fig
	if spec.categorical() {
		if err := fig.orderCategories(); err != nil {
			return nil, err
		}
	}
	if err := pr.placeReferences(); err != nil {
		return nil, err
	}
	fig.guardPanels()
	if err := fig.dropEmptyPanels(); err != nil {
		return nil, err
	}
	if spec.Theory && !fig.hasTheory() {
		fig.warnf("theory asked for, but no summary of metric %q has a theory value", spec.Metric)
	}
	if spec.RatioTo != "" {
		if err := fig.ratios(); err != nil {
			return nil, err
		}
	}
	return fig, nil
}

// A projection is a figure being filled from summaries, with the indices
// that find a summary's panel, series, category and point: the panels,
// series and categories in order of first appearance, and the cell of
// each point, so that two summaries on one point are refused.
type projection struct {
	spec     Spec
	fig      *Figure
	panels   map[string]int // panel value → index in fig.Panels
	series   map[string]int // series value → index in fig.Series
	seen     map[pointKey]string
	category map[string]int // x value → index in fig.CategoryValues
	metrics  []string       // every metric of the summaries, for an error
}

// A pointKey is where a summary falls in the figure.
type pointKey struct {
	panel, series string
	x             float64
}

func newProjection(spec Spec) *projection {
	return &projection{
		spec:     spec,
		fig:      &Figure{Spec: spec},
		panels:   map[string]int{},
		series:   map[string]int{},
		seen:     map[pointKey]string{},
		category: map[string]int{},
	}
}

func (pr *projection) errorf(format string, args ...any) error {
	return fmt.Errorf("figure %q: "+format, append([]any{pr.spec.Name}, args...)...)
}

// addAll adds every summary of the spec's metric that passes its filter,
// and fails when none does, naming the metrics there are.
func (pr *projection) addAll(summaries []results.Summary) error {
	spec := pr.spec
	filter := unpooledFilter(spec)
	for i := range summaries {
		s := &summaries[i]
		if !slices.Contains(pr.metrics, s.Metric) {
			pr.metrics = append(pr.metrics, s.Metric)
		}
		if s.Metric != spec.Metric || !keep(s, filter) {
			continue
		}
		if err := pr.add(s); err != nil {
			return err
		}
	}
	if len(pr.fig.Panels) == 0 {
		msg := fmt.Sprintf("no summary has metric %q", spec.Metric)
		if slices.Contains(pr.metrics, spec.Metric) {
			msg = fmt.Sprintf("no summary of metric %q passes the filter", spec.Metric)
		}
		return pr.errorf("%s (metrics present: %s)", msg, strings.Join(pr.metrics, ", "))
	}
	return nil
}

// add places one summary: its panel, series and x, then its point.
func (pr *projection) add(s *results.Summary) error {
	spec, fig := pr.spec, pr.fig
	cell := s.Cell().Key()
	get := func(key, name string) (string, error) {
		if name == "" {
			return "", nil
		}
		v, ok := Field(s, name)
		if !ok {
			return "", pr.errorf("key %q: summary %s has no field %q", key, cell, name)
		}
		return v, nil
	}
	pv, err := get("panel", spec.Panel)
	if err != nil {
		return err
	}
	sv, err := get("series", spec.Series)
	if err != nil {
		return err
	}
	xv, err := get("x", spec.X)
	if err != nil {
		return err
	}
	x, err := pr.xOf(xv, cell)
	if err != nil {
		return err
	}
	k := pointKey{pv, sv, x}
	if other, dup := pr.seen[k]; dup {
		return pr.errorf("summaries %s and %s fall on the same point (%s); filter them or add a series or panel field", other, cell, where(pv, sv, x))
	}
	pr.seen[k] = cell

	ser := pr.seriesIn(pv, sv)
	pt, err := pr.point(s, x)
	if err != nil {
		return err
	}
	ser.Points = append(ser.Points, pt)
	if spec.Theory && s.Theory.Known() {
		ser.Theory = append(ser.Theory, XY{x, float64(s.Theory)})
	}
	if fig.MinCount == 0 || s.Count < fig.MinCount {
		fig.MinCount = s.Count
	}
	fig.MaxCount = max(fig.MaxCount, s.Count)
	fig.Quick = fig.Quick || s.Quick
	return nil
}

// xOf is the x of a summary's x field value xv: the number, or on a
// categorical axis the category's index in order of first appearance
// (orderCategories orders them once every summary is in).
func (pr *projection) xOf(xv, cell string) (float64, error) {
	fig := pr.fig
	if pr.spec.categorical() {
		ci, ok := pr.category[xv]
		if !ok {
			ci = len(fig.CategoryValues)
			pr.category[xv] = ci
			fig.CategoryValues = append(fig.CategoryValues, xv)
		}
		return float64(ci), nil
	}
	x, err := strconv.ParseFloat(xv, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, pr.errorf("key \"x\": field %q of summary %s is %q, not a finite number", pr.spec.X, cell, xv)
	}
	return x, nil
}

// seriesIn returns series sv of panel pv, adding the panel, the series to
// the figure's (its style) and the series to the panel when they are new.
func (pr *projection) seriesIn(pv, sv string) *Series {
	fig := pr.fig
	pi, ok := pr.panels[pv]
	if !ok {
		pi = len(fig.Panels)
		pr.panels[pv] = pi
		fig.Panels = append(fig.Panels, Panel{Value: pv})
	}
	style, ok := pr.series[sv]
	if !ok {
		style = len(fig.Series)
		pr.series[sv] = style
		fig.Series = append(fig.Series, sv)
	}
	p := &fig.Panels[pi]
	si := slices.IndexFunc(p.Series, func(s Series) bool { return s.Value == sv })
	if si < 0 {
		si = len(p.Series)
		p.Series = append(p.Series, Series{Value: sv, Style: style})
	}
	return &p.Series[si]
}

// point is a summary's point at x: its mean with the CI, or the spread
// (spread = "sd") or the box (style = "box") when the spec draws those; a
// constant metric has no interval.
func (pr *projection) point(s *results.Summary, x float64) (Point, error) {
	spec := pr.spec
	pt := Point{X: x, Mean: float64(s.Mean), Lo: float64(s.CILo), Hi: float64(s.CIHi)}
	if s.Count >= 2 && math.Abs(float64(s.SD)) <= 1e-12*math.Abs(pt.Mean) {
		// The same value in every trial: the interval is a point,
		// and drawing it would claim a CI that is not there.
		pt.Lo, pt.Hi, pt.Constant = math.NaN(), math.NaN(), true
	}
	if spec.Spread == "sd" && s.Count >= 2 {
		sd := float64(s.SD)
		pt.Lo, pt.Hi = pt.Mean-sd, pt.Mean+sd
	}
	if spec.boxed() {
		b, err := boxOf(s)
		if err != nil {
			return Point{}, pr.errorf("key \"style\": %w", err)
		}
		pt.Box, pt.Lo, pt.Hi = b, math.NaN(), math.NaN()
	}
	return pt, nil
}

// placeReferences places the spec's references in the figure: a panel
// they name must be one of the figure's, a series they name gives them
// its colour (or black, with a warning, when the summaries lack it), and
// on a categorical axis each x becomes its category's place.
func (pr *projection) placeReferences() error {
	spec, fig := pr.spec, pr.fig
	for i, r := range spec.References {
		if _, ok := pr.panels[r.Panel]; r.Panel != "" && !ok {
			return pr.errorf("key \"reference[%d].panel\": %q is not a panel of the figure (%s: %s)",
				i, r.Panel, spec.Panel, strings.Join(quoted(fig.Panels, func(p Panel) string { return p.Value }), ", "))
		}
		line := RefLine{Label: r.Label, Series: r.Series, Panel: r.Panel, Style: -1}
		if r.Series != "" {
			if style, ok := pr.series[r.Series]; ok {
				line.Style = style
			} else {
				line.Absent = true
				fig.warnf("reference[%d] %q: series %q is not in the summaries (%s: %s); drawn in black",
					i, r.Label, r.Series, spec.Series, strings.Join(quoted(fig.Series, func(s string) string { return s }), ", "))
			}
		}
		for j := range r.X {
			x := r.X[j]
			if spec.categorical() {
				ci := slices.IndexFunc(fig.CategoryValues, func(v string) bool {
					f, err := strconv.ParseFloat(v, 64)
					return err == nil && f == x
				})
				if ci < 0 {
					return pr.errorf("key \"reference[%d].x[%d]\": %v is not a category of x (%s: %s)",
						i, j, x, spec.X, strings.Join(quoted(fig.CategoryValues, func(s string) string { return s }), ", "))
				}
				x = float64(ci)
			}
			line.Points = append(line.Points, XY{x, r.Y[j]})
		}
		slices.SortStableFunc(line.Points, func(a, b XY) int { return cmp.Compare(a.X, b.X) })
		fig.References = append(fig.References, line)
	}
	return nil
}

// guardPanels sorts every series by x and leaves out, cuts or clamps in
// each panel what its axes cannot show (guard, guardBoxes, cutIntervals),
// then warns once for all the clamped CI bounds.
func (f *Figure) guardPanels() {
	for i := range f.Panels {
		p := &f.Panels[i]
		for j := range p.Series {
			s := &p.Series[j]
			slices.SortStableFunc(s.Points, func(a, b Point) int { return cmp.Compare(a.X, b.X) })
			slices.SortStableFunc(s.Theory, func(a, b XY) int { return cmp.Compare(a.X, b.X) })
		}
		f.guard(p)
		f.guardBoxes(p)
		f.cutIntervals(p)
	}
	switch {
	case f.Clamped == 1:
		f.warnf("%s", f.firstClamp)
	case f.Clamped > 1:
		f.warnf("%d CI lower bounds ≤ 0 clamped to their panel's smallest positive value on log y; the first: %s", f.Clamped, f.firstClamp)
	}
}

// dropEmptyPanels leaves out the panels with nothing left to draw, with a
// warning for each and for a reference in one of them, and fails when no
// panel is left.
func (f *Figure) dropEmptyPanels() error {
	f.Panels = slices.DeleteFunc(f.Panels, func(p Panel) bool {
		if len(p.Series) == 0 {
			f.warnf("panel %q: nothing left to draw", p.Value)
			return true
		}
		return false
	})
	if len(f.Panels) == 0 {
		return fmt.Errorf("figure %q: no point of metric %q can be drawn: %s", f.Spec.Name, f.Spec.Metric, strings.Join(f.Warnings, "; "))
	}
	for _, r := range f.References {
		if r.Panel != "" && !slices.ContainsFunc(f.Panels, func(p Panel) bool { return p.Value == r.Panel }) {
			f.warnf("reference %q not drawn: panel %q has nothing left to draw", r.Label, r.Panel)
		}
	}
	return nil
}

// orderCategories puts the categories of a categorical x axis in order
// (numeric when every value is a number, else as first named), labels
// them, and moves every point to its category's place.
func (f *Figure) orderCategories() error {
	spec := f.Spec
	n := len(f.CategoryValues)
	order := make([]int, n) // order[place] = index of first appearance
	for i := range order {
		order[i] = i
	}
	nums := make([]float64, n)
	numeric := true
	for i, v := range f.CategoryValues {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || !finite(x) {
			numeric = false
			break
		}
		nums[i] = x
	}
	if numeric {
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(nums[a], nums[b]) })
	}
	place := make([]float64, n) // place[index of first appearance]
	values := make([]string, n)
	for p, i := range order {
		place[i] = float64(p)
		values[p] = f.CategoryValues[i]
	}
	f.CategoryValues = values
	for pi := range f.Panels {
		for si := range f.Panels[pi].Series {
			s := &f.Panels[pi].Series[si]
			for j := range s.Points {
				s.Points[j].X = place[int(s.Points[j].X)]
			}
			for j := range s.Theory {
				s.Theory[j].X = place[int(s.Theory[j].X)]
			}
		}
	}
	f.Categories = values
	if len(spec.Categories) > 0 && len(spec.Categories) != n {
		// A run of some of the configurations (params.config = 1 and 4
		// of four): the labels name the values 1, …, k by number.
		labels := make([]string, n)
		for p, v := range values {
			k, err := strconv.Atoi(v)
			if err != nil || k < 1 || k > len(spec.Categories) {
				labels = nil
				break
			}
			labels[p] = spec.Categories[k-1]
		}
		if labels != nil {
			f.Categories = labels
			return nil
		}
	}
	if len(spec.Categories) > 0 {
		if len(spec.Categories) != n {
			return fmt.Errorf("figure %q: key \"categories\" has %d labels, but x (%s) has %d values: %s",
				spec.Name, len(spec.Categories), spec.X, n, strings.Join(quoted(values, func(s string) string { return s }), ", "))
		}
		f.Categories = slices.Clone(spec.Categories)
	}
	return nil
}

// ratios fills each panel's Ratios: every series but the spec's RatioTo,
// divided point by point by that series at the same x.
func (f *Figure) ratios() error {
	name := f.Spec.RatioTo
	if !slices.Contains(f.Series, name) {
		return fmt.Errorf("figure %q: key \"ratio_to\": %q is not a series of the figure (%s: %s)",
			f.Spec.Name, name, f.Spec.Series, strings.Join(quoted(f.Series, func(s string) string { return s }), ", "))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for pi := range f.Panels {
		p := &f.Panels[pi]
		ri := slices.IndexFunc(p.Series, func(s Series) bool { return s.Value == name })
		if ri < 0 {
			f.warnf("panel %q: no series %q, so no ratios", p.Value, name)
			continue
		}
		ref := p.Series[ri]
		for _, s := range p.Series {
			if s.Value == name {
				continue
			}
			r := Series{Value: s.Value, Style: s.Style}
			for _, pt := range s.Points {
				j := slices.IndexFunc(ref.Points, func(q Point) bool { return q.X == pt.X })
				if j < 0 {
					continue
				}
				den := ref.Points[j].Mean
				if !(den > 0) {
					f.warnf("%s: ratio to %q not drawn: its mean is %v", where(p.Value, s.Value, pt.X), name, den)
					continue
				}
				v := pt.Mean / den
				r.Points = append(r.Points, Point{X: pt.X, Mean: v, Lo: math.NaN(), Hi: math.NaN()})
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			for _, t := range s.Theory {
				j := slices.IndexFunc(ref.Theory, func(q XY) bool { return q.X == t.X })
				if j < 0 || !(ref.Theory[j].Y > 0) {
					continue
				}
				v := t.Y / ref.Theory[j].Y
				r.Theory = append(r.Theory, XY{t.X, v})
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			if len(r.Points) > 0 || len(r.Theory) > 0 {
				p.Ratios = append(p.Ratios, r)
			}
		}
	}
	f.RatioLog = f.Spec.LogY && lo > 0 && hi >= 10*lo
	return nil
}

// keep reports whether a summary passes every filter.
func keep(s *results.Summary, filter map[string][]string) bool {
	for name, values := range filter {
		v, ok := Field(s, name)
		if !ok || !slices.Contains(values, v) {
			return false
		}
	}
	return true
}

// guard leaves out the points of a panel that cannot be drawn: non-finite
// means, and values ≤ 0 on a log axis. CI lower bounds ≤ 0 on a log y axis
// are raised to the smallest positive value in the panel, so that the bar
// runs off the bottom of the panel rather than vanishing; a band's are
// kept, for it is drawn open to the bottom edge (Band.Open).
func (f *Figure) guard(p *Panel) {
	logX, logY := f.Spec.LogX, f.Spec.LogY
	smallest := math.Inf(1)
	for i := range p.Series {
		s := &p.Series[i]
		s.Points = slices.DeleteFunc(s.Points, func(pt Point) bool {
			at := where(p.Value, s.Value, pt.X)
			switch {
			case math.IsNaN(pt.Mean) || math.IsInf(pt.Mean, 0):
				f.drop("%s: mean %v dropped", at, pt.Mean)
			case logX && pt.X <= 0:
				f.drop("%s: x ≤ 0 dropped on log x", at)
			case logY && pt.Mean <= 0:
				f.drop("%s: mean %v ≤ 0 dropped on log y", at, pt.Mean)
			default:
				for _, v := range []float64{pt.Mean, pt.Lo, pt.Hi} {
					if v > 0 {
						smallest = math.Min(smallest, v)
					}
				}
				return false
			}
			return true
		})
		s.Theory = slices.DeleteFunc(s.Theory, func(t XY) bool {
			at := where(p.Value, s.Value, t.X)
			switch {
			case math.IsInf(t.Y, 0):
				f.warnf("%s: theory %v not drawn", at, t.Y)
			case logX && t.X <= 0:
				f.warnf("%s: theory at x ≤ 0 not drawn on log x", at)
			case logY && t.Y <= 0:
				f.warnf("%s: theory %v ≤ 0 not drawn on log y", at, t.Y)
			default:
				if t.Y > 0 {
					smallest = math.Min(smallest, t.Y)
				}
				return false
			}
			return true
		})
	}
	for _, s := range p.Series {
		for _, pt := range s.Points {
			switch {
			case pt.Constant:
				f.Constant++
			case !finite(pt.Lo) || !finite(pt.Hi):
				f.NoCI++
			}
		}
	}
	if logY {
		for i := range p.Series {
			s := &p.Series[i]
			for j := range s.Points {
				if pt := &s.Points[j]; pt.Lo <= 0 && !f.Spec.banded() {
					if f.Clamped++; f.Clamped == 1 {
						f.firstClamp = fmt.Sprintf("%s: CI lower bound %v ≤ 0 clamped to %v on log y", where(p.Value, s.Value, pt.X), pt.Lo, smallest)
					}
					pt.Lo = smallest
				}
			}
		}
	}
	p.Series = slices.DeleteFunc(p.Series, func(s Series) bool {
		return len(s.Points) == 0 && len(s.Theory) == 0
	})
}

func (f *Figure) drop(format string, args ...any) {
	f.Dropped++
	f.warnf(format, args...)
}

func (f *Figure) warnf(format string, args ...any) {
	f.Warnings = append(f.Warnings, fmt.Sprintf("figure %q: ", f.Spec.Name)+fmt.Sprintf(format, args...))
}

func (f *Figure) hasTheory() bool {
	for _, p := range f.Panels {
		for _, s := range p.Series {
			if len(s.Theory) > 0 {
				return true
			}
		}
	}
	return false
}

// hasRatioTheory reports whether a ratio panel draws a theory ratio.
func (f *Figure) hasRatioTheory() bool {
	for _, p := range f.Panels {
		for _, s := range p.Ratios {
			if len(s.Theory) > 0 {
				return true
			}
		}
	}
	return false
}

// quoted lists the values of a slice, quoted, for error messages.
func quoted[T any](list []T, value func(T) string) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = strconv.Quote(value(v))
	}
	return out
}

// where names a point in warnings and errors.
func where(panel, series string, x float64) string {
	var parts []string
	if panel != "" {
		parts = append(parts, fmt.Sprintf("panel %q", panel))
	}
	if series != "" {
		parts = append(parts, fmt.Sprintf("series %q", series))
	}
	return strings.Join(append(parts, "x="+strconv.FormatFloat(x, 'g', -1, 64)), ", ")
}
