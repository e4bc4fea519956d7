package figures

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Layout, in points. The plot area (data canvas) of every panel of a
// figure has the same size, dataWidth × dataHeight (wider for a
// categorical x axis with many or long labels), with ratioHeight under it
// for a ratio panel; the figure's size follows from them and from what
// surrounds them (titles, ticks, axis labels, legend, caption).
var (
	dataWidth   = vg.Points(175)
	dataHeight  = vg.Points(130)
	ratioHeight = vg.Points(60)
	pad         = vg.Points(8) // around the figure and between panels
	gap         = vg.Points(3) // between a text and what it labels
	ratioGap    = vg.Points(3) // between a panel and its ratio panel, beyond their ticks
	minLabelGap = vg.Points(6) // between two tick labels of an x axis
	catSpread   = 0.75         // of a category's width, over which its series' points are spread
	catPerPoint = vg.Points(8) // the least room of a point of a category
	legendSize  = font.Length(10)
	tickSize    = font.Length(9)
	labelSize   = font.Length(10)
	panelSize   = font.Length(11)
	titleSize   = font.Length(13)
	captionSize = font.Length(9)
)

func textStyle(size font.Length, x text.XAlignment, y text.YAlignment) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(plot.DefaultFont, size),
		XAlign:  x,
		YAlign:  y,
		Handler: supText{text.Plain{Fonts: font.DefaultCache}},
	}
}

// insets are the distances from the edges of a plot's canvas to those of
// its plot area: what its axes (ticks and tick labels) and the glyphs at
// the edges of its data take.
type insets struct{ left, right, bottom, top vg.Length }

func (a insets) max(b insets) insets {
	return insets{max(a.left, b.left), max(a.right, b.right), max(a.bottom, b.bottom), max(a.top, b.top)}
}

// measure returns the insets of p around a plot area of size w × h.
// gonum/plot lays out a plot from the canvas inwards; DataCanvas needs no
// backing canvas.
func measure(p *plot.Plot, w, h vg.Length) insets {
	c := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w + 200, Y: h + 200}}}
	for range 3 { // insets hardly depend on the size: converge on w × h
		d := p.DataCanvas(c)
		in := insets{d.Min.X - c.Min.X, c.Max.X - d.Max.X, d.Min.Y - c.Min.Y, c.Max.Y - d.Max.Y}
		c.Max = vg.Point{X: w + in.left + in.right, Y: h + in.bottom + in.top}
	}
	d := p.DataCanvas(c)
	return insets{d.Min.X - c.Min.X, c.Max.X - d.Max.X, d.Min.Y - c.Min.Y, c.Max.Y - d.Max.Y}
}

// fit returns the canvas, on dc's backing canvas, whose plot area is
// exactly want: the plot areas of a figure's panels are placed by our
// layout, not found by gonum/plot's padding. Fixed-point iteration: the
// insets depend only weakly on the canvas size.
func fit(p *plot.Plot, dc draw.Canvas, want vg.Rectangle, in insets) draw.Canvas {
	c := dc
	c.Rectangle = vg.Rectangle{
		Min: vg.Point{X: want.Min.X - in.left, Y: want.Min.Y - in.bottom},
		Max: vg.Point{X: want.Max.X + in.right, Y: want.Max.Y + in.top},
	}
	for range 50 {
		got := p.DataCanvas(c).Rectangle
		d := [4]vg.Length{want.Min.X - got.Min.X, want.Min.Y - got.Min.Y, want.Max.X - got.Max.X, want.Max.Y - got.Max.Y}
		if max(abs(d[0]), abs(d[1]), abs(d[2]), abs(d[3])) < 1e-9 {
			break
		}
		c.Min.X += d[0]
		c.Min.Y += d[1]
		c.Max.X += d[2]
		c.Max.Y += d[3]
	}
	return c
}

func abs(v vg.Length) vg.Length { return vg.Length(math.Abs(float64(v))) }

// A cell is one panel laid out: its plots and what they need around them.
type cell struct {
	main, ratio  *plot.Plot
	mainIn       insets
	ratioIn      insets
	title        string
	xLabel       []string // lines; nil when a panel sits below
	row, col     int
	titleHeight  vg.Length
	xLabelHeight vg.Length
}

