package figures

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ldpbench/ldpbench/results"
)

// Box plots (Spec.Style = "box") draw, for each category and series, the
// distribution of the trial values rather than their mean: Tukey's box
// plot, a box from the first to the third quartile with a line at the
// median, whiskers to the most extreme trial value within 1.5·IQR of the
// box, each value beyond them as a hollow circle, and the mean as the
// series' marker. They take the quantiles and Tukey statistics summary.csv
// keeps (results.Summary: type-7 quartiles, whisker_lo, whisker_hi,
// outliers), and stand in for the violin plots of Raab et al. (Figs 15–17:
// m̂₀ − m̂₁ over 200 runs per method and ε).
//
// The y range is that of the whiskers (and theory and references), with
// a margin, not that of the outliers or the means: one wild run (NPRR at
// ε = 0.5 reporting an age of −460 years) would otherwise flatten every
// other box of its panel. What lies beyond the range is not hidden: a
// triangle on the panel's edge above or below the box, with the number
// of values beyond, and the mean, when outliers pull it beyond too, drawn
// next to the triangle; the caption counts them.

// StyleBox is the Style of a box plot; StylePoints (or "") draws means.
const (
	StylePoints = "points"
	StyleBox    = "box"
)

// A Box is a point's Tukey box-plot statistics: quartiles and median,
// the ends of the whiskers and the trial values beyond them.
type Box struct {
	Q25, Median, Q75     float64
	WhiskerLo, WhiskerHi float64
	// Outliers are the trial values beyond the whiskers, ascending.
	Outliers []float64
}

// boxPerPoint is the least room of a box in a category (catPerPoint for
// markers): wide enough to see the box and its median.
var boxPerPoint = vg.Points(16)

// boxOf returns the box of a summary, or an error saying why it has none.
func boxOf(s *results.Summary) (*Box, error) {
	b := &Box{
		Q25: float64(s.Q25), Median: float64(s.Median), Q75: float64(s.Q75),
		WhiskerLo: float64(s.WhiskerLo), WhiskerHi: float64(s.WhiskerHi), Outliers: s.Outliers,
	}
	for _, v := range []float64{b.Q25, b.Median, b.Q75} {
		if math.IsNaN(v) {
			return nil, fmt.Errorf("summary %s (metric %s) has no quantiles: a derived metric (an RMSE is the root of a mean), a trial value that is NaN, or a summary.csv written before the quantile columns (run the spec again: ldpbench run re-summarises a finished rows.csv of the same build, and re-runs it with --fresh)", s.Cell().Key(), s.Metric)
		}
	}
	if math.IsNaN(b.WhiskerLo) || math.IsNaN(b.WhiskerHi) {
		return nil, fmt.Errorf("summary %s (metric %s) has no whiskers: a summary.csv written before the columns whisker_lo, whisker_hi and outliers (run the spec again: ldpbench run re-summarises a finished rows.csv of the same build, and re-runs it with --fresh)", s.Cell().Key(), s.Metric)
	}
	if !(b.WhiskerLo <= b.Q25 && b.Q25 <= b.Median && b.Median <= b.Q75 && b.Q75 <= b.WhiskerHi) {
		return nil, fmt.Errorf("summary %s (metric %s): quantiles out of order (whisker_lo %v, q25 %v, median %v, q75 %v, whisker_hi %v)", s.Cell().Key(), s.Metric, b.WhiskerLo, b.Q25, b.Median, b.Q75, b.WhiskerHi)
	}
	for i, v := range b.Outliers {
		if (v >= b.WhiskerLo && v <= b.WhiskerHi) || (i > 0 && v < b.Outliers[i-1]) {
			return nil, fmt.Errorf("summary %s (metric %s): outliers %v not ascending beyond the whiskers [%v, %v]", s.Cell().Key(), s.Metric, b.Outliers, b.WhiskerLo, b.WhiskerHi)
		}
	}
	return b, nil
}

func (s Spec) boxed() bool { return s.Style == StyleBox }

