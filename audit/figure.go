package audit

import (
	"bufio"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ldpbench/ldpbench/results"
)

// The figure: a plot of fixed size (title, axes and data area), and under
// it a legend and a caption of the height they need.
var (
	figWidth   = 7 * vg.Inch
	plotHeight = 4.6 * vg.Inch
	figMargin  = vg.Points(10)
)

const figDPI = 300

// The axes fit the claimed ε, whatever the audit finds:
//
//   - x (claimed ε, log) runs from the smallest claim / xPad to the
//     largest · xPad, and spans a ratio of minSpan at least;
//   - y (audited ε, log) runs from the x axis's ends or, when audited
//     values lie beyond them, to the values within [lowFrac · smallest
//     claim, capMult · largest claim] (padded by yPad). An audited ε above
//     the axis (+Inf among them) is drawn in a band above it, its value
//     written beside it; one below it (0 among them: a Monte Carlo bound
//     that found no event) on its bottom edge, counted.
const (
	xPad      = 1.35
	minSpan   = 4.0
	capMult   = 2.0
	lowFrac   = 0.25
	yPad      = 1.2
	bandShare = 0.09 // of the y axis's height, for the band of values above it
)

// Colours: passes in blue, Monte Carlo bounds that pass in grey, each
// violating family in one of the other colours of the Okabe–Ito palette
// (and Tol's wine) with its own shape: filled for the exact or density
// audit, hollow for the Monte Carlo bound.
var (
	passColor  = color.RGBA{0x00, 0x72, 0xb2, 0xff}
	mcColor    = color.NRGBA{0x30, 0x30, 0x30, 0x80} // translucent: 36 bounds in a column show as a density
	violColors = []color.RGBA{
		{0xd5, 0x5e, 0x00, 0xff}, // vermilion
		{0x88, 0x22, 0x55, 0xff}, // wine
		{0xe6, 0x9f, 0x00, 0xff}, // orange
		{0xcc, 0x79, 0xa7, 0xff}, // reddish purple
		{0x00, 0x9e, 0x73, 0xff}, // bluish green
		{0x00, 0x00, 0x00, 0xff}, // black
	}
	violShapes = []shape{shapeSquare, shapeTriangle, shapeDiamond, shapeTriangleDown, shapeCircle}
	shadeColor = color.RGBA{0xfb, 0xe3, 0xd6, 0xff}
	bandColor  = color.Gray{Y: 0xee}
	gridColor  = color.Gray{Y: 0xdd}
)

// Mark and text sizes.
var (
	passRadius  = vg.Points(3.5)
	violRadius  = vg.Points(4.5)
	rugHalf     = vg.Points(4.5) // half the width of a Monte Carlo bound's dash
	labelSize   = font.Length(8)
	legendSize  = font.Length(8.5)
	captionSize = font.Length(8)
)

// WriteFigure draws audited against claimed ε, on log–log axes that fit
// the claimed ε, and writes dir/name.png and dir/name.svg atomically. The
// dashed diagonal is audited = claimed; above it (shaded) a row violates
// its claim, and each violating family has its own colour and shape
// (filled: exact or density, hollow: Monte Carlo), its excess written
// beside it. Rows at one point are drawn once with their count. An audited
// ε far above the claims, or +Inf, is drawn in a band above the axis with
// its value; one far below on the bottom edge. The caption lists them.
func WriteFigure(dir, name string, rows []Row) ([]string, error) {
	f, err := newAuditFigure(rows)
	if err != nil {
		return nil, err
	}
	w, h := f.size()
	var files []string
	for _, format := range []string{"png", "svg"} {
		var c vg.CanvasWriterTo
		switch format {
		case "png":
			c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(figDPI))}
		case "svg":
			c = vgsvg.New(w, h)
		}
		if err := f.draw(draw.New(c)); err != nil {
			return files, err
		}
		path := filepath.Join(dir, name+"."+format)
		if err := results.WriteFileAtomic(path, func(w *bufio.Writer) error {
			_, err := c.WriteTo(w)
			return err
		}); err != nil {
			return files, fmt.Errorf("audit figure: %w", err)
		}
		files = append(files, path)
	}
	return files, nil
}

// where says where a mark is drawn.
type where int

const (
	onScale where = iota
	above         // in the band above the y axis
	below         // on the bottom edge
)

// kind is what a mark shows.
type kind int

const (
	passLaw kind = iota // a pass by the exact or density audit
	passMC              // a Monte Carlo bound that found no violation
	violation
)

// A mark is the rows of one kind (and violating family, and method) at one
// (claimed, audited) point, drawn once.
type mark struct {
	kind  kind
	fam   int  // index in auditFigure.fams; -1 for a pass
	mc    bool // a Monte Carlo bound
	x, y  float64
	where where
	n     int       // rows at this point
	dx    vg.Length // offset of a mark in the band (marks there at one x are set side by side)
}

// family is a family with a violation.
type family struct {
	name, known string
	color       color.RGBA
	shape       shape
	exact, mc   int // violating rows
}

// A figLabel is a text beside a mark, placed where it overlaps no other
// label and no mark.
type figLabel struct {
	text  string
	color color.Color
	mark  int      // index in auditFigure.marks
	pref  position // where it goes first
	// Where it went, relative to the data area's lower left corner; placed
	// is false when it found no room (it is then listed in the caption).
	rect   vg.Rectangle
	leader bool // drawn away from its mark, with a line to it
	cross  bool // across the diagonal, on a white ground
	placed bool
}

