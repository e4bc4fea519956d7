package figures

// The legend of a figure: one entry per series, per reference and for the
// theory lines.

import (
	"image/color"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

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
