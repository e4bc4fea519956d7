package audit

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden SVG in testdata (go test ./audit -run Golden -update)")

var claims = []float64{0.5, 1, 2, 4}

// figureRows is an audit in the shape of the default one (ε 0.5–4): a
// dozen tight mechanisms at every claim, one looser than claimed, a dozen
// Monte Carlo bounds below the claims (one of 0: no event separated the
// inputs), a family violating by the Group NPRR's excess with two
// configurations at one point, and, when broken is set, a family whose
// audited ε is +Inf at three claims and 10⁶ at the fourth, with Monte
// Carlo bounds of 5 and 27.
func figureRows(broken bool) []Row {
	var rows []Row
	row := func(name, family string, claimed, audited float64, method Method) {
		r := Row{
			Target:  Target{Name: name, Family: family, Eps: claimed, Claimed: claimed, True: math.NaN()},
			Finding: Finding{Method: method, Epsilon: audited},
		}
		r.Verdict = r.Finding.Verdict(claimed)
		rows = append(rows, r)
	}
	for _, e := range claims {
		for i := range 12 {
			name := fmt.Sprintf("tight-%02d", i)
			row(name, name, e, e*(1+1e-15*float64(i%3)), MethodExact)
			mc := e * (0.7 + 0.025*float64(i))
			if e == 0.5 && i == 0 {
				mc = 0
			}
			row(name, name, e, mc, MethodMonteCarlo)
		}
		row("loose", "loose", e, 0.8*e, MethodDensity)
		nprr := e + math.Log((math.Exp(e)+2)/3)
		for _, d := range []string{"d=2", "d=4"} {
			row("nprr(k=2, "+d+")", "nprr(k=2)", e, nprr, MethodExact)
			rows[len(rows)-1].KnownIssue = "E2.1"
		}
		row("nprr(k=2, d=2)", "nprr(k=2)", e, e+0.9*(nprr-e), MethodMonteCarlo)
		rows[len(rows)-1].KnownIssue = "E2.1"
		if broken {
			inf := math.Inf(1)
			if e == 0.5 {
				inf = 1e6
			}
			row("broken", "broken", e, inf, MethodExact)
			mc := 5.0 // on the scale, and within the range the other rows set
			if e == 4 {
				mc = 27
			}
			row("broken", "broken", e, mc, MethodMonteCarlo)
		}
	}
	return rows
}

