package figures

// The layout of a figure: its size, the insets that gonum/plot's axes
// take around a plot area, and where each panel's plot area goes, placed
// by this layout rather than found by gonum/plot's padding.

import (
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
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

// layout measures the figure: the width of its plot areas, its panels'
// plots and axes, what surrounds them (insets, labels, legend, title,
// caption) and from them its size.
func (f *Figure) layout() layout {
	var l layout
	spec := f.Spec
	l.cols = spec.columns(len(f.Panels))
	l.rows = (len(f.Panels) + l.cols - 1) / l.cols
	l.panelTitle = textStyle(panelSize, draw.XCenter, draw.YBottom)
	l.axisLabel = textStyle(labelSize, draw.XCenter, draw.YTop)
	tick := textStyle(tickSize, draw.XCenter, draw.YTop)

	l.dataW = f.plotWidth(tick)
	l.cells = f.cells(l.cols, l.dataW, l.axisLabel)
	f.axes(l.cells, l.dataW, tick)
	f.countBeyond(l.cells)
	f.countOpen(l.cells)
	l.measureCells()
	l.setYLabels(f)

	l.legend = f.legend()
	l.legendWidth = l.legend.Rectangle(draw.Canvas{}).Size().X
	gridW := l.yLabelWidth + vg.Length(l.cols-1)*pad
	for _, in := range l.colIn {
		gridW += in.left + l.dataW + in.right
	}
	l.w = pad + gridW + pad + l.legendWidth + pad
	l.setTitleCaption(f)
	l.h = pad + l.titleHeight + l.gridHeight() + l.captionHeight + pad
	return l
}

// plotWidth is the width of every panel's plot area: dataWidth, or wider
// for a categorical x axis, where each category takes an equal share,
// wide enough for its label and for its points side by side. It sets the
// room of one point of a category (catRoom), for the theory's strokes.
func (f *Figure) plotWidth(tick text.Style) vg.Length {
	w := dataWidth
	if f.Categories != nil {
		per := catPerPoint
		if f.Spec.boxed() {
			per = boxPerPoint
		}
		widest := per * vg.Length(float64(len(f.Series))/catSpread)
		for _, c := range f.Categories {
			widest = max(widest, tick.Width(c)+minLabelGap)
		}
		w = max(w, widest*vg.Length(len(f.Categories)))
		f.catRoom = w / vg.Length(len(f.Categories)) * vg.Length(catSpread/float64(max(1, len(f.Series))))
	}
	return w
}

// cells builds every panel's plots, in rows of cols, with its title, and
// the x label under the panels that have none below them.
func (f *Figure) cells(cols int, dataW vg.Length, axisLabel text.Style) []cell {
	var cells []cell
	for i := range f.Panels {
		c := cell{row: i / cols, col: i % cols, title: f.label(f.Spec.Panel, f.Panels[i].Value)}
		c.main = f.mainPlot(i)
		if f.ratio() {
			c.ratio = f.ratioPlot(i)
		}
		if i+cols >= len(f.Panels) {
			c.xLabel = wrap(axisLabel, f.Spec.xLabel(), dataW)
		}
		cells = append(cells, c)
	}
	return cells
}

// measureCells measures each cell's insets, title and x label, and keeps
// the largest of each column (left and right) and row (top, bottom, the
// gap to a ratio panel, title and x label), so that the plot areas of a
// column, and of a row, line up.
func (l *layout) measureCells() {
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
}

// setYLabels wraps the y label (and the ratio panels' label) to the height
// of a plot area and sets the width of the column they take.
func (l *layout) setYLabels(f *Figure) {
	l.yLabel = wrap(l.axisLabel, f.Spec.yLabel(), dataHeight)
	l.yLabelWidth = l.axisLabel.Height(strings.Join(l.yLabel, "\n"))
	if f.ratio() {
		l.ratioLabel = wrap(l.axisLabel, "÷ "+f.label(f.Spec.Series, f.Spec.RatioTo), ratioHeight+l.midIn[0])
		l.yLabelWidth = max(l.yLabelWidth, l.axisLabel.Height(strings.Join(l.ratioLabel, "\n")))
	}
	l.yLabelWidth += gap
}

// setTitleCaption wraps the figure's title and caption to its width and
// sets their heights.
func (l *layout) setTitleCaption(f *Figure) {
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
}

// gridHeight is the height of the panels' rows, or of the legend where
// that is taller.
func (l *layout) gridHeight() vg.Length {
	gridH := vg.Length(l.rows-1) * pad
	for r := range l.rows {
		gridH += l.rowHeight(r)
	}
	// The legend hangs from the top of the first row's plot area: one
	// taller than the rows (groupmean-e2's 17 entries beside one row)
	// would overprint the caption, so the figure grows to hold it.
	legendH := l.legend.Rectangle(draw.Canvas{}).Size().Y
	return max(gridH, l.rowTitle[0]+l.rowIn[0].top+legendH)
}

// rowHeight is the height of row r: titles, plot areas, ticks, x labels.
func (l *layout) rowHeight(r int) vg.Length {
	h := l.rowTitle[r] + l.rowIn[r].top + dataHeight + l.rowIn[r].bottom + l.rowXLabel[r]
	if l.midIn[r] > 0 {
		h += l.midIn[r] + ratioGap + ratioHeight
	}
	return h
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
