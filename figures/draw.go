package figures

import (
	"fmt"
	"image/color"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Layout, in points unless said otherwise.
var (
	panelWidth  = vg.Points(230)
	panelHeight = vg.Points(180)
	pad         = vg.Points(8)
	theoryDash  = []vg.Length{vg.Points(5), vg.Points(3)}
	refDots     = []vg.Length{vg.Points(1.5), vg.Points(2)}
)

// palette is the Okabe–Ito colour-blind-safe palette with Tol's wine in
// place of its yellow (too faint on white). Series i has colour i mod 8 and
// marker i mod 7, so the first 56 series differ from one another and the
// first 8 differ by colour alone.
var palette = []color.Color{
	color.RGBA{0x00, 0x72, 0xb2, 0xff}, // blue
	color.RGBA{0xd5, 0x5e, 0x00, 0xff}, // vermilion
	color.RGBA{0x00, 0x9e, 0x73, 0xff}, // bluish green
	color.RGBA{0xcc, 0x79, 0xa7, 0xff}, // reddish purple
	color.RGBA{0xe6, 0x9f, 0x00, 0xff}, // orange
	color.RGBA{0x56, 0xb4, 0xe9, 0xff}, // sky blue
	color.RGBA{0x00, 0x00, 0x00, 0xff}, // black
	color.RGBA{0x88, 0x22, 0x55, 0xff}, // wine
}

var markers = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{},
	draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{},
}

func seriesColor(style int) color.Color { return palette[style%len(palette)] }

// bandColor is the series colour at a fifth of its opacity.
func bandColor(style int) color.Color {
	r, g, b, _ := seriesColor(style).RGBA()
	return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0x40}
}

func textStyle(size font.Length, x text.XAlignment, y text.YAlignment) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(plot.DefaultFont, size),
		XAlign:  x,
		YAlign:  y,
		Handler: plot.DefaultTextHandler,
	}
}

// layout is the figure's size and the parts measured to find it.
type layout struct {
	w, h          vg.Length
	rows, cols    int
	legend        plot.Legend
	legendWidth   vg.Length
	title         text.Style
	titleHeight   vg.Length
	caption       text.Style
	captionLines  []string
	captionHeight vg.Length
}

func (f *Figure) layout() layout {
	var l layout
	l.cols = f.Spec.columns(len(f.Panels))
	l.rows = (len(f.Panels) + l.cols - 1) / l.cols
	l.legend = f.legend()
	l.legendWidth = l.legend.Rectangle(draw.Canvas{}).Size().X
	l.w = vg.Length(l.cols)*panelWidth + l.legendWidth + 3*pad
	l.title = textStyle(13, draw.XCenter, draw.YTop)
	if f.Spec.Title != "" {
		l.titleHeight = l.title.Height(f.Spec.Title) + pad
	}
	l.caption = textStyle(9, draw.XLeft, draw.YBottom)
	for _, line := range f.caption() {
		l.captionLines = append(l.captionLines, wrap(l.caption, line, l.w-2*pad)...)
	}
	l.captionHeight = vg.Length(len(l.captionLines))*l.caption.Height("Mg")*1.2 + pad
	l.h = pad + l.titleHeight + vg.Length(l.rows)*panelHeight + l.captionHeight + pad
	return l
}

