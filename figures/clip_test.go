package figures

import (
	"math"
	"strings"
	"testing"
)

// An interval reaching further beyond the panel's means than they spread
// is cut there, at both ends, on a linear and on a log axis; one within
// reach is not; the caption counts the cut ends.
func TestCutIntervals(t *testing.T) {
	for _, c := range []struct {
		name         string
		logY         bool
		means        []float64
		lo, hi       float64 // the wide interval, around means[0]
		wantLo, want float64 // its ends after the cut
		cuts         int
	}{
		{"linear", false, []float64{1, 2}, -50, 100, 0, 3, 2},
		{"linear within reach", false, []float64{1, 2}, 0.2, 2.9, 0.2, 2.9, 0},
		{"log", true, []float64{1e-3, 1e-2}, 1e-6, 10, 1e-4, 0.1, 2},
		{"log, flat means reach half a decade", true, []float64{1, 1}, 0.5, 100, 0.5, math.Pow(10, 0.5), 1},
	} {
		f := figureOf([]string{"a", "b"}, c.means...)
		f.Spec.LogY = c.logY
		f.Panels[0].Series[0].Points[0].Lo, f.Panels[0].Series[0].Points[0].Hi = c.lo, c.hi
		f.Panels[0].Series[1].Points[0].Lo, f.Panels[0].Series[1].Points[0].Hi = c.means[1], c.means[1]
		f.cutIntervals(&f.Panels[0])
		pt := f.Panels[0].Series[0].Points[0]
		if math.Abs(pt.Lo-c.wantLo) > 1e-12*math.Abs(c.wantLo)+1e-15 || math.Abs(pt.Hi-c.want) > 1e-12*c.want {
			t.Errorf("%s: interval [%v, %v], want [%v, %v]", c.name, pt.Lo, pt.Hi, c.wantLo, c.want)
		}
		if f.Cut != c.cuts || pt.LoCut != (c.lo != c.wantLo) || pt.HiCut != (c.hi != c.want) {
			t.Errorf("%s: %d cuts (lo %v, hi %v), want %d", c.name, f.Cut, pt.LoCut, pt.HiCut, c.cuts)
		}
		caption := strings.Join(f.caption(), " ")
		if got := strings.Contains(caption, "cut (arrowheads)"); got != (c.cuts > 0) {
			t.Errorf("%s: caption says the cut: %v, want %v:\n%s", c.name, got, c.cuts > 0, caption)
		}
	}
}

// A band is cut to the same reach, without arrowheads (BandCut, not Cut);
// on a log axis its lower edge keeps the open rule and is not cut.
func TestCutBands(t *testing.T) {
	for _, logY := range []bool{false, true} {
		f := figureOf([]string{"a", "b"}, 1, 2)
		f.Spec.Band, f.Spec.LogY = true, logY
		pt := &f.Panels[0].Series[0].Points[0]
		pt.Lo, pt.Hi = -100, 1000
		f.cutIntervals(&f.Panels[0])
		wantHi, wantLo, cuts := 3.0, 0.0, 2
		if logY {
			// The means span log10(2) < half a decade: the reach is half a
			// decade above 2.
			wantHi, wantLo, cuts = 2*math.Pow(10, 0.5), -100, 1
		}
		if math.Abs(pt.Hi-wantHi) > 1e-9 || pt.Lo != wantLo || f.BandCut != cuts || f.Cut != 0 {
			t.Errorf("log %v: band [%v, %v], %d band cuts, %d bar cuts; want [%v, %v], %d, 0", logY, pt.Lo, pt.Hi, f.BandCut, f.Cut, wantLo, wantHi, cuts)
		}
	}
}

// A ratio panel's caption claims a theory ratio only where one is drawn.
func TestRatioCaptionTheory(t *testing.T) {
	f := figureOf([]string{"a", "b"}, 1, 2)
	f.Spec.RatioTo = "b"
	f.Panels[0].Ratios = []Series{{Value: "a", Points: []Point{{X: 1, Mean: 0.5}}}}
	if c := strings.Join(f.caption(), " "); strings.Contains(c, "theory by theory") {
		t.Errorf("no theory ratio drawn, caption says one is: %s", c)
	}
	f.Panels[0].Ratios[0].Theory = []XY{{X: 1, Y: 0.5}}
	if c := strings.Join(f.caption(), " "); !strings.Contains(c, "theory by theory") {
		t.Errorf("theory ratio drawn, caption does not say so: %s", c)
	}
}
