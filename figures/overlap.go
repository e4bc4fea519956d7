package figures

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// overlapTol is how close, as a fraction of a panel's y span (on the
// axis' own scale), two series' means must be at a point for the later
// one's marker to hide the earlier one's: about a marker's width on a
// panel of the default height.
const overlapTol = 0.015

// hidden lists, for the caption, the series drawn under later ones at
// every one of their points ("UWA lies under UWA (oracle weights)"; "PM
// lies under HM and SW", each covering some of its points), in every
// panel or in the panels named: a series that vanishes from the figure
// must be said to, or a reader takes it for missing.
func (f *Figure) hidden() []string {
	if f.Spec.boxed() || f.Categories != nil || len(f.Series) < 2 {
		// Boxes, and the points of a categorical axis, are spread
		// sideways by series (dodge): none lies under another.
		return nil
	}
	covers := make(map[int]*cover)
	present := make(map[int]int) // panels in which the series has points
	for _, p := range f.Panels {
		means, lo, hi := f.panelMeans(p)
		tol := overlapTol * (hi - lo)
		for i, mi := range means {
			present[i]++
			by, ok := hiddenBy(i, mi, means, tol, len(f.Series))
			if !ok {
				continue
			}
			c := covers[i]
			if c == nil {
				c = &cover{}
				covers[i] = c
			}
			c.panels = append(c.panels, p.Value)
			for _, j := range by {
				if !slices.Contains(c.by, j) {
					c.by = append(c.by, j)
				}
			}
		}
	}
	var out []string
	for i := range f.Series {
		if c := covers[i]; c != nil {
			out = append(out, f.hiddenLine(i, c, present[i]))
		}
	}
	return out
}

// A cover is where a series is hidden, and by which.
type cover struct {
	panels []string // the panels where the series is hidden
	by     []int    // the later series that hide it, in order
}

// panelMeans returns, by series style, the finite means of a panel's
// series by x, on the y axis' own scale (log10 on a log axis), and their
// range.
func (f *Figure) panelMeans(p Panel) (means map[int]map[float64]float64, lo, hi float64) {
	y := func(v float64) float64 {
		if f.Spec.LogY {
			return math.Log10(v)
		}
		return v
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	means = make(map[int]map[float64]float64)
	for _, s := range p.Series {
		m := make(map[float64]float64, len(s.Points))
		for _, pt := range s.Points {
			if v := y(pt.Mean); finite(v) {
				m[pt.X] = v
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		if len(m) > 0 {
			means[s.Style] = m
		}
	}
	return means, lo, hi
}

// hiddenBy reports whether series i (its means mi) lies within tol of a
// later series of the n at each of its points, and which ones hide it:
// at each point the first later series there.
func hiddenBy(i int, mi map[float64]float64, means map[int]map[float64]float64, tol float64, n int) (by []int, ok bool) {
	for x, vi := range mi {
		j := -1
		for k := i + 1; k < n; k++ {
			if vk, there := means[k][x]; there && math.Abs(vi-vk) <= tol {
				j = k
				break
			}
		}
		if j < 0 {
			return nil, false
		}
		if !slices.Contains(by, j) {
			by = append(by, j)
		}
	}
	return by, true
}

// hiddenLine says that series i lies under the series of c, and in which
// panels when that is fewer than the present panels it has points in.
func (f *Figure) hiddenLine(i int, c *cover, present int) string {
	slices.Sort(c.by)
	names := make([]string, len(c.by))
	for k, j := range c.by {
		names[k] = f.seriesLabel(j)
	}
	s := fmt.Sprintf("%s lies under %s at every point", f.seriesLabel(i), strings.Join(names, " and "))
	if len(c.panels) < present {
		labels := make([]string, len(c.panels))
		for k, v := range c.panels {
			labels[k] = f.label(f.Spec.Panel, v)
		}
		s += " of " + strings.Join(labels, ", ")
	}
	return s
}
