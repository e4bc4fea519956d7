package figures

import (
	"fmt"
	"math"
	"strings"
)

// overlapTol is how close, as a fraction of a panel's y span (on the
// axis' own scale), two series' means must be at a point for the later
// one's marker to hide the earlier one's: about a marker's width on a
// panel of the default height.
const overlapTol = 0.015

// hidden lists, for the caption, the series drawn under another at every
// one of their points ("UWA lies under UWA (oracle weights)"): a series
// that vanishes from the figure must be said to, or a reader takes it for
// missing.
func (f *Figure) hidden() []string {
	if f.Spec.boxed() || len(f.Series) < 2 {
		return nil
	}
	y := func(v float64) float64 {
		if f.Spec.LogY {
			return math.Log10(v)
		}
		return v
	}
	// under[i][j]: series i lies under the later series j at every point
	// of every panel they share, and they share at least one.
	n := len(f.Series)
	under := make([][]bool, n)
	shared := make([][]int, n)
	for i := range under {
		under[i] = make([]bool, n)
		shared[i] = make([]int, n)
		for j := i + 1; j < n; j++ {
			under[i][j] = true
		}
	}
	for _, p := range f.Panels {
		lo, hi := math.Inf(1), math.Inf(-1)
		means := make(map[int]map[float64]float64)
		for _, s := range p.Series {
			m := make(map[float64]float64, len(s.Points))
			for _, pt := range s.Points {
				v := y(pt.Mean)
				if math.IsNaN(v) || math.IsInf(v, 0) {
					continue
				}
				m[pt.X] = v
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			means[s.Style] = m
		}
		tol := overlapTol * (hi - lo)
		for i, mi := range means {
			for j, mj := range means {
				if j <= i {
					continue
				}
				for x, vi := range mi {
					vj, ok := mj[x]
					if !ok {
						under[i][j] = false
						continue
					}
					shared[i][j]++
					if math.Abs(vi-vj) > tol {
						under[i][j] = false
					}
				}
				if len(mi) == 0 {
					under[i][j] = false
				}
			}
		}
	}
	var out []string
	for i := range n {
		var over []string
		for j := i + 1; j < n; j++ {
			if under[i][j] && shared[i][j] > 0 {
				over = append(over, f.seriesLabel(j))
			}
		}
		if len(over) > 0 {
			out = append(out, fmt.Sprintf("%s lies under %s at every point", f.seriesLabel(i), strings.Join(over, " and ")))
		}
	}
	return out
}
