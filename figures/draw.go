package figures

// Drawing a laid-out figure on a canvas: the background, the title, the
// caption, each panel's plots with their titles and axis labels, and the
// legend.

import (
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

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
