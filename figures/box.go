package figures

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ldpbench/ldpbench/results"
)

// Box plots (Spec.Style = "box") draw, for each category and series, the
// distribution of the trial values rather than their mean: a box from the
// first to the third quartile with a line at the median, whiskers to the
// least and greatest value, and the mean as the series' marker. They take
// the quantiles summary.csv keeps (results.Summary: type 7), and stand in
// for the violin plots of Raab et al. (Figs 15–17: m̂₀ − m̂₁ over 200 runs
// per method and ε).

// StyleBox is the Style of a box plot; StylePoints (or "") draws means.
const (
	StylePoints = "points"
	StyleBox    = "box"
)

// A Box is the five-number summary of a point's trial values.
type Box struct{ Min, Q25, Median, Q75, Max float64 }

// boxPerPoint is the least room of a box in a category (catPerPoint for
// markers): wide enough to see the box and its median.
var boxPerPoint = vg.Points(16)

// boxOf returns the five numbers of a summary, or an error saying why it
// has none.
func boxOf(s *results.Summary) (*Box, error) {
	b := &Box{float64(s.Min), float64(s.Q25), float64(s.Median), float64(s.Q75), float64(s.Max)}
	for _, v := range []float64{b.Min, b.Q25, b.Median, b.Q75, b.Max} {
		if math.IsNaN(v) {
			return nil, fmt.Errorf("summary %s (metric %s) has no quantiles: a derived metric (an RMSE is the root of a mean), a trial value that is NaN, or a summary.csv written before the quantile columns (run the spec again to re-summarise)", s.Cell().Key(), s.Metric)
		}
	}
	if !(b.Min <= b.Q25 && b.Q25 <= b.Median && b.Median <= b.Q75 && b.Q75 <= b.Max) {
		return nil, fmt.Errorf("summary %s (metric %s): quantiles out of order (min %v, q25 %v, median %v, q75 %v, max %v)", s.Cell().Key(), s.Metric, b.Min, b.Q25, b.Median, b.Q75, b.Max)
	}
	return b, nil
}

func (s Spec) boxed() bool { return s.Style == StyleBox }

// guardBoxes leaves out, on a log y axis, the boxes with a value ≤ 0 (a
// whisker or box that cannot be drawn), with a warning each.
func (f *Figure) guardBoxes(p *Panel) {
	if !f.Spec.boxed() || !f.Spec.LogY {
		return
	}
	for i := range p.Series {
		s := &p.Series[i]
		kept := s.Points[:0]
		for _, pt := range s.Points {
			if pt.Box != nil && pt.Box.Min <= 0 {
				f.drop("%s: box with min %v ≤ 0 dropped on log y", where(p.Value, s.Value, pt.X), pt.Box.Min)
				continue
			}
			kept = append(kept, pt)
		}
		s.Points = kept
	}
}

// boxHalf is half the width of a box: most of a point's room in its
// category, at most 10 pt.
func (f *Figure) boxHalf() vg.Length { return min(0.35*f.catRoom, vg.Points(10)) }

// boxPlot draws one series' boxes in a panel. It implements plot.Plotter
// and plot.DataRanger; its data range is that of the whiskers.
type boxPlot struct {
	X      []float64 // the boxes' places, each dodged by series
	Boxes  []Box
	Style  int       // the series' index into the figure's series: its colour
	Half   vg.Length // half a box's width
	capLen vg.Length
}

var (
	_ plot.Plotter    = boxPlot{}
	_ plot.DataRanger = boxPlot{}
)

func (b boxPlot) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	clr := seriesColor(b.Style)
	whisker := draw.LineStyle{Color: clr, Width: vg.Points(0.75)}
	for i, bx := range b.Boxes {
		x := trX(b.X[i])
		lo, q1, med, q3, hi := trY(bx.Min), trY(bx.Q25), trY(bx.Median), trY(bx.Q75), trY(bx.Max)
		c.StrokeLine2(whisker, x, lo, x, q1)
		c.StrokeLine2(whisker, x, q3, x, hi)
		c.StrokeLine2(whisker, x-b.capLen, lo, x+b.capLen, lo)
		c.StrokeLine2(whisker, x-b.capLen, hi, x+b.capLen, hi)
		r := vg.Rectangle{Min: vg.Point{X: x - b.Half, Y: q1}, Max: vg.Point{X: x + b.Half, Y: q3}}
		c.SetColor(bandColor(b.Style))
		c.Fill(r.Path())
		c.SetLineStyle(draw.LineStyle{Color: clr, Width: vg.Points(1)})
		c.Stroke(r.Path())
		c.StrokeLine2(draw.LineStyle{Color: clr, Width: vg.Points(2)}, x-b.Half, med, x+b.Half, med)
	}
}

func (b boxPlot) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for i, bx := range b.Boxes {
		xmin, xmax = math.Min(xmin, b.X[i]), math.Max(xmax, b.X[i])
		ymin, ymax = math.Min(ymin, bx.Min), math.Max(ymax, bx.Max)
	}
	return
}

// addBoxes adds a series' boxes to a panel's plot (its theory and means
// are drawn over them by the caller).
func (f *Figure) addBoxes(p *plot.Plot, s Series, off float64) {
	b := boxPlot{Style: f.look(s.Style), Half: f.boxHalf()}
	b.capLen = b.Half / 2
	for _, pt := range s.Points {
		if pt.Box == nil {
			continue
		}
		b.X = append(b.X, pt.X+off)
		b.Boxes = append(b.Boxes, *pt.Box)
	}
	if len(b.Boxes) > 0 {
		p.Add(b)
	}
}

// boxTheoryGlyph marks a theory value across a box: a dashed stroke in
// the dark grey of the legend's theory entry, as wide as twice the radius.
type boxTheoryGlyph struct{}

func (boxTheoryGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	ls := draw.LineStyle{Color: theoryGrey, Width: vg.Points(1.25), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
	c.StrokeLine2(ls, pt.X-sty.Radius, pt.Y, pt.X+sty.Radius, pt.Y)
}

// theoryGrey is the colour of the legend's theory entry.
var theoryGrey = color.Gray{Y: 0x40}

// boxThumbnail draws a series' legend entry of a box plot: a small box
// with its median and the series' marker for the mean.
func boxThumbnail(style int, c *draw.Canvas, at vg.Point) {
	clr := seriesColor(style)
	w, h := vg.Points(6), vg.Points(4.5)
	r := vg.Rectangle{Min: vg.Point{X: at.X - w, Y: at.Y - h}, Max: vg.Point{X: at.X + w, Y: at.Y + h}}
	c.SetColor(bandColor(style))
	c.Fill(r.Path())
	c.SetLineStyle(draw.LineStyle{Color: clr, Width: vg.Points(1)})
	c.Stroke(r.Path())
	c.StrokeLine2(draw.LineStyle{Color: clr, Width: vg.Points(2)}, r.Min.X, at.Y-vg.Points(1.5), r.Max.X, at.Y-vg.Points(1.5))
	c.DrawGlyph(glyph(style), vg.Point{X: at.X, Y: at.Y + vg.Points(1)})
}

// boxCaption says what a box plot shows, for trials such as "200 trials".
func (f *Figure) boxCaption(what, trials string) string {
	return fmt.Sprintf("%sthe distribution over the %s of %s: boxes from the 25th to the 75th percentile (type-7 quantiles), the line across each box the median, the marker the mean; whiskers: min–max over the %s (not a CI).",
		what, trials, metricClause(f.Spec.Metric), trials)
}
