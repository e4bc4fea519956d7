package figures

// The plots of a figure's panels: each panel's main plot (the references,
// the measured means with their CIs, bands or boxes, the theory) and its
// ratio panel.

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ratio reports whether the figure has ratio panels (Spec.RatioTo).
func (f *Figure) ratio() bool { return f.Spec.RatioTo != "" }

// newPlot returns a plot with our text sizes and no background, title or
// labels: the layout draws those.
func newPlot() *plot.Plot {
	p := plot.New()
	p.BackgroundColor = nil
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Tick.Label = textStyle(tickSize, ax.Tick.Label.XAlign, ax.Tick.Label.YAlign)
		ax.Tick.Length = vg.Points(4)
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 0xdd}
	grid.Horizontal.Color = color.Gray{Y: 0xdd}
	p.Add(grid)
	return p
}

// dodge is the offset of a series' points from the centre of a category:
// the series of a figure are spread evenly over catSpread of a category.
func (f *Figure) dodge(style int) float64 {
	if f.Categories == nil || len(f.Series) < 2 {
		return 0
	}
	n := float64(len(f.Series))
	return (float64(style) - (n-1)/2) * catSpread / n
}

// mainPlot builds the plot of panel i.
func (f *Figure) mainPlot(i int) *plot.Plot {
	spec, panel := f.Spec, f.Panels[i]
	p := newPlot()
	cat := f.Categories != nil

	// References first, so that the measurements are drawn over them.
	for _, r := range f.References {
		if r.Panel != "" && r.Panel != panel.Value {
			continue
		}
		xy := make(plotter.XYs, len(r.Points))
		for j, pt := range r.Points {
			xy[j] = plotter.XY{X: pt.X, Y: pt.Y}
			if cat && r.Style >= 0 {
				xy[j].X += f.dodge(r.Style)
			}
		}
		clr := refColor(f.look(r.Style))
		if !cat {
			p.Add(&plotter.Line{XYs: xy, LineStyle: refLine(clr)})
		}
		p.Add(&plotter.Scatter{XYs: xy, GlyphStyle: refGlyph(clr)})
	}

	for _, s := range panel.Series {
		off := f.dodge(s.Style)
		xs := make(plotter.XYs, len(s.Points))
		var ci plotter.XYs
		var errs plotter.YErrors
		var x, lo, hi []float64
		for j, pt := range s.Points {
			xs[j] = plotter.XY{X: pt.X + off, Y: pt.Mean}
			x, lo, hi = append(x, pt.X), append(lo, pt.Lo), append(hi, pt.Hi)
			if finite(pt.Lo) && finite(pt.Hi) {
				ci = append(ci, xs[j])
				errs = append(errs, struct{ Low, High float64 }{pt.Mean - pt.Lo, pt.Hi - pt.Mean})
			}
		}
		if spec.boxed() {
			f.addBoxes(p, s, off)
			f.addTheory(p, s, off)
			f.addBoxMeans(p, s, off)
			continue
		}
		if spec.banded() {
			p.Add(f.newBand(x, lo, hi, f.look(s.Style)))
		}
		f.addTheory(p, s, off)
		if !spec.banded() && len(ci) > 0 {
			p.Add(&plotter.YErrorBars{
				XYs: ci, YErrors: errs, CapWidth: vg.Points(4),
				LineStyle: draw.LineStyle{Color: seriesColor(f.look(s.Style)), Width: vg.Points(0.75)},
			})
			f.addArrowheads(p, s, off)
		}
		f.addMeasured(p, s.Style, xs)
	}
	return p
}

// addTheory draws a series' theory: a line in its theory dashes, or at a
// single x or on a categorical axis a short stroke at each value.
func (f *Figure) addTheory(p *plot.Plot, s Series, off float64) {
	if len(s.Theory) == 0 {
		return
	}
	ts := make(plotter.XYs, len(s.Theory))
	for j, t := range s.Theory {
		ts[j] = plotter.XY{X: t.X + off, Y: t.Y}
	}
	if len(ts) == 1 || f.Categories != nil { // a line through one point draws nothing
		r := vg.Points(5)
		if f.Categories != nil {
			r = min(r, 0.5*f.catRoom) // wider than the marker, within the point's room
		}
		var shape draw.GlyphDrawer = dashGlyph{f.look(s.Style)}
		if f.Spec.boxed() {
			// Across the box, a little beyond it, in near-black: the
			// series' colour would vanish into its median line.
			r, shape = f.boxHalf()+vg.Points(3), boxTheoryGlyph{}
		}
		p.Add(&plotter.Scatter{XYs: ts, GlyphStyle: draw.GlyphStyle{Radius: r, Shape: shape}})
		return
	}
	p.Add(&plotter.Line{XYs: ts, LineStyle: theoryLine(f.look(s.Style))})
}

// addMeasured draws a series' means: markers joined by a line; markers
// alone on a categorical axis; the line with a few markers for lines_only.
func (f *Figure) addMeasured(p *plot.Plot, style int, xs plotter.XYs) {
	if len(xs) == 0 {
		return
	}
	look := f.look(style)
	if f.Categories != nil {
		p.Add(&plotter.Scatter{XYs: xs, GlyphStyle: glyph(look)})
		return
	}
	p.Add(&plotter.Line{XYs: xs, LineStyle: measuredLine(look, f.Spec.LinesOnly)})
	if f.Spec.LinesOnly {
		p.Add(&plotter.Scatter{XYs: sparse(xs, style), GlyphStyle: glyph(look)})
		return
	}
	p.Add(&plotter.Scatter{XYs: xs, GlyphStyle: glyph(look)})
}

// sparse picks the points of a dense line that carry its markers: all of
// at most 8 points, else 6 spread along the line, shifted by the series'
// style so that coincident lines show each other's markers.
func sparse(xs plotter.XYs, style int) plotter.XYs {
	const marks = 6
	if len(xs) <= 8 {
		return xs
	}
	var out plotter.XYs
	shift := float64(style%4) / 4
	for k := range marks {
		j := int(math.Round((float64(k) + 0.25 + shift/2) / marks * float64(len(xs)-1)))
		out = append(out, xs[j])
	}
	return out
}

// ratioPlot builds the ratio panel of panel i: each series over the
// spec's RatioTo series, with a line at 1.
func (f *Figure) ratioPlot(i int) *plot.Plot {
	p := newPlot()
	p.Add(hline{y: 1, style: draw.LineStyle{Color: color.Gray{Y: 0x40}, Width: vg.Points(0.75)}})
	for _, s := range f.Panels[i].Ratios {
		off := f.dodge(s.Style)
		f.addTheory(p, s, off)
		xs := make(plotter.XYs, len(s.Points))
		for j, pt := range s.Points {
			xs[j] = plotter.XY{X: pt.X + off, Y: pt.Mean}
		}
		f.addMeasured(p, s.Style, xs)
	}
	return p
}

// hline is a horizontal line across the plot area at y; it widens the y
// range to hold y and leaves the x range alone.
type hline struct {
	y     float64
	style draw.LineStyle
}

func (h hline) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(h.y)
	c.StrokeLine2(h.style, c.Min.X, y, c.Max.X, y)
}

func (h hline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), h.y, h.y
}