// TestFigureAxesFitClaims: the axes fit the claimed ε (0.5–4) whatever
// the audit finds. Adding rows with audited ε of +Inf, 10⁶ and 27 leaves
// the x axis and the y axis's scale as they were (only the band above the
// axis appears); each such row is drawn in the band, labelled with its
// value and listed in the caption; no row is dropped (every finite or
// infinite row is in a mark, the one of 0 on the bottom edge). Bugs
// caught: an axis stretched to 27 (as an earlier audit figure was), an
// infinite point dropped, or drawn without its value.
func TestFigureAxesFitClaims(t *testing.T) {
	plain, err := newAuditFigure(figureRows(false))
	if err != nil {
		t.Fatal(err)
	}
	rows := figureRows(true)
	f, err := newAuditFigure(rows)
	if err != nil {
		t.Fatal(err)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Abs(b) }
	if !near(f.p.X.Min, 0.5/xPad) || !near(f.p.X.Max, 4*xPad) {
		t.Errorf("x axis [%v, %v], want [0.5/%v, 4·%v]", f.p.X.Min, f.p.X.Max, xPad, xPad)
	}
	if f.p.X.Min != plain.p.X.Min || f.p.X.Max != plain.p.X.Max || f.p.Y.Min != plain.p.Y.Min || f.yHi != plain.yHi {
		t.Errorf("the off-scale rows moved the axes: x [%v, %v] y [%v, %v], without them x [%v, %v] y [%v, %v]",
			f.p.X.Min, f.p.X.Max, f.p.Y.Min, f.yHi, plain.p.X.Min, plain.p.X.Max, plain.p.Y.Min, plain.yHi)
	}
	if plain.p.Y.Max != plain.yHi {
		t.Errorf("a band above the axis with no row above it: y up to %v, axis to %v", plain.p.Y.Max, plain.yHi)
	}
	// The y axis: no more than capMult times the largest claim (padded),
	// the band no more than its share of the height above it.
	if f.yHi > capMult*4*yPad || f.p.Y.Max > f.yHi*math.Pow(f.yHi/f.p.Y.Min, 0.11) || f.p.Y.Max <= f.yHi {
		t.Errorf("y axis to %v and band to %v", f.yHi, f.p.Y.Max)
	}
	if f.p.Y.Min < 0.5*lowFrac/yPad || f.p.Y.Min > 0.5 {
		t.Errorf("y axis from %v", f.p.Y.Min)
	}

	// Every row in a mark; the off-scale ones above, the 0 below.
	n := 0
	var high []float64
	for _, m := range f.marks {
		n += m.n
		switch m.where {
		case onScale:
			if m.y > f.yHi || m.y < f.yLo {
				t.Errorf("mark at %v on the scale [%v, %v]", m.y, f.yLo, f.yHi)
			}
		case above:
			for range m.n {
				high = append(high, m.y)
			}
		case below:
			if m.y != 0 || m.kind != passMC {
				t.Errorf("mark of %v below the axis", m.y)
			}
		}
	}
	if n != len(rows) {
		t.Errorf("%d rows in the marks, want %d", n, len(rows))
	}
	slices.Sort(high)
	if want := []float64{27, 1e6, math.Inf(1), math.Inf(1), math.Inf(1)}; !slices.Equal(high, want) {
		t.Errorf("above the axis: %v, want %v", high, want)
	}

	svg := figureSVG(t, rows)
	texts := svgTexts(svg)
	for _, want := range []string{"+Inf", "1e+06", "27", "off scale", "1 below", "×12", "+1.14"} {
		if !slices.Contains(texts, want) {
			t.Errorf("no label %q in the SVG: %q", want, texts)
		}
	}
	caption := strings.Join(texts, " ")
	for _, want := range []string{
		"Above the axis (audited ε > " + num3(f.yHi) + "), drawn in the grey band: broken (exact) 1e+06 at ε = 0.5; +Inf at ε = 1, 2, 4; broken (Monte Carlo) 27 at ε = 4.",
		"Below the axis (audited ε < " + num3(f.yLo) + "), drawn on its bottom edge: passes (Monte Carlo) 0 at ε = 0.5.",
		"Below the diagonal by an exact audit (more private than claimed): loose at ε = 0.5, 1, 2, 4.",
		"VIOLATION broken: 4 exact, 4 Monte Carlo",
		"VIOLATION nprr(k=2) [known: E2.1]: 8 exact, 4 Monte Carlo",
	} {
		if !strings.Contains(normalise(caption), normalise(want)) {
			t.Errorf("the legend and caption lack %q:\n%s", want, caption)
		}
	}
}