// position is a label's place beside its mark.
type position int

const (
	right position = iota
	left
	under
	over
)

// auditFigure is the audit figure: the plot with its marks and labels, the
// legend and the caption.
type auditFigure struct {
	p *plot.Plot
	// The axes: x from xMin to xMax, y from yLo to yHi and, when a mark
	// is above the axis, on to yTop through the band.
	xMin, xMax, yLo, yHi, yTop float64
	xTicks, yTicks             []float64
	marks                      []mark
	fams                       []family
	labels                     []*figLabel
	yLabel                     text.Style
	legend                     []legendEntry
	caption                    []string
	dataW, dataH               vg.Length // the size of the data area
	rows, violations           int
}

func newAuditFigure(rows []Row) (f *auditFigure, err error) {
	defer func() {
		// gonum/plot reports some failures by panicking.
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("audit figure: drawing failed: %v", r)
		}
	}()
	if len(rows) == 0 {
		return nil, fmt.Errorf("audit figure: no rows")
	}
	f = &auditFigure{rows: len(rows)}
	cMin, cMax := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		if !(r.Claimed > 0) || math.IsInf(r.Claimed, 0) {
			return nil, fmt.Errorf("audit figure: %s: claimed ε = %v: must be finite and > 0", r.Name, r.Claimed)
		}
		cMin, cMax = min(cMin, r.Claimed), max(cMax, r.Claimed)
	}
	f.setRanges(rows, cMin, cMax)
	f.setMarks(rows)
	f.setPlot()
	f.setLabels()
	f.setLegend()
	f.place()
	f.setCaption(rows)
	return f, nil
}

// setRanges sets the axes from the claimed ε (see xPad and the constants
// after it).
func (f *auditFigure) setRanges(rows []Row, cMin, cMax float64) {
	pad := max(xPad, 1.05*math.Sqrt(minSpan*cMin/cMax)) // 1.05: the ticks at the ends inside
	f.xMin, f.xMax = cMin/pad, cMax*pad
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		if e := r.Epsilon; e >= lowFrac*cMin && e <= capMult*cMax {
			lo, hi = min(lo, e), max(hi, e)
		}
	}
	f.yLo, f.yHi = f.xMin, f.xMax
	if !math.IsInf(lo, 0) {
		f.yLo = min(f.yLo, lo/yPad)
		f.yHi = max(f.yHi, hi*yPad)
	}
	f.yTop = f.yHi
	for _, r := range rows {
		if r.Epsilon > f.yHi {
			f.yTop = f.yHi * math.Pow(f.yHi/f.yLo, bandShare/(1-bandShare))
			break
		}
	}
	f.xTicks = claimTicks(rows, f.xMin, f.xMax)
	if len(f.xTicks) < 3 {
		f.xTicks = doublingTicks(f.xTicks, f.xMin, f.xMax)
	}
	f.yTicks = doublingTicks(f.xTicks, f.yLo, f.yHi)
}

// claimTicks returns the claimed ε as ticks when there are at most 10 of
// them, a factor 1.2 apart at least; else 1, 2, 5 times the powers of 10.
func claimTicks(rows []Row, lo, hi float64) []float64 {
	var vs []float64
	for _, r := range rows {
		v := round(r.Claimed)
		if !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	slices.Sort(vs)
	ok := len(vs) <= 10
	for i := 1; ok && i < len(vs); i++ {
		ok = vs[i]/vs[i-1] >= 1.2
	}
	if ok {
		return vs
	}
	vs = vs[:0]
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		for _, m := range []float64{1, 2, 5} {
			if v := round(m * math.Pow(10, e)); v >= lo && v <= hi {
				vs = append(vs, v)
			}
		}
	}
	return vs
}

// doublingTicks returns the x ticks within [lo, hi] and the powers of 2
// there that are not within a factor 1.3 of one of them; every second
// power of 2 when more than 14 would be left.
func doublingTicks(xTicks []float64, lo, hi float64) []float64 {
	step := 1.0
	if math.Log2(hi/lo) > 14 {
		step = 2
	}
	var vs []float64
	near := func(v float64) bool {
		return slices.ContainsFunc(vs, func(w float64) bool { return max(v/w, w/v) < 1.3 })
	}
	for _, v := range xTicks {
		if v >= lo && v <= hi {
			vs = append(vs, v)
		}
	}
	for e := math.Ceil(math.Log2(lo)/step) * step; math.Exp2(e) <= hi; e += step {
		if v := math.Exp2(e); !near(v) {
			vs = append(vs, v)
		}
	}
	slices.Sort(vs)
	return vs
}

// round rounds to 9 significant digits: the claims 0.5 and
// 0.5000000000000002 are one.
func round(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 9, 64), 64)
	return r
}

// setMarks sorts the rows into marks: each violating family gets a colour
// and a shape, rows of one kind, family and method at one point make one
// mark (except the Monte Carlo passes, one dash each), and marks in the
// band at one x are set side by side.
func (f *auditFigure) setMarks(rows []Row) {
	for _, r := range rows {
		if math.IsNaN(r.Epsilon) {
			continue // listed in the caption
		}
		f.addMark(r)
	}
	f.setOffsets()
}

