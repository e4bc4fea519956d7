package figures

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ldpbench/ldpbench/results"
)

// The golden figures (go test ./figures -run Golden -update rewrites them
// all): a multi-panel log-y figure, a categorical x axis, a reference
// overlay (TestGoldenReference) and a ratio panel.

// decades has four panels whose log-y ranges differ by orders of magnitude,
// with a long y label: the figure gonum/plot's own layout drew with panels
// of different heights and titles floating above their axes.
func decades() []results.Summary {
	var out []results.Summary
	for d, scale := range []float64{1e-3, 1, 3e-5, 0.02} {
		dataset := []string{"beta(2,5)", "uniform", "gauss16(mu=1)", "taxi"}[d]
		for m, method := range []string{"duchi", "pm", "hm"} {
			for k, eps := range []float64{0.5, 1, 2, 4, 8} {
				th := scale * float64(4-m) / (eps * eps)
				if d == 2 { // a narrow range: less than a decade
					th = scale * (1 + 0.3*float64(m)) * (1 + 0.1*float64(k))
				}
				out = append(out, sum(dataset, method, eps, "mse", th*(1+0.06*math.Sin(float64(7*d+3*m+k))), th))
			}
		}
	}
	return out
}

var decadesSpec = Spec{
	Name: "golden-log-panels", Title: "MSE of the mean vs ε", Metric: "mse", X: "eps", Series: "method", Panel: "dataset",
	LogY: true, Theory: true, Columns: 2, YLabel: "MSE of the mean over attributes (on [-1, 1])", Formats: []string{"svg"},
}

// configs is a multi-service sweep over the configurations 1–4 (the
// paper's A1–A4), with a theory for every method but uwa.
func configs() []results.Summary {
	var out []results.Summary
	for _, d := range []string{"beta(2,5)", "beta+sin"} {
		for m, method := range []string{"single-sr", "single-pm", "ua", "uwa", "uwa-oracle"} {
			for _, c := range []int{3, 1, 4, 2} { // not in order: placed by value
				mse := 1e-3 * float64(5-m) * (1 + 0.2*float64(c)) * (1 + 0.01*math.Sin(float64(3*m+c)))
				if method == "uwa-oracle" {
					mse = 1e-3 * (1 + 0.2*float64(c))
				}
				th := mse * 1.03
				if method == "uwa" {
					th = math.NaN()
				}
				out = append(out, withParams(sum(d, method, 1, "mse", mse, th), fmt.Sprintf("config=%d;services=A", c)))
			}
		}
	}
	return out
}

var configsSpec = Spec{
	Name: "golden-categorical", Title: "MSE per budget configuration", Metric: "mse", X: "config", Series: "method", Panel: "dataset",
	LogY: true, Theory: true, Columns: 2, Categories: []string{"A1", "A2", "A3", "A4"},
	XLabel: "budget configuration", YLabel: "MSE (mean on [-1, 1])", Formats: []string{"svg"},
}

// ratioSpec: ua, uwa and uwa-oracle differ by a few percent, one line on
// the log axis and apart in the ratio panel under it.
var ratioSpec = Spec{
	Name: "golden-ratio", Title: "UWA against the oracle", Metric: "mse", X: "eps", Series: "method", Panel: "dataset",
	Filter: map[string][]string{"method": {"uwa", "uwa-oracle", "ua"}}, LogY: true, Theory: true, Columns: 2,
	RatioTo: "uwa-oracle", YLabel: "MSE (mean on [-1, 1])", Formats: []string{"svg"},
}

func ratioData() []results.Summary {
	var out []results.Summary
	for _, d := range []string{"beta(2,5)", "beta+sin"} {
		for m, method := range []string{"ua", "uwa", "uwa-oracle"} {
			for k, eps := range []float64{0.5, 1, 2, 4, 8} {
				th := 2e-3 / eps * []float64{1.06, math.NaN(), 1}[m]
				mse := 2e-3 / eps * []float64{1.05 + 0.01*math.Cos(float64(k)), 1.01 + 0.01*math.Sin(float64(k)), 1}[m]
				out = append(out, sum(d, method, eps, "mse", mse, th))
			}
		}
	}
	return out
}

func TestGoldenLogPanels(t *testing.T) {
	files, err := Render(decades(), decadesSpec, t.TempDir(), WithWarnf(t.Errorf))
	if err != nil {
		t.Fatal(err)
	}
	svg := string(checkGolden(t, files[0], "golden-log-panels.svg"))
	// Three labelled decades at least, in one notation.
	for _, text := range []string{">10</text>", ">−4</text>", ">−5</text>", ">MSE of the mean over</text>", ">attributes (on [-1, 1])</text>"} {
		if !strings.Contains(svg, text) {
			t.Errorf("the SVG does not contain %q", text)
		}
	}
	if strings.Contains(svg, "e-0") || strings.Contains(svg, "e+0") {
		t.Error("a tick label in e notation")
	}
}