// draw draws the figure on a canvas of the size given by layout.
func (f *Figure) draw(dc draw.Canvas, l layout) {
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())

	top := dc.Max.Y - pad
	if f.Spec.Title != "" {
		dc.FillText(l.title, vg.Point{X: dc.Center().X, Y: top}, f.Spec.Title)
		top -= l.titleHeight
	}
	lineHeight := l.caption.Height("Mg") * 1.2
	for i, line := range l.captionLines {
		y := dc.Min.Y + pad + vg.Length(len(l.captionLines)-1-i)*lineHeight
		dc.FillText(l.caption, vg.Point{X: dc.Min.X + pad, Y: y}, line)
	}

	grid := dc
	grid.Min.X += pad
	grid.Max.X -= l.legendWidth + 2*pad
	grid.Max.Y = top
	grid.Min.Y += pad + l.captionHeight

	plots := make([][]*plot.Plot, l.rows)
	for r := range plots {
		plots[r] = make([]*plot.Plot, l.cols)
	}
	for i := range f.Panels {
		r, c := i/l.cols, i%l.cols
		plots[r][c] = f.panel(i, c == 0, i+l.cols >= len(f.Panels))
	}
	tiles := draw.Tiles{Rows: l.rows, Cols: l.cols, PadX: pad, PadY: pad}
	canvases := plot.Align(plots, tiles, grid)
	for r := range plots {
		for c, p := range plots[r] {
			if p != nil {
				p.Draw(canvases[r][c])
			}
		}
	}

	leg := grid
	leg.Min.X = grid.Max.X + pad
	leg.Max.X = leg.Min.X + l.legendWidth
	leg.Max.Y -= pad
	l.legend.Draw(leg)
}

// panel builds the plot of panel i, with a y label when it starts a row
// and an x label when no panel sits below it.
func (f *Figure) panel(i int, yLabel, xLabel bool) *plot.Plot {
	spec, panel := f.Spec, f.Panels[i]
	p := plot.New()
	p.Title.Text = fieldLabel(spec.Panel, panel.Value)
	p.Title.TextStyle.Font.Size = 11
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font.Size = 10
		ax.Tick.Label.Font.Size = 9
		ax.Tick.Length = vg.Points(4)
	}
	if xLabel {
		p.X.Label.Text = spec.xLabel()
	}
	if yLabel {
		p.Y.Label.Text = spec.yLabel()
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 0xdd}
	grid.Horizontal.Color = color.Gray{Y: 0xdd}
	p.Add(grid)

	// References first, so that the measurements are drawn over them.
	for _, r := range f.References {
		if r.Panel != "" && r.Panel != panel.Value {
			continue
		}
		xy := make(plotter.XYs, len(r.Points))
		for j, pt := range r.Points {
			xy[j] = plotter.XY{X: pt.X, Y: pt.Y}
		}
		clr := refColor(r.Style)
		p.Add(&plotter.Line{XYs: xy, LineStyle: refLine(clr)})
		p.Add(&plotter.Scatter{XYs: xy, GlyphStyle: refGlyph(clr)})
	}

	for _, s := range panel.Series {
		clr := seriesColor(s.Style)
		xs := make(plotter.XYs, len(s.Points))
		var ci plotter.XYs
		var errs plotter.YErrors
		var x, lo, hi []float64
		for j, pt := range s.Points {
			xs[j] = plotter.XY{X: pt.X, Y: pt.Mean}
			x, lo, hi = append(x, pt.X), append(lo, pt.Lo), append(hi, pt.Hi)
			if finite(pt.Lo) && finite(pt.Hi) {
				ci = append(ci, xs[j])
				errs = append(errs, struct{ Low, High float64 }{pt.Mean - pt.Lo, pt.Hi - pt.Mean})
			}
		}
		if spec.Band {
			band, err := NewBand(x, lo, hi)
			if err != nil {
				panic(err) // Project sorts x and keeps it finite
			}
			band.Color = bandColor(s.Style)
			p.Add(band)
		}
		if len(s.Theory) > 0 {
			ts := make(plotter.XYs, len(s.Theory))
			for j, t := range s.Theory {
				ts[j] = plotter.XY{X: t.X, Y: t.Y}
			}
			p.Add(&plotter.Line{XYs: ts, LineStyle: theoryLine(clr)})
			if len(ts) == 1 { // a line through one point draws nothing
				p.Add(&plotter.Scatter{XYs: ts, GlyphStyle: draw.GlyphStyle{Color: clr, Radius: vg.Points(4), Shape: dashGlyph{}}})
			}
		}
		if !spec.Band && len(ci) > 0 {
			p.Add(&plotter.YErrorBars{
				XYs: ci, YErrors: errs, CapWidth: vg.Points(4),
				LineStyle: draw.LineStyle{Color: clr, Width: vg.Points(0.75)},
			})
		}
		if len(xs) > 0 {
			p.Add(&plotter.Line{XYs: xs, LineStyle: measuredLine(clr, spec.LinesOnly)})
			if !spec.LinesOnly {
				p.Add(&plotter.Scatter{XYs: xs, GlyphStyle: glyph(s.Style)})
			}
		}
	}
	if spec.LogX {
		logAxis(&p.X)
	}
	if spec.LogY {
		logAxis(&p.Y)
	}
	return p
}

