package figures

import (
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"github.com/ldpbench/ldpbench/results"
)

// Two golden figures: a box plot with outliers, one of them far beyond the
// others (TestGoldenBoxOutliers), and ±1 SD bands on a log axis whose lower
// edges reach 0 and below (TestGoldenLogBands).

// boxTrials are the trial values of m̂₀ − m̂₁ (original units) behind
// boxOutliers, by dataset, method and ε: 20 runs around −18.6 (years, as
// groupmean-mimic's deceased), where nprr at ε = 0.5 has two moderate
// outliers and one run of −460 (NPRR's wild run: far beyond the others,
// pulling its mean out of the whiskers' range), and a second dataset in
// the tens of thousands, whose axis is written in scientific notation.
func boxTrials() map[string][]float64 {
	rng := rand.New(rand.NewPCG(29, 5))
	out := map[string][]float64{}
	for _, d := range []struct {
		name        string
		centre, sd0 float64
	}{{"deceased", -18.6, 1.5}, {"admission", -2, 4000}} {
		for m, method := range []string{"laplace", "nprr"} {
			for _, eps := range []float64{0.5, 1, 4} {
				sd := d.sd0 * (1 + 0.3*float64(m)) / math.Sqrt(eps)
				var xs []float64
				for trial := range 20 {
					v := d.centre + sd*rng.NormFloat64()
					if d.name == "deceased" && method == "nprr" && eps == 0.5 {
						switch trial {
						case 3:
							v = -460
						case 8:
							v = d.centre + 5*sd
						case 13:
							v = d.centre - 4.5*sd
						}
					}
					xs = append(xs, v)
				}
				out[boxKey(d.name, method, eps)] = xs
			}
		}
	}
	return out
}

func boxKey(dataset, method string, eps float64) string {
	e, _ := results.Float(eps).MarshalCSV()
	return dataset + " " + method + " " + e
}

func boxOutliers() []results.Summary {
	var rows []results.Row
	trials := boxTrials()
	for _, k := range slices.Sorted(maps.Keys(trials)) {
		f := strings.Fields(k)
		eps := map[string]float64{"0.5": 0.5, "1": 1, "4": 4}[f[2]]
		th := -18.6
		if f[0] == "admission" {
			th = -2
		}
		for i, v := range trials[k] {
			rows = append(rows, results.Row{Experiment: "groupmean-demo", Dataset: f[0], Method: f[1], Eps: results.Float(eps),
				N: 5000, Trial: i, Metric: "mean_diff", Value: results.Float(v), Theory: results.Float(th)})
		}
	}
	return results.Summarise(rows)
}

var boxOutliersSpec = Spec{
	Name: "golden-box-outliers", Title: "m̂₀ − m̂₁ over 20 runs, one of them wild", Metric: "mean_diff", X: "eps", Series: "method",
	Panel: "dataset", Columns: 2, XCategorical: true, Style: StyleBox, Theory: true, XLabel: "ε", YLabel: "m̂₀ − m̂₁ (original units)",
	Formats: []string{"svg", "png"},
}

// tukeyByHand returns the whiskers and outliers of xs, computed here
// apart from results (type-7 quartiles, fences 1.5·IQR beyond them).
func tukeyByHand(xs []float64) (lo, hi float64, out []float64) {
	s := slices.Sorted(slices.Values(xs))
	q := func(p float64) float64 {
		h := float64(len(s)-1) * p
		i := int(h)
		if i+1 >= len(s) {
			return s[len(s)-1]
		}
		return s[i] + (h-float64(i))*(s[i+1]-s[i])
	}
	q1, q3 := q(0.25), q(0.75)
	lf, hf := q1-1.5*(q3-q1), q3+1.5*(q3-q1)
	lo, hi = q1, q3
	for _, x := range s {
		switch {
		case x < lf || x > hf:
			out = append(out, x)
		case x < lo:
			lo = x
		case x > hi:
			hi = x
		}
	}
	return lo, hi, out
}

