package figures

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// Spec describes one figure as a projection of an experiment's summaries:
// which metric is plotted against which field, which field makes the lines
// and which makes the panels. Specs are usually read from TOML.
type Spec struct {
	Name   string `toml:"name"`   // file stem: <dir>/<name>.svg, .png, .pdf
	Title  string `toml:"title"`  // overall title at the top; "" for none
	Metric string `toml:"metric"` // y: the summaries whose Metric equals this
	// X is the field for the x axis ("eps", "n" or a params key); its
	// values must parse as finite floats.
	X string `toml:"x"`
	// Series is the field that makes one line per value (usually "method");
	// "" draws one series.
	Series string `toml:"series"`
	// Panel is the field that makes one panel per value (usually
	// "dataset"); "" draws one panel.
	Panel string `toml:"panel"`
	// Filter keeps only the summaries whose field value is in the list; a
	// summary without the field is dropped.
	Filter map[string][]string `toml:"filter"`
	LogX   bool                `toml:"logx"`
	LogY   bool                `toml:"logy"`
	// Theory draws each series' theory values, where known, as a dashed
	// line of the series' colour.
	Theory bool `toml:"theory"`
	// Band draws the 95% confidence interval as a shaded band instead of
	// error bars.
	Band bool `toml:"band"`
	// LinesOnly draws measured series as thicker lines with a few markers
	// (staggered between series, so that coincident lines show each
	// other's) rather than one at every point: for dense curves such as
	// the theory figures, where markers would hide the differences between
	// lines.
	LinesOnly bool     `toml:"lines_only"`
	XLabel    string   `toml:"xlabel"`  // default: the x field ("ε" for eps)
	YLabel    string   `toml:"ylabel"`  // default: the metric's description
	Columns   int      `toml:"columns"` // panels per row; 0 means up to 3
	Formats   []string `toml:"formats"` // of "svg", "png", "pdf"; default svg and png
	// References are values printed in a paper, drawn beside the
	// measurements as hollow diamonds joined by a dotted line.
	References []Reference `toml:"reference"`
	// XCategorical draws x as categories rather than numbers: one tick per
	// distinct x value, labelled with the value, evenly spaced in the order
	// of the values (numeric order when every value is a number, else the
	// order in which the summaries first name them, which is the spec's
	// axis order), with points (spread sideways by series so that they do
	// not hide one another) and no lines joining them. The x values need
	// not be numbers.
	XCategorical bool `toml:"x_categorical"`
	// Categories, when given, makes x categorical and labels its
	// categories, in the order above: the i-th distinct x value is drawn
	// at the i-th place and labelled Categories[i] (e.g. config 1-4 as
	// A1-A4). There must be one label per distinct x value drawn, or the
	// values must be whole numbers 1..len(Categories), each labelled by
	// its number (a run of some configurations: config 1 and 4 of A1-A4
	// are labelled A1 and A4).
	Categories []string `toml:"categories"`
	// RatioTo names a value of the Series field: under each panel a
	// smaller panel plots every other series' mean divided by that
	// series' mean at the same x (and theory by theory), with a line at
	// 1, for curves that differ by a few percent.
	RatioTo string `toml:"ratio_to"`
	// Pool lists fields (dataset, n or params keys) whose values are
	// merged into one point, as a paper pools its errors over datasets:
	// the mean of all the trial values behind the merged cells, their SD,
	// and the CI of that mean (see pool). The merged field reads "pooled".
	Pool []string `toml:"pool"`
	// SDFrom names a companion metric holding, per trial, the mean of the
	// squares of what the plotted metric averages (e.g. over the groups of
	// a group-means trial): the SD is then √(E[x²] − E[x]²) over every
	// averaged value, not over trial means. It needs Spread = "sd".
	SDFrom string `toml:"sd_from"`
	// Spread = "sd" draws a shaded band of ±1 SD around each series (a
	// paper's "shaded band = pooled std"), in place of the 95% CI: it shows
	// the spread of the values, not the uncertainty of the mean.
	Spread string `toml:"spread"`
	// Style is how the measured values are drawn: "points" (the default:
	// the mean with its CI) or "box" (StyleBox: per category and series, a
	// box from the first to the third quartile of the trial values, a line
	// at the median, whiskers to the min and max, the mean as a marker), in
	// place of a paper's violin plots. A box plot needs a categorical x and
	// the quantiles of summary.csv, so no pool, band, spread, lines_only or
	// ratio_to.
	Style string `toml:"style"`
	// Labels names series and panel values for a reader, by value: the
	// legend entry of method single-1 in a figure whose services are set
	// per configuration ("direct report, ε = 0.1"), or the panel of group
	// 0 ("AS"). A key "field=value" names that field's value alone
	// ("groups=2" = "d = 2" where k = 2 is a series too). A value it does
	// not name keeps the kind's label of a method
	// (experiment.MethodLabeler) or "field = value".
	Labels map[string]string `toml:"labels"`
	// Note is a sentence the caption ends with: what a reader must know
	// to read the figure that the data cannot say (a bound that ignores
	// clipping, a series drawn under another).
	Note string `toml:"note"`
}