// layout is the figure's size and the parts measured to find it.
type layout struct {
	w, h          vg.Length
	rows, cols    int
	dataW         vg.Length
	cells         []cell
	colIn         []insets // per column: the largest left and right insets
	rowIn         []insets // per row: the largest top (main) and bottom (ratio, else main) insets
	midIn         []vg.Length
	rowTitle      []vg.Length // per row: the tallest panel title
	rowXLabel     []vg.Length // per row: the tallest x label
	yLabel        []string
	ratioLabel    []string
	yLabelWidth   vg.Length
	legend        plot.Legend
	legendWidth   vg.Length
	title         text.Style
	titleText     string // the figure's title, in lines no wider than the figure
	titleHeight   vg.Length
	caption       text.Style
	captionLines  []string
	captionHeight vg.Length
	panelTitle    text.Style
	axisLabel     text.Style
}

func (f *Figure) ratio() bool { return f.Spec.RatioTo != "" }

func (f *Figure) layout() layout {
	var l layout
	spec := f.Spec
	l.cols = spec.columns(len(f.Panels))
	l.rows = (len(f.Panels) + l.cols - 1) / l.cols
	l.panelTitle = textStyle(panelSize, draw.XCenter, draw.YBottom)
	l.axisLabel = textStyle(labelSize, draw.XCenter, draw.YTop)
	tick := textStyle(tickSize, draw.XCenter, draw.YTop)

	l.dataW = dataWidth
	if f.Categories != nil {
		// Each category takes an equal share, wide enough for its label
		// and for its points side by side.
		per := catPerPoint
		if spec.boxed() {
			per = boxPerPoint
		}
		widest := per * vg.Length(float64(len(f.Series))/catSpread)
		for _, c := range f.Categories {
			widest = max(widest, tick.Width(c)+minLabelGap)
		}
		l.dataW = max(l.dataW, widest*vg.Length(len(f.Categories)))
		// The room of one point, for the theory's strokes.
		f.catRoom = l.dataW / vg.Length(len(f.Categories)) * vg.Length(catSpread/float64(max(1, len(f.Series))))
	}

	for i := range f.Panels {
		c := cell{row: i / l.cols, col: i % l.cols, title: f.label(spec.Panel, f.Panels[i].Value)}
		c.main = f.mainPlot(i)
		if f.ratio() {
			c.ratio = f.ratioPlot(i)
		}
		if i+l.cols >= len(f.Panels) {
			c.xLabel = wrap(l.axisLabel, spec.xLabel(), l.dataW)
		}
		l.cells = append(l.cells, c)
	}
	f.axes(l.cells, l.dataW, tick)
	f.countBeyond(l.cells)
	f.countOpen(l.cells)
	l.colIn = make([]insets, l.cols)
	l.rowIn = make([]insets, l.rows)
	l.midIn = make([]vg.Length, l.rows)
	l.rowTitle = make([]vg.Length, l.rows)
	l.rowXLabel = make([]vg.Length, l.rows)
	for i := range l.cells {
		c := &l.cells[i]
		c.mainIn = measure(c.main, l.dataW, dataHeight)
		bottom := c.mainIn
		if c.ratio != nil {
			c.ratioIn = measure(c.ratio, l.dataW, ratioHeight)
			bottom = c.ratioIn
			l.midIn[c.row] = max(l.midIn[c.row], c.mainIn.bottom+c.ratioIn.top)
		}
		l.colIn[c.col] = l.colIn[c.col].max(insets{left: max(c.mainIn.left, c.ratioIn.left), right: max(c.mainIn.right, c.ratioIn.right)})
		l.rowIn[c.row] = l.rowIn[c.row].max(insets{top: c.mainIn.top, bottom: bottom.bottom})
		if c.title != "" {
			c.titleHeight = l.panelTitle.Height(c.title) + gap
		}
		if c.xLabel != nil {
			c.xLabelHeight = l.axisLabel.Height(strings.Join(c.xLabel, "\n")) + gap
		}
		l.rowTitle[c.row] = max(l.rowTitle[c.row], c.titleHeight)
		l.rowXLabel[c.row] = max(l.rowXLabel[c.row], c.xLabelHeight)
	}

	l.yLabel = wrap(l.axisLabel, spec.yLabel(), dataHeight)
	l.yLabelWidth = l.axisLabel.Height(strings.Join(l.yLabel, "\n"))
	if f.ratio() {
		l.ratioLabel = wrap(l.axisLabel, "÷ "+f.label(spec.Series, spec.RatioTo), ratioHeight+l.midIn[0])
		l.yLabelWidth = max(l.yLabelWidth, l.axisLabel.Height(strings.Join(l.ratioLabel, "\n")))
	}
	l.yLabelWidth += gap

	l.legend = f.legend()
	l.legendWidth = l.legend.Rectangle(draw.Canvas{}).Size().X
	gridW := l.yLabelWidth + vg.Length(l.cols-1)*pad
	for _, in := range l.colIn {
		gridW += in.left + l.dataW + in.right
	}
	l.w = pad + gridW + pad + l.legendWidth + pad

	l.title = textStyle(titleSize, draw.XCenter, draw.YTop)
	if title := f.title(); title != "" {
		l.titleText = strings.Join(wrap(l.title, title, l.w-2*pad), "\n")
		l.titleHeight = l.title.Height(l.titleText) + pad
	}
	l.caption = textStyle(captionSize, draw.XLeft, draw.YBottom)
	for _, line := range f.caption() {
		l.captionLines = append(l.captionLines, wrap(l.caption, line, l.w-2*pad)...)
	}
	l.captionHeight = vg.Length(len(l.captionLines))*l.caption.Height("Mg")*1.2 + pad
	gridH := vg.Length(l.rows-1) * pad
	for r := range l.rows {
		gridH += l.rowHeight(r)
	}
	// The legend hangs from the top of the first row's plot area: one
	// taller than the rows (groupmean-e2's 17 entries beside one row)
	// would overprint the caption, so the figure grows to hold it.
	legendH := l.legend.Rectangle(draw.Canvas{}).Size().Y
	gridH = max(gridH, l.rowTitle[0]+l.rowIn[0].top+legendH)
	l.h = pad + l.titleHeight + gridH + l.captionHeight + pad
	return l
}