// laidOut projects and lays out a figure: its panels' axes are set.
func laidOut(t *testing.T, sums []results.Summary, spec Spec) (*Figure, layout) {
	t.Helper()
	fig, err := Project(sums, spec)
	if err != nil {
		t.Fatal(err)
	}
	return fig, fig.layout()
}

// TestGoldenBoxOutliers: the golden box plot with outliers (go test
// ./figures -run Golden -update rewrites it; with $FIGURES_SAMPLE set the
// SVG and PNG go there too). The caption says the whiskers are 1.5 IQR,
// what the hollow circles and the triangles are, and counts what lies
// beyond the axes.
func TestGoldenBoxOutliers(t *testing.T) {
	dir := t.TempDir()
	if d := os.Getenv("FIGURES_SAMPLE"); d != "" {
		dir = d
	}
	files, err := Render(boxOutliers(), boxOutliersSpec, dir, WithWarnf(t.Errorf))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(svgText(string(checkGolden(t, files[0], "golden-box-outliers.svg"))), " ")
	for _, want := range []string{"within 1.5 IQR of the box", "hollow circles: the trial values beyond the whiskers",
		"a triangle on the edge of a panel counts those beyond the axis", "beyond the y axes (triangles on the edges)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the caption lacks %q: %s", want, text)
		}
	}
	if strings.Contains(text, "min–max") {
		t.Errorf("the caption still says min–max: %s", text)
	}
}

// TestTukeyBoxes: each box's whiskers and outliers are those computed
// here from the trial values, and each panel's y axis holds every whisker
// but not the wild run, with no more than the margin around the whiskers.
// Bugs caught: a whisker at the min or max instead of the 1.5 IQR fence;
// the fence itself as the whisker's end; a y range that includes the wild
// run (or the mean it pulls away), flattening every other box; a y range
// that clips a whisker.
func TestTukeyBoxes(t *testing.T) {
	trials := boxTrials()
	fig, l := laidOut(t, boxOutliers(), boxOutliersSpec)
	wild := 0
	for i, p := range fig.Panels {
		ax := l.cells[i].main.Y
		wlo, whi := math.Inf(1), math.Inf(-1)
		for _, s := range p.Series {
			for _, pt := range s.Points {
				xs := trials[boxKey(p.Value, s.Value, []float64{0.5, 1, 4}[int(pt.X)])]
				lo, hi, out := tukeyByHand(xs)
				b := pt.Box
				if b == nil || b.WhiskerLo != lo || b.WhiskerHi != hi || !slices.Equal(b.Outliers, out) {
					t.Errorf("%s %s x=%v: box %+v; want whiskers %v, %v and outliers %v", p.Value, s.Value, pt.X, b, lo, hi, out)
					continue
				}
				wlo, whi = math.Min(wlo, lo), math.Max(whi, hi)
				if slices.Contains(out, -460) {
					wild++
					if lo == slices.Min(xs) || b.WhiskerLo <= -460 {
						t.Errorf("%s %s: the low whisker ends at the least value %v", p.Value, s.Value, lo)
					}
					if inAxis(ax, -460) || inAxis(ax, pt.Mean) {
						t.Errorf("%s: the y axis [%v, %v] holds the wild run or the mean %v it pulls", p.Value, ax.Min, ax.Max, pt.Mean)
					}
				}
			}
		}
		if ax.Min > wlo || ax.Max < whi {
			t.Errorf("%s: y axis [%v, %v] clips the whiskers [%v, %v]", p.Value, ax.Min, ax.Max, wlo, whi)
		}
		if span := whi - wlo; ax.Max-ax.Min > 1.8*span {
			t.Errorf("%s: y axis [%v, %v] is more than the whiskers [%v, %v] and their margin", p.Value, ax.Min, ax.Max, wlo, whi)
		}
	}
	if wild != 1 {
		t.Fatalf("%d boxes with the wild run, want 1", wild)
	}
}

