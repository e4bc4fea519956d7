package figures

// The axes of a figure's panels: their ranges, scales and tickers, by the
// same rules in every panel, and one notation per axis.

import (
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// axes sets the ranges and tickers of every panel's axes: the same rules
// and, per axis, the same notation in every panel.
func (f *Figure) axes(cells []cell, dataW vg.Length, tick text.Style) {
	spec := f.Spec
	var xs, ys, rs []*plot.Axis
	for _, c := range cells {
		xs = append(xs, &c.main.X)
		ys = append(ys, &c.main.Y)
		if c.ratio != nil {
			rs = append(rs, &c.ratio.Y)
		}
	}
	// The x values drawn, over all panels: an axis of integers takes
	// integer steps; a log x axis of a few values spanning less than two
	// decades, and a linear one of a few evenly spaced values, are
	// labelled at them.
	xv := f.xValues()
	integer := !slices.ContainsFunc(xv, func(v float64) bool { return v != math.Trunc(v) })
	var at []float64
	if spec.LogX && len(xv) > 0 && len(xv) <= 9 && xv[len(xv)-1] < 100*xv[0] {
		at = xv
	}
	xLin := linTicks{maxLabels: 9, fits: xLabelsFit(dataW, tick), integer: integer}
	if !spec.LogX && evenly(xv) {
		xLin.at = xv
	}
	yLin := linTicks{maxLabels: 6}
	rLin := linTicks{maxLabels: 5}
	f.setRanges(xs, ys, rs, xLin, yLin, rLin)
	// Tickers, in one notation per axis.
	if f.Categories != nil {
		for _, ax := range xs {
			ax.Tick.Marker = catTicks{labels: f.Categories}
		}
	} else {
		setTickers(xs, spec.LogX, xLin, at)
	}
	setTickers(ys, spec.LogY, yLin, nil)
	setTickers(rs, f.RatioLog, rLin, nil)
	// A ratio panel shares its panel's x axis and carries its labels.
	for _, c := range cells {
		if c.ratio != nil {
			c.ratio.X.Min, c.ratio.X.Max = c.main.X.Min, c.main.X.Max
			c.ratio.X.Scale, c.ratio.X.Tick.Marker = c.main.X.Scale, c.main.X.Tick.Marker
			c.main.X.Tick.Marker = unlabelled{c.main.X.Tick.Marker}
		}
	}
}

// xValues returns the x values drawn in any panel (points, theory and
// references), sorted, each once.
func (f *Figure) xValues() []float64 {
	var xv []float64
	for _, p := range f.Panels {
		for _, s := range p.Series {
			for _, pt := range s.Points {
				xv = append(xv, pt.X)
			}
			for _, t := range s.Theory {
				xv = append(xv, t.X)
			}
		}
	}
	for _, r := range f.References {
		for _, pt := range r.Points {
			xv = append(xv, pt.X)
		}
	}
	slices.Sort(xv)
	return slices.Compact(xv)
}

// xLabelsFit returns whether the labels of a set of x ticks fit side by
// side, with minLabelGap between them, in a plot area dataW wide.
func xLabelsFit(dataW vg.Length, tick text.Style) func([]plot.Tick) bool {
	return func(ticks []plot.Tick) bool {
		var w vg.Length
		for _, t := range ticks {
			if t.Label != "" {
				w += tick.Width(t.Label) + minLabelGap
			}
		}
		return w <= dataW
	}
}

// setRanges sets the ranges and scales of the x axes, the y axes and the
// ratio panels' y axes (which always hold 1), snapped to their ticks on a
// linear scale and to whole decades on a log one.
func (f *Figure) setRanges(xs, ys, rs []*plot.Axis, xLin, yLin, rLin linTicks) {
	spec := f.Spec
	for _, ax := range xs {
		switch {
		case f.Categories != nil:
			ax.Min, ax.Max = -0.5, float64(len(f.Categories))-0.5
		case spec.LogX:
			ax.Scale = plot.LogScale{}
			if ax.Min == ax.Max {
				ax.Min, ax.Max = ax.Min/2, ax.Max*2
			}
		case xLin.at == nil:
			ax.Min, ax.Max = snapRange(ax.Min, ax.Max, xLin)
		}
	}
	for _, ax := range ys {
		if spec.boxed() {
			ax.Min, ax.Max = boxMargin(ax.Min, ax.Max, spec.LogY)
		}
		if spec.LogY {
			ax.Scale = plot.LogScale{}
			ax.Min, ax.Max = logRange(ax.Min, ax.Max)
		} else {
			ax.Min, ax.Max = snapRange(ax.Min, ax.Max, yLin)
		}
	}
	for _, ax := range rs {
		ax.Min, ax.Max = math.Min(ax.Min, 1), math.Max(ax.Max, 1)
		if f.RatioLog {
			ax.Scale = plot.LogScale{}
			ax.Min, ax.Max = logRange(ax.Min, ax.Max)
		} else {
			ax.Min, ax.Max = snapRange(ax.Min, ax.Max, rLin)
		}
	}
}

// setTickers gives axes of one kind (every panel's x, or y, or ratio y)
// one ticker in one notation: scientific for a log axis when any of them
// needs it; a linear axis picks its own (auto), as its range is its own.
func setTickers(axes []*plot.Axis, log bool, lin linTicks, at []float64) {
	n := axesNotation(axes, log, lin, at)
	for _, ax := range axes {
		setTicker(ax, log, lin, at, n)
	}
}

// axesNotation is the notation of axes of one kind (see setTickers).
func axesNotation(axes []*plot.Axis, log bool, lin linTicks, at []float64) notation {
	if !log {
		return auto
	}
	for _, ax := range axes {
		setTicker(ax, log, lin, at, auto)
		for _, t := range ax.Tick.Marker.Ticks(ax.Min, ax.Max) {
			if strings.Contains(t.Label, "^{") {
				return scientific
			}
		}
	}
	return plain
}

// setTicker sets an axis' ticker: log ticks (at the given values, if any)
// or linear ones, in notation n.
func setTicker(ax *plot.Axis, log bool, lin linTicks, at []float64, n notation) {
	switch {
	case log:
		ax.Tick.Marker = logTicks{notation: n, at: at}
	default:
		lin.notation = n
		ax.Tick.Marker = lin
	}
}
