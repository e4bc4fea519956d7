package figures

import (
	"image/color"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// table3 is Raab et al.'s Table 3 (d = 2, mean scaled absolute error of
// Group Piecewise by ε and ε₁/ε), as printed, with its bold cells
// (the minimum of each row) outlined: values over five decades, the heat
// map's reason to be.
func table3() HeatMap {
	printed := [][]float64{
		{7.51e+01, 1.55e+01, 1.71e+00, 3.91e-01, 4.06e-01, 4.67e-01, 6.13e-01, 9.29e-01, 1.80e+00},
		{5.71e-02, 4.56e-02, 4.90e-02, 5.38e-02, 6.39e-02, 7.80e-02, 1.04e-01, 1.57e-01, 3.01e-01},
		{2.38e-02, 2.04e-02, 2.18e-02, 2.39e-02, 2.74e-02, 3.33e-02, 4.34e-02, 6.41e-02, 1.28e-01},
		{1.04e-02, 8.68e-03, 8.79e-03, 9.53e-03, 1.13e-02, 1.37e-02, 1.79e-02, 2.58e-02, 5.20e-02},
		{4.68e-03, 3.43e-03, 3.37e-03, 3.58e-03, 4.28e-03, 5.40e-03, 7.04e-03, 1.09e-02, 2.28e-02},
		{2.97e-03, 2.03e-03, 1.92e-03, 2.03e-03, 2.31e-03, 3.06e-03, 4.30e-03, 6.72e-03, 1.45e-02},
		{2.22e-03, 1.40e-03, 1.21e-03, 1.28e-03, 1.58e-03, 2.07e-03, 2.98e-03, 4.72e-03, 1.05e-02},
		{1.79e-03, 1.03e-03, 8.21e-04, 8.72e-04, 1.11e-03, 1.55e-03, 2.21e-03, 3.69e-03, 8.15e-03},
	}
	h := HeatMap{
		Name: "heatmap-table3", Title: "Table 3: mean scaled absolute error, d = 2",
		RowField: "ε", ColumnField: "ε₁/ε",
		Rows:       []string{"0.1", "0.5", "1", "2", "4", "6", "8", "10"},
		Columns:    []string{"0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9"},
		Values:     printed,
		BestNote:   "the lowest value of its row",
		ValueLabel: "mean scaled absolute error",
		Caption:    []string{"Cells: Raab et al.'s printed values (3 significant digits)."},
	}
	for _, row := range printed {
		var text []string
		best := make([]bool, len(row))
		best[slices.Index(row, slices.Min(row))] = true
		for _, v := range row {
			text = append(text, strconv.FormatFloat(v, 'g', 3, 64))
		}
		h.Text = append(h.Text, text)
		h.Best = append(h.Best, best)
	}
	return h
}

// TestGoldenHeatMap: the heat map of Table 3, golden SVG (go test
// ./figures -run Golden -update rewrites it; with $FIGURES_SAMPLE set the
// SVG and PNG are also written there to be looked at). The decades of the
// colour bar are labelled 10⁻⁴ to 10², the outlines are where the paper's
// bold is (ε₁/ε = 0.4, 0.2, 0.2, 0.2, 0.3, 0.3, 0.3, 0.3) and the caption
// says the scale is logarithmic.
func TestGoldenHeatMap(t *testing.T) {
	h := table3()
	dir := t.TempDir()
	if d := os.Getenv("FIGURES_SAMPLE"); d != "" {
		dir = d
	}
	files, err := RenderHeatMap(h, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || !strings.HasSuffix(files[0], "heatmap-table3.svg") || !strings.HasSuffix(files[1], "heatmap-table3.png") {
		t.Fatalf("files %v", files)
	}
	svg := string(checkGolden(t, files[0], "heatmap-table3.svg"))
	texts := strings.Join(svgText(svg), "|")
	for _, want := range []string{"|−4|", "|2|", "|75.1|", "|0.000821|", "|ε₁/ε|", "Colour: a log scale (every value is &gt; 0)", "outlined: the lowest value of its row"} {
		if !strings.Contains("|"+texts+"|", want) {
			t.Errorf("the SVG's texts lack %q: %s", want, texts)
		}
	}
	l := h.layout()
	var bestCols []string
	for _, c := range h.cells(l, 0, 0) {
		if c.best {
			bestCols = append(bestCols, h.Columns[c.col])
		}
	}
	if got := strings.Join(bestCols, " "); got != "0.4 0.2 0.2 0.2 0.3 0.3 0.3 0.3" {
		t.Errorf("outlined columns %s, want the paper's bold 0.4 0.2 0.2 0.2 0.3 0.3 0.3 0.3", got)
	}
}

// TestHeatMapScale: the colour scale is logarithmic when every value is
// > 0 and linear otherwise, covers the values with labelled decades, and
// maps a larger value to a lighter colour. Each case names the bug it
// catches.
func TestHeatMapScale(t *testing.T) {
	for _, c := range []struct {
		name, catches string
		values        [][]float64
		log           bool
		lo, hi        float64 // log10 units on a log scale
		labels        string  // the colour bar's labels, bottom to top
	}{
		{"five decades", "a linear scale that paints all but the largest cell one colour",
			[][]float64{{8.21e-4, 75.1}, {0.02, math.NaN()}}, true, -4, 2, "10^{−4} 10^{−3} 10^{−2} 10^{−1} 10^{0} 10^{1} 10^{2}"},
		{"within a decade", "a log scale of zero width (lo = hi) when no decade lies inside",
			[][]float64{{2e-3, 5e-3}}, true, -3, -2, "10^{−3} 2×10^{−3} 5×10^{−3} 10^{−2}"},
		{"a zero", "log10(0) = −Inf on a log scale",
			[][]float64{{0, 0.5, 1}}, false, 0, 1, "0 0.2 0.4 0.6 0.8 1"},
		{"negative differences", "a log scale of negative values",
			[][]float64{{-0.3, 0.1, 0.25}}, false, -0.3, 0.3, "−0.2 0 0.2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newColourScale(c.values)
			if s.log != c.log || math.Abs(s.lo-c.lo) > 1e-12 || math.Abs(s.hi-c.hi) > 1e-12 {
				t.Errorf("log %v on [%v, %v], want log %v on [%v, %v] (catches: %s)", s.log, s.lo, s.hi, c.log, c.lo, c.hi, c.catches)
			}
			var labels []string
			for _, tk := range s.ticks {
				if tk.Label != "" {
					labels = append(labels, tk.Label)
				}
			}
			if got := strings.Join(labels, " "); got != c.labels {
				t.Errorf("labels %q, want %q", got, c.labels)
			}
			// Darker for lower: viridis rises in luminance.
			var vals []float64
			for _, r := range c.values {
				for _, v := range r {
					if finite(v) {
						vals = append(vals, v)
					}
				}
			}
			slices.Sort(vals)
			for i := 1; i < len(vals); i++ {
				if relativeLuminance(s.colour(vals[i])) <= relativeLuminance(s.colour(vals[i-1])) {
					t.Errorf("%v is not lighter than %v: the scale is reversed or flat", vals[i], vals[i-1])
				}
			}
		})
	}
}

// TestHeatMapInkReadable: every cell's text, over the whole colour scale,
// has a WCAG contrast ratio of at least 4.5 (level AA for small text)
// against its fill; black text on viridis' dark purple would have 1.5.
// Also the empty cell: grey, no text, even if Text has some.
func TestHeatMapInkReadable(t *testing.T) {
	s := newColourScale([][]float64{{1e-3, 1}})
	worst := 21.0
	for k := 0; k <= 200; k++ {
		fill, err := s.cmap.At(float64(k) / 200)
		if err != nil {
			t.Fatal(err)
		}
		worst = math.Min(worst, contrast(fill, textOn(fill)))
	}
	if worst < 4.5 {
		t.Errorf("the least contrast of a cell's text is %.2f, below 4.5", worst)
	}
	if c := contrast(color.NRGBA{0x44, 0x01, 0x54, 0xff}, color.Black); c > 2 {
		t.Fatalf("viridis' darkest against black: %.2f; the check above would not catch black ink", c)
	}
	h := HeatMap{Name: "e", Rows: []string{"a"}, Columns: []string{"x", "y"}, Values: [][]float64{{1, math.NaN()}}, Text: [][]string{{"1", "stale"}}}
	cells := h.cells(h.layout(), 0, 0)
	if cells[1].text != "" || cells[1].fill != color.Color(emptyCell) {
		t.Errorf("an empty cell drawn as %+v", cells[1])
	}
}

// TestHeatMapValidate: a grid of the wrong shape or without a finite
// value is refused, naming what is wrong.
func TestHeatMapValidate(t *testing.T) {
	good := HeatMap{Name: "h", Rows: []string{"a", "b"}, Columns: []string{"x"}, Values: [][]float64{{1}, {2}}, Text: [][]string{{"1"}, {"2"}}}
	if err := good.validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mod  func(*HeatMap)
		want string
	}{
		{func(h *HeatMap) { h.Name = "a/b" }, "file stem"},
		{func(h *HeatMap) { h.Values = h.Values[:1] }, "values has 1 rows, want 2"},
		{func(h *HeatMap) { h.Text[1] = nil }, "text row 1 has 0 cells, want 1"},
		{func(h *HeatMap) { h.Best = [][]bool{{true}} }, "best has 1 rows, want 2"},
		{func(h *HeatMap) { h.Values = [][]float64{{math.NaN()}, {math.Inf(1)}} }, "no finite value"},
		{func(h *HeatMap) { h.Rows, h.Values, h.Text = nil, nil, nil }, "nothing to draw"},
	} {
		h := good
		h.Text = [][]string{{"1"}, {"2"}}
		c.mod(&h)
		if err := h.validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
}