// famOf returns the index of a violating row's family, adding the family
// with the next colour and shape when it is new.
func (f *auditFigure) famOf(r Row) int {
	i := slices.IndexFunc(f.fams, func(fm family) bool { return fm.name == r.Family })
	if i < 0 {
		n := len(f.fams)
		c := violColors[n%len(violColors)]
		// Colour and shape advance together, and the shape moves on a
		// step more each time the colours come round: no two of the
		// first 30 families look alike.
		s := violShapes[(n+n/len(violColors))%len(violShapes)]
		f.fams = append(f.fams, family{name: r.Family, color: c, shape: s})
		i = n
	}
	if r.KnownIssue != "" {
		f.fams[i].known = r.KnownIssue
	}
	return i
}

// addMark adds a row to the mark of its kind, family and method at its
// point, or as a mark of its own.
func (f *auditFigure) addMark(r Row) {
	m := mark{kind: passLaw, fam: -1, mc: r.Method == MethodMonteCarlo, x: round(r.Claimed), y: r.Epsilon, n: 1}
	switch {
	case r.Verdict != Pass:
		m.kind = violation
		m.fam = f.famOf(r)
		f.violations++
		if m.mc {
			f.fams[m.fam].mc++
		} else {
			f.fams[m.fam].exact++
		}
	case m.mc:
		m.kind = passMC
	}
	switch {
	case m.y > f.yHi:
		m.where = above
	case !(m.y >= f.yLo):
		m.where = below
	}
	if m.kind != passMC || m.where != onScale {
		i := slices.IndexFunc(f.marks, func(o mark) bool {
			return o.kind == m.kind && o.fam == m.fam && o.mc == m.mc && o.x == m.x && (o.y == m.y || round(o.y) == round(m.y))
		})
		if i >= 0 {
			f.marks[i].n++
			return
		}
	}
	f.marks = append(f.marks, m)
}

// setOffsets sets the marks' sideways offsets: a Monte Carlo bound beside
// the exact mark at its claim, and the marks in the band at one x side by
// side.
func (f *auditFigure) setOffsets() {
	// A Monte Carlo bound is set beside the exact mark at its claim: a
	// violation to the left, where the diagonal is lower, a pass to the
	// right, where it is higher, so that each stays on its side of it.
	for i, m := range f.marks {
		switch {
		case !m.mc || m.where != onScale:
		case m.kind == violation:
			f.marks[i].dx = -2 * violRadius
		default:
			f.marks[i].dx = passRadius + rugHalf + vg.Points(5) // room under the pass for its count
		}
	}
	// Side by side in the band.
	for i := range f.marks {
		if f.marks[i].where != above {
			continue
		}
		var at []int
		for j := range f.marks {
			if f.marks[j].where == above && f.marks[j].x == f.marks[i].x {
				at = append(at, j)
			}
		}
		k := slices.Index(at, i)
		f.marks[i].dx = (vg.Length(k) - vg.Length(len(at)-1)/2) * (2*violRadius + vg.Points(2))
	}
}