// rowHeight is the height of row r: titles, plot areas, ticks, x labels.
func (l *layout) rowHeight(r int) vg.Length {
	h := l.rowTitle[r] + l.rowIn[r].top + dataHeight + l.rowIn[r].bottom + l.rowXLabel[r]
	if l.midIn[r] > 0 {
		h += l.midIn[r] + ratioGap + ratioHeight
	}
	return h
}

// axes sets the ranges and tickers of every panel's axes: the same rules
// and, per axis, the same notation in every panel.
func (f *Figure) axes(cells []cell, dataW vg.Length, tick text.Style) {
	spec := f.Spec
	xFits := func(ticks []plot.Tick) bool {
		var w vg.Length
		for _, t := range ticks {
			if t.Label != "" {
				w += tick.Width(t.Label) + minLabelGap
			}
		}
		return w <= dataW
	}
	set := func(ax *plot.Axis, log bool, lin linTicks, at []float64, n notation) {
		switch {
		case log:
			ax.Tick.Marker = logTicks{notation: n, at: at}
		default:
			lin.notation = n
			ax.Tick.Marker = lin
		}
	}
	// notation is scientific for a log axis when any panel needs it; a
	// linear axis picks its own (auto), as its range is its own.
	notationOf := func(axes []*plot.Axis, log bool, lin linTicks, at []float64) notation {
		if !log {
			return auto
		}
		for _, ax := range axes {
			set(ax, log, lin, at, auto)
			for _, t := range ax.Tick.Marker.Ticks(ax.Min, ax.Max) {
				if strings.Contains(t.Label, "^{") {
					return scientific
				}
			}
		}
		return plain
	}
	var xs, ys, rs []*plot.Axis
	for _, c := range cells {
		xs = append(xs, &c.main.X)
		ys = append(ys, &c.main.Y)
		if c.ratio != nil {
			rs = append(rs, &c.ratio.Y)
		}
	}
	// The x values drawn, over all panels: an axis of integers takes
	// integer steps; a log x axis of a few values spanning less than two
	// decades, and a linear one of a few evenly spaced values, are
	// labelled at them.
	var xv []float64
	for _, p := range f.Panels {
		for _, s := range p.Series {
			for _, pt := range s.Points {
				xv = append(xv, pt.X)
			}
			for _, t := range s.Theory {
				xv = append(xv, t.X)
			}
		}
	}
	for _, r := range f.References {
		for _, pt := range r.Points {
			xv = append(xv, pt.X)
		}
	}
	slices.Sort(xv)
	xv = slices.Compact(xv)
	integer := !slices.ContainsFunc(xv, func(v float64) bool { return v != math.Trunc(v) })
	var at []float64
	if spec.LogX && len(xv) > 0 && len(xv) <= 9 && xv[len(xv)-1] < 100*xv[0] {
		at = xv
	}
	xLin := linTicks{maxLabels: 9, fits: xFits, integer: integer}
	if !spec.LogX && evenly(xv) {
		xLin.at = xv
	}
	yLin := linTicks{maxLabels: 6}
	rLin := linTicks{maxLabels: 5}
	// Ranges.
	for _, ax := range xs {
		switch {
		case f.Categories != nil:
			ax.Min, ax.Max = -0.5, float64(len(f.Categories))-0.5
		case spec.LogX:
			ax.Scale = plot.LogScale{}
			if ax.Min == ax.Max {
				ax.Min, ax.Max = ax.Min/2, ax.Max*2
			}
		case xLin.at == nil:
			ax.Min, ax.Max = snapRange(ax.Min, ax.Max, xLin)
		}
	}
	for _, ax := range ys {
		if spec.boxed() {
			ax.Min, ax.Max = boxMargin(ax.Min, ax.Max, spec.LogY)
		}
		if spec.LogY {
			ax.Scale = plot.LogScale{}
			ax.Min, ax.Max = logRange(ax.Min, ax.Max)
		} else {
			ax.Min, ax.Max = snapRange(ax.Min, ax.Max, yLin)
		}
	}
	for _, ax := range rs {
		ax.Min, ax.Max = math.Min(ax.Min, 1), math.Max(ax.Max, 1)
		if f.RatioLog {
			ax.Scale = plot.LogScale{}
			ax.Min, ax.Max = logRange(ax.Min, ax.Max)
		} else {
			ax.Min, ax.Max = snapRange(ax.Min, ax.Max, rLin)
		}
	}
	// Tickers, in one notation per axis.
	if f.Categories != nil {
		for _, ax := range xs {
			ax.Tick.Marker = catTicks{labels: f.Categories}
		}
	} else {
		n := notationOf(xs, spec.LogX, xLin, at)
		for _, ax := range xs {
			set(ax, spec.LogX, xLin, at, n)
		}
	}
	n := notationOf(ys, spec.LogY, yLin, nil)
	for _, ax := range ys {
		set(ax, spec.LogY, yLin, nil, n)
	}
	n = notationOf(rs, f.RatioLog, rLin, nil)
	for _, ax := range rs {
		set(ax, f.RatioLog, rLin, nil, n)
	}
	// A ratio panel shares its panel's x axis and carries its labels.
	for _, c := range cells {
		if c.ratio != nil {
			c.ratio.X.Min, c.ratio.X.Max = c.main.X.Min, c.main.X.Max
			c.ratio.X.Scale, c.ratio.X.Tick.Marker = c.main.X.Scale, c.main.X.Tick.Marker
			c.main.X.Tick.Marker = unlabelled{c.main.X.Tick.Marker}
		}
	}
}

