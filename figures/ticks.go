package figures

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// A notation is how an axis writes its numbers. Every labelled tick of an
// axis uses one notation, so that 100000 never stands beside 1e+06; a log
// axis uses the same in every panel of a figure (a decade written 10⁻³ in
// one panel and 0.001 in the next would read as two scales), while a
// linear axis, whose range is its own, picks its own: ticks −20, −15, −10
// are written so, not −1.5×10¹, beside a panel whose ticks reach 2×10⁴.
type notation int

const (
	// auto: plain when every label is 0 or within [0.001, 10000), else
	// scientific.
	auto notation = iota
	// plain decimals: 0.001, 0.5, 20, 5000.
	plain
	// scientific: 10⁻³, 2×10⁻³, 10⁴ (superscripts through supText).
	scientific
)

// labelTicks writes the labels of the ticks marked for one (Label "x"), in
// the notation n (auto picks one for all of them).
func labelTicks(ticks []plot.Tick, n notation) {
	if n == auto {
		n = plain
		for _, t := range ticks {
			if v := math.Abs(t.Value); t.Label != "" && v != 0 && (v < 1e-3 || v >= 1e4) {
				n = scientific
			}
		}
	}
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = formatNumber(ticks[i].Value, n)
		}
	}
}

// formatNumber writes v in at most 6 significant digits (so that 5 × 0.01
// reads 0.05), plain or scientific, with a minus sign (−) for negatives.
func formatNumber(v float64, n notation) string {
	v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	if v == 0 {
		return "0"
	}
	var s string
	if n == scientific {
		e := math.Floor(math.Log10(math.Abs(v)))
		m, _ := strconv.ParseFloat(strconv.FormatFloat(v/math.Pow(10, e), 'g', 6, 64), 64)
		if math.Abs(m) >= 10 { // 9.9999996 rounded up
			m, e = m/10, e+1
		}
		exp := "^{" + strings.ReplaceAll(strconv.FormatFloat(e, 'f', 0, 64), "-", "−") + "}"
		switch m {
		case 1:
			s = "10" + exp
		case -1:
			s = "-10" + exp
		default:
			s = strconv.FormatFloat(m, 'f', -1, 64) + "×10" + exp
		}
	} else {
		s = strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strings.Replace(s, "-", "−", 1)
}

// ticked marks a tick for a label; labelTicks writes it.
const ticked = "x"

// logTicks is a plot.Ticker for log axes: a tick at every mantissa 1–9 of
// every decade, labels at the decades (every k-th when there are more than
// 7, at the multiples of k), and, when that labels fewer than three, also
// at the 2s and 5s, then at every mantissa, and at last linear ticks (a
// range too narrow to hold one mantissa). It differs from plot.LogTicks in
// starting at the decade below min (plot.LogTicks truncates log10(min)
// towards zero, so an axis from 0.5 gets no tick below 1), and in its
// notation: one for the whole axis.
//
// When at is set (a log x axis of a few values spanning less than two
// decades, such as ε = 0.5, 1, 2, 4, 8), the labels are at those values
// instead: the sweep's own ticks.
type logTicks struct {
	notation notation
	at       []float64
}

var _ plot.Ticker = logTicks{}

// Ticks implements plot.Ticker; min and max must be > 0.
func (t logTicks) Ticks(min, max float64) []plot.Tick {
	lo, hi := math.Floor(math.Log10(min)), math.Ceil(math.Log10(max))
	var ticks []plot.Tick
	var mantissas []int
	var decades []float64
	for e := lo; e <= hi; e++ {
		decade := math.Pow(10, e)
		for m := 1; m <= 9; m++ {
			v := decade * float64(m)
			if v < min*(1-1e-12) || v > max*(1+1e-12) {
				continue
			}
			if m == 1 {
				decades = append(decades, e)
			}
			ticks = append(ticks, plot.Tick{Value: v})
			mantissas = append(mantissas, m)
		}
	}
	if len(t.at) > 0 {
		for _, v := range t.at {
			if v < min*(1-1e-12) || v > max*(1+1e-12) {
				continue
			}
			i := slices.IndexFunc(ticks, func(tk plot.Tick) bool { return math.Abs(tk.Value-v) <= 1e-9*v })
			if i < 0 {
				ticks = append(ticks, plot.Tick{Value: v})
				i = len(ticks) - 1
			}
			ticks[i].Label = ticked
		}
		slices.SortStableFunc(ticks, func(a, b plot.Tick) int { return cmp.Compare(a.Value, b.Value) })
		if labelled(ticks) >= 2 {
			labelTicks(ticks, t.notation)
			return ticks
		}
		return logTicks{notation: t.notation}.Ticks(min, max)
	}
	every := math.Ceil(float64(len(decades)) / 7)
	for i, m := range mantissas {
		if e := math.Round(math.Log10(ticks[i].Value)); m == 1 && math.Mod(e, every) == 0 {
			ticks[i].Label = ticked
		}
	}
	for _, label := range []func(m int) bool{
		func(m int) bool { return m == 1 || m == 2 || m == 5 },
		func(int) bool { return true },
	} {
		if labelled(ticks) >= 3 {
			break
		}
		for i := range ticks {
			if label(mantissas[i]) {
				ticks[i].Label = ticked
			}
		}
	}
	if labelled(ticks) < 2 {
		// Too narrow for any decade or mantissa: linear ticks.
		return linTicks{maxLabels: 5, notation: t.notation}.Ticks(min, max)
	}
	labelTicks(ticks, t.notation)
	return ticks
}

// logRange widens [min, max] (> 0) to whole decades spanning at least
// three labelled decades (two decades of range), adding decades below:
// errors and divergences are bounded above (a JS divergence by ln 2), not
// below. It is the range of a log y axis.
func logRange(min, max float64) (float64, float64) {
	lo, hi := math.Floor(math.Log10(min)+1e-9), math.Ceil(math.Log10(max)-1e-9)
	lo = math.Min(lo, hi-2)
	return math.Pow(10, lo), math.Pow(10, hi)
}

func labelled(ticks []plot.Tick) int {
	n := 0
	for _, t := range ticks {
		if t.Label != "" {
			n++
		}
	}
	return n
}

// linTicks is a plot.Ticker for linear axes: labels every step of 1, 2 or
// 5 × 10^k, the smallest that gives from 2 to maxLabels labels (and, when
// fits is set, labels that fits accepts: that do not overlap), with minor
// ticks between them.
//
// An integer axis (every x an integer: configurations, services, groups)
// takes steps of at least 1. When at is set (an x axis of a few evenly
// spaced values, such as m = 4, 8, 12, 16), the labels are at those values,
// with a minor tick half way between them.
type linTicks struct {
	maxLabels int
	notation  notation
	fits      func([]plot.Tick) bool
	integer   bool
	at        []float64
}

// evenly reports whether sorted values are 3 to 10 evenly spaced ones: the
// ticks of a linear x axis.
func evenly(v []float64) bool {
	if len(v) < 3 || len(v) > 10 {
		return false
	}
	step := v[1] - v[0]
	for i := 2; i < len(v); i++ {
		if math.Abs(v[i]-v[i-1]-step) > 1e-9*math.Abs(step) {
			return false
		}
	}
	return step > 0
}

var _ plot.Ticker = linTicks{}

func (t linTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) {
		return []plot.Tick{{Value: min, Label: formatNumber(min, t.notation)}}
	}
	if len(t.at) > 0 {
		var ticks []plot.Tick
		for i, v := range t.at {
			if i > 0 {
				ticks = append(ticks, plot.Tick{Value: (t.at[i-1] + v) / 2})
			}
			ticks = append(ticks, plot.Tick{Value: v, Label: ticked})
		}
		ticks = slices.DeleteFunc(ticks, func(tk plot.Tick) bool { return tk.Value < min || tk.Value > max })
		if labelled(ticks) >= 2 && (t.fits == nil || t.fits(ticks)) {
			labelTicks(ticks, t.notation)
			return ticks
		}
		t.at = nil
	}
	maxLabels := t.maxLabels
	if maxLabels < 2 {
		maxLabels = 2
	}
	// From the smallest step up: the first with 2 to maxLabels labels
	// that fit, else the first with more than 2 that fit, else the first
	// with 2 or more (or 1, when no step gives 2).
	var over, any []plot.Tick
	e := math.Floor(math.Log10((max - min) / float64(maxLabels)))
	for tries := 0; tries < 12; tries++ {
		for _, m := range []float64{1, 2, 5} {
			step := m * math.Pow(10, e)
			if t.integer && step < 1 {
				continue
			}
			ticks := stepTicks(min, max, step, m)
			if t.integer && step == 1 {
				ticks = slices.DeleteFunc(ticks, func(tk plot.Tick) bool { return tk.Label == "" })
			}
			labelTicks(ticks, t.notation)
			n := labelled(ticks)
			fits := t.fits == nil || t.fits(ticks)
			switch {
			case n >= 2 && n <= maxLabels && fits:
				return ticks
			case n > maxLabels && fits:
				over = ticks // the last (fewest labels) over the limit
			}
			if n >= 1 && (any == nil || labelled(any) < 2 && n >= 2) {
				any = ticks
			}
		}
		e++
	}
	if over != nil {
		return over
	}
	return any
}

