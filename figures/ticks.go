package figures

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// logTicks is a plot.Ticker for log axes. It differs from plot.LogTicks in
// two ways that matter for our figures: it starts at the decade below min
// (plot.LogTicks truncates log10(min) towards zero, so an axis starting at
// 0.5 gets no ticks below 1), and when the axis spans less than a decade,
// as an ε sweep from 0.5 to 4 does, it labels the 2s and 5s (or every
// minor tick, or falls back to linear ticks) so that the axis carries at
// least two numbers.
type logTicks struct{}

var _ plot.Ticker = logTicks{}

// Ticks implements plot.Ticker; min and max must be > 0.
func (logTicks) Ticks(min, max float64) []plot.Tick {
	lo, hi := math.Floor(math.Log10(min)), math.Ceil(math.Log10(max))
	every := math.Ceil((hi - lo) / 6) // label at most about 6 decades
	var ticks []plot.Tick
	var mantissas []int
	for e := lo; e <= hi; e++ {
		decade := math.Pow(10, e)
		for m := 1; m <= 9; m++ {
			v := decade * float64(m)
			if v < min || v > max {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 && math.Mod(e-lo, every) == 0 {
				t.Label = formatTick(v)
			}
			ticks = append(ticks, t)
			mantissas = append(mantissas, m)
		}
	}
	for _, label := range []func(m int) bool{
		func(m int) bool { return m == 1 || m == 2 || m == 5 },
		func(int) bool { return true },
	} {
		if labelled(ticks) >= 2 {
			break
		}
		for i := range ticks {
			if label(mantissas[i]) {
				ticks[i].Label = formatTick(ticks[i].Value)
			}
		}
	}
	if labelled(ticks) < 2 {
		// Too narrow for any decade or mantissa: fall back to linear ticks.
		ticks = ticks[:0]
		for _, t := range (plot.DefaultTicks{}).Ticks(min, max) {
			if t.Value > 0 {
				ticks = append(ticks, t)
			}
		}
	}
	return ticks
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

// formatTick writes a tick value in at most 6 significant digits, so that
// 5 × 0.01 reads 0.05.
func formatTick(v float64) string {
	return strconv.FormatFloat(v, 'g', 6, 64)
}