// A Reference is a line of values printed in a paper (not measured here),
// drawn beside the measurements for comparison: hollow diamonds joined by a
// dotted line, in the colour of the series it belongs to, listed in the
// legend under its label.
//
// A Series value the projected summaries do not have (a run at another
// scale, such as --quick, which changes the n axis) is not an error: the
// reference is drawn in black, with a warning and a note in the caption. A
// Panel value they do not have is an error, since the reference would be
// drawn nowhere.
type Reference struct {
	// Label names the reference in the legend, e.g. "paper (RTX 3090), m=4";
	// required.
	Label string `toml:"label"`
	// Series is the value of the spec's Series field the reference belongs
	// to, whose colour it takes; "" draws it in black.
	Series string `toml:"series"`
	// Panel is the value of the spec's Panel field of the one panel the
	// reference is drawn in; "" draws it in every panel.
	Panel string `toml:"panel"`
	// X and Y are the printed values, in the units of the spec's x field
	// and metric; equal lengths, at least one point, finite, and > 0 on a
	// log axis.
	X []float64 `toml:"x"`
	Y []float64 `toml:"y"`
}

// Formats are the output formats Render knows, in the order it writes them.
var Formats = []string{"svg", "png", "pdf"}

// DefaultFormats are written when a spec names none.
var DefaultFormats = []string{"svg", "png"}

// Validate checks that the spec names a figure, a metric and an x field,
// that the name is a plain file stem, that every format is known and that
// every reference has a label and as many finite y as x values (> 0 on a
// log axis), and a series or panel only if the figure has that field. Every
// error names the figure and the offending key.
func (s Spec) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("figure %q: key %q "+format, append([]any{s.Name, key}, args...)...))
	}
	s.checkFields(bad)
	s.checkReferences(bad)
	s.checkCategories(bad)
	s.checkPool(bad)
	s.checkSpread(bad)
	s.checkStyle(bad)
	s.checkFormats(bad)
	s.checkGlyphs(bad)
	return errors.Join(errs...)
}

// checkGlyphs checks that the font can draw every character of the
// texts the spec gives (MissingGlyphs): a character it lacks would be
// left out of the figure without a word.
func (s Spec) checkGlyphs(bad badKey) {
	check := func(key, text string) {
		if m := MissingGlyphs(text); len(m) > 0 {
			var list []string
			for _, r := range m {
				list = append(list, fmt.Sprintf("%q (%U)", r, r))
			}
			bad(key, "has characters the figures' font cannot draw: %s in %q; write them otherwise (\"in\" for ∈)", strings.Join(list, ", "), text)
		}
	}
	check("title", s.Title)
	check("note", s.Note)
	check("xlabel", s.XLabel)
	check("ylabel", s.YLabel)
	for _, v := range slices.Sorted(maps.Keys(s.Labels)) {
		check("labels."+v, s.Labels[v])
	}
	for i, c := range s.Categories {
		check(fmt.Sprintf("categories[%d]", i), c)
	}
	for i, r := range s.References {
		check(fmt.Sprintf("reference[%d].label", i), r.Label)
	}
}

// A badKey records an error of a spec's key; Validate collects them all,
// so that one run of a spec names every mistake in it.
type badKey func(key, format string, args ...any)

