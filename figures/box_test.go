package figures

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/results"
)

// violins is the box-plot analogue of Raab et al.'s violin plots: per
// method and ε, 50 trials of m̂₀ − m̂₁ (metric mean_diff) on two groups of
// means −1/3 and 1/3, so the true difference is −2/3 (the theory); the
// spread shrinks with ε, and nprr-8 has a heavy right tail (a few wild
// trials, where a count estimate comes near 0: E2.13) that moves its mean
// off its median.
func violins() []results.Summary {
	rng := rand.New(rand.NewPCG(13, 2))
	var rows []results.Row
	for m, method := range []string{"bernoulli", "laplace", "piecewise", "nprr-8"} {
		for _, eps := range []float64{0.5, 1, 4, 10} {
			sd := (0.15 + 0.05*float64(m)) / math.Sqrt(eps)
			for trial := range 50 {
				v := -2.0/3 + sd*rng.NormFloat64()
				if method == "nprr-8" && trial%17 == 3 {
					v += 4 * sd // the tail
				}
				rows = append(rows, results.Row{Experiment: "groupmean-violin", Dataset: "normal", Method: method,
					Eps: results.Float(eps), N: 20000, Params: "d=2", Trial: trial, Metric: "mean_diff",
					Value: results.Float(v), Theory: -2.0 / 3})
			}
		}
	}
	return results.Summarise(rows)
}

var boxSpec = Spec{
	Name: "golden-box", Title: "m̂₀ − m̂₁ over 50 runs (true difference −2/3)", Metric: "mean_diff", X: "eps", Series: "method",
	XCategorical: true, Style: StyleBox, Theory: true, YLabel: "m̂₀ − m̂₁", Formats: []string{"svg", "png"},
	References: []Reference{{Label: "paper (illustrative)", Series: "laplace", X: []float64{1, 4}, Y: []float64{-0.5, -0.6}}},
}

// TestGoldenBox: the box plot, golden SVG (go test ./figures -run Golden
// -update rewrites it; with $FIGURES_SAMPLE set the SVG and PNG go there
// too). The caption says the whiskers are Tukey's, 1.5 IQR.
func TestGoldenBox(t *testing.T) {
	dir := t.TempDir()
	if d := os.Getenv("FIGURES_SAMPLE"); d != "" {
		dir = d
	}
	files, err := Render(violins(), boxSpec, dir, WithWarnf(t.Errorf))
	if err != nil {
		t.Fatal(err)
	}
	svg := string(checkGolden(t, files[0], "golden-box.svg"))
	text := strings.Join(svgText(svg), " ")
	for _, want := range []string{"whiskers (Tukey): to the most extreme trial value within 1.5 IQR of the box", "25th to the 75th percentile", "Dark dashes across the boxes: theory", "boxes are spread sideways"} {
		if !strings.Contains(text, want) {
			t.Errorf("the caption lacks %q: %s", want, text)
		}
	}
	if strings.Contains(text, "95% CI") {
		t.Errorf("a box plot's caption claims a CI: %s", text)
	}
}

// TestBoxFromQuantiles: each box is the summary's quartiles, median,
// whiskers and outliers, and its data range holds the whiskers. Bugs
// caught: a box drawn from mean ± sd (nprr-8's tail puts its mean well
// above its median and mean ± sd outside its quartiles), whiskers from the
// CI or at min–max, and a y range that clips the whiskers.
func TestBoxFromQuantiles(t *testing.T) {
	sums := violins()
	fig, err := Project(sums, boxSpec)
	if err != nil {
		t.Fatal(err)
	}
	bySummary := map[string]results.Summary{}
	for _, s := range sums {
		bySummary[fmt.Sprintf("%s %v", s.Method, s.Eps)] = s
	}
	checked, skewed := 0, 0
	for _, ser := range fig.Panels[0].Series {
		for _, pt := range ser.Points {
			s := bySummary[fmt.Sprintf("%s %s", ser.Value, fig.CategoryValues[int(pt.X)])]
			want := Box{float64(s.Q25), float64(s.Median), float64(s.Q75), float64(s.WhiskerLo), float64(s.WhiskerHi), s.Outliers}
			if pt.Box == nil || !reflect.DeepEqual(*pt.Box, want) {
				t.Errorf("%s at %s: box %+v, want the summary's %+v", ser.Value, fig.CategoryValues[int(pt.X)], pt.Box, want)
				continue
			}
			if !math.IsNaN(pt.Lo) || !math.IsNaN(pt.Hi) {
				t.Errorf("%s: a CI [%v, %v] kept beside the box", ser.Value, pt.Lo, pt.Hi)
			}
			checked++
			if m, sd := float64(s.Mean), float64(s.SD); math.Abs((m-sd)-want.Q25) > 0.1*sd && math.Abs(m-want.Median) > 0.1*sd {
				skewed++
			}
		}
		var b boxPlot
		for _, pt := range ser.Points {
			b.X, b.Boxes = append(b.X, pt.X), append(b.Boxes, *pt.Box)
		}
		_, _, lo, hi := b.DataRange()
		for _, bx := range b.Boxes {
			if bx.WhiskerLo < lo || bx.WhiskerHi > hi {
				t.Errorf("%s: data range [%v, %v] clips a whisker [%v, %v]", ser.Value, lo, hi, bx.WhiskerLo, bx.WhiskerHi)
			}
		}
	}
	if checked != 16 || skewed == 0 {
		t.Errorf("%d boxes checked (want 16), %d where mean ± sd differs from the quartiles (want some: else the test cannot tell them apart)", checked, skewed)
	}
}