// logAxis puts an axis on a log scale, widening a single-valued range,
// which plot would widen by ±1 and possibly to ≤ 0.
func logAxis(ax *plot.Axis) {
	ax.Scale = plot.LogScale{}
	ax.Tick.Marker = logTicks{}
	if ax.Min == ax.Max {
		ax.Min, ax.Max = ax.Min/2, ax.Max*2
	}
}

// measuredLine is thicker without markers, so that colour alone tells the
// series apart.
func measuredLine(c color.Color, linesOnly bool) draw.LineStyle {
	if linesOnly {
		return draw.LineStyle{Color: c, Width: vg.Points(1.75)}
	}
	return draw.LineStyle{Color: c, Width: vg.Points(1)}
}

func theoryLine(c color.Color) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(1.25), Dashes: theoryDash}
}

// refColor is the colour of a reference: its series' colour, or black
// (style -1).
func refColor(style int) color.Color {
	if style < 0 {
		return color.Black
	}
	return seriesColor(style)
}

// refLine is dotted, unlike the solid measured and the dashed theory lines.
func refLine(c color.Color) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(1.25), Dashes: refDots}
}

// refGlyph is a hollow diamond, a shape no measured series uses.
func refGlyph(c color.Color) draw.GlyphStyle {
	return draw.GlyphStyle{Color: c, Radius: vg.Points(3.75), Shape: hollowDiamond{}}
}

func glyph(style int) draw.GlyphStyle {
	return draw.GlyphStyle{Color: seriesColor(style), Radius: vg.Points(2.5), Shape: markers[style%len(markers)]}
}

// legend has one entry per series, in order of first appearance, one per
// reference label and colour, in spec order, and one for the theory lines
// if any are drawn.
func (f *Figure) legend() plot.Legend {
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.TextStyle.Font.Size = 10
	l.ThumbnailWidth = vg.Points(24)
	l.Padding = vg.Points(2)
	for i, value := range f.Series {
		thumbs := []plot.Thumbnailer{}
		if f.Spec.Band {
			thumbs = append(thumbs, &Band{Color: bandColor(i)})
		}
		clr, g := seriesColor(i), glyph(i)
		thumbs = append(thumbs, thumbnail(func(c *draw.Canvas) {
			y := c.Center().Y
			c.StrokeLine2(measuredLine(clr, f.Spec.LinesOnly), c.Min.X, y, c.Max.X, y)
			if !f.Spec.LinesOnly {
				c.DrawGlyph(g, c.Center())
			}
		}))
		label := fieldLabel(f.Spec.Series, value)
		if value == "" && f.Spec.Series == "" {
			label = f.Spec.Metric
		}
		l.Add(label, thumbs...)
	}
	type entry struct {
		label string
		style int
	}
	var listed []entry
	for _, r := range f.References {
		if e := (entry{r.Label, r.Style}); !slices.Contains(listed, e) && f.drawn(r) {
			listed = append(listed, e)
			clr := refColor(r.Style)
			l.Add(r.Label, thumbnail(func(c *draw.Canvas) {
				y := c.Center().Y
				c.StrokeLine2(refLine(clr), c.Min.X, y, c.Max.X, y)
				c.DrawGlyph(refGlyph(clr), c.Center())
			}))
		}
	}
	if f.hasTheory() {
		l.Add("theory", thumbnail(func(c *draw.Canvas) {
			y := c.Center().Y
			c.StrokeLine2(theoryLine(color.Gray{Y: 0x40}), c.Min.X, y, c.Max.X, y)
		}))
	}
	return l
}