// TestOutliersDrawn: drawn on a recording canvas, the box plot has a
// hollow circle of the outliers' radius in its panel for every outlier
// within the y axis, a triangle on the edge with the count beside it for
// those beyond, and the caption counts the latter. Bugs caught: outliers
// left undrawn, drawn at the whisker, or drawn outside the plot area; the
// values beyond the axis silently dropped.
func TestOutliersDrawn(t *testing.T) {
	fig, l := laidOut(t, boxOutliers(), boxOutliersSpec)
	rec := &recorder.Canvas{}
	dc := draw.NewCanvas(rec, l.w, l.h)
	fig.draw(dc, l)
	areas := l.areas(dc.Rectangle, dc.Max.Y-pad-l.titleHeight)

	within, beyondAxis := 0, 0
	for i, p := range fig.Panels {
		ax := l.cells[i].main.Y
		for _, s := range p.Series {
			for _, pt := range s.Points {
				for _, v := range pt.Box.Outliers {
					if inAxis(ax, v) {
						within++
					} else {
						beyondAxis++
					}
				}
			}
		}
	}
	if within == 0 || beyondAxis == 0 {
		t.Fatalf("%d outliers within the axes and %d beyond: the test needs both", within, beyondAxis)
	}
	if fig.beyondValues != beyondAxis || fig.beyondMeans != 1 {
		t.Errorf("counted %d values and %d means beyond the axes, want %d and 1", fig.beyondValues, fig.beyondMeans, beyondAxis)
	}
	inPanel := func(pt vg.Point) bool {
		for _, a := range areas {
			r := a.main
			if pt.X >= r.Min.X && pt.X <= r.Max.X && pt.Y >= r.Min.Y-1e-6 && pt.Y <= r.Max.Y+1e-6 {
				return true
			}
		}
		return false
	}
	rings, triangles := 0, 0
	var counts []string
	for _, a := range rec.Actions {
		switch a := a.(type) {
		case *recorder.Stroke:
			for _, c := range a.Path {
				if c.Type == vg.ArcComp && c.Radius == outlierR {
					rings++
					if !inPanel(c.Pos) {
						t.Errorf("an outlier drawn at %v, outside every plot area", c.Pos)
					}
				}
			}
		case *recorder.Fill:
			if len(a.Path) == 4 && a.Path[3].Type == vg.CloseComp {
				tip := a.Path[0].Pos
				for _, ar := range areas {
					if tip.X > ar.main.Min.X && tip.X < ar.main.Max.X && (math.Abs(float64(tip.Y-ar.main.Min.Y)) < 1e-6 || math.Abs(float64(tip.Y-ar.main.Max.Y)) < 1e-6) {
						triangles++
					}
				}
			}
		case *recorder.FillString:
			if a.Size == beyondSize {
				counts = append(counts, a.String)
			}
		}
	}
	if rings != within {
		t.Errorf("%d hollow circles of radius %v drawn, want one per outlier within the axes: %d", rings, outlierR, within)
	}
	total := 0
	for _, c := range counts {
		n := 0
		for _, r := range c {
			n = 10*n + int(r-'0')
		}
		total += n
	}
	if triangles == 0 || triangles != len(counts) || total != beyondAxis {
		t.Errorf("%d triangles on the edges with counts %q (total %d), want one per box with values beyond, totalling %d", triangles, counts, total, beyondAxis)
	}
}

// TestLinearTicksOwnNotation: a panel of small numbers writes them plainly
// (−20, −15, …) beside a panel in the tens of thousands written 2×10⁴:
// each linear axis picks its notation from its own ticks. The bug caught:
// one notation forced on every panel, "−1.5×10¹" on an axis of ages.
func TestLinearTicksOwnNotation(t *testing.T) {
	fig, l := laidOut(t, boxOutliers(), boxOutliersSpec)
	for i, p := range fig.Panels {
		ax := l.cells[i].main.Y
		var labels []string
		for _, tk := range ax.Tick.Marker.Ticks(ax.Min, ax.Max) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		sci := slices.ContainsFunc(labels, func(s string) bool { return strings.Contains(s, "^{") })
		if want := p.Value == "admission"; sci != want || len(labels) < 2 {
			t.Errorf("panel %s: tick labels %q; want scientific %v", p.Value, labels, want)
		}
	}
}

