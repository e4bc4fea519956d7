package figures

import (
	"bufio"
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	gpalette "gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ldpbench/ldpbench/results"
)

// A HeatMap is a table drawn as a grid of coloured cells, one per row and
// column of the table, in the table's order (the first row at the top):
// each cell is filled with the colour of its value and says the table's
// text for it, in black or white, whichever contrasts more with the fill.
// The colour scale is logarithmic when every value is > 0 (an error that
// spans decades, as in Raab et al.'s Tables 3–5), else linear; a colour
// bar beside the grid gives it, labelled at whole decades on a log scale.
// Cells marked Best (the best of their row) are outlined, black outside
// and white inside, which shows on any fill. An empty cell (NaN) is light
// grey and says nothing.
//
// Package tables builds one for a [[tables]] block with heatmap = true;
// RenderHeatMap draws it.
type HeatMap struct {
	Name  string // file stem: <dir>/<name>.svg and <name>.png
	Title string // "" for none
	// RowField and ColumnField label the axes: what the rows and the
	// columns are (ε, "ε₁/ε").
	RowField, ColumnField string
	// Rows and Columns label the rows (top to bottom) and the columns
	// (left to right).
	Rows, Columns []string
	// Values[i][j] is the value of row i, column j; NaN for an empty cell.
	Values [][]float64
	// Text[i][j] is what the cell says (the table's formatted value).
	Text [][]string
	// Best[i][j] outlines the cell; nil outlines none.
	Best [][]bool
	// BestNote says what an outline means, for the caption ("the lowest
	// value of its row").
	BestNote string
	// ValueLabel labels the colour bar: what the values are.
	ValueLabel string
	// Caption holds lines printed under the grid; RenderHeatMap adds one
	// on the colour scale and the outlines.
	Caption []string
}

// Files returns the paths RenderHeatMap writes into dir.
func (h *HeatMap) Files(dir string) []string {
	return []string{filepath.Join(dir, h.Name+".svg"), filepath.Join(dir, h.Name+".png")}
}