// setPlot sets the axes, title and labels of the plot, and its one
// plotter, which draws everything in the data area.
func (f *auditFigure) setPlot() {
	p := plot.New()
	p.Title.Text = "Audited vs claimed ε"
	p.Title.TextStyle.Font.Size = font.Length(13)
	p.X.Label.Text = "claimed ε (log scale)"
	// The y label is drawn by draw: gonum/plot centres it at the mean of
	// the axis's ends in data units (high up on a log axis) and pads the
	// plot to fit it there.
	f.yLabel = p.Y.Label.TextStyle
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Min, p.X.Max = f.xMin, f.xMax
	p.Y.Min, p.Y.Max = f.yLo, f.yTop
	var xt, yt fixedTicks
	for _, v := range f.xTicks {
		xt = append(xt, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
	}
	for _, v := range f.yTicks {
		yt = append(yt, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
	}
	if f.yTop > f.yHi {
		yt = append(yt, plot.Tick{Value: math.Sqrt(f.yHi * f.yTop), Label: "off scale"})
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = xt, yt
	p.Add(marksPlotter{f})
	f.p = p
	dc := p.DataCanvas(draw.Canvas{Rectangle: f.axesRect(vg.Point{})})
	f.dataW, f.dataH = dc.Size().X, dc.Size().Y
}

// yLabelText is the y axis's label.
const yLabelText = "audited ε (log scale)"

// plotRect is the plot's rectangle in a figure whose upper left corner is
// at top; axesRect is the part of it right of the y label.
func (f *auditFigure) plotRect(top vg.Point) vg.Rectangle {
	return vg.Rectangle{
		Min: vg.Point{X: top.X + figMargin/2, Y: top.Y - plotHeight},
		Max: vg.Point{X: top.X + figWidth - figMargin, Y: top.Y - figMargin/2},
	}
}

func (f *auditFigure) axesRect(top vg.Point) vg.Rectangle {
	r := f.plotRect(top)
	r.Min.X += f.yLabel.Height(yLabelText) + vg.Points(4)
	return r
}

// fixedTicks is a tick marker that returns its ticks.
type fixedTicks []plot.Tick

func (t fixedTicks) Ticks(_, _ float64) []plot.Tick { return t }

// setLabels writes the labels: each violation's excess (a Monte Carlo
// bound's only where the family has no exact violation at that claim),
// each value above the axis, the count of rows at one pass, and the
// number of rows below the axis at each claim.
func (f *auditFigure) setLabels() {
	times := func(n int) string {
		if n > 1 {
			return fmt.Sprintf(" (×%d)", n)
		}
		return ""
	}
	var ls []*figLabel
	for i, m := range f.marks {
		if m.where != above {
			continue
		}
		clr := color.Color(color.Gray{Y: 0x20})
		if m.kind == violation {
			clr = darker(f.fams[m.fam].color)
		}
		ls = append(ls, &figLabel{text: num3(m.y) + times(m.n), color: clr, mark: i})
	}
	for pass := range 2 { // exact violations first
		for i, m := range f.marks {
			if m.kind != violation || m.where != onScale || m.mc != (pass == 1) {
				continue
			}
			txt := "+" + num3(m.y-m.x)
			if m.mc {
				if slices.ContainsFunc(f.marks, func(o mark) bool {
					return o.kind == violation && !o.mc && o.fam == m.fam && o.x == m.x
				}) {
					continue
				}
				txt = "≥ " + txt
			}
			ls = append(ls, &figLabel{text: txt, color: darker(f.fams[m.fam].color), mark: i})
		}
	}
	for i, m := range f.marks {
		if m.kind == passLaw && m.where == onScale && m.n > 1 {
			ls = append(ls, &figLabel{text: fmt.Sprintf("×%d", m.n), color: darker(passColor), mark: i, pref: under})
		}
	}
	var xs []float64
	for _, m := range f.marks {
		if m.where == below && !slices.Contains(xs, m.x) {
			xs = append(xs, m.x)
		}
	}
	for _, x := range xs {
		n, first := 0, -1
		for i, m := range f.marks {
			if m.where == below && m.x == x {
				n += m.n
				if first < 0 {
					first = i
				}
			}
		}
		ls = append(ls, &figLabel{text: fmt.Sprintf("%d below", n), color: color.Gray{Y: 0x20}, mark: first})
	}
	f.labels = ls
}

// num3 writes v to 3 significant digits.
func num3(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }

// darker returns a colour at 3/4 of its brightness, for text.
func darker(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.RGBA{uint8(r >> 8 * 3 / 4), uint8(g >> 8 * 3 / 4), uint8(b >> 8 * 3 / 4), 0xff}
}

// labelStyle is the text style of the labels in the plot.
func labelStyle() text.Style {
	sty := plot.New().X.Tick.Label
	sty.Font.Size = labelSize
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
	return sty
}

// markAt returns where mark i is drawn, relative to the data area's lower
// left corner, and its half size.
func (f *auditFigure) markAt(i int) (vg.Point, vg.Length) {
	m := f.marks[i]
	x := vg.Length(f.p.X.Norm(m.x))*f.dataW + m.dx
	var y vg.Length
	r := passRadius
	if m.kind == violation {
		r = violRadius
	}
	switch m.where {
	case onScale:
		y = vg.Length(f.p.Y.Norm(m.y)) * f.dataH
	case above:
		y = vg.Length(f.p.Y.Norm(math.Sqrt(f.yHi*f.yTop))) * f.dataH
	case below:
		y = r + vg.Points(1)
	}
	if m.kind == passMC && m.where == onScale {
		return vg.Point{X: x, Y: y}, rugHalf
	}
	return vg.Point{X: x, Y: y}, r
}

// markRect is the box a mark covers (a Monte Carlo dash is flat).
func (f *auditFigure) markRect(i int) vg.Rectangle {
	pt, r := f.markAt(i)
	h := r
	if f.marks[i].kind == passMC && f.marks[i].where == onScale {
		h = vg.Points(0.6)
	}
	return vg.Rectangle{Min: vg.Point{X: pt.X - r, Y: pt.Y - h}, Max: vg.Point{X: pt.X + r, Y: pt.Y + h}}
}

func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// place puts each label, in order, where it overlaps no mark and no
// label placed before it and stays in the data area (a label of a value
// above the axis in the band, any other below it). Of those places it
// takes the cheapest: next to its mark at its preferred position (right,
// left, under or over it) costs 0, at another 0.5; each half line further
// up or down (further out for under and over) costs 1, each mark's width
// further left or right 3, and crossing the diagonal 1.5 (a label away
// from its mark gets a line to it). A label that finds no room within 6
// lines and 2 marks' widths is left out, and listed in the caption.
func (f *auditFigure) place() {
	sty := labelStyle()
	var obstacles []vg.Rectangle
	for i := range f.marks {
		obstacles = append(obstacles, f.markRect(i))
	}
	bandLo := vg.Length(f.p.Y.Norm(f.yHi)) * f.dataH
	// The diagonal, from (x0, y0) to (x1, y1).
	x0, y0 := vg.Length(f.p.X.Norm(f.xMin))*f.dataW, vg.Length(f.p.Y.Norm(f.xMin))*f.dataH
	x1, y1 := vg.Length(f.p.X.Norm(f.xMax))*f.dataW, vg.Length(f.p.Y.Norm(f.xMax))*f.dataH
	side := func(x, y vg.Length) bool { return (x1-x0)*(y-y0)-(y1-y0)*(x-x0) > 0 }
	crosses := func(r vg.Rectangle) bool {
		s := side(r.Min.X, r.Min.Y)
		return side(r.Max.X, r.Min.Y) != s || side(r.Max.X, r.Max.Y) != s || side(r.Min.X, r.Max.Y) != s
	}
	gap, pad := vg.Points(2.5), vg.Points(0.75)
	step := 2*violRadius + gap
	for _, l := range f.labels {
		pt, r := f.markAt(l.mark)
		w, h := sty.Width(l.text), sty.Height(l.text)
		ylo, yhi := vg.Length(0), bandLo
		if f.marks[l.mark].where == above {
			ylo, yhi = bandLo, f.dataH
		}
		best := math.Inf(1)
		for k := 0; k <= 24; k++ {
			dy := vg.Length((k+1)/2) * h / 2
			if k%2 == 0 {
				dy = -dy
			}
			for j := range 3 {
				for _, pos := range []position{right, left, under, over} {
					if (pos == under || pos == over) && (j > 0 || k%2 == 0 && k > 0) {
						continue // under and over move away from the mark only
					}
					var at vg.Point // the label's lower left corner
					switch pos {
					case right:
						at = vg.Point{X: pt.X + r + gap + vg.Length(j)*step, Y: pt.Y + dy - h/2}
					case left:
						at = vg.Point{X: pt.X - r - gap - w - vg.Length(j)*step, Y: pt.Y + dy - h/2}
					case under:
						at = vg.Point{X: pt.X - w/2, Y: pt.Y - r - gap/2 - h - dy}
					case over:
						at = vg.Point{X: pt.X - w/2, Y: pt.Y + r + gap/2 + dy}
					}
					rect := vg.Rectangle{Min: at, Max: vg.Point{X: at.X + w, Y: at.Y + h}}
					cost := float64((k+1)/2) + 3*float64(j)
					if pos != l.pref {
						cost += 0.5
					}
					if cost >= best || rect.Min.X < 0 || rect.Max.X > f.dataW || rect.Min.Y < ylo || rect.Max.Y > yhi {
						continue
					}
					grown := vg.Rectangle{Min: vg.Point{X: rect.Min.X - pad, Y: rect.Min.Y - pad}, Max: vg.Point{X: rect.Max.X + pad, Y: rect.Max.Y + pad}}
					cross := crosses(grown)
					if cross {
						if cost += 1.5; cost >= best {
							continue
						}
					}
					if slices.ContainsFunc(obstacles, func(o vg.Rectangle) bool { return overlaps(grown, o) }) {
						continue
					}
					best = cost
					l.rect, l.placed, l.leader, l.cross = rect, true, j > 0 || k > 1, cross
				}
			}
		}
		if l.placed {
			obstacles = append(obstacles, l.rect)
		}
	}
}

// setCaption writes the caption: what a mark is, the values above and
// below the axis, the exact passes below the diagonal, the labels left
// out, and the rows without a value.
func (f *auditFigure) setCaption(rows []Row) {
	var ps []string
	ps = append(ps, fmt.Sprintf("%d rows, %d violating their claim. Each mark is one row of the audit (a mechanism at one ε, by one method) at its claimed ε (x) and audited ε (y, the log of the largest probability ratio found). Filled marks: the exact or density audit of the mechanism's law; hollow marks (set left of their claim) and grey dashes (right of it): Monte Carlo lower bounds (one-sided Clopper–Pearson). Rows at one point are drawn once (a pass with its count, ×n); the excess audited − claimed is written beside each violation.", f.rows, f.violations))
	// Values above and below the axis, by family (or pass) and method.
	for _, w := range []where{above, below} {
		items := f.offAxis(w)
		if len(items) == 0 {
			continue
		}
		if w == above {
			ps = append(ps, fmt.Sprintf("Above the axis (audited ε > %s), drawn in the grey band: %s. +Inf: an output possible under one input and not another, or a law that is not a probability law.", num3(f.yHi), strings.Join(items, "; ")))
		} else {
			ps = append(ps, fmt.Sprintf("Below the axis (audited ε < %s), drawn on its bottom edge: %s.", num3(f.yLo), strings.Join(items, "; ")))
		}
	}
	if items := loosePasses(rows); len(items) > 0 {
		ps = append(ps, "Below the diagonal by an exact audit (more private than claimed): "+strings.Join(items, "; ")+".")
	}
	var out []string
	for _, l := range f.labels {
		if !l.placed {
			m := f.marks[l.mark]
			out = append(out, fmt.Sprintf("%s at (%s, %s)", l.text, num(m.x), num(m.y)))
		}
	}
	if len(out) > 0 {
		ps = append(ps, "Not written in the plot for lack of room: "+strings.Join(out, "; ")+".")
	}
	var nan []string
	for _, r := range rows {
		if math.IsNaN(r.Epsilon) {
			nan = append(nan, r.Name+" ε = "+num(r.Eps))
		}
	}
	if len(nan) > 0 {
		ps = append(ps, fmt.Sprintf("Not drawn, no audited value: %s.", strings.Join(nan, "; ")))
	}
	f.caption = ps
}

// offAxis lists the values of the marks drawn at w (above or below the
// axis), off its scale, so that the caption gives them: by family (or
// pass) and method, each value with the claims (and counts) it was found
// at.
func (f *auditFigure) offAxis(w where) []string {
	// who → value → the claims (with counts) it was found at.
	type val struct {
		v      string
		claims []string
	}
	var items []string
	groups := map[string][]*val{}
	var order []string
	for _, m := range f.marks {
		if m.where != w {
			continue
		}
		who := "passes"
		if m.kind == violation {
			who = f.fams[m.fam].name
		}
		if m.mc {
			who += " (Monte Carlo)"
		} else {
			who += " (exact)"
		}
		if _, ok := groups[who]; !ok {
			order = append(order, who)
		}
		claim := num(m.x)
		if m.n > 1 {
			claim += fmt.Sprintf(" (×%d)", m.n)
		}
		i := slices.IndexFunc(groups[who], func(v *val) bool { return v.v == num3(m.y) })
		if i < 0 {
			groups[who] = append(groups[who], &val{v: num3(m.y)})
			i = len(groups[who]) - 1
		}
		groups[who][i].claims = append(groups[who][i].claims, claim)
	}
	for _, who := range order {
		var vs []string
		for _, v := range groups[who] {
			vs = append(vs, v.v+" at ε = "+strings.Join(v.claims, ", "))
		}
		items = append(items, who+" "+strings.Join(vs, "; "))
	}
	return items
}

// loosePasses lists, by family, the claims at which an exact audit passed
// well below the diagonal: looser than claimed.
func loosePasses(rows []Row) []string {
	loose := map[string][]string{}
	var order []string
	for _, r := range rows {
		if r.Verdict == Pass && r.Method != MethodMonteCarlo && r.Epsilon < r.Claimed*0.999 {
			if _, ok := loose[r.Family]; !ok {
				order = append(order, r.Family)
			}
			if v := num(r.Claimed); !slices.Contains(loose[r.Family], v) {
				loose[r.Family] = append(loose[r.Family], v)
			}
		}
	}
	var items []string
	for _, fam := range order {
		items = append(items, fam+" at ε = "+strings.Join(loose[fam], ", "))
	}
	return items
}

// A legendEntry is a thumbnail and its text.
type legendEntry struct {
	thumb func(c *draw.Canvas, r vg.Rectangle)
	text  string
}

func (f *auditFigure) setLegend() {
	e := []legendEntry{
		{func(c *draw.Canvas, r vg.Rectangle) {
			y := (r.Min.Y + r.Max.Y) / 2
			c.StrokeLine2(diagStyle(), r.Min.X, y, r.Max.X, y)
		}, "audited = claimed"},
		{func(c *draw.Canvas, r vg.Rectangle) { fillRect(c, r, shadeColor) }, "shaded: audited > claimed, a violation"},
	}
	count := func(k kind) int {
		n := 0
		for _, m := range f.marks {
			if m.kind == k {
				n += m.n
			}
		}
		return n
	}
	if n := count(passLaw); n > 0 {
		e = append(e, legendEntry{func(c *draw.Canvas, r vg.Rectangle) {
			drawShape(c, shapeCircle, true, passColor, center(r), passRadius)
		}, fmt.Sprintf("pass, exact or density audit (%d rows)", n)})
	}
	if n := count(passMC); n > 0 {
		e = append(e, legendEntry{func(c *draw.Canvas, r vg.Rectangle) {
			drawRug(c, center(r))
		}, fmt.Sprintf("pass, Monte Carlo lower bound (%d rows)", n)})
	}
	for _, fm := range f.fams {
		txt := "VIOLATION " + fm.name
		if fm.known != "" {
			txt += " [known: " + fm.known + "]"
		}
		var parts []string
		if fm.exact > 0 {
			parts = append(parts, fmt.Sprintf("%d exact", fm.exact))
		}
		if fm.mc > 0 {
			parts = append(parts, fmt.Sprintf("%d Monte Carlo", fm.mc))
		}
		txt += ": " + strings.Join(parts, ", ")
		e = append(e, legendEntry{func(c *draw.Canvas, r vg.Rectangle) {
			ctr := center(r)
			drawShape(c, fm.shape, true, fm.color, vg.Point{X: ctr.X - violRadius - vg.Points(1), Y: ctr.Y}, violRadius)
			drawShape(c, fm.shape, false, fm.color, vg.Point{X: ctr.X + violRadius + vg.Points(1), Y: ctr.Y}, violRadius)
		}, txt})
	}
	if f.yTop > f.yHi {
		e = append(e, legendEntry{func(c *draw.Canvas, r vg.Rectangle) {
			fillRect(c, r, bandColor)
			drawBreak(c, r.Min.X, r.Max.X, r.Min.Y+vg.Points(1.5))
		}, "off scale, audited > " + num3(f.yHi) + " or +Inf: value written"})
	}
	f.legend = e
}

func diagStyle() draw.LineStyle {
	return draw.LineStyle{Color: color.Gray{Y: 0x30}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
}

func fillRect(c *draw.Canvas, r vg.Rectangle, clr color.Color) {
	c.FillPolygon(clr, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
}

// drawBreak draws the zigzag of an axis break along y from x0 to x1.
func drawBreak(c *draw.Canvas, x0, x1, y vg.Length) {
	a := vg.Points(1.5)
	var pts []vg.Point
	for i, x := 0, x0; x <= x1; i, x = i+1, x+2*a {
		pts = append(pts, vg.Point{X: x, Y: y + a*vg.Length(1-2*(i%2))})
	}
	c.StrokeLines(draw.LineStyle{Color: color.Gray{Y: 0x80}, Width: vg.Points(0.7)}, pts)
}

func drawRug(c *draw.Canvas, pt vg.Point) {
	c.StrokeLine2(draw.LineStyle{Color: mcColor, Width: vg.Points(1.2)}, pt.X-rugHalf, pt.Y, pt.X+rugHalf, pt.Y)
}

// legendLayout returns the legend's columns (1 or 2), rows and height.
func (f *auditFigure) legendLayout() (cols, rows int, rowH, colW vg.Length) {
	sty := labelStyle()
	sty.Font.Size = legendSize
	var wMax vg.Length
	for _, e := range f.legend {
		wMax = max(wMax, sty.Width(e.text))
	}
	thumbW := 3*violRadius + vg.Points(8)
	colW = thumbW + vg.Points(4) + wMax + vg.Points(14)
	cols = 1
	if 2*colW <= figWidth-2*figMargin {
		cols = 2
		colW = (figWidth - 2*figMargin) / 2
	}
	rows = (len(f.legend) + cols - 1) / cols
	return cols, rows, legendSize * 1.45, colW
}

// captionLines wraps the caption to the figure's width.
func (f *auditFigure) captionLines() []string {
	sty := labelStyle()
	sty.Font.Size = captionSize
	width := figWidth - 2*figMargin
	var lines []string
	for _, p := range f.caption {
		line := ""
		for _, w := range strings.Fields(p) {
			if line != "" && sty.Width(line+" "+w) > width {
				lines = append(lines, line)
				line = w
				continue
			}
			if line != "" {
				line += " "
			}
			line += w
		}
		lines = append(lines, line)
	}
	return lines
}

// size returns the figure's width and height.
func (f *auditFigure) size() (vg.Length, vg.Length) {
	_, rows, rowH, _ := f.legendLayout()
	return figWidth, plotHeight + vg.Length(rows)*rowH + vg.Points(6) + vg.Length(len(f.captionLines()))*captionSize*1.3 + figMargin
}

func (f *auditFigure) draw(c draw.Canvas) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("audit figure: drawing failed: %v", r)
		}
	}()
	fillRect(&c, c.Rectangle, color.White)
	top := vg.Point{X: c.Min.X, Y: c.Max.Y}
	pc := c
	pc.Rectangle = f.axesRect(top)
	f.p.Draw(pc)
	dc := f.p.DataCanvas(pc)
	sty := f.yLabel
	sty.Rotation = math.Pi / 2
	c.FillText(sty, vg.Point{X: f.plotRect(top).Min.X + f.yLabel.Height(yLabelText) - f.yLabel.FontExtents().Descent, Y: center(dc.Rectangle).Y}, yLabelText)
	pc.Rectangle = f.plotRect(top)
	// The legend, in columns, under the plot.
	cols, rows, rowH, colW := f.legendLayout()
	sty = labelStyle()
	sty.Font.Size = legendSize
	y0 := pc.Min.Y - vg.Points(2)
	thumbW := 3*violRadius + vg.Points(8)
	for i, e := range f.legend {
		col, row := i/rows, i%rows
		if cols == 1 {
			col, row = 0, i
		}
		x := c.Min.X + figMargin + vg.Length(col)*colW
		y := y0 - vg.Length(row)*rowH - rowH/2
		r := vg.Rectangle{Min: vg.Point{X: x, Y: y - rowH*0.35}, Max: vg.Point{X: x + thumbW, Y: y + rowH*0.35}}
		e.thumb(&c, r)
		c.FillText(sty, vg.Point{X: x + thumbW + vg.Points(4), Y: y}, e.text)
	}
	// The caption.
	sty.Font.Size = captionSize
	sty.YAlign = draw.YTop
	y := y0 - vg.Length(rows)*rowH - vg.Points(6)
	for _, l := range f.captionLines() {
		c.FillText(sty, vg.Point{X: c.Min.X + figMargin, Y: y}, l)
		y -= captionSize * 1.3
	}
	return nil
}

// marksPlotter draws the data area: the shaded violations, the grid, the
// band above the axis, the diagonal, the marks and the labels.
type marksPlotter struct{ f *auditFigure }

func (mp marksPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	f := mp.f
	tx, ty := p.Transforms(&c)
	// The shaded half: audited > claimed, up to the axis's top.
	fillPoly := func(clr color.Color, xy ...[2]float64) {
		var pts []vg.Point
		for _, q := range xy {
			pts = append(pts, vg.Point{X: tx(q[0]), Y: ty(q[1])})
		}
		c.FillPolygon(clr, pts)
	}
	fillPoly(shadeColor, [2]float64{f.xMin, f.xMin}, [2]float64{f.xMax, f.xMax}, [2]float64{f.xMax, f.yHi}, [2]float64{f.xMin, f.yHi})
	grid := draw.LineStyle{Color: gridColor, Width: vg.Points(0.5)}
	for _, v := range f.xTicks {
		c.StrokeLine2(grid, tx(v), c.Min.Y, tx(v), ty(f.yHi))
	}
	for _, v := range f.yTicks {
		c.StrokeLine2(grid, c.Min.X, ty(v), c.Max.X, ty(v))
	}
	if f.yTop > f.yHi {
		fillPoly(bandColor, [2]float64{f.xMin, f.yHi}, [2]float64{f.xMax, f.yHi}, [2]float64{f.xMax, f.yTop}, [2]float64{f.xMin, f.yTop})
		drawBreak(&c, c.Min.X, c.Max.X, ty(f.yHi))
	}
	c.StrokeLine2(diagStyle(), tx(f.xMin), ty(f.xMin), tx(f.xMax), ty(f.xMax))
	at := func(i int) vg.Point {
		pt, _ := f.markAt(i)
		return vg.Point{X: c.Min.X + pt.X, Y: c.Min.Y + pt.Y}
	}
	// Monte Carlo passes, then exact passes, then the violations (Monte
	// Carlo under exact), each family in turn.
	for i, m := range f.marks {
		if m.kind == passMC {
			if m.where == onScale {
				drawRug(&c, at(i))
			} else {
				drawShape(&c, shapeTriangleDown, false, color.Gray{Y: 0x60}, at(i), passRadius)
			}
		}
	}
	for i, m := range f.marks {
		if m.kind == passLaw {
			drawShape(&c, shapeCircle, true, passColor, at(i), passRadius)
		}
	}
	for _, mc := range []bool{true, false} {
		for i, m := range f.marks {
			if m.kind == violation && m.mc == mc {
				fm := f.fams[m.fam]
				drawShape(&c, fm.shape, !mc, fm.color, at(i), violRadius)
			}
		}
	}
	sty := labelStyle()
	for _, l := range f.labels {
		if !l.placed {
			continue
		}
		sty.Color = l.color
		r := l.rect
		r.Min.X, r.Max.X, r.Min.Y, r.Max.Y = r.Min.X+c.Min.X, r.Max.X+c.Min.X, r.Min.Y+c.Min.Y, r.Max.Y+c.Min.Y
		if l.leader {
			// From the mark's edge to the nearest point of the label.
			pt, rad := f.markAt(l.mark)
			pt = vg.Point{X: c.Min.X + pt.X, Y: c.Min.Y + pt.Y}
			end := vg.Point{X: min(max(pt.X, r.Min.X), r.Max.X), Y: min(max(pt.Y, r.Min.Y), r.Max.Y)}
			if d := math.Hypot(float64(end.X-pt.X), float64(end.Y-pt.Y)); d > float64(rad) {
				t := vg.Length(float64(rad) / d)
				start := vg.Point{X: pt.X + (end.X-pt.X)*t, Y: pt.Y + (end.Y-pt.Y)*t}
				c.StrokeLine2(draw.LineStyle{Color: color.Gray{Y: 0x80}, Width: vg.Points(0.5)}, start.X, start.Y, end.X, end.Y)
			}
		}
		if l.cross {
			fillRect(&c, r, color.NRGBA{0xff, 0xff, 0xff, 0xc0})
		}
		c.FillText(sty, vg.Point{X: r.Min.X, Y: (r.Min.Y + r.Max.Y) / 2}, l.text)
	}
}

// A shape of a mark.
type shape int

const (
	shapeCircle shape = iota
	shapeSquare
	shapeTriangle
	shapeDiamond
	shapeTriangleDown
)

// drawShape draws a mark of radius r at pt, filled or as an outline.
func drawShape(c *draw.Canvas, s shape, filled bool, clr color.Color, pt vg.Point, r vg.Length) {
	if s == shapeCircle {
		sty := draw.GlyphStyle{Color: clr, Radius: r, Shape: draw.CircleGlyph{}}
		if !filled {
			sty.Radius -= vg.Points(0.6)
			c.SetLineStyle(draw.LineStyle{Color: clr, Width: vg.Points(1.2)})
			var path vg.Path
			path.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
			path.Arc(pt, sty.Radius, 0, 2*math.Pi)
			path.Close()
			c.Stroke(path)
			return
		}
		c.DrawGlyphNoClip(sty, pt)
		return
	}
	var unit [][2]float64
	switch s {
	case shapeSquare:
		unit = [][2]float64{{-0.8, -0.8}, {0.8, -0.8}, {0.8, 0.8}, {-0.8, 0.8}}
	case shapeTriangle:
		unit = [][2]float64{{0, 1.05}, {-0.95, -0.65}, {0.95, -0.65}}
	case shapeTriangleDown:
		unit = [][2]float64{{0, -1.05}, {0.95, 0.65}, {-0.95, 0.65}}
	case shapeDiamond:
		unit = [][2]float64{{0, 1.1}, {0.85, 0}, {0, -1.1}, {-0.85, 0}}
	}
	if !filled {
		r -= vg.Points(0.6) // the outline's width inside the mark's size
	}
	pts := make([]vg.Point, len(unit))
	for i, u := range unit {
		pts[i] = vg.Point{X: pt.X + r*vg.Length(u[0]), Y: pt.Y + r*vg.Length(u[1])}
	}
	if filled {
		c.FillPolygon(clr, pts)
		return
	}
	c.StrokeLines(draw.LineStyle{Color: clr, Width: vg.Points(1.2)}, append(pts, pts[0]))
}

func center(r vg.Rectangle) vg.Point {
	return vg.Point{X: (r.Min.X + r.Max.X) / 2, Y: (r.Min.Y + r.Max.Y) / 2}
}
