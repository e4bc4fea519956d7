package estimators

import (
	"fmt"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Frequency-oracle histograms, the DE and OUE baselines of Baek & Chung's
// Fig. 4 (Sec. 5.2): the unbiased frequency estimate of every bin, then
// Norm-Sub onto the probability simplex.

// FrequencyEstimate writes to dst[v] the unbiased estimate (c_v/m − q)/(p −
// q) of bin v's frequency from the report counts c of m users of a pure
// frequency oracle that reports a category's own indicator with probability
// p and another's with q: GRR (DE, c the counts of reported categories) or
// OUE (c the support counts). m = 0 writes the uniform histogram.
func FrequencyEstimate(dst, counts []float64, m int, p, q float64) {
	if m == 0 {
		for v := range dst {
			dst[v] = 1 / float64(len(dst))
		}
		return
	}
	inv := 1 / (p - q)
	for v, c := range counts {
		dst[v] = (c/float64(m) - q) * inv
	}
}

// DEHistogram is the DE baseline: FrequencyEstimate of GRR's report counts
// (m users), then NormSub.
func DEHistogram(dst, counts []float64, m int, g *mechanisms.GRR) error {
	if len(counts) != g.D() || len(dst) != g.D() {
		return fmt.Errorf("estimators: DEHistogram: %d counts and %d outputs for GRR over %d categories", len(counts), len(dst), g.D())
	}
	FrequencyEstimate(dst, counts, m, g.P(), g.Q())
	NormSub(dst)
	return nil
}

// OUEHistogram is the OUE baseline: FrequencyEstimate of the support
// counts (m users), then NormSub.
func OUEHistogram(dst, support []float64, m int, o *mechanisms.OUE) error {
	if len(support) != o.D() || len(dst) != o.D() {
		return fmt.Errorf("estimators: OUEHistogram: %d counts and %d outputs for OUE over %d categories", len(support), len(dst), o.D())
	}
	FrequencyEstimate(dst, support, m, o.P(), o.Q())
	NormSub(dst)
	return nil
}

// NormSub makes f a probability vector the Norm-Sub way (Wang et al.,
// NDSS 2020; Baek & Chung Sec. 5.2): repeat { set the negative entries to
// 0; add (1 − Σf)/#positive to every positive entry } until no entry is
// negative and the sum is 1. When the positive entries sum to at least 1
// (the usual case: the unbiased estimates sum to 1) it is the Euclidean
// projection onto the simplex (the test checks this); otherwise it keeps
// the zeros of the first step, where the projection would not. All
// entries ≤ 0 gives the uniform vector.
func NormSub(f []float64) {
	for range len(f) + 1 {
		var s float64
		pos := 0
		for i, v := range f {
			if v <= 0 {
				f[i] = 0
				continue
			}
			s += v
			pos++
		}
		if pos == 0 {
			for i := range f {
				f[i] = 1 / float64(len(f))
			}
			return
		}
		delta := (1 - s) / float64(pos)
		neg := false
		for i, v := range f {
			if v > 0 {
				f[i] = v + delta
				neg = neg || f[i] < 0
			}
		}
		if !neg {
			return
		}
	}
}