// validate checks the shape of the grid and that it has a value to colour.
func (h *HeatMap) validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("heat map %q: "+format, append([]any{h.Name}, args...)...))
	}
	if h.Name == "" || h.Name == "." || h.Name == ".." || strings.ContainsAny(h.Name, `/\`) {
		bad("the name must be a file stem")
	}
	if len(h.Rows) == 0 || len(h.Columns) == 0 {
		bad("%d rows and %d columns: nothing to draw", len(h.Rows), len(h.Columns))
	}
	grids := []struct {
		name string
		rows int
		cols func(i int) int
	}{
		{"values", len(h.Values), func(i int) int { return len(h.Values[i]) }},
		{"text", len(h.Text), func(i int) int { return len(h.Text[i]) }},
	}
	if h.Best != nil {
		grids = append(grids, struct {
			name string
			rows int
			cols func(i int) int
		}{"best", len(h.Best), func(i int) int { return len(h.Best[i]) }})
	}
	for _, g := range grids {
		if g.rows != len(h.Rows) {
			bad("%s has %d rows, want %d", g.name, g.rows, len(h.Rows))
			continue
		}
		for i := range g.rows {
			if g.cols(i) != len(h.Columns) {
				bad("%s row %d has %d cells, want %d", g.name, i, g.cols(i), len(h.Columns))
			}
		}
	}
	if len(errs) == 0 && !slices.ContainsFunc(h.Values, func(r []float64) bool { return slices.ContainsFunc(r, finite) }) {
		bad("no finite value to colour")
	}
	return errors.Join(errs...)
}

// RenderHeatMap draws the heat map and writes it as SVG and PNG into dir
// (created if needed), each file atomically; it returns their paths. SVG
// and PNG output is byte-stable.
func RenderHeatMap(h HeatMap, dir string) (files []string, err error) {
	if err := h.validate(); err != nil {
		return nil, err
	}
	l := h.layout()
	defer func() {
		if r := recover(); r != nil { // gonum/plot panics on some drawing failures
			files, err = nil, fmt.Errorf("heat map %q: drawing failed: %v", h.Name, r)
		}
	}()
	svg := vgsvg.New(l.w, l.h)
	png := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(l.w, l.h), vgimg.UseDPI(DPI))}
	canvases := []vg.CanvasWriterTo{svg, png}
	for _, c := range canvases {
		h.draw(draw.New(c), l)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("heat map %q: %w", h.Name, err)
	}
	for i, path := range h.Files(dir) {
		if err := results.WriteFileAtomic(path, func(w *bufio.Writer) error {
			_, err := canvases[i].WriteTo(w)
			return err
		}); err != nil {
			return files, fmt.Errorf("heat map %q: %w", h.Name, err)
		}
		files = append(files, path)
	}
	return files, nil
}

// viridisControls are five colours of matplotlib's viridis, dark to light
// (increasing luminance, as moreland.NewLuminance asks): perceptually
// uniform, readable in grey and by the colour-blind.
var viridisControls = []color.Color{
	color.NRGBA{0x44, 0x01, 0x54, 0xff},
	color.NRGBA{0x3b, 0x52, 0x8b, 0xff},
	color.NRGBA{0x21, 0x91, 0x8c, 0xff},
	color.NRGBA{0x5e, 0xc9, 0x62, 0xff},
	color.NRGBA{0xfd, 0xe7, 0x25, 0xff},
}

// A colourScale maps values to colours: position 0 (dark) to 1 (light)
// along viridis, linear in log10 of the value on a log scale.
type colourScale struct {
	log    bool
	lo, hi float64 // in log10 units on a log scale
	cmap   gpalette.ColorMap
	ticks  []plot.Tick // in value units
}

// newColourScale covers the finite values: whole decades on a log scale
// (at least one), else a linear range snapped to round ticks.
func newColourScale(values [][]float64) colourScale {
	lo, hi := math.Inf(1), math.Inf(-1)
	positive := true
	for _, row := range values {
		for _, v := range row {
			if finite(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
				positive = positive && v > 0
			}
		}
	}
	cmap, err := moreland.NewLuminance(viridisControls)
	if err != nil {
		panic(err) // the controls are fixed, and increase in luminance
	}
	cmap.SetMin(0)
	cmap.SetMax(1)
	s := colourScale{log: positive, cmap: cmap}
	if positive {
		s.lo, s.hi = math.Floor(math.Log10(lo)+1e-9), math.Ceil(math.Log10(hi)-1e-9)
		if s.hi <= s.lo {
			s.hi = s.lo + 1
		}
		s.ticks = logTicks{notation: scientific}.Ticks(math.Pow(10, s.lo), math.Pow(10, s.hi))
		return s
	}
	if hi == lo {
		d := math.Max(math.Abs(lo)/2, 1)
		lo, hi = lo-d, hi+d
	}
	t := linTicks{maxLabels: 6}
	s.lo, s.hi = snapRange(lo, hi, t)
	s.ticks = t.Ticks(s.lo, s.hi)
	return s
}

// pos is the place of a value on the scale, 0 to 1.
func (s colourScale) pos(v float64) float64 {
	if s.log {
		v = math.Log10(v)
	}
	return math.Max(0, math.Min(1, (v-s.lo)/(s.hi-s.lo)))
}

func (s colourScale) colour(v float64) color.Color {
	c, err := s.cmap.At(s.pos(v))
	if err != nil {
		panic(err) // pos is within [0, 1]
	}
	return c
}

// relativeLuminance is WCAG 2's relative luminance of a colour.
func relativeLuminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		x := float64(v) / 0xffff
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// contrast is WCAG 2's contrast ratio of two colours, 1 to 21.
func contrast(a, b color.Color) float64 {
	la, lb := relativeLuminance(a), relativeLuminance(b)
	return (math.Max(la, lb) + 0.05) / (math.Min(la, lb) + 0.05)
}

// textOn is black or white, whichever contrasts more with the fill.
func textOn(fill color.Color) color.Color {
	if contrast(fill, color.Black) >= contrast(fill, color.White) {
		return color.Black
	}
	return color.White
}

var emptyCell = color.Gray{Y: 0xf0}

// Heat map layout, in points.
var (
	cellPadX   = vg.Points(5)
	cellPadY   = vg.Points(3.5)
	barWidth   = vg.Points(10)
	barGap     = vg.Points(12) // between the grid and the colour bar
	barMin     = vg.Points(90) // the least height of the colour bar
	barTickLen = vg.Points(3)
	heatMinW   = vg.Points(400) // the least width: a small table's title and caption in a few lines
)

// heatLayout is the heat map's size and where its parts go, measured once
// and used for every format.
type heatLayout struct {
	w, h                  vg.Length
	cw, ch                vg.Length // cell size
	gridLeft, gridTop     vg.Length // from the left and from the top
	rowFieldW, rowLabelW  vg.Length
	colFieldH, colLabelH  vg.Length
	barH, tickLabelW      vg.Length
	barLabelW             vg.Length
	shift                 vg.Length // of the grid and colour bar, centring them in a heat map widened to heatMinW
	title, caption        []string
	titleH, captionLineH  vg.Length
	scale                 colourScale
	cellText, label, axis text.Style
	titleStyle, capStyle  text.Style
	barLabel              []string
}

func (h *HeatMap) layout() heatLayout {
	l := heatLayout{scale: newColourScale(h.Values)}
	l.cellText = textStyle(tickSize, draw.XCenter, draw.YCenter)
	l.label = textStyle(tickSize, draw.XCenter, draw.YCenter)
	l.axis = textStyle(labelSize, draw.XCenter, draw.YCenter)
	l.titleStyle = textStyle(titleSize, draw.XCenter, draw.YTop)
	l.capStyle = textStyle(captionSize, draw.XLeft, draw.YBottom)

	for _, row := range h.Text {
		for _, t := range row {
			l.cw = max(l.cw, l.cellText.Width(t))
		}
	}
	for _, c := range h.Columns {
		l.cw = max(l.cw, l.label.Width(c))
	}
	l.cw += 2 * cellPadX
	l.ch = l.cellText.Height("0.5") + 2*cellPadY
	for _, r := range h.Rows {
		l.rowLabelW = max(l.rowLabelW, l.label.Width(r))
	}
	if h.RowField != "" {
		l.rowFieldW = l.axis.Height(h.RowField) + gap
	}
	if h.ColumnField != "" {
		l.colFieldH = l.axis.Height(h.ColumnField) + gap
	}
	l.colLabelH = l.label.Height("0.5") + gap
	gridW := vg.Length(len(h.Columns)) * l.cw
	gridH := vg.Length(len(h.Rows)) * l.ch
	l.barH = max(gridH, barMin)
	for _, t := range l.scale.ticks {
		if t.Label != "" {
			l.tickLabelW = max(l.tickLabelW, l.label.Width(t.Label))
		}
	}
	l.barLabel = wrap(l.axis, h.ValueLabel, l.barH)
	if h.ValueLabel != "" {
		l.barLabelW = l.axis.Height(strings.Join(l.barLabel, "\n")) + gap
	}
	l.gridLeft = pad + l.rowFieldW + l.rowLabelW + gap
	l.w = l.gridLeft + gridW + barGap + barWidth + barTickLen + gap + l.tickLabelW + gap + l.barLabelW + pad
	if l.w < heatMinW {
		l.shift = (heatMinW - l.w) / 2
		l.gridLeft += l.shift
		l.w = heatMinW
	}

	top := pad
	if h.Title != "" {
		l.title = wrap(l.titleStyle, h.Title, l.w-2*pad)
		l.titleH = l.titleStyle.Height(strings.Join(l.title, "\n")) + pad
	}
	l.gridTop = top + l.titleH + l.colFieldH + l.colLabelH
	for _, line := range h.caption(l.scale) {
		l.caption = append(l.caption, wrap(l.capStyle, line, l.w-2*pad)...)
	}
	l.captionLineH = l.capStyle.Height("Mg") * 1.2
	l.h = l.gridTop + l.barH + pad + vg.Length(len(l.caption))*l.captionLineH + pad
	return l
}

// caption is the heat map's caption: the caller's lines, then what the
// colours and the outlines mean.
func (h *HeatMap) caption(s colourScale) []string {
	lines := slices.Clone(h.Caption)
	scale := "Colour: a log scale (every value is > 0), dark for low values, light for high"
	if !s.log {
		scale = "Colour: a linear scale (some value is ≤ 0), dark for low values, light for high"
	}
	if slices.ContainsFunc(h.Values, func(r []float64) bool { return slices.ContainsFunc(r, math.IsNaN) }) {
		scale += "; grey cells are empty"
	}
	if h.Best != nil && h.BestNote != "" {
		scale += "; outlined: " + h.BestNote
	}
	return append(lines, scale+".")
}

// A heatCell is one cell as drawn: where, its fill, its text and the
// text's colour (ink), and whether it is outlined.
type heatCell struct {
	row, col  int
	rect      vg.Rectangle
	fill, ink color.Color
	text      string
	best      bool
}

// cells places the cells of a grid whose top left corner is (gridL,
// gridT): row i, column j at [gridL + j·cw, gridL + (j+1)·cw] ×
// [gridT − (i+1)·ch, gridT − i·ch]. An empty (non-finite) cell is grey and
// says nothing.
func (h *HeatMap) cells(l heatLayout, gridL, gridT vg.Length) []heatCell {
	var out []heatCell
	for i, row := range h.Values {
		for j, v := range row {
			c := heatCell{row: i, col: j, fill: emptyCell,
				rect: vg.Rectangle{
					Min: vg.Point{X: gridL + vg.Length(j)*l.cw, Y: gridT - vg.Length(i+1)*l.ch},
					Max: vg.Point{X: gridL + vg.Length(j+1)*l.cw, Y: gridT - vg.Length(i)*l.ch},
				},
				best: h.Best != nil && h.Best[i][j],
			}
			if finite(v) {
				c.fill = l.scale.colour(v)
				c.text = h.Text[i][j]
			}
			c.ink = textOn(c.fill)
			out = append(out, c)
		}
	}
	return out
}

// draw draws the heat map on a canvas of the layout's size.
func (h *HeatMap) draw(dc draw.Canvas, l heatLayout) {
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	top := dc.Max.Y
	if len(l.title) > 0 {
		dc.FillText(l.titleStyle, vg.Point{X: dc.Center().X, Y: top - pad}, strings.Join(l.title, "\n"))
	}
	gridL := dc.Min.X + l.gridLeft
	gridT := top - l.gridTop
	h.drawLabels(dc, l, gridL, gridT)
	h.drawCells(dc, l, gridL, gridT)
	h.drawColourBar(dc, l, gridL+vg.Length(len(h.Columns))*l.cw+barGap, gridT-l.barH)
	for i, line := range l.caption {
		cy := dc.Min.Y + pad + vg.Length(len(l.caption)-1-i)*l.captionLineH
		dc.FillText(l.capStyle, vg.Point{X: dc.Min.X + pad, Y: cy}, line)
	}
}

// drawLabels draws the axes of a grid whose top left corner is (gridL,
// gridT): the column field over the column labels, the row field (turned)
// left of the row labels.
func (h *HeatMap) drawLabels(dc draw.Canvas, l heatLayout, gridL, gridT vg.Length) {
	gridW := vg.Length(len(h.Columns)) * l.cw
	gridH := vg.Length(len(h.Rows)) * l.ch
	if h.ColumnField != "" {
		place(dc, l.axis, h.ColumnField, gridL+gridW/2, gridT+l.colLabelH+l.colFieldH-gap, 0.5, 1)
	}
	for j, c := range h.Columns {
		place(dc, l.label, c, gridL+(vg.Length(j)+0.5)*l.cw, gridT+gap, 0.5, 0)
	}
	if h.RowField != "" {
		rot := l.axis
		rot.Rotation = math.Pi / 2
		place(dc, rot, h.RowField, dc.Min.X+pad+l.shift, gridT-gridH/2, 0, 0.5)
	}
	for i, r := range h.Rows {
		place(dc, l.label, r, gridL-gap, gridT-(vg.Length(i)+0.5)*l.ch, 1, 0.5)
	}
}

// drawCells draws the cells, with white rules between them, then the
// outlines of the best ones: black outside and white inside, which shows
// on any fill.
func (h *HeatMap) drawCells(dc draw.Canvas, l heatLayout, gridL, gridT vg.Length) {
	cells := h.cells(l, gridL, gridT)
	for _, c := range cells {
		dc.SetColor(c.fill)
		dc.Fill(c.rect.Path())
		dc.SetLineStyle(draw.LineStyle{Color: color.White, Width: vg.Points(0.75)})
		dc.Stroke(c.rect.Path())
		if c.text != "" {
			sty := l.cellText
			sty.Color = c.ink
			place(dc, sty, c.text, (c.rect.Min.X+c.rect.Max.X)/2, (c.rect.Min.Y+c.rect.Max.Y)/2, 0.5, 0.5)
		}
	}
	for _, c := range cells {
		if !c.best {
			continue
		}
		for _, o := range []struct {
			inset, width vg.Length
			c            color.Color
		}{{vg.Points(1), vg.Points(2), color.Black}, {vg.Points(2.4), vg.Points(0.8), color.White}} {
			r := c.rect
			in := vg.Rectangle{Min: vg.Point{X: r.Min.X + o.inset, Y: r.Min.Y + o.inset}, Max: vg.Point{X: r.Max.X - o.inset, Y: r.Max.Y - o.inset}}
			dc.SetLineStyle(draw.LineStyle{Color: o.c, Width: o.width})
			dc.Stroke(in.Path())
		}
	}
}

// drawColourBar draws the colour bar with its lower left corner at (barL,
// barB): slices of the scale, bottom (dark, low) to top, its ticks and
// their labels, and its label (turned) at the right edge.
func (h *HeatMap) drawColourBar(dc draw.Canvas, l heatLayout, barL, barB vg.Length) {
	const slicesN = 96
	for k := range slicesN {
		p0, p1 := float64(k)/slicesN, float64(k+1)/slicesN
		c, err := l.scale.cmap.At((p0 + p1) / 2)
		if err != nil {
			panic(err)
		}
		r := vg.Rectangle{
			Min: vg.Point{X: barL, Y: barB + vg.Length(p0)*l.barH},
			Max: vg.Point{X: barL + barWidth, Y: barB + vg.Length(p1)*l.barH + vg.Points(0.3)}, // overlap: no seams
		}
		if k == slicesN-1 {
			r.Max.Y = barB + l.barH
		}
		dc.SetColor(c)
		dc.Fill(r.Path())
	}
	bar := vg.Rectangle{Min: vg.Point{X: barL, Y: barB}, Max: vg.Point{X: barL + barWidth, Y: barB + l.barH}}
	dc.SetLineStyle(draw.LineStyle{Color: color.Black, Width: vg.Points(0.5)})
	dc.Stroke(bar.Path())
	for _, t := range l.scale.ticks {
		ty := barB + vg.Length(l.scale.pos(t.Value))*l.barH
		n := barTickLen / 2
		if t.Label != "" {
			n = barTickLen
		}
		dc.StrokeLine2(draw.LineStyle{Color: color.Black, Width: vg.Points(0.5)}, bar.Max.X, ty, bar.Max.X+n, ty)
		if t.Label != "" {
			place(dc, l.label, t.Label, bar.Max.X+barTickLen+gap, ty, 0, 0.5)
		}
	}
	if len(l.barLabel) > 0 {
		rot := l.axis
		rot.Rotation = math.Pi / 2
		place(dc, rot, strings.Join(l.barLabel, "\n"), dc.Max.X-pad-l.shift, barB+l.barH/2, 1, 0.5)
	}
}