// checkFields checks the keys that pick what is drawn: the name, metric,
// labels, x, series and panel fields, filter and columns.
func (s Spec) checkFields(bad badKey) {
	switch {
	case s.Name == "":
		bad("name", "is required")
	case s.Name == "." || s.Name == ".." || strings.ContainsAny(s.Name, `/\`):
		bad("name", "must be a file stem, not a path: %q", s.Name)
	}
	if s.Metric == "" {
		bad("metric", "is required")
	}
	for _, v := range slices.Sorted(maps.Keys(s.Labels)) {
		if strings.TrimSpace(s.Labels[v]) == "" {
			bad("labels", "gives value %q an empty label", v)
		}
	}
	if s.X == "" {
		bad("x", "is required")
	}
	if s.Series != "" && s.Series == s.X {
		bad("series", "repeats the x field %q", s.X)
	}
	if s.Panel != "" && (s.Panel == s.X || s.Panel == s.Series) {
		bad("panel", "repeats the x or series field %q", s.Panel)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Filter)) {
		if k == "" {
			bad("filter", "has an empty field name")
		} else if len(s.Filter[k]) == 0 {
			bad("filter."+k, "has an empty list, which would keep nothing")
		}
	}
	if s.Columns < 0 {
		bad("columns", "must be >= 0, got %d", s.Columns)
	}
}

// checkReferences checks each reference: a label, a series or panel only
// where the figure has that field, and as many finite y as x values (> 0
// on a log axis).
func (s Spec) checkReferences(bad badKey) {
	for i, r := range s.References {
		key := fmt.Sprintf("reference[%d]", i)
		if r.Label == "" {
			bad(key+".label", "is required (it names the reference in the legend)")
		}
		if r.Series != "" && s.Series == "" {
			bad(key+".series", "is %q, but the figure has no series field", r.Series)
		}
		if r.Panel != "" && s.Panel == "" {
			bad(key+".panel", "is %q, but the figure has no panel field", r.Panel)
		}
		switch {
		case len(r.X) == 0:
			bad(key+".x", "needs at least one value")
		case len(r.Y) != len(r.X):
			bad(key+".y", "has %d values, x has %d", len(r.Y), len(r.X))
		}
		for _, a := range []struct {
			name string
			v    []float64
			log  bool
		}{{"x", r.X, s.LogX}, {"y", r.Y, s.LogY}} {
			for j, v := range a.v {
				switch {
				case !finite(v):
					bad(fmt.Sprintf("%s.%s[%d]", key, a.name, j), "must be finite, got %v", v)
				case a.log && v <= 0:
					bad(fmt.Sprintf("%s.%s[%d]", key, a.name, j), "must be > 0 on a log axis, got %v", v)
				}
			}
		}
	}
}

// checkCategories checks a categorical x axis: evenly spaced points, so
// no log x, band or lines, and labels that are not empty or repeated.
func (s Spec) checkCategories(bad badKey) {
	if s.categorical() {
		key := "x_categorical"
		if len(s.Categories) > 0 {
			key = "categories"
		}
		switch {
		case s.LogX:
			bad(key, "cannot go with logx = true: categories are evenly spaced")
		case s.Band:
			bad(key, "cannot go with band = true: a band joins the categories; the CI is drawn as bars")
		case s.LinesOnly:
			bad(key, "cannot go with lines_only = true: categories are drawn as points, not lines")
		}
	}
	for i, c := range s.Categories {
		switch {
		case strings.TrimSpace(c) == "":
			bad(fmt.Sprintf("categories[%d]", i), "is empty")
		case slices.Contains(s.Categories[:i], c):
			bad(fmt.Sprintf("categories[%d]", i), "repeats %q", c)
		}
	}
}

// checkPool checks the pooled fields: ones a cell has, not drawn by the
// figure, each once.
func (s Spec) checkPool(bad badKey) {
	for i, f := range s.Pool {
		switch {
		case !validPoolField(f):
			bad(fmt.Sprintf("pool[%d]", i), "is %q; it takes dataset, n or a params key", f)
		case f == s.X || f == s.Series || f == s.Panel:
			bad(fmt.Sprintf("pool[%d]", i), "is %q, which the figure also draws (x, series or panel)", f)
		case slices.Contains(s.Pool[:i], f):
			bad(fmt.Sprintf("pool[%d]", i), "repeats %q", f)
		}
	}
}

// checkSpread checks the spread band (spread, sd_from): drawn instead of
// the CI, and only along a numeric x.
func (s Spec) checkSpread(bad badKey) {
	switch {
	case s.Spread != "" && s.Spread != "sd":
		bad("spread", "is %q; the one spread is \"sd\"", s.Spread)
	case s.Spread != "" && s.Band:
		bad("spread", "cannot go with band = true: the band is the spread, not the CI")
	case s.SDFrom != "" && s.Spread == "":
		bad("sd_from", "needs spread = \"sd\": the SD it gives is drawn only as the spread band")
	case s.SDFrom != "" && s.SDFrom == s.Metric:
		bad("sd_from", "is the plotted metric itself")
	}
	if s.Spread != "" && s.categorical() {
		bad("spread", "cannot go with a categorical x: a band joins the categories")
	}
}

// checkStyle checks the style (box plots go with a categorical x and
// nothing that draws a mean's interval or a ratio) and the ratio panels.
func (s Spec) checkStyle(bad badKey) {
	switch {
	case s.Style != "" && s.Style != StylePoints && s.Style != StyleBox:
		bad("style", "is %q; it takes \"points\" (the default) or \"box\"", s.Style)
	case s.Style != StyleBox:
	case !s.categorical():
		bad("style", "\"box\" needs a categorical x (x_categorical = true or categories): a box per category and series")
	case s.Band:
		bad("style", "\"box\" cannot go with band = true: the boxes and whiskers are the spread, and no CI is drawn")
	case s.Spread != "":
		bad("style", "\"box\" cannot go with spread = %q: the boxes and whiskers are the spread", s.Spread)
	case s.LinesOnly:
		bad("style", "\"box\" cannot go with lines_only = true: boxes are not lines")
	case s.RatioTo != "":
		bad("style", "\"box\" cannot go with ratio_to = %q: a ratio of means has no quartiles", s.RatioTo)
	case len(s.Pool) > 0 || s.SDFrom != "":
		bad("style", "\"box\" cannot go with pool or sd_from: the quartiles of pooled cells are not known from the cells'")
	}
	if s.RatioTo != "" && s.Series == "" {
		bad("ratio_to", "is %q, but the figure has no series field", s.RatioTo)
	}
}

// checkFormats checks that every format is known and named once.
func (s Spec) checkFormats(bad badKey) {
	for i, f := range s.Formats {
		switch {
		case !slices.Contains(Formats, f):
			bad("formats", "has unknown format %q (known: %s)", f, strings.Join(Formats, ", "))
		case slices.Contains(s.Formats[:i], f):
			bad("formats", "repeats %q", f)
		}
	}
}

// formats returns the spec's formats, or DefaultFormats when it names none.
// Files returns the paths that Render writes for the figure into dir, one
// per format.
func (s Spec) Files(dir string) []string {
	var files []string
	for _, f := range s.formats() {
		files = append(files, filepath.Join(dir, s.Name+"."+f))
	}
	return files
}

func (s Spec) formats() []string {
	if len(s.Formats) == 0 {
		return DefaultFormats
	}
	return s.Formats
}

// columns returns the number of panels per row for n panels.
func (s Spec) columns(n int) int {
	c := s.Columns
	if c == 0 {
		c = 3
	}
	return max(1, min(c, n))
}

// categorical reports whether x is drawn as categories.
func (s Spec) categorical() bool { return s.XCategorical || len(s.Categories) > 0 }

func (s Spec) xLabel() string {
	if s.XLabel != "" {
		return s.XLabel
	}
	return fieldName(s.X)
}

// yLabel is the spec's ylabel, else what the metric measures (from its
// description in package metrics), never its internal name alone.
func (s Spec) yLabel() string {
	if s.YLabel != "" {
		return s.YLabel
	}
	return metricLabel(s.Metric)
}

// banded reports whether the figure shades a band (the CI or the spread)
// rather than drawing error bars.
func (s Spec) banded() bool { return s.Band || s.Spread == "sd" }