// draw draws the figure on a canvas of the size given by layout.
func (f *Figure) draw(dc draw.Canvas, l layout) {
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())

	top := dc.Max.Y - pad
	if l.titleText != "" {
		dc.FillText(l.title, vg.Point{X: dc.Center().X, Y: top}, l.titleText)
		top -= l.titleHeight
	}
	lineHeight := l.caption.Height("Mg") * 1.2
	for i, line := range l.captionLines {
		y := dc.Min.Y + pad + vg.Length(len(l.captionLines)-1-i)*lineHeight
		dc.FillText(l.caption, vg.Point{X: dc.Min.X + pad, Y: y}, line)
	}

	yLabel := l.axisLabel
	yLabel.Rotation = math.Pi / 2
	areas := l.areas(dc.Rectangle, top)
	for i, c := range l.cells {
		main, ratio := areas[i].main, areas[i].ratio
		c.main.Draw(fit(c.main, dc, main, c.mainIn))
		below := main.Min.Y - l.rowIn[c.row].bottom
		if c.ratio != nil {
			c.ratio.Draw(fit(c.ratio, dc, ratio, c.ratioIn))
			below = ratio.Min.Y - l.rowIn[c.row].bottom
			if c.col == 0 {
				place(dc, yLabel, strings.Join(l.ratioLabel, "\n"), main.Min.X-l.colIn[0].left-gap, (ratio.Min.Y+ratio.Max.Y)/2, 1, 0.5)
			}
		}
		if c.title != "" {
			place(dc, l.panelTitle, c.title, (main.Min.X+main.Max.X)/2, l.titleBase(c, main), 0.5, 0)
		}
		if c.xLabel != nil {
			place(dc, l.axisLabel, strings.Join(c.xLabel, "\n"), (main.Min.X+main.Max.X)/2, below-gap, 0.5, 1)
		}
		if c.col == 0 {
			place(dc, yLabel, strings.Join(l.yLabel, "\n"), main.Min.X-l.colIn[0].left-gap, (main.Min.Y+main.Max.Y)/2, 1, 0.5)
		}
	}

	leg := dc
	leg.Max.X = dc.Max.X - pad
	leg.Min.X = leg.Max.X - l.legendWidth
	leg.Max.Y = areas[0].main.Max.Y
	l.legend.Draw(leg)
}

