package figures

import (
	"errors"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Band implements plot.Plotter, plot.DataRanger and plot.Thumbnailer,
// shading the region between a lower and an upper bound, such as a
// confidence interval. An x whose bounds are not both finite breaks the
// band; an x standing alone between breaks is drawn as a short bar.
type Band struct {
	// X, Lo and Hi are copies of the band's abscissae (sorted) and bounds.
	X, Lo, Hi []float64

	// Color fills the band.
	Color color.Color
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
	for start := 0; start < len(b.X); {
		if !b.known(start) {
			start++
			continue
		}
		end := start
		for end < len(b.X) && b.known(end) {
			end++
		}
		if end-start == 1 {
			x := trX(b.X[start])
			bar := c.ClipLinesY([]vg.Point{{X: x, Y: trY(b.Lo[start])}, {X: x, Y: trY(b.Hi[start])}})
			c.StrokeLines(draw.LineStyle{Color: b.Color, Width: vg.Points(4)}, bar...)
		} else {
			poly := make([]vg.Point, 0, 2*(end-start))
			for i := start; i < end; i++ {
				poly = append(poly, vg.Point{X: trX(b.X[i]), Y: trY(b.Lo[i])})
			}
			for i := end - 1; i >= start; i-- {
				poly = append(poly, vg.Point{X: trX(b.X[i]), Y: trY(b.Hi[i])})
			}
			c.FillPolygon(b.Color, c.ClipPolygonXY(poly))
		}
		start = end
	}
}

// DataRange implements plot.DataRanger over the x where the band is defined.
func (b *Band) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for i, x := range b.X {
		if !b.known(i) {
			continue
		}
		xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
		ymin = math.Min(ymin, math.Min(b.Lo[i], b.Hi[i]))
		ymax = math.Max(ymax, math.Max(b.Lo[i], b.Hi[i]))
	}
	return xmin, xmax, ymin, ymax
}

// Thumbnail implements plot.Thumbnailer: a filled rectangle.
func (b *Band) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{
		{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y},
		{X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y},
	}
	c.FillPolygon(b.Color, c.ClipPolygonY(pts))
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