// TestFigureLabelsApart: in the figure of TestFigureAxesFitClaims and in
// one where six families violate their claim by nearly the same excess at
// every claim, no label overlaps another or a mark, each stays in the data
// area, and a label that found no room is listed in the caption.
func TestFigureLabelsApart(t *testing.T) {
	crowded := figureRows(false)
	for i := range 6 {
		for _, e := range claims {
			fam := fmt.Sprintf("crowd-%d", i)
			r := Row{
				Target:  Target{Name: fam, Family: fam, Eps: e, Claimed: e, True: math.NaN()},
				Finding: Finding{Method: MethodExact, Epsilon: e * (1.1 + 0.01*float64(i))},
			}
			r.Verdict = r.Finding.Verdict(e)
			crowded = append(crowded, r)
		}
	}
	for name, rows := range map[string][]Row{"broken": figureRows(true), "crowded": crowded} {
		t.Run(name, func(t *testing.T) {
			f, err := newAuditFigure(rows)
			if err != nil {
				t.Fatal(err)
			}
			var placed []*figLabel
			for _, l := range f.labels {
				if !l.placed {
					if !slices.ContainsFunc(f.caption, func(p string) bool { return strings.Contains(p, l.text+" at (") }) {
						t.Errorf("label %q neither placed nor in the caption", l.text)
					}
					continue
				}
				r := l.rect
				if r.Min.X < 0 || r.Min.Y < 0 || r.Max.X > f.dataW || r.Max.Y > f.dataH {
					t.Errorf("label %q at %v outside the data area %v × %v", l.text, r, f.dataW, f.dataH)
				}
				for i := range f.marks {
					if overlaps(r, f.markRect(i)) {
						t.Errorf("label %q at %v over mark %d at %v", l.text, r, i, f.markRect(i))
					}
				}
				for _, o := range placed {
					if overlaps(r, o.rect) {
						t.Errorf("labels %q and %q overlap", l.text, o.text)
					}
				}
				placed = append(placed, l)
			}
			if len(placed) < len(f.labels)*3/4 {
				t.Errorf("%d of %d labels placed", len(placed), len(f.labels))
			}
		})
	}
}

// TestGoldenFigure: the figure of TestFigureAxesFitClaims, golden SVG (go
// test ./audit -run Golden -update rewrites it; with $AUDIT_SAMPLE set its
// SVG and PNG are written there too).
func TestGoldenFigure(t *testing.T) {
	rows := figureRows(true)
	dir := t.TempDir()
	if d := os.Getenv("AUDIT_SAMPLE"); d != "" {
		dir = d
	}
	if _, err := WriteFigure(dir, "golden", rows); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "golden.svg"))
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "figure.svg")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./audit -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		out := filepath.Join(t.TempDir(), "got.svg")
		os.WriteFile(out, got, 0o644)
		t.Errorf("SVG differs from %s; got %s (run with -update if the change is intended)", golden, out)
	}
}

// TestFigureNarrow: one claim, all passing: the x axis still spans a
// factor minSpan around it, and there is no band; a claim that is not
// finite and > 0 is an error.
func TestFigureNarrow(t *testing.T) {
	var rows []Row
	for _, r := range figureRows(false) {
		if r.Claimed == 1 && r.Verdict == Pass {
			rows = append(rows, r)
		}
	}
	f, err := newAuditFigure(rows)
	if err != nil {
		t.Fatal(err)
	}
	if f.p.X.Max/f.p.X.Min < minSpan*(1-1e-12) || f.p.X.Min >= 1 || f.p.X.Max <= 1 || f.p.Y.Max != f.yHi {
		t.Errorf("x [%v, %v], y [%v, %v] to %v", f.p.X.Min, f.p.X.Max, f.p.Y.Min, f.yHi, f.p.Y.Max)
	}
	rows[0].Claimed = math.Inf(1)
	if _, err := newAuditFigure(rows); err == nil {
		t.Error("a claim of +Inf drawn")
	}
}

// figureSVG returns the SVG WriteFigure writes of rows.
func figureSVG(t *testing.T, rows []Row) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := WriteFigure(dir, "f", rows); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "f.svg"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// svgTexts returns the text elements of an SVG, in order.
func svgTexts(svg string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`>([^<>]*)</text>`).FindAllStringSubmatch(svg, -1) {
		out = append(out, strings.NewReplacer("&#43;", "+", "&#39;", "'", "&gt;", ">", "&lt;", "<", "&amp;", "&").Replace(m[1]))
	}
	return out
}

// normalise collapses white space (the caption is wrapped).
func normalise(s string) string { return strings.Join(strings.Fields(s), " ") }