// An area is where a panel's plot area, and its ratio panel's, are drawn.
type area struct{ main, ratio vg.Rectangle }

// areas places the plot areas of the panels in a figure of rectangle r
// whose panels start below top: column c's plot areas start at the same x,
// row r's at the same y, and all have the same size.
func (l *layout) areas(r vg.Rectangle, top vg.Length) []area {
	left := make([]vg.Length, l.cols)
	x := r.Min.X + pad + l.yLabelWidth
	for c := range l.cols {
		left[c] = x + l.colIn[c].left
		x = left[c] + l.dataW + l.colIn[c].right + pad
	}
	dataTop := make([]vg.Length, l.rows)
	y := top
	for r := range l.rows {
		dataTop[r] = y - l.rowTitle[r] - l.rowIn[r].top
		y -= l.rowHeight(r) + pad
	}
	out := make([]area, len(l.cells))
	for i, c := range l.cells {
		a := &out[i]
		a.main = vg.Rectangle{
			Min: vg.Point{X: left[c.col], Y: dataTop[c.row] - dataHeight},
			Max: vg.Point{X: left[c.col] + l.dataW, Y: dataTop[c.row]},
		}
		if c.ratio != nil {
			a.ratio = a.main
			a.ratio.Max.Y = a.main.Min.Y - l.midIn[c.row] - ratioGap
			a.ratio.Min.Y = a.ratio.Max.Y - ratioHeight
		}
	}
	return out
}

// titleBase is the bottom of a panel's title: just above the highest
// tick label or glyph of its row.
func (l *layout) titleBase(c cell, main vg.Rectangle) vg.Length {
	return main.Max.Y + l.rowIn[c.row].top + gap
}

// place draws txt so that the point (ax, ay) of its bounding box (0 left
// or bottom, 1 right or top) falls at (x, y), whatever its rotation.
func place(dc draw.Canvas, sty text.Style, txt string, x, y vg.Length, ax, ay float64) {
	r := sty.Rectangle(txt)
	at := vg.Point{
		X: x - (r.Min.X + vg.Length(ax)*(r.Max.X-r.Min.X)),
		Y: y - (r.Min.Y + vg.Length(ay)*(r.Max.Y-r.Min.Y)),
	}
	dc.FillText(sty, at, txt)
}

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

