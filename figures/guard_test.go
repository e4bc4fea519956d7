package figures

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ldpbench/ldpbench/results"
)

// logSummaries has a zero mean, a negative mean, a CI reaching below zero
// and a zero x, which no log axis can show.
func logSummaries() []results.Summary {
	s := []results.Summary{
		sum("a", "pm", 0.5, "mse", 0, 0.02),
		sum("a", "pm", 1, "mse", -0.01, 0.01),
		sum("a", "pm", 2, "mse", 0.01, 0.005),
		sum("a", "pm", 4, "mse", 0.004, 0.002),
		sum("a", "duchi", 0, "mse", 0.03, 0.03),
		sum("a", "duchi", 1, "mse", 0.02, 0.02),
	}
	s[0].CILo, s[0].CIHi = -0.001, 0.001
	s[1].CILo, s[1].CIHi = -0.02, 0.0
	s[2].CILo = -0.002
	return s
}

func TestLogGuard(t *testing.T) {
	var warnings []string
	warnf := func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) }
	spec := Spec{Name: "guard", Metric: "mse", X: "eps", Series: "method", LogX: true, LogY: true, Theory: true, Formats: []string{"svg"}}
	files, err := Render(logSummaries(), spec, t.TempDir(), WithWarnf(warnf))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`figure "guard": series "pm", x=0.5: mean 0 ≤ 0 dropped on log y`,
		`figure "guard": series "pm", x=1: mean -0.01 ≤ 0 dropped on log y`,
		`figure "guard": series "duchi", x=0: x ≤ 0 dropped on log x`,
		`figure "guard": series "duchi", x=0: theory at x ≤ 0 not drawn on log x`,
		`figure "guard": series "pm", x=2: CI lower bound -0.002 ≤ 0 clamped to 0.002 on log y`,
	}
	if got := strings.Join(warnings, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	svg, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if note := "Note: 3 points not shown"; !strings.Contains(string(svg), note) {
		t.Errorf("the figure does not say %q", note)
	}

	fig, err := Project(logSummaries(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if fig.Dropped != 3 || fig.Clamped != 1 {
		t.Errorf("dropped %d, clamped %d; want 3 and 1", fig.Dropped, fig.Clamped)
	}
	// The theory of the dropped points stays: it is known and positive.
	if got := len(fig.Panels[0].Series[0].Theory); got != 4 {
		t.Errorf("pm has %d theory points, want 4", got)
	}
	if got := shape(fig); got != "[pm#0:2,4 duchi#1:1]" {
		t.Errorf("shape %s", got)
	}
}

func TestLogGuardNothingLeft(t *testing.T) {
	s := logSummaries()[:2]
	spec := Spec{Name: "guard", Metric: "mse", X: "eps", LogY: true}
	dir := t.TempDir()
	_, err := Render(s, spec, dir, WithWarnf(nil))
	if err == nil || !strings.Contains(err.Error(), `figure "guard": no point of metric "mse" can be drawn`) {
		t.Fatalf("error %v, want one saying nothing can be drawn", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a failed render left %d files in %s", len(entries), filepath.Base(dir))
	}
}

// TestClampWarningsCounted: many clamped bounds make one warning that
// counts them and names the first, not one line each (a quick run clamps
// hundreds); the count is the figure's Clamped. Catches a warning per
// point, a count off by one, and the first bound lost.
func TestClampWarningsCounted(t *testing.T) {
	s := logSummaries()
	s[3].CILo = -0.0005 // a second clamped bound, in series pm at x=4
	s = append(s, sum("b", "pm", 2, "mse", 0.01, 0.005))
	s[len(s)-1].CILo = -1 // a third, in panel b
	var warnings []string
	warnf := func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) }
	spec := Spec{Name: "many", Metric: "mse", X: "eps", Series: "method", Panel: "dataset", LogY: true, Formats: []string{"svg"}}
	if _, err := Render(s, spec, t.TempDir(), WithWarnf(warnf)); err != nil {
		t.Fatal(err)
	}
	var clamps []string
	for _, w := range warnings {
		if strings.Contains(w, "clamped") {
			clamps = append(clamps, w)
		}
	}
	want := `figure "many": 3 CI lower bounds ≤ 0 clamped to their panel's smallest positive value on log y; the first: panel "a", series "pm", x=2: CI lower bound -0.002 ≤ 0 clamped to 0.004 on log y`
	if len(clamps) != 1 || clamps[0] != want {
		t.Errorf("clamp warnings:\n%s\nwant one:\n%s", strings.Join(clamps, "\n"), want)
	}
}

// TestTallLegendGrowsFigure: a legend taller than the plot rows (17
// series beside one row, as groupmean-e2's) makes the figure taller, so
// that the legend ends above the caption instead of overprinting it; a
// short legend leaves the height as the rows make it. Catches the height
// computed from the rows alone.
func TestTallLegendGrowsFigure(t *testing.T) {
	var many, few []results.Summary
	for i := range 17 {
		for _, eps := range []float64{1, 2} {
			s := sum("a", fmt.Sprintf("method-%02d", i), eps, "mse", 0.01*float64(i+1), 0)
			many = append(many, s)
			if i < 3 {
				few = append(few, s)
			}
		}
	}
	spec := Spec{Name: "legend", Metric: "mse", X: "eps", Series: "method", Formats: []string{"svg"}}
	for _, c := range []struct {
		name  string
		sums  []results.Summary
		grows bool
	}{{"17 series", many, true}, {"3 series", few, false}} {
		fig, err := Project(c.sums, spec)
		if err != nil {
			t.Fatal(err)
		}
		l := fig.layout()
		rows := vg.Length(l.rows-1) * pad
		for r := range l.rows {
			rows += l.rowHeight(r)
		}
		legendBottom := pad + l.titleHeight + l.rowTitle[0] + l.rowIn[0].top + l.legend.Rectangle(draw.Canvas{}).Size().Y
		captionTop := l.h - pad - l.captionHeight
		if legendBottom > captionTop+1e-9 {
			t.Errorf("%s: the legend ends %.1f below the caption's top", c.name, legendBottom-captionTop)
		}
		if grew := l.h > pad+l.titleHeight+rows+l.captionHeight+pad+1e-9; grew != c.grows {
			t.Errorf("%s: the figure grew %t, want %t", c.name, grew, c.grows)
		}
	}
}