// drawn reports whether a reference is drawn in some panel.
func (f *Figure) drawn(r RefLine) bool {
	return r.Panel == "" || slices.ContainsFunc(f.Panels, func(p Panel) bool { return p.Value == r.Panel })
}

// hollowDiamond is a diamond outline filled with white, so that the dotted
// line through it does not show inside.
type hollowDiamond struct{}

func (hollowDiamond) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius
	path := vg.Path{}
	path.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	path.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	path.Line(vg.Point{X: pt.X, Y: pt.Y - r})
	path.Line(vg.Point{X: pt.X - r, Y: pt.Y})
	path.Close()
	c.SetColor(color.White)
	c.Fill(path)
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1)})
	c.Stroke(path)
}

// dashGlyph marks a theory value known at a single x: a short dashed
// horizontal stroke, as wide as the glyph.
type dashGlyph struct{}

func (dashGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.StrokeLine2(theoryLine(sty.Color), pt.X-sty.Radius, pt.Y, pt.X+sty.Radius, pt.Y)
}

// thumbnail adapts a function to plot.Thumbnailer.
type thumbnail func(c *draw.Canvas)

func (t thumbnail) Thumbnail(c *draw.Canvas) { t(c) }

// caption says what the marks mean and what was left out.
func (f *Figure) caption() []string {
	trials := fmt.Sprintf("%d trials", f.MinCount)
	if f.MinCount != f.MaxCount {
		trials = fmt.Sprintf("%d–%d trials", f.MinCount, f.MaxCount)
	}
	ci := "bars"
	if f.Spec.Band {
		ci = "shaded band"
	}
	line := fmt.Sprintf("Points: mean of %s over %s with 95%% CI (%s).", f.Spec.Metric, trials, ci)
	single := f.MaxCount == 1 // computed values (the theory kind) or single runs
	if single {
		line = fmt.Sprintf("Points: %s, one value per point (no repeated trials, no CI).", f.Spec.Metric)
	}
	if f.hasTheory() {
		line += " Dashed lines: theory (the predicted mean), in the series' colour."
	}
	lines := []string{line}
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
			absent = append(absent, fmt.Sprintf("%q, %s", r.Label, fieldLabel(f.Spec.Series, r.Series)))
		}
	}
	if drawn > 0 {
		ref := "Hollow diamonds on dotted lines, reference: printed values of the paper, not measured here"
		if coloured > 0 {
			ref += ", in the colour of their series"
		}
		if len(absent) > 0 {
			ref += "; in black where their series is not in this run (" + strings.Join(absent, "; ") + ")"
		}
		lines = append(lines, ref+".")
	}
	var notes []string
	if f.NoCI > 0 && !single {
		notes = append(notes, fmt.Sprintf("%s without a CI (fewer than 2 trials)", plural(f.NoCI, "point")))
	}
	if f.Dropped > 0 {
		notes = append(notes, fmt.Sprintf("%s not shown (not finite, or ≤ 0 on a log axis)", plural(f.Dropped, "point")))
	}
	if f.Clamped > 0 {
		notes = append(notes, fmt.Sprintf("%s ≤ 0 cut at the panel's smallest positive value", plural(f.Clamped, "CI lower bound")))
	}
	if len(notes) > 0 {
		lines = append(lines, "Note: "+strings.Join(notes, "; ")+".")
	}
	return lines
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// fieldLabel names a panel or series: the bare value for the fields whose
// values are names, field=value for numbers.
func fieldLabel(field, value string) string {
	switch field {
	case "", "experiment", "dataset", "method", "metric", "normalisation":
		return value
	}
	return field + "=" + value
}

// wrap breaks s into lines no wider than width, at spaces.
func wrap(sty text.Style, s string, width vg.Length) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		next := word
		if line != "" {
			next = line + " " + word
		}
		if line != "" && sty.Width(next) > width {
			lines = append(lines, line)
			next = word
		}
		line = next
	}
	return append(lines, line)
}
