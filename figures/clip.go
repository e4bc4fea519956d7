package figures

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A confidence interval does not set a panel's y axis: the means, the
// theory and the references do, and an interval may reach beyond them by
// ciReach times their span (their span in decades on a log axis, at least
// minLogSpan). A bar cut there ends in an arrowhead pointing on, and the
// caption counts the cut bars, so that nothing is hidden, while a quick
// run's interval forty times its mean no longer flattens every point of
// the panel into one line.
const (
	ciReach    = 1.0
	minLogSpan = 0.5
)

// cutIntervals cuts the error bars and bands of a panel to the reach of
// its means, theory and references (boxes have a rule of their own),
// marking each cut end of a Point (LoCut, HiCut). A band's lower edge on a
// log axis keeps its own rule (open at the panel's bottom, bandOpen).
func (f *Figure) cutIntervals(p *Panel) {
	if f.Spec.boxed() {
		return
	}
	banded := f.Spec.banded()
	logY := f.Spec.LogY
	to := func(v float64) float64 {
		if logY {
			return math.Log10(v)
		}
		return v
	}
	from := func(v float64) float64 {
		if logY {
			return math.Pow(10, v)
		}
		return v
	}
	a, b := math.Inf(1), math.Inf(-1)
	add := func(v float64) {
		if finite(v) && (!logY || v > 0) {
			a, b = math.Min(a, to(v)), math.Max(b, to(v))
		}
	}
	for _, s := range p.Series {
		for _, pt := range s.Points {
			add(pt.Mean)
		}
		for _, t := range s.Theory {
			add(t.Y)
		}
	}
	for _, r := range f.References {
		if r.Panel == "" || r.Panel == p.Value {
			for _, pt := range r.Points {
				add(pt.Y)
			}
		}
	}
	if a > b {
		return
	}
	span := b - a
	switch {
	case logY:
		span = math.Max(span, minLogSpan)
	case span == 0 && a == 0:
		return // no scale to measure a reach by
	case span == 0:
		span = math.Abs(a) // flat means: an interval may double the value
	}
	lo, hi := a-ciReach*span, b+ciReach*span
	for i := range p.Series {
		s := &p.Series[i]
		for j := range s.Points {
			pt := &s.Points[j]
			if !finite(pt.Lo) || !finite(pt.Hi) {
				continue
			}
			if !(banded && logY) && to(pt.Lo) < lo {
				pt.Lo, pt.LoCut = from(lo), true
				f.count(banded)
			}
			if to(pt.Hi) > hi {
				pt.Hi, pt.HiCut = from(hi), true
				f.count(banded)
			}
		}
	}
}

// count counts a cut end of a band (BandCut) or of an error bar (Cut).
func (f *Figure) count(band bool) {
	if band {
		f.BandCut++
		return
	}
	f.Cut++
}

// arrowhead ends a cut error bar: a filled triangle pointing on, up or
// down, its tip at the cut.
type arrowhead struct{ up bool }

func (a arrowhead) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius
	dir := vg.Length(1)
	if !a.up {
		dir = -1
	}
	var path vg.Path
	path.Move(vg.Point{X: pt.X, Y: pt.Y})
	path.Line(vg.Point{X: pt.X - r, Y: pt.Y - dir*1.6*r})
	path.Line(vg.Point{X: pt.X + r, Y: pt.Y - dir*1.6*r})
	path.Close()
	c.SetColor(sty.Color)
	c.Fill(path)
}

// addArrowheads marks the cut ends of a series' error bars.
func (f *Figure) addArrowheads(p *plot.Plot, s Series, off float64) {
	sty := draw.GlyphStyle{Color: seriesColor(f.look(s.Style)), Radius: vg.Points(2.5)}
	for _, pt := range s.Points {
		for _, end := range []struct {
			cut bool
			y   float64
			up  bool
		}{{pt.LoCut, pt.Lo, false}, {pt.HiCut, pt.Hi, true}} {
			if end.cut {
				sty.Shape = arrowhead{up: end.up}
				p.Add(&plotter.Scatter{XYs: plotter.XYs{{X: pt.X + off, Y: end.y}}, GlyphStyle: sty})
			}
		}
	}
}
