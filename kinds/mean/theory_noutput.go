package mean

import (
	"math"
	"math/bits"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Further metrics of the theory kind, for Baek & Chung's theory figures
// and tables (Table 1, Fig. 2, Table 2), reached through a hook in
// theory.go:
//
//	worst_case_gain_pct  (V_ref/V - 1)·100, V the method's worst case and
//	                     V_ref that of the mechanism named by the cell's
//	                     "reference" parameter at the same ε: Figure 2's
//	                     curve ("percentage deviation") with reference =
//	                     "pm-sub", positive where the method is better. It
//	                     is 100·(1/worst_case_ratio - 1).
//	bits                 the mean length of one report in a fixed-length
//	                     code, floats taking 32 bits (Sec. 4.1): ⌈log2 K⌉
//	                     for K outputs (Table 2 for n-output, ERRATA E0.14),
//	                     32 for a continuous report, and p·32 + (1-p)·bits
//	                     of the discrete component for a mixture (HM, HM-TP,
//	                     HM-NP: α·⌈log2 N⌉ + (1-α)·32, E0.12).
//	bits_table2          compat only: bits as Table 2 prints them (ERRATA
//	                     E0.14), ⌊log2 K⌋ + 1 for K ≥ 3 outputs and 1 for
//	                     K = 2, one bit too many when K is a power of two
//	                     ≥ 4; floats and mixtures as for bits. Its steps
//	                     are Table 2's thresholds (runs/noutput-tables.toml).
//
// and, in theory_zhao.go, p0_given_0 and piecewise_t (Zhao et al. Figs 3
// and 5).
var theoryExtraMetrics = []string{"worst_case_gain_pct", "bits", "bits_table2", "p0_given_0", "piecewise_t"}

// floatBits is the length of a float report (F of Sec. 4.1; 32 in its
// example).
const floatBits = 32

// usesReference reports whether a theory metric needs the cell's
// reference mechanism.
func usesReference(metric string) bool {
	return metric == "worst_case_ratio" || metric == "worst_case_gain_pct"
}

// theoryExtra returns the value of one of theoryExtraMetrics; reference is
// nil unless usesReference(metric).
func theoryExtra(metric string, est, reference mechanisms.Estimate) (float64, bool) {
	switch metric {
	case "worst_case_gain_pct":
		return (reference.WorstCaseVariance()/est.WorstCaseVariance() - 1) * 100, true
	case "bits":
		return reportBits(est, floatBits, ceilLog2), true
	case "bits_table2":
		return reportBits(est, floatBits, table2Bits), true
	}
	return theoryZhao(metric, est)
}

// ceilLog2 is the length of a fixed-length code for k symbols, ⌈log2 k⌉.
func ceilLog2(k int) float64 { return float64(bits.Len(uint(k - 1))) }

// table2Bits is how Baek & Chung's Table 2 counts the bits of k outputs
// (ERRATA E0.14): ⌊log2 k⌋ + 1 for k ≥ 3 (its thresholds are where the
// optimal N reaches 3, 4, 8, 16, …), and 1 for Duchi's k = 2 (its first
// column, ε < 0.69).
func table2Bits(k int) float64 {
	if k <= 2 {
		return 1
	}
	return float64(bits.Len(uint(k)))
}

// reportBits returns the mean number of bits of one report of m when a
// float takes f bits and k discrete outputs take code(k).
func reportBits(m mechanisms.Mechanism, f float64, code func(k int) float64) float64 {
	switch v := m.(type) {
	case mechanisms.Mixture:
		c, d, p := v.Components()
		return p*reportBits(c, f, code) + (1-p)*reportBits(d, f, code)
	case mechanisms.Discrete:
		return code(len(v.Outputs()))
	}
	if _, ok := m.(mechanisms.Continuous); ok {
		return f
	}
	return math.NaN()
}
