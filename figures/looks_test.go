package figures

import (
	"strings"
	"testing"
)

// figureOf is a figure with one panel holding the given series, each a
// point at x = 1 with mean ys[i] (1 when ys is short).
func figureOf(series []string, ys ...float64) *Figure {
	f := &Figure{Spec: Spec{Name: "t", Metric: "mse", X: "eps", Series: "method"}, Series: series}
	p := Panel{}
	for i, s := range series {
		y := 1.0
		if i < len(ys) {
			y = ys[i]
		}
		p.Series = append(p.Series, Series{Value: s, Style: i, Points: []Point{{X: 1, Mean: y}}})
	}
	f.Panels = []Panel{p}
	return f
}

func lookColour(look int) int { return look % len(palette) }

// A method keeps its look whatever its place in a figure, and a series
// the table does not know takes a colour no other series of the figure
// has: PM is the green pyramid first or third.
func TestLooksFixedAcrossFigures(t *testing.T) {
	a := figureOf([]string{"PM", "Laplace", "mine"})
	b := figureOf([]string{"SW", "mine", "PM"})
	a.assignLooks()
	b.assignLooks()
	if a.look(0) != b.look(2) || a.look(0) != methodLooks["PM"] {
		t.Errorf("PM's look %d in one figure, %d in another; want %d", a.look(0), b.look(2), methodLooks["PM"])
	}
	for _, f := range []*Figure{a, b} {
		seen := map[int]string{}
		for i, s := range f.Series {
			c := lookColour(f.look(i))
			if other, ok := seen[c]; ok {
				t.Errorf("series %s and %s share colour %d", other, s, c)
			}
			seen[c] = s
		}
	}
}

// Two labels of the table with one colour in one figure: the later one
// gives way, so that a figure of at most 8 series never repeats a colour;
// in a crowded figure (more series than colours) the table's looks stand
// as long as no two are identical.
func TestLooksGiveWay(t *testing.T) {
	f := figureOf([]string{"HM-TP", "UWA", "Laplace"}) // HM-TP and UWA are both wine circles
	f.assignLooks()
	if f.look(0) != methodLooks["HM-TP"] {
		t.Errorf("the first series lost its look")
	}
	if lookColour(f.look(1)) == lookColour(f.look(0)) || lookColour(f.look(1)) == lookColour(f.look(2)) {
		t.Errorf("UWA kept a taken colour: looks %v", f.looks)
	}
	crowded := []string{"Laplace", "Duchi et al.", "PM", "SW", "HM", "PM-SUB", "Three-Outputs", "HM-TP", "HM-NP", "PM-OPT"}
	g := figureOf(crowded)
	g.assignLooks()
	seen := map[int]bool{}
	for i, s := range crowded {
		if g.look(i) != methodLooks[s] {
			t.Errorf("crowded figure: %s lost its look", s)
		}
		if seen[g.look(i)] {
			t.Errorf("crowded figure: %s repeats a look", s)
		}
		seen[g.look(i)] = true
	}
}

// The methods that share a figure in the shipped specs (one set per
// kind of figure) have different colours in the table itself, without
// giving way: a reader sees each paper's methods in their own colours.
func TestShippedLabelSetsDistinct(t *testing.T) {
	sets := [][]string{
		{"Alg. 1", "Alg. 2", "Alg. 3 (Laplace)", "swap-model staircase", "lower bound"},
		{"Alg. 3 (2-D staircase)", "Alg. 3 (hourglass)", "swap-model staircase", "lower bound"},
		{"Alg. 3 (Laplace)", "Alg. 3 (hourglass)", "Laplace (local)", "PM-SUB (local)", "Duchi et al. (local)"},
		{"non-private", "HM-NP", "PM-SUB", "HM-TP"},
		{"PM-SUB", "Three-Outputs", "HM-TP", "PM", "HM", "Duchi et al.", "Laplace", "non-private"},
		{"Bernoulli", "Laplace", "Piecewise", "NPRR (k = 8)", "NPRR (k = 16)", "NPRR (k = 32)"},
		{"SR", "Laplace", "PM", "SW", "SW (raw report)", "HM"},
		{"SR", "Laplace", "PM", "SW", "UA", "UWA", "UWA (oracle weights)"},
		{"SR", "PM", "SW", "Single best", "ULE"},
		{"HM-NP + 2PEM", "DE", "OUE", "SW", "Three-Outputs", "HM-TP", "PM"},
		{"Duchi et al.", "Three-Outputs", "PM-SUB", "HM-TP", "N-output", "HM-NP", "NP-AAA", "AAA"},
		{"Laplace", "Duchi et al.", "PM", "HM", "PM-SUB", "PM-OPT", "Three-Outputs", "HM-TP"},
	}
	for _, set := range sets {
		seen := map[int]string{}
		for _, label := range set {
			look, ok := methodLooks[label]
			if !ok {
				t.Errorf("%q has no look", label)
				continue
			}
			if other, ok := seen[lookColour(look)]; ok {
				t.Errorf("%q and %q share a colour in the table", other, label)
			}
			seen[lookColour(look)] = label
		}
	}
}