// legend has one entry per series, in order of first appearance (its
// measured line and marker, and its theory line under them when the
// figure draws theory), one per reference label and colour, in spec order,
// and one for the theory lines if any are drawn.
func (f *Figure) legend() plot.Legend {
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.TextStyle = textStyle(legendSize, draw.XLeft, draw.YBottom)
	l.ThumbnailWidth = vg.Points(26)
	l.Padding = vg.Points(3)
	theory := f.hasTheory()
	cat := f.Categories != nil
	for i := range f.Series {
		thumbs := []plot.Thumbnailer{}
		if f.Spec.banded() {
			band := &Band{}
			band.Color, band.Edge = bandStyle(f.look(i), len(f.Series))
			thumbs = append(thumbs, band)
		}
		thumbs = append(thumbs, thumbnail(func(c *draw.Canvas) {
			if f.Spec.boxed() {
				boxThumbnail(f.look(i), c, c.Center())
				return
			}
			y := c.Center().Y
			if theory {
				ty := y - vg.Points(3.5)
				y += vg.Points(1.5)
				if cat {
					dashGlyph{f.look(i)}.DrawGlyph(c, draw.GlyphStyle{Radius: vg.Points(5)}, vg.Point{X: c.Center().X, Y: ty})
				} else {
					c.StrokeLine2(theoryLine(f.look(i)), c.Min.X, ty, c.Max.X, ty)
				}
			}
			if !cat {
				c.StrokeLine2(measuredLine(f.look(i), f.Spec.LinesOnly), c.Min.X, y, c.Max.X, y)
			}
			c.DrawGlyph(glyph(f.look(i)), vg.Point{X: c.Center().X, Y: y})
		}))
		l.Add(f.seriesLabel(i), thumbs...)
	}
	type entry struct {
		label string
		style int
	}
	var listed []entry
	for _, r := range f.References {
		if e := (entry{r.Label, r.Style}); !slices.Contains(listed, e) && f.drawn(r) {
			listed = append(listed, e)
			clr := refColor(f.look(r.Style))
			l.Add(r.Label, thumbnail(func(c *draw.Canvas) {
				y := c.Center().Y
				if !cat {
					c.StrokeLine2(refLine(clr), c.Min.X, y, c.Max.X, y)
				}
				c.DrawGlyph(refGlyph(clr), c.Center())
			}))
		}
	}
	if theory {
		l.Add("theory", thumbnail(func(c *draw.Canvas) {
			y := c.Center().Y
			ls := draw.LineStyle{Color: color.Gray{Y: 0x40}, Width: vg.Points(1.25), Dashes: theoryDashes[0]}
			if cat {
				c.StrokeLine2(ls, c.Center().X-vg.Points(5), y, c.Center().X+vg.Points(5), y)
				return
			}
			c.StrokeLine2(ls, c.Min.X, y, c.Max.X, y)
		}))
	}
	return l
}

// drawn reports whether a reference is drawn in some panel.
func (f *Figure) drawn(r RefLine) bool {
	return r.Panel == "" || slices.ContainsFunc(f.Panels, func(p Panel) bool { return p.Value == r.Panel })
}

// thumbnail adapts a function to plot.Thumbnailer.
type thumbnail func(c *draw.Canvas)

func (t thumbnail) Thumbnail(c *draw.Canvas) { t(c) }

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
	trials := fmt.Sprintf("%d trials", f.MinCount)
	if f.MinCount == 1 && f.MaxCount == 1 {
		trials = "1 trial"
	}
	if f.MinCount != f.MaxCount {
		trials = fmt.Sprintf("%d–%d trials", f.MinCount, f.MaxCount)
	}
	mark := "Points"
	if spec.LinesOnly {
		mark = "Lines"
	}
	what := mark + ": "
	if spec.YLabel != "" {
		what += spec.YLabel + ", "
	}
	points := 0
	for _, p := range f.Panels {
		for _, s := range p.Series {
			points += len(s.Points)
		}
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
	if f.hasTheory() {
		if spec.boxed() {
			line += " Dark dashes across the boxes: theory (the expected value)."
		} else if f.Categories != nil {
			line += " Short dashes: theory (the expected value), in the series' colour and dashes."
		} else {
			line += " Dashed lines: theory (the expected value), in the series' colour and dashes."
		}
	}
	lines := []string{line}
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
		lines = append(lines, fmt.Sprintf("Lower panels: each series' mean divided by that of %s at the same x (theory by theory, dashed), without CI.",
			f.label(spec.Series, spec.RatioTo)))
	}
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
			absent = append(absent, fmt.Sprintf("%q, %s", r.Label, f.label(spec.Series, r.Series)))
		}
	}
	if drawn > 0 {
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
		lines = append(lines, ref+".")
	}
	var notes []string
	if f.NoCI > 0 && f.MaxCount > 1 && !spec.boxed() {
		notes = append(notes, fmt.Sprintf("%s without a CI (fewer than 2 trials)", plural(f.NoCI, "point")))
	}
	if f.Constant > 0 && f.Constant < points && !spec.boxed() {
		notes = append(notes, fmt.Sprintf("%s without a CI (the same value in every trial, sd = 0)", plural(f.Constant, "point")))
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
	if len(notes) > 0 {
		lines = append(lines, "Note: "+strings.Join(notes, "; ")+".")
	}
	if spec.Note != "" {
		lines = append(lines, spec.Note)
	}
	return lines
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
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