func TestGoldenCategorical(t *testing.T) {
	files, err := Render(configs(), configsSpec, t.TempDir(), WithWarnf(t.Errorf))
	if err != nil {
		t.Fatal(err)
	}
	svg := string(checkGolden(t, files[0], "golden-categorical.svg"))
	for _, text := range []string{">A1</text>", ">A4</text>", "The x axis is categorical"} {
		if !strings.Contains(svg, text) {
			t.Errorf("the SVG does not contain %q", text)
		}
	}
}

func TestGoldenRatio(t *testing.T) {
	files, err := Render(ratioData(), ratioSpec, t.TempDir(), WithWarnf(t.Errorf))
	if err != nil {
		t.Fatal(err)
	}
	svg := string(checkGolden(t, files[0], "golden-ratio.svg"))
	for _, text := range []string{">÷ uwa-oracle</text>", "Lower panels: each series&#39; mean divided by that of"} {
		if !strings.Contains(svg, text) {
			t.Errorf("the SVG does not contain %q", text)
		}
	}
}

// TestPanelsShareOnePlotArea: in every golden figure (and a grid with an
// empty cell and a panel without a title), every panel's plot area, as
// gonum/plot finds it from the canvas the layout gives it, has the same
// size, the panels of a row start at the same height and those of a
// column at the same x, and each title sits just above its axis.
func TestPanelsShareOnePlotArea(t *testing.T) {
	for _, c := range []struct {
		spec Spec
		data []results.Summary
	}{
		{decadesSpec, decades()},
		{configsSpec, configs()},
		{ratioSpec, ratioData()},
		{refSpec(), tiny()},
		{Spec{Name: "grid", Metric: "mse", X: "eps", Series: "method", Panel: "dataset", Theory: true, LogY: true, Columns: 2,
			YLabel: "a long y label that needs two lines in a panel of this height"}, grid()},
	} {
		t.Run(c.spec.Name, func(t *testing.T) {
			fig, err := Project(c.data, c.spec)
			if err != nil {
				t.Fatal(err)
			}
			l := fig.layout()
			canvas := vgsvg.New(l.w, l.h)
			dc := draw.New(canvas)
			top := dc.Max.Y - pad - l.titleHeight
			areas := l.areas(dc.Rectangle, top)
			near := func(a, b vg.Length) bool { return math.Abs(float64(a-b)) < 1e-6 }
			for i, cl := range l.cells {
				a := areas[i]
				got := cl.main.DataCanvas(fit(cl.main, dc, a.main, cl.mainIn)).Rectangle
				if !near(got.Min.X, a.main.Min.X) || !near(got.Max.X, a.main.Max.X) || !near(got.Min.Y, a.main.Min.Y) || !near(got.Max.Y, a.main.Max.Y) {
					t.Errorf("panel %d: plot area %v, want %v", i, got, a.main)
				}
				if !near(a.main.Size().X, l.dataW) || !near(a.main.Size().Y, dataHeight) {
					t.Errorf("panel %d: plot area of size %v", i, a.main.Size())
				}
				if cl.ratio != nil {
					got := cl.ratio.DataCanvas(fit(cl.ratio, dc, a.ratio, cl.ratioIn)).Rectangle
					if !near(got.Min.Y, a.ratio.Min.Y) || !near(got.Max.Y, a.ratio.Max.Y) || !near(a.ratio.Size().Y, ratioHeight) {
						t.Errorf("panel %d: ratio plot area %v, want %v of height %v", i, got, a.ratio, ratioHeight)
					}
				}
				for j, other := range l.cells[:i] {
					if other.row == cl.row && !near(areas[j].main.Max.Y, a.main.Max.Y) {
						t.Errorf("panels %d and %d of row %d start at %v and %v", j, i, cl.row, areas[j].main.Max.Y, a.main.Max.Y)
					}
					if other.col == cl.col && !near(areas[j].main.Min.X, a.main.Min.X) {
						t.Errorf("panels %d and %d of column %d start at x %v and %v", j, i, cl.col, areas[j].main.Min.X, a.main.Min.X)
					}
				}
				// The title is above the tick labels and glyphs, by no
				// more than they take (half a tick label and a marker).
				if over := l.titleBase(cl, a.main) - a.main.Max.Y; over > vg.Points(12) || over < gap {
					t.Errorf("panel %d: title %v above its plot area", i, over)
				}
			}
			if strings.HasPrefix(c.spec.YLabel, "a long") && len(l.yLabel) != 2 {
				t.Errorf("y label in %d lines, want 2: %q", len(l.yLabel), l.yLabel)
			}
		})
	}
}