// logBands is groupmean-e1's fig. 7 in small: seven series of a scaled
// error falling with ε over two panels, with ±1 SD bands (spread = "sd")
// on a log y axis; at small ε the SD exceeds the mean (lower edge < 0),
// and at one point it falls short of it by a hundred-thousandth (lower
// edge positive, five decades below the mean).
func logBands() []results.Summary {
	var out []results.Summary
	for _, shape := range []string{"uniform", "normal"} {
		for j, k := range []int{1, 2, 3, 4, 8, 16, 32} {
			for i, eps := range []float64{0.5, 1, 2, 4, 6, 8, 10} {
				mean := 2 * (1 + 0.15*float64(j)) / (eps * eps) * (1 + 0.05*math.Sin(float64(3*i+j)))
				sd := mean * (0.25 + 1.5/eps)
				if shape == "normal" && k == 32 && eps == 4 {
					sd = mean * (1 - 1e-5)
				}
				s := sum(shape, "nprr", eps, "scaled_abs_error", mean, mean*1.02)
				s.Params = "k=" + []string{"1", "2", "3", "4", "8", "16", "32"}[j]
				s.SD, s.Count = results.Float(sd), 20
				out = append(out, s)
			}
		}
	}
	return out
}

var logBandsSpec = Spec{
	Name: "golden-log-bands", Title: "Scaled error per dataset, ±1 SD", Metric: "scaled_abs_error", X: "eps", Series: "k",
	Panel: "dataset", Spread: "sd", LogY: true, Theory: true, Columns: 2, XLabel: "ε", YLabel: "scaled absolute error",
	Formats: []string{"svg", "png"},
}

// TestGoldenLogBands: the golden figure of bands on a log axis (go test
// ./figures -run Golden -update rewrites it). The caption says how a band
// whose lower edge is ≤ 0 is drawn, and counts those.
func TestGoldenLogBands(t *testing.T) {
	dir := t.TempDir()
	if d := os.Getenv("FIGURES_SAMPLE"); d != "" {
		dir = d
	}
	files, err := Render(logBands(), logBandsSpec, dir, WithWarnf(t.Errorf))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(svgText(string(checkGolden(t, files[0], "golden-log-bands.svg"))), " ")
	for _, want := range []string{"The y axis is set by the means and the upper edges", "without its lower edge line: open",
		"band lower edges open at the panel"} {
		if !strings.Contains(text, want) {
			t.Errorf("the caption lacks %q: %s", want, text)
		}
	}
	if strings.Contains(text, "cut at the panel") {
		t.Errorf("the caption says band bounds were cut: %s", text)
	}
}