// A series under another at every point is named, in the order drawn;
// one that parts from it at one point (by 5 % of the span), or that is
// alone at a point, is not.
func TestHiddenSeriesNamed(t *testing.T) {
	f := figureOf([]string{"a", "b", "c"})
	f.Panels[0].Series[0].Points = []Point{{X: 1, Mean: 1}, {X: 2, Mean: 2}}
	f.Panels[0].Series[1].Points = []Point{{X: 1, Mean: 1.001}, {X: 2, Mean: 2.001}}
	f.Panels[0].Series[2].Points = []Point{{X: 1, Mean: 1.5}, {X: 2, Mean: 2.2}}
	got := f.hidden()
	if len(got) != 1 || got[0] != "a lies under b at every point" {
		t.Errorf("hidden() = %q, want [a lies under b at every point]", got)
	}
	f.Panels[0].Series[1].Points = f.Panels[0].Series[1].Points[:1]
	if got := f.hidden(); len(got) != 0 {
		t.Errorf("a point of a alone: hidden() = %q, want none", got)
	}
}

// A spec's label of a value wins over the kind's name of it, which wins
// over "field = value"; an empty label is refused.
func TestLabelPrecedence(t *testing.T) {
	f := figureOf([]string{"single-1", "uwa", "x"})
	f.Spec.Labels = map[string]string{"single-1": "direct report"}
	f.names = func(field, v string) (string, bool) {
		if v == "x" {
			return "", false
		}
		return strings.ToUpper(v), true
	}
	for i, want := range []string{"direct report", "UWA", "x"} {
		if got := f.seriesLabel(i); got != want {
			t.Errorf("series %d: label %q, want %q", i, got, want)
		}
	}
	f.Spec.Series = "k"
	f.names = nil
	if got := f.seriesLabel(2); got != "k = x" {
		t.Errorf("no names: label %q, want %q", got, "k = x")
	}
	bad := Spec{Name: "t", Metric: "mse", X: "eps", Labels: map[string]string{"uwa": " "}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), `"labels"`) {
		t.Errorf("empty label: Validate() = %v, want an error naming key labels", err)
	}
}

// A series covered by two later ones, each at some of its points, is
// named with both; one hidden in some panels only is named with those.
func TestHiddenByManyInSomePanels(t *testing.T) {
	f := figureOf([]string{"a", "b", "c"})
	f.Spec.Panel = "dataset"
	p0 := Panel{Value: "u", Series: []Series{
		{Value: "a", Style: 0, Points: []Point{{X: 1, Mean: 1}, {X: 2, Mean: 2}}},
		{Value: "b", Style: 1, Points: []Point{{X: 1, Mean: 1}, {X: 2, Mean: 3}}},
		{Value: "c", Style: 2, Points: []Point{{X: 1, Mean: 4}, {X: 2, Mean: 2}}},
	}}
	p1 := Panel{Value: "v", Series: []Series{
		{Value: "a", Style: 0, Points: []Point{{X: 1, Mean: 1}}},
		{Value: "b", Style: 1, Points: []Point{{X: 1, Mean: 2}}},
	}}
	f.Panels = []Panel{p0, p1}
	got := f.hidden()
	if want := "a lies under b and c at every point of u"; len(got) != 1 || got[0] != want {
		t.Errorf("hidden() = %q, want [%q]", got, want)
	}
}

// A "field=value" label names that field's value only: groups = 2 is
// "d = 2" while the series k = 2 keeps its own name.
func TestLabelFieldValue(t *testing.T) {
	f := figureOf([]string{"2"})
	f.Spec.Series, f.Spec.Panel = "k", "groups"
	f.Spec.Labels = map[string]string{"groups=2": "d = 2"}
	if got := f.label("groups", "2"); got != "d = 2" {
		t.Errorf("panel label %q, want d = 2", got)
	}
	if got := f.seriesLabel(0); got != "k = 2" {
		t.Errorf("series label %q, want k = 2", got)
	}
}

// On a categorical axis the series are spread sideways: equal means hide
// nothing, and the caption says nothing of it.
func TestHiddenNotOnCategories(t *testing.T) {
	f := figureOf([]string{"a", "b"}, 1, 1)
	f.Categories = []string{"SR"}
	if got := f.hidden(); len(got) != 0 {
		t.Errorf("categorical axis: hidden() = %q, want none", got)
	}
}
