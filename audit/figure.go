package audit

import (
	"bufio"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ldpbench/ldpbench/results"
)

// figure constants: size and resolution as the figures package draws.
var (
	figWidth  = 7 * vg.Inch
	figHeight = 5.2 * vg.Inch
)

const figDPI = 300

// Colours: passes in blue, Monte Carlo bounds in grey, violations in the
// warm colours of the Okabe–Ito palette (and Tol's wine), one per family.
var (
	passColor  = color.RGBA{0x00, 0x72, 0xb2, 0xff}
	mcColor    = color.Gray{Y: 0x70}
	violColors = []color.Color{
		color.RGBA{0xd5, 0x5e, 0x00, 0xff}, // vermilion
		color.RGBA{0x88, 0x22, 0x55, 0xff}, // wine
		color.RGBA{0xe6, 0x9f, 0x00, 0xff}, // orange
		color.RGBA{0xcc, 0x79, 0xa7, 0xff}, // reddish purple
		color.RGBA{0x00, 0x00, 0x00, 0xff}, // black
	}
	violMarkers = []draw.GlyphDrawer{draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CircleGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{}}
)

// WriteFigure draws audited against claimed ε, one point per row, and
// writes dir/name.png and dir/name.svg atomically. Points on the diagonal
// are tight, below it they pass (Monte Carlo lower bounds sit there), and
// the shaded half above it is a violation: each violating family has its
// own colour and marker, a stem from the diagonal and its excess printed
// beside it. An infinite audited ε is drawn at the top edge.
func WriteFigure(dir, name string, rows []Row) ([]string, error) {
	p, err := auditPlot(rows)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, format := range []string{"png", "svg"} {
		var c vg.CanvasWriterTo
		switch format {
		case "png":
			c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(figWidth, figHeight), vgimg.UseDPI(figDPI))}
		case "svg":
			c = vgsvg.New(figWidth, figHeight)
		}
		p.Draw(draw.New(c))
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

func auditPlot(rows []Row) (p *plot.Plot, err error) {
	defer func() {
		// gonum/plot reports some failures by panicking.
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("audit figure: drawing failed: %v", r)
		}
	}()
	if len(rows) == 0 {
		return nil, fmt.Errorf("audit figure: no rows")
	}
	top := 0.0
	for _, r := range rows {
		top = max(top, r.Claimed)
		if !math.IsInf(r.Epsilon, 0) {
			top = max(top, r.Epsilon)
		}
	}
	top *= 1.12
	y := func(v float64) float64 {
		if math.IsInf(v, 1) || v > top {
			return top
		}
		return v
	}

	p = plot.New()
	p.Title.Text = "Audited vs claimed ε"
	p.Title.TextStyle.Font.Size = font.Length(13)
	p.X.Label.Text = "claimed ε"
	p.Y.Label.Text = "audited ε (ln of the largest probability ratio)"
	p.X.Min, p.Y.Min, p.X.Max, p.Y.Max = 0, 0, top, top
	// ε at whole numbers, as the project's other figures label it (gonum's
	// default puts labels such as 2.50 at steps of 2.5).
	p.X.Tick.Marker = wholeTicks{}
	p.Y.Tick.Marker = wholeTicks{}
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 0xdd}
	grid.Horizontal.Color = color.Gray{Y: 0xdd}
	p.Add(grid)

	// The violation half-plane, lightly shaded.
	shade, err := plotter.NewPolygon(plotter.XYs{{X: 0, Y: 0}, {X: top, Y: top}, {X: 0, Y: top}})
	if err != nil {
		return nil, err
	}
	shade.Color = color.RGBA{0xfb, 0xe3, 0xd6, 0xff}
	shade.LineStyle.Width = 0
	p.Add(shade)
	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: top, Y: top}})
	if err != nil {
		return nil, err
	}
	diag.LineStyle = draw.LineStyle{Color: color.Gray{Y: 0x30}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
	p.Add(diag)
	leg := plot.NewLegend()
	leg.TextStyle.Font.Size = font.Length(9)
	leg.ThumbnailWidth = vg.Points(18)
	leg.Padding = vg.Points(1.5)
	leg.Add("audited = claimed (tight)", diag)
	leg.Add("shaded: audited > claimed", thumb(func(c *draw.Canvas) {
		pts := []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}}
		c.FillPolygon(shade.Color, pts)
		c.StrokeLines(draw.LineStyle{Color: color.Gray{Y: 0xb0}, Width: vg.Points(0.5)}, append(pts, pts[0]))
	}))

	var passExact, passMC plotter.XYs
	type fam struct {
		name  string
		exact plotter.XYs
		mc    plotter.XYs
		infs  int
		known string // the erratum of a documented violation
	}
	var fams []*fam
	famOf := func(name string) *fam {
		i := slices.IndexFunc(fams, func(f *fam) bool { return f.name == name })
		if i < 0 {
			fams = append(fams, &fam{name: name})
			i = len(fams) - 1
		}
		return fams[i]
	}
	for _, r := range rows {
		pt := plotter.XY{X: r.Claimed, Y: y(r.Epsilon)}
		switch {
		case r.Verdict == Pass && r.Method == MethodMonteCarlo:
			passMC = append(passMC, pt)
		case r.Verdict == Pass:
			passExact = append(passExact, pt)
		case r.Method == MethodMonteCarlo:
			f := famOf(r.Family)
			f.mc = append(f.mc, pt)
			f.known = r.KnownIssue
		default:
			f := famOf(r.Family)
			f.exact = append(f.exact, pt)
			f.known = r.KnownIssue
			if math.IsInf(r.Epsilon, 1) {
				f.infs++
			}
		}
	}
	if len(passExact) > 0 {
		s, err := plotter.NewScatter(passExact)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle = draw.GlyphStyle{Color: passColor, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		p.Add(s)
		leg.Add(fmt.Sprintf("pass, exact or density (%d)", len(passExact)), s)
	}
	if len(passMC) > 0 {
		s, err := plotter.NewScatter(passMC)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle = draw.GlyphStyle{Color: mcColor, Radius: vg.Points(3), Shape: draw.TriangleGlyph{}}
		p.Add(s)
		leg.Add(fmt.Sprintf("Monte Carlo lower bound, no violation found (%d)", len(passMC)), s)
	}
	// Excess labels: the first family's to the right of its points, the
	// second's to the left, and so on, so that neighbours do not overlap.
	labels := [2]plotter.XYLabels{}
	for i, f := range fams {
		clr := violColors[i%len(violColors)]
		mark := violMarkers[i%len(violMarkers)]
		if len(f.exact) > 0 {
			for _, pt := range f.exact {
				stem, err := plotter.NewLine(plotter.XYs{{X: pt.X, Y: pt.X}, pt})
				if err != nil {
					return nil, err
				}
				stem.LineStyle = draw.LineStyle{Color: clr, Width: vg.Points(1.5)}
				p.Add(stem)
				// One label per distinct point (the d's of a family coincide).
				lbl := fmt.Sprintf("+%.3g", pt.Y-pt.X)
				if pt.Y >= top {
					lbl = "+Inf"
				}
				side := &labels[i%2]
				if !slices.ContainsFunc(side.XYs, func(q plotter.XY) bool { return q == pt }) {
					side.XYs = append(side.XYs, pt)
					side.Labels = append(side.Labels, lbl)
				}
			}
			s, err := plotter.NewScatter(f.exact)
			if err != nil {
				return nil, err
			}
			s.GlyphStyle = draw.GlyphStyle{Color: clr, Radius: vg.Points(4.5), Shape: mark}
			p.Add(s)
			lbl := "VIOLATION " + f.name
			if f.known != "" {
				lbl += " [known: " + f.known + "]"
			}
			if f.infs > 0 {
				lbl += " (+Inf drawn at the top)"
			}
			leg.Add(lbl, s)
		}
		if len(f.mc) > 0 {
			s, err := plotter.NewScatter(f.mc)
			if err != nil {
				return nil, err
			}
			s.GlyphStyle = draw.GlyphStyle{Color: clr, Radius: vg.Points(3.5), Shape: draw.TriangleGlyph{}}
			p.Add(s)
			leg.Add("VIOLATION "+f.name+", Monte Carlo", s)
		}
	}
	for side, ls := range labels {
		if len(ls.XYs) == 0 {
			continue
		}
		l, err := plotter.NewLabels(ls)
		if err != nil {
			return nil, err
		}
		for i := range l.TextStyle {
			l.TextStyle[i].Font.Size = font.Length(8)
			if side == 1 {
				l.TextStyle[i].XAlign = draw.XRight
			}
		}
		l.Offset = vg.Point{X: vg.Points(7), Y: vg.Points(-3)}
		if side == 1 {
			l.Offset.X = -l.Offset.X
		}
		p.Add(l)
	}
	p.Add(legendBox{leg})
	return p, nil
}