// guardBoxes leaves out, on a log y axis, the boxes whose low whisker is
// ≤ 0 (a whisker or box that cannot be drawn), with a warning each; an
// outlier ≤ 0 counts as beyond the axis.
func (f *Figure) guardBoxes(p *Panel) {
	if !f.Spec.boxed() || !f.Spec.LogY {
		return
	}
	for i := range p.Series {
		s := &p.Series[i]
		kept := s.Points[:0]
		for _, pt := range s.Points {
			if pt.Box != nil && pt.Box.WhiskerLo <= 0 {
				f.drop("%s: box with whisker_lo %v ≤ 0 dropped on log y", where(p.Value, s.Value, pt.X), pt.Box.WhiskerLo)
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

// boxPlot draws one series' boxes in a panel, with their outliers and
// means. It implements plot.Plotter and plot.DataRanger; its data range is
// that of the whiskers, so that neither an outlier nor a mean it pulls
// away sets the axis (Figure.countBeyond counts what falls beyond).
type boxPlot struct {
	X      []float64 // the boxes' places, each dodged by series
	Boxes  []Box
	Means  []float64
	Style  int       // the series' index into the figure's series: its colour
	Half   vg.Length // half a box's width
	capLen vg.Length
}

var (
	_ plot.Plotter    = boxPlot{}
	_ plot.DataRanger = boxPlot{}
)

// The marks of a box plot beyond its axis: a triangle on the panel's
// edge pointing out of it, and the count beside it.
var (
	beyondHalf   = vg.Points(3)   // half the triangle's base
	beyondHeight = vg.Points(4.5) // from its base to its tip, on the edge
	beyondSize   = font.Length(7)
	outlierGlyph = draw.RingGlyph{}
	outlierR     = vg.Points(1.6)
)

// inAxis reports whether v lies within the axis' range (and, on a log
// axis, is > 0): where it can be drawn.
func inAxis(ax plot.Axis, v float64) bool {
	if _, log := ax.Scale.(plot.LogScale); log && v <= 0 {
		return false
	}
	return v >= ax.Min && v <= ax.Max
}

// beyond counts the values of vs below and above an axis' range.
func beyond(ax plot.Axis, vs []float64) (below, above int) {
	for _, v := range vs {
		switch {
		case inAxis(ax, v):
		case v > ax.Max:
			above++
		default:
			below++
		}
	}
	return below, above
}

func (b boxPlot) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	clr := seriesColor(b.Style)
	whisker := draw.LineStyle{Color: clr, Width: vg.Points(0.75)}
	ring := draw.GlyphStyle{Color: clr, Radius: outlierR, Shape: outlierGlyph}
	label := textStyle(beyondSize, draw.XLeft, draw.YTop)
	label.Color = clr
	for i, bx := range b.Boxes {
		x := trX(b.X[i])
		lo, q1, med, q3, hi := trY(bx.WhiskerLo), trY(bx.Q25), trY(bx.Median), trY(bx.Q75), trY(bx.WhiskerHi)
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
		for _, v := range bx.Outliers {
			if inAxis(p.Y, v) {
				c.DrawGlyphNoClip(ring, vg.Point{X: x, Y: trY(v)})
			}
		}
		// Beyond the axis: a triangle on the edge, pointing out of the
		// panel, and the number of values beyond beside it.
		below, above := beyond(p.Y, bx.Outliers)
		for _, e := range []struct {
			n         int
			edge, out vg.Length // out: +1 up, −1 down
			align     draw.YAlignment
		}{{above, c.Max.Y, 1, draw.YTop}, {below, c.Min.Y, -1, draw.YBottom}} {
			if e.n == 0 {
				continue
			}
			base := e.edge - e.out*beyondHeight
			var tri vg.Path
			tri.Move(vg.Point{X: x, Y: e.edge})
			tri.Line(vg.Point{X: x - beyondHalf, Y: base})
			tri.Line(vg.Point{X: x + beyondHalf, Y: base})
			tri.Close()
			c.SetColor(clr)
			c.Fill(tri)
			lbl := label
			lbl.YAlign = e.align
			c.FillText(lbl, vg.Point{X: x + beyondHalf + vg.Points(0.5), Y: e.edge}, strconv.Itoa(e.n))
		}
	}
}

// boxMeans draws the means of a boxPlot, over its theory: each at its
// value, or, beyond the axis (pulled there by outliers: the mean of values
// all within the axis is within it), just inside the edge under the
// triangle that counts them. It sets no data range.
type boxMeans struct{ b boxPlot }

func (m boxMeans) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	g := glyph(m.b.Style)
	for i, mean := range m.b.Means {
		at := vg.Point{X: trX(m.b.X[i]), Y: trY(mean)}
		switch {
		case inAxis(p.Y, mean):
		case mean > p.Y.Max:
			at.Y = c.Max.Y - beyondHeight - g.Radius - vg.Points(1)
		default:
			at.Y = c.Min.Y + beyondHeight + g.Radius + vg.Points(1)
		}
		c.DrawGlyphNoClip(g, at)
	}
}

func (b boxPlot) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for i, bx := range b.Boxes {
		xmin, xmax = math.Min(xmin, b.X[i]), math.Max(xmax, b.X[i])
		ymin, ymax = math.Min(ymin, bx.WhiskerLo), math.Max(ymax, bx.WhiskerHi)
	}
	return
}

// boxMargin widens the range of a box plot's y axis, that of its whiskers,
// theory and references, by a tenth of its span on each side (of its
// decades on a log axis): room for the outliers just beyond the whiskers
// and for the triangles on the edges.
func boxMargin(lo, hi float64, log bool) (float64, float64) {
	if log {
		l, h := math.Log10(lo), math.Log10(hi)
		m := 0.1 * math.Max(h-l, 0.1)
		return math.Pow(10, l-m), math.Pow(10, h+m)
	}
	m := 0.1 * (hi - lo)
	if m == 0 {
		m = math.Max(0.1*math.Abs(hi), 1e-9)
	}
	return lo - m, hi + m
}

// countBeyond counts, once the axes are set, the outliers and the means
// beyond each panel's y axis, for the caption.
func (f *Figure) countBeyond(cells []cell) {
	f.beyondValues, f.beyondMeans = 0, 0
	if !f.Spec.boxed() {
		return
	}
	for i, c := range cells {
		for _, s := range f.Panels[i].Series {
			for _, pt := range s.Points {
				if pt.Box == nil {
					continue
				}
				below, above := beyond(c.main.Y, pt.Box.Outliers)
				f.beyondValues += below + above
				if !inAxis(c.main.Y, pt.Mean) {
					f.beyondMeans++
				}
			}
		}
	}
}

// addBoxes adds a series' boxes and outliers to a panel's plot; the
// caller draws its theory over them, then its means (addBoxMeans).
func (f *Figure) addBoxes(p *plot.Plot, s Series, off float64) {
	if b := f.boxPlot(s, off); len(b.Boxes) > 0 {
		p.Add(b)
	}
}

// addBoxMeans adds a series' means, as its boxes place them.
func (f *Figure) addBoxMeans(p *plot.Plot, s Series, off float64) {
	if b := f.boxPlot(s, off); len(b.Boxes) > 0 {
		p.Add(boxMeans{b})
	}
}

func (f *Figure) boxPlot(s Series, off float64) boxPlot {
	b := boxPlot{Style: f.look(s.Style), Half: f.boxHalf()}
	b.capLen = b.Half / 2
	for _, pt := range s.Points {
		if pt.Box == nil {
			continue
		}
		b.X = append(b.X, pt.X+off)
		b.Boxes = append(b.Boxes, *pt.Box)
		b.Means = append(b.Means, pt.Mean)
	}
	return b
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
	return fmt.Sprintf("%sthe distribution over the %s of %s: boxes from the 25th to the 75th percentile (type-7 quantiles), the line across each box the median, the marker the mean; whiskers (Tukey): to the most extreme trial value within 1.5 IQR of the box (IQR = q75 − q25), not a CI; hollow circles: the trial values beyond the whiskers. The y axis is set by the whiskers, not by the values beyond them: a triangle on the edge of a panel counts those beyond the axis, and a mean they pull beyond it too is drawn next to the triangle.",
		what, trials, metricClause(f.Spec.Metric))
}
