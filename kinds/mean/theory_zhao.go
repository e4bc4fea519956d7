package mean

import (
	"fmt"
	"math"
	"slices"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Metrics of the theory kind for Zhao et al.'s theory figures (Figs 1, 3
// and 5), reached through theoryExtra:
//
//	p0_given_0   P[Y = 0 | x = 0], the probability that the report is
//	             exactly 0 when the input is 0: for Three-Outputs its
//	             P₀←₀ = a, the optimal one of eq. (5) (Fig. 3, Remark 1;
//	             mechanisms.ThreeOutputsA), 0 below ln 2 and e^ε/(e^ε+2)
//	             above ε′ = ln((3+√65)/2). For any discrete mechanism, the
//	             probability of its output 0 at input 0 (0 if 0 is not an
//	             output: Duchi, even N); 0 for a continuous report; p·0 +
//	             (1-p)·that of the discrete component for a mixture (HM,
//	             HM-TP, HM-NP).
//	piecewise_t  the width parameter t of a member of the piecewise family
//	             (mechanisms.Piecewise.T): e^{ε/2} for PM, e^{ε/3} for
//	             PM-SUB, the root of the quartic (58) for PM-OPT
//	             (mechanisms.PMOptT): Fig. 5's pair and Section V-C's
//	             "ln t/ε is close to 1/3". Only for pm, pm-sub and pm-opt
//	             (another method is refused when the cell is checked).
//
// Fig. 5 itself (PM-OPT's worst case against PM-SUB's) is
// worst_case_variance, with worst_case_ratio for their ratio
// (runs/zhao-fig5.toml).

// checkTheoryMetric reports whether metric can be evaluated for est, with
// an error that names the metric and the method when it cannot.
func checkTheoryMetric(metric, method string, est mechanisms.Estimate) error {
	switch metric {
	case "p0_given_0":
		if _, err := probZeroAtZero(est); err != nil {
			return fmt.Errorf("metric p0_given_0, method %s: %w", method, err)
		}
	case "piecewise_t":
		if _, ok := est.(*mechanisms.Piecewise); !ok {
			return fmt.Errorf("metric piecewise_t is the width t of the piecewise family: methods pm, pm-sub and pm-opt only, not %s", method)
		}
	case "bits", "bits_table2":
		if v := reportBits(est, floatBits, ceilLog2); math.IsNaN(v) {
			return fmt.Errorf("metric %s, method %s: the report is neither discrete, nor continuous, nor a mixture of the two", metric, method)
		}
	}
	return nil
}

// theoryZhao returns the value of p0_given_0 or piecewise_t; the cell has
// been checked (checkTheoryMetric).
func theoryZhao(metric string, est mechanisms.Estimate) (float64, bool) {
	switch metric {
	case "p0_given_0":
		p, _ := probZeroAtZero(est)
		return p, true
	case "piecewise_t":
		if pw, ok := est.(*mechanisms.Piecewise); ok {
			return pw.T(), true
		}
		return math.NaN(), true
	}
	return 0, false
}

// probZeroAtZero returns P[Y = 0 | x = 0] of m.
func probZeroAtZero(m mechanisms.Mechanism) (float64, error) {
	switch v := m.(type) {
	case mechanisms.Mixture:
		c, d, p := v.Components()
		pc, err := probZeroAtZero(c)
		if err != nil {
			return math.NaN(), err
		}
		pd, err := probZeroAtZero(d)
		if err != nil {
			return math.NaN(), err
		}
		return p*pc + (1-p)*pd, nil
	case mechanisms.Discrete:
		outs := v.Outputs()
		i := slices.Index(outs, 0)
		if i < 0 {
			return 0, nil
		}
		probs := make([]float64, len(outs))
		v.Probabilities(0, probs)
		return probs[i], nil
	case mechanisms.Continuous:
		return 0, nil
	}
	return math.NaN(), fmt.Errorf("the report is neither discrete, nor continuous, nor a mixture of the two")
}