// TestStylesUnique: no two of the first 24 series of a figure share a
// colour and dashes, nor two of the first 56 a colour and marker.
func TestStylesUnique(t *testing.T) {
	type key struct {
		color       string
		marker      string
		dash, theor string
	}
	seen := map[key]int{}
	colourDash := map[string]int{}
	colourMarker := map[string]int{}
	for i := range 56 {
		st := styleOf(ordinalLook(i))
		k := key{fmt.Sprint(st.Color), fmt.Sprintf("%T", st.Marker), fmt.Sprint(st.Dashes), fmt.Sprint(st.Theory)}
		if j, ok := seen[k]; ok {
			t.Errorf("series %d and %d share a style", j, i)
		}
		seen[k] = i
		cm := k.color + k.marker
		if j, ok := colourMarker[cm]; ok {
			t.Errorf("series %d and %d share colour and marker", j, i)
		}
		colourMarker[cm] = i
		if i < 24 {
			cd := k.color + k.dash + k.theor
			if j, ok := colourDash[cd]; ok {
				t.Errorf("series %d and %d share colour and dashes", j, i)
			}
			colourDash[cd] = i
		}
	}
}

// svgText returns the text elements of an SVG, in order.
func svgText(svg string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`>([^<>]*)</text>`).FindAllStringSubmatch(svg, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestWords: panel titles write ε, not eps=; captions say what a point is
// (an RMSE is the root of the mean MSE), claim no CI for a metric that is
// the same in every trial, and name no metric by its internal name.
func TestWords(t *testing.T) {
	render := func(s []results.Summary, spec Spec) []string {
		t.Helper()
		spec.Formats = []string{"svg"}
		files, err := Render(s, spec, t.TempDir(), WithWarnf(nil))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		return svgText(string(b))
	}
	joined := func(texts []string) string { return strings.Join(texts, " ") }

	texts := render(sweep(), Spec{Name: "f", Metric: "mse", X: "n", Series: "method", Panel: "eps",
		Filter: map[string][]string{"dataset": {"adult"}}})
	if !slices.Contains(texts, "ε = 4") || slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, "eps") }) {
		t.Errorf("panel titles %q, want ε = 4 and no eps", texts)
	}

	var rmse []results.Summary
	for _, s := range sweep() {
		if s.Metric == "mse" {
			r := s
			r.Metric = "rmse"
			rmse = append(rmse, r)
		}
	}
	text := joined(render(rmse, Spec{Name: "f", Metric: "rmse", X: "eps", Series: "method", Panel: "dataset", YLabel: "RMSE"}))
	if !strings.Contains(text, "the square root of the mean over 50 trials of squared error") || strings.Contains(text, "mean of rmse") {
		t.Errorf("RMSE caption: %s", text)
	}

	constant := slices.DeleteFunc(sweep(), func(s results.Summary) bool { return s.Metric != "mse" })
	for i := range constant {
		constant[i].Metric, constant[i].SD, constant[i].SE = "em_iterations", 0, 0
		constant[i].CILo, constant[i].CIHi = constant[i].Mean, constant[i].Mean
	}
	text = joined(render(constant, Spec{Name: "f", Metric: "em_iterations", X: "eps", Series: "method", Panel: "dataset"}))
	if strings.Contains(text, "95% CI") || !strings.Contains(text, "(sd = 0), so no CI") {
		t.Errorf("constant metric's caption: %s", text)
	}
	constant[0].SD = 0.5
	text = joined(render(constant, Spec{Name: "f", Metric: "em_iterations", X: "eps", Series: "method", Panel: "dataset"}))
	if !strings.Contains(text, "95% CI") || !strings.Contains(text, "29 points without a CI (the same value in every trial, sd = 0)") {
		t.Errorf("mostly constant metric's caption: %s", text)
	}

	gain := slices.DeleteFunc(sweep(), func(s results.Summary) bool { return s.Metric != "mse" })
	for i := range gain {
		gain[i].Metric, gain[i].Count = "worst_case_gain_pct", 1
		gain[i].CILo, gain[i].CIHi, gain[i].SD = nan, nan, nan
	}
	texts = render(gain, Spec{Name: "f", Metric: "worst_case_gain_pct", X: "eps", Series: "method", LinesOnly: true,
		Filter: map[string][]string{"dataset": {"adult"}}})
	for _, s := range texts {
		if strings.Contains(s, "worst_case") {
			t.Errorf("an internal name in %q", s)
		}
	}
	if text := joined(texts); !strings.Contains(text, "(V_ref/V − 1)·100") {
		t.Errorf("no description of the metric in %s", text)
	}
}
