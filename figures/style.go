package figures

import (
	"image/color"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// palette is the Okabe–Ito colour-blind-safe palette with Tol's wine in
// place of its yellow (too faint on white).
var palette = []color.Color{
	color.RGBA{0x00, 0x72, 0xb2, 0xff}, // blue
	color.RGBA{0xd5, 0x5e, 0x00, 0xff}, // vermilion
	color.RGBA{0x00, 0x9e, 0x73, 0xff}, // bluish green
	color.RGBA{0xcc, 0x79, 0xa7, 0xff}, // reddish purple
	color.RGBA{0xe6, 0x9f, 0x00, 0xff}, // orange
	color.RGBA{0x56, 0xb4, 0xe9, 0xff}, // sky blue
	color.RGBA{0x00, 0x00, 0x00, 0xff}, // black
	color.RGBA{0x88, 0x22, 0x55, 0xff}, // wine
	color.RGBA{0x99, 0x99, 0x99, 0xff}, // grey: baselines and bounds only (methodLooks)
}

// cycle is how many colours of the palette the series without a look of
// their own cycle through: all but the grey.
const cycle = 8

// markers: filled shapes first, then hollow ones, so that a series drawn
// over another with a hollow marker lets the one below show through.
var markers = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{},
	draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{},
}

// The dash patterns of the measured and the theory lines, by cycle of the
// palette: the first 8 series draw solid measured lines and dashed theory
// lines, the next 8 dash-dotted and dash-dot-dotted ones, and so on.
var (
	measuredDashes = [][]vg.Length{
		nil,
		{vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2)},
		{vg.Points(2.5), vg.Points(1.5)},
	}
	theoryDashes = [][]vg.Length{
		{vg.Points(5), vg.Points(3)},
		{vg.Points(5), vg.Points(2), vg.Points(1.5), vg.Points(2), vg.Points(1.5), vg.Points(2)},
		{vg.Points(9), vg.Points(3)},
	}
	refDots = []vg.Length{vg.Points(1.5), vg.Points(2)}
)

// A seriesStyle is how one series is drawn in every panel of a figure: a
// colour, a marker and the dash patterns of its measured and theory lines.
type seriesStyle struct {
	Color          color.Color
	Marker         draw.GlyphDrawer
	Dashes, Theory []vg.Length
}

// A look codes a seriesStyle as one int, colour c, marker m and dash cycle
// d as c + 8·(m + 7·d), so that the drawing functions below take the look
// of a series as they took its index. -1 is no series (a reference in
// black).
func lookCode(colour, marker, dash int) int {
	return colour + len(palette)*(marker+len(markers)*dash)
}

// ordinalLook is the look of the i-th series of a figure whose label has
// no look of its own (methodLooks): colour i mod 8, marker i mod 7, dash
// cycle (i div 8) mod 3, so that no two of the first 24 share a (colour,
// dash) pair, nor any two of the first 56 a (colour, marker) pair: series
// that share a colour differ in the dashes of both their measured and
// theory lines, and in their marker.
func ordinalLook(i int) int {
	return lookCode(i%cycle, i%len(markers), (i/cycle)%len(measuredDashes))
}

func styleOf(look int) seriesStyle {
	c, m := look%len(palette), (look/len(palette))%len(markers)
	d := look / (len(palette) * len(markers)) % len(measuredDashes)
	return seriesStyle{Color: palette[c], Marker: markers[m], Dashes: measuredDashes[d], Theory: theoryDashes[d]}
}

func seriesColor(look int) color.Color { return styleOf(look).Color }

// bandColor is the series colour at a quarter of its opacity.
func bandColor(look int) color.Color {
	r, g, b, _ := seriesColor(look).RGBA()
	return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0x40}
}

// measuredLine is thicker without markers, so that colour and dashes alone
// tell the series apart.
func measuredLine(look int, linesOnly bool) draw.LineStyle {
	st := styleOf(look)
	w := vg.Points(1)
	if linesOnly {
		w = vg.Points(1.75)
	}
	return draw.LineStyle{Color: st.Color, Width: w, Dashes: st.Dashes}
}

func theoryLine(look int) draw.LineStyle {
	st := styleOf(look)
	return draw.LineStyle{Color: st.Color, Width: vg.Points(1.25), Dashes: st.Theory}
}

func glyph(look int) draw.GlyphStyle {
	st := styleOf(look)
	return draw.GlyphStyle{Color: st.Color, Radius: vg.Points(2.5), Shape: st.Marker}
}

// refColor is the colour of a reference: its series' colour, or black
// (look -1).
func refColor(look int) color.Color {
	if look < 0 {
		return color.Black
	}
	return seriesColor(look)
}

// refLine is dotted, unlike the solid measured and the dashed theory lines.
func refLine(c color.Color) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(1.25), Dashes: refDots}
}

// refGlyph is a hollow diamond, a shape no measured series uses.
func refGlyph(c color.Color) draw.GlyphStyle {
	return draw.GlyphStyle{Color: c, Radius: vg.Points(3.75), Shape: hollowDiamond{}}
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

// dashGlyph marks a theory value at one x (a theory known at a single x,
// or a category): a short horizontal stroke in the series' theory dashes,
// as wide as the glyph, in the colour of the series' look (through
// theoryLine), so GlyphStyle.Color is unused.
type dashGlyph struct{ look int }

func (d dashGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	ls := theoryLine(d.look)
	ls.Dashes = shortDashes(ls.Dashes, 2*sty.Radius)
	c.StrokeLine2(ls, pt.X-sty.Radius, pt.Y, pt.X+sty.Radius, pt.Y)
}

// shortDashes scales a dash pattern so that one period fits in width,
// keeping its shape: a short stroke still shows its pattern.
func shortDashes(d []vg.Length, width vg.Length) []vg.Length {
	var period vg.Length
	for _, v := range d {
		period += v
	}
	if period <= width || period == 0 {
		return d
	}
	out := make([]vg.Length, len(d))
	for i, v := range d {
		out[i] = v * width / period
	}
	return out
}