// TestLogBandsOpen: on a log y axis, each panel's range is set by the
// means (and theory and upper edges), not by lower edges ≤ 0 or just above
// 0; drawn on a recording canvas, every band lies within its panel, at
// finite coordinates, and the caption counts the open lower edges. Bugs
// caught: a lower edge ≤ 0 raised to a tiny value that drags the axis
// down by decades (the spikes to 10⁻⁶ of groupmean-e1's fig. 7); a band
// drawn below the axis or to NaN (log of a value ≤ 0); the count wrong.
func TestLogBandsOpen(t *testing.T) {
	fig, l := laidOut(t, logBands(), logBandsSpec)
	open := 0
	for i, p := range fig.Panels {
		ax := l.cells[i].main.Y
		least := math.Inf(1)
		for _, s := range p.Series {
			for _, pt := range s.Points {
				least = math.Min(least, pt.Mean)
				if pt.Lo <= 0 || pt.Lo < ax.Min {
					open++
				}
			}
			for _, th := range s.Theory {
				least = math.Min(least, th.Y)
			}
		}
		if want, _ := logRange(least, ax.Max); ax.Min != want {
			t.Errorf("panel %s: y axis from %v; the means (least %v) set it from %v", p.Value, ax.Min, least, want)
		}
	}
	if open == 0 || fig.openBands != open {
		t.Errorf("%d open lower edges counted, want %d (> 0)", fig.openBands, open)
	}

	rec := &recorder.Canvas{}
	dc := draw.NewCanvas(rec, l.w, l.h)
	fig.draw(dc, l)
	areas := l.areas(dc.Rectangle, dc.Max.Y-pad-l.titleHeight)
	fills := map[[4]uint32]bool{}
	for i := range fig.Series {
		c, _ := bandStyle(fig.look(i), len(fig.Series))
		r, g, b, a := c.RGBA()
		fills[[4]uint32{r, g, b, a}] = true
	}
	var current [4]uint32
	bands := 0
	for _, a := range rec.Actions {
		switch a := a.(type) {
		case *recorder.SetColor:
			r, g, b, al := a.Color.RGBA()
			current = [4]uint32{r, g, b, al}
		case *recorder.Fill:
			if !fills[current] {
				continue
			}
			for _, c := range a.Path {
				if c.Type == vg.CloseComp {
					continue
				}
				if math.IsNaN(float64(c.Pos.Y)) || math.IsInf(float64(c.Pos.Y), 0) {
					t.Fatalf("a band drawn to y = %v", c.Pos.Y)
				}
			}
			if x := a.Path[0].Pos.X; x > areas[len(areas)-1].main.Max.X {
				continue // a legend entry
			}
			bands++
			for _, c := range a.Path {
				if c.Type == vg.CloseComp {
					continue
				}
				in := false
				for _, ar := range areas {
					r := ar.main
					in = in || (c.Pos.X >= r.Min.X-1e-6 && c.Pos.X <= r.Max.X+1e-6 && c.Pos.Y >= r.Min.Y-1e-6 && c.Pos.Y <= r.Max.Y+1e-6)
				}
				if !in {
					t.Fatalf("a band's point %v lies outside every plot area", c.Pos)
				}
			}
		}
	}
	if bands != 2*len(fig.Series) {
		t.Errorf("%d bands drawn, want %d", bands, 2*len(fig.Series))
	}
}

// TestBandAlpha: one band a quarter opaque; seven stacked bands, each
// lighter, stay translucent where they all overlap. The bug caught: the
// opaque mass of groupmean-e1's seven overlapping bands.
func TestBandAlpha(t *testing.T) {
	if a := bandAlpha(1); a != 0.25 {
		t.Errorf("one band: alpha %v, want 0.25", a)
	}
	for n := 2; n <= 12; n++ {
		if a, b := bandAlpha(n), bandAlpha(n-1); a > b || a < 0.06 {
			t.Errorf("alpha of %d bands %v, of %d %v: want no more, and at least 0.06", n, a, n-1, b)
		}
	}
	if all := 1 - math.Pow(1-bandAlpha(7), 7); all > 0.46 {
		t.Errorf("seven overlapping bands %v opaque, want at most 0.46", all)
	}
}

// TestBoxNeedsWhiskers: a box plot of a summary.csv written before the
// Tukey columns (whiskers unknown) is refused with an error naming the
// columns and what to do, not drawn with whiskers at 0 or at min–max.
func TestBoxNeedsWhiskers(t *testing.T) {
	old := boxOutliers()
	for i := range old {
		old[i].WhiskerLo, old[i].WhiskerHi, old[i].Outliers = nan, nan, nil
	}
	_, err := Project(old, boxOutliersSpec)
	if err == nil || !strings.Contains(err.Error(), "has no whiskers") || !strings.Contains(err.Error(), "whisker_lo, whisker_hi and outliers") ||
		!strings.Contains(err.Error(), "run the spec again") {
		t.Errorf("summaries without whiskers: %v", err)
	}
	bad := boxOutliers()
	bad[0].Outliers = results.Floats{float64(bad[0].Median)}
	if _, err := Project(bad, boxOutliersSpec); err == nil || !strings.Contains(err.Error(), "not ascending beyond the whiskers") {
		t.Errorf("an outlier inside the whiskers: %v", err)
	}
}