// legendBox draws a legend in the lower right of the plot area, below the
// diagonal where only Monte Carlo bounds far below their claim could be,
// on a white box, with the thumbnails on the left of the text (a plot's
// own legend puts them on the right when it sits on the right).
type legendBox struct{ l plot.Legend }

func (b legendBox) Plot(c draw.Canvas, _ *plot.Plot) {
	l := b.l
	l.Left, l.Top = true, false
	r := l.Rectangle(c)
	w, h := r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
	margin, inner := vg.Points(6), vg.Points(4)
	l.XOffs = c.Max.X - c.Min.X - w - margin - inner
	l.YOffs = margin + inner
	box := vg.Rectangle{
		Min: vg.Point{X: c.Max.X - w - 2*inner - margin, Y: c.Min.Y + margin},
		Max: vg.Point{X: c.Max.X - margin, Y: c.Min.Y + margin + h + 2*inner},
	}
	pts := []vg.Point{box.Min, {X: box.Max.X, Y: box.Min.Y}, box.Max, {X: box.Min.X, Y: box.Max.Y}}
	c.FillPolygon(color.White, pts)
	c.StrokeLines(draw.LineStyle{Color: color.Gray{Y: 0x90}, Width: vg.Points(0.5)}, append(pts, pts[0]))
	l.Draw(c)
}

// thumb adapts a function to plot.Thumbnailer.
type thumb func(c *draw.Canvas)

func (t thumb) Thumbnail(c *draw.Canvas) { t(c) }

// wholeTicks labels an axis from 0 at whole numbers: every integer up to
// 10, every second one beyond, with unlabelled minor ticks between.
type wholeTicks struct{}

func (wholeTicks) Ticks(min, max float64) []plot.Tick {
	step := 1.0
	if max-min > 10 {
		step = 2
	}
	var ticks []plot.Tick
	for v := math.Ceil(min/step) * step; v <= max+1e-9; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
		if half := v + step/2; half <= max {
			ticks = append(ticks, plot.Tick{Value: half})
		}
	}
	return ticks
}