// stepTicks labels the multiples of step within [min, max] and puts minor
// ticks between them: fifths of a step of 1 or 5, quarters of a step of 2.
func stepTicks(min, max, step, mantissa float64) []plot.Tick {
	minors := 5.0
	if mantissa == 2 {
		minors = 4
	}
	sub := step / minors
	var ticks []plot.Tick
	tol := 1e-9 * step
	for k := math.Ceil((min - tol) / sub); k*sub <= max+tol; k++ {
		v := clean(k * sub)
		t := plot.Tick{Value: v}
		if math.Mod(k, minors) == 0 {
			t.Label = ticked
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// clean rounds away the last bits of a multiple of a step (0.30000000000000004).
func clean(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return r
}

// snapRange widens a linear range to the labelled ticks just outside it,
// when they are near (within an eighth of the range): ε from 0.5 to 8
// is drawn from 0 to 8.
//
// Widening adds labels, and where it takes the axis past its ticker's
// limit the ticker picks a coarser step: a step of 2 from −23.3 to −12.7
// (6 labels) snapped to −24 and −12 (7) would be labelled at −20 and −15
// alone. The range is widened at both ends, else at one, else at neither,
// as far as it keeps three labels (or as many as it had).
func snapRange(min, max float64, t linTicks) (float64, float64) {
	ticks := t.Ticks(min, max)
	first, last, step := labelStep(ticks)
	if step <= 0 {
		return min, max
	}
	span := max - min
	lo, hi := min, max
	if l := clean(first - step); first-min > 1e-9*span && min-l <= span/8 {
		lo = l
	}
	if h := clean(last + step); max-last > 1e-9*span && h-max <= span/8 {
		hi = h
	}
	least := math.Min(3, float64(labelled(ticks)))
	for _, r := range [][2]float64{{lo, hi}, {lo, max}, {min, hi}} {
		if float64(labelled(t.Ticks(r[0], r[1]))) >= least {
			return r[0], r[1]
		}
	}
	return min, max
}

// labelStep returns the first and last labelled values of ticks and the
// step between the first two (0 when fewer than two are labelled).
func labelStep(ticks []plot.Tick) (first, last, step float64) {
	first, last = math.NaN(), math.NaN()
	for _, tk := range ticks {
		if tk.Label == "" {
			continue
		}
		if math.IsNaN(first) {
			first = tk.Value
		} else if step == 0 {
			step = tk.Value - first
		}
		last = tk.Value
	}
	return first, last, step
}

// catTicks labels the places 0, 1, ... of a categorical axis.
type catTicks struct{ labels []string }

func (t catTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for i, l := range t.labels {
		if v := float64(i); v >= min && v <= max {
			ticks = append(ticks, plot.Tick{Value: v, Label: l})
		}
	}
	return ticks
}

// unlabelled keeps a ticker's ticks and drops their labels: the x axis of
// a panel with a ratio panel under it, which carries the labels.
type unlabelled struct{ plot.Ticker }

func (u unlabelled) Ticks(min, max float64) []plot.Tick {
	ticks := u.Ticker.Ticks(min, max)
	for i := range ticks {
		ticks[i].Label = ""
	}
	return ticks
}