// TestBoxRefused: a box plot needs a categorical x and the quantiles,
// and goes with none of band, spread, lines_only, ratio_to, pool; each
// error names the key. Bugs caught: a box plot on a numeric x (boxes a
// category wide at ε = 0.5 and 10), an RMSE (no quantiles) drawn as boxes
// at 0.
func TestBoxRefused(t *testing.T) {
	base := boxSpec
	base.References = nil
	for _, c := range []struct {
		name string
		mod  func(*Spec)
		want string
	}{
		{"unknown style", func(s *Spec) { s.Style = "violin" }, `key "style" is "violin"; it takes "points" (the default) or "box"`},
		{"numeric x", func(s *Spec) { s.XCategorical = false }, `key "style" "box" needs a categorical x`},
		{"band", func(s *Spec) { s.Band = true }, `key "style" "box" cannot go with band = true`},
		{"spread", func(s *Spec) { s.Spread = "sd" }, `key "style" "box" cannot go with spread = "sd"`},
		{"lines_only", func(s *Spec) { s.LinesOnly = true }, `key "style" "box" cannot go with lines_only = true`},
		{"ratio_to", func(s *Spec) { s.RatioTo = "laplace" }, `key "style" "box" cannot go with ratio_to = "laplace"`},
		{"pool", func(s *Spec) { s.Pool = []string{"dataset"} }, `key "style" "box" cannot go with pool or sd_from`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := base
			c.mod(&s)
			err := s.Validate()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	// No quantiles: an old summary.csv, or a derived metric.
	old := violins()
	for i := range old {
		old[i].Q25 = results.Float(math.NaN())
	}
	if _, err := Project(old, base); err == nil || !strings.Contains(err.Error(), `key "style": summary experiment=groupmean-violin`) || !strings.Contains(err.Error(), "has no quantiles") {
		t.Errorf("summaries without quantiles: %v", err)
	}
	bad := violins()
	bad[0].Q25, bad[0].Q75 = bad[0].Q75, bad[0].Q25
	if _, err := Project(bad, base); err == nil || !strings.Contains(err.Error(), "quantiles out of order") {
		t.Errorf("swapped quartiles: %v", err)
	}
}

// TestPoolFilterOnPooledField: a figure that filters the field it pools
// (two of four datasets) keeps the pooled points. The bug caught: the
// filter applied again after pooling, where the field reads "pooled", so
// that nothing passes it.
func TestPoolFilterOnPooledField(t *testing.T) {
	in := []results.Summary{
		summaryOf("x", 1, "err", []float64{1, 2}, 1),
		summaryOf("y", 1, "err", []float64{3, 4}, 1),
		summaryOf("z", 1, "err", []float64{100, 200}, 1),
	}
	fig, err := Project(in, Spec{Name: "f", Metric: "err", X: "eps", Pool: []string{"dataset"}, Filter: map[string][]string{"dataset": {"x", "y"}}})
	if err != nil {
		t.Fatal(err)
	}
	if pts := fig.Panels[0].Series[0].Points; len(pts) != 1 || pts[0].Mean != 2.5 {
		t.Errorf("points %+v, want one of mean 2.5 (x and y pooled, z filtered out)", pts)
	}
}
