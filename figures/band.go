package figures

import (
	"errors"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Band implements plot.Plotter, plot.DataRanger and plot.Thumbnailer,
// shading the region between a lower and an upper bound, such as a
// confidence interval. An x whose bounds are not both finite breaks the
// band; an x standing alone between breaks is drawn as a short bar. A
// bound beyond the axis is drawn at its edge.
type Band struct {
	// X, Lo and Hi are copies of the band's abscissae (sorted) and bounds.
	X, Lo, Hi []float64

	// Color fills the band.
	Color color.Color

	// Edge, when its width is > 0, outlines the band: the upper edge, and
	// the lower edge where it is within the axis.
	Edge draw.LineStyle

	// Open lets the lower edge run off the bottom of the axis: it does not
	// widen the y range (DataRange), and where it is below the axis, or ≤ 0
	// on a log axis (mean − sd of a spread as large as the mean), the band
	// is filled to the bottom edge, with no edge line there (open). For a
	// log y axis, whose range the means set: a lower bound ≤ 0 has no
	// place on it, and one just above 0 would drag it down by decades.
	Open bool
}

var (
	_ plot.Plotter     = (*Band)(nil)
	_ plot.DataRanger  = (*Band)(nil)
	_ plot.Thumbnailer = (*Band)(nil)
)

// NewBand returns a band with a light grey fill; x, lo and hi must have the
// same length and x must be finite and sorted.
func NewBand(x, lo, hi []float64) (*Band, error) {
	if len(lo) != len(x) || len(hi) != len(x) {
		return nil, errors.New("figures: band bounds differ in length from x")
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) || (i > 0 && v < x[i-1]) {
			return nil, errors.New("figures: band x must be finite and sorted")
		}
	}
	return &Band{
		X:     append([]float64(nil), x...),
		Lo:    append([]float64(nil), lo...),
		Hi:    append([]float64(nil), hi...),
		Color: color.Gray{Y: 0xd0},
	}, nil
}

// known reports whether the band is defined at index i.
func (b *Band) known(i int) bool {
	return finite(b.Lo[i]) && finite(b.Hi[i])
}

// Plot implements plot.Plotter.
func (b *Band) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	// A bound below the axis (≤ 0 on a log axis) is drawn at its bottom
	// edge, and one above it at its top: trY of a value ≤ 0 on a log
	// axis is not a number.
	y := func(v float64) (vg.Length, bool) {
		switch {
		case v > plt.Y.Max:
			return c.Max.Y, false
		case !inAxis(plt.Y, v):
			return c.Min.Y, false
		}
		return trY(v), true
	}
	edges := b.Edge.Width > 0
	for start := 0; start < len(b.X); {
		if !b.known(start) {
			start++
			continue
		}
		end := start
		for end < len(b.X) && b.known(end) {
			end++
		}
		lo := make([]vg.Point, 0, end-start)
		hi := make([]vg.Point, 0, end-start)
		in := make([]bool, 0, end-start) // the lower edge within the axis
		for i := start; i < end; i++ {
			x := trX(b.X[i])
			l, ok := y(b.Lo[i])
			h, _ := y(b.Hi[i])
			lo, hi, in = append(lo, vg.Point{X: x, Y: l}), append(hi, vg.Point{X: x, Y: h}), append(in, ok)
		}
		if end-start == 1 {
			bar := c.ClipLinesX([]vg.Point{lo[0], hi[0]})
			c.StrokeLines(draw.LineStyle{Color: b.Color, Width: vg.Points(4)}, bar...)
		} else {
			poly := append(slices.Clone(lo), reversed(hi)...)
			c.FillPolygon(b.Color, c.ClipPolygonX(poly))
			if edges {
				c.StrokeLines(b.Edge, c.ClipLinesX(hi)...)
				// The lower edge between two bounds within the axis.
				for i := 1; i < len(lo); i++ {
					if in[i-1] && in[i] {
						c.StrokeLines(b.Edge, c.ClipLinesX(lo[i-1:i+1])...)
					}
				}
			}
		}
		start = end
	}
}

func reversed(p []vg.Point) []vg.Point {
	out := slices.Clone(p)
	slices.Reverse(out)
	return out
}

// DataRange implements plot.DataRanger over the x where the band is
// defined: its bounds, or, when Open, its upper bounds alone.
func (b *Band) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for i, x := range b.X {
		if !b.known(i) {
			continue
		}
		xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
		lo := math.Min(b.Lo[i], b.Hi[i])
		if b.Open {
			lo = b.Hi[i]
		}
		ymin = math.Min(ymin, lo)
		ymax = math.Max(ymax, math.Max(b.Lo[i], b.Hi[i]))
	}
	return xmin, xmax, ymin, ymax
}

// Thumbnail implements plot.Thumbnailer: a filled rectangle, with its
// upper and lower edges when the band has them.
func (b *Band) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{
		{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y},
		{X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y},
	}
	c.FillPolygon(b.Color, c.ClipPolygonY(pts))
	if b.Edge.Width > 0 {
		c.StrokeLine2(b.Edge, c.Min.X, c.Min.Y, c.Max.X, c.Min.Y)
		c.StrokeLine2(b.Edge, c.Min.X, c.Max.Y, c.Max.X, c.Max.Y)
	}
}

// bandAlpha is the opacity of the fill of each of n bands: a quarter for
// one or two, less for more, so that where all overlap (on a log axis,
// where every open band runs to the bottom edge) their combined opacity
// 1 − (1 − a)ⁿ stays near 45% (from 6% each at 10 bands on, it grows
// again). Their edges tell overlapping bands apart.
func bandAlpha(n int) float64 {
	return min(0.25, max(0.06, 1-math.Pow(0.55, 1/float64(max(n, 1)))))
}

// bandStyle is the fill and the edges of the band of a series of the given
// look in a figure of n banded series.
func bandStyle(look, n int) (color.Color, draw.LineStyle) {
	r, g, bl, _ := seriesColor(look).RGBA()
	fill := color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), uint8(math.Round(255 * bandAlpha(n)))}
	edge := color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 0x99}
	return fill, draw.LineStyle{Color: edge, Width: vg.Points(0.5)}
}

// newBand is the band of a series of the given look in a panel: its
// colour, lighter the more series the figure bands, its edges, and, on a
// log y axis, open below.
func (f *Figure) newBand(x, lo, hi []float64, look int) *Band {
	band, err := NewBand(x, lo, hi)
	if err != nil {
		panic(err) // Project sorts x and keeps it finite
	}
	band.Color, band.Edge = bandStyle(look, len(f.Series))
	band.Open = f.Spec.LogY
	return band
}

// countOpen counts, once the axes are set, the band lower bounds that run
// off the bottom of a log y axis (≤ 0, or below the axis), for the caption.
func (f *Figure) countOpen(cells []cell) {
	f.openBands = 0
	if !f.Spec.banded() || !f.Spec.LogY {
		return
	}
	for i, c := range cells {
		for _, s := range f.Panels[i].Series {
			for _, pt := range s.Points {
				if finite(pt.Lo) && finite(pt.Hi) && !inAxis(c.main.Y, pt.Lo) && pt.Lo < c.main.Y.Max {
					f.openBands++
				}
			}
		}
	}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
