package audit

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// ClopperPearsonLower returns the one-sided Clopper–Pearson lower
// confidence bound for a binomial proportion: with k successes in n trials,
// P[p ≥ bound] ≥ 1 - alpha whatever p is. It is the alpha quantile of
// Beta(k, n-k+1), and 0 when k = 0.
//
// The bound is exact (conservative), not a normal approximation: the
// auditor's Monte Carlo lower bounds on ε rest on it, and a normal
// interval undercovers precisely for the small probabilities of the
// output events where privacy ratios are largest.
func ClopperPearsonLower(k, n int, alpha float64) (float64, error) {
	if err := checkBinomial(k, n, alpha); err != nil {
		return 0, err
	}
	if k == 0 {
		return 0, nil
	}
	if k == n {
		// The quantile of Beta(n, 1) in closed form, exact to rounding.
		return math.Pow(alpha, 1/float64(n)), nil
	}
	return distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(alpha), nil
}

// ClopperPearsonUpper returns the one-sided Clopper–Pearson upper
// confidence bound: P[p ≤ bound] ≥ 1 - alpha. It is the 1-alpha quantile of
// Beta(k+1, n-k), and 1 when k = n.
func ClopperPearsonUpper(k, n int, alpha float64) (float64, error) {
	if err := checkBinomial(k, n, alpha); err != nil {
		return 0, err
	}
	if k == n {
		return 1, nil
	}
	if k == 0 {
		// 1 - alpha^{1/n}, written with expm1 so that it keeps its digits
		// when alpha^{1/n} is close to 1.
		return -math.Expm1(math.Log(alpha) / float64(n)), nil
	}
	return distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - alpha), nil
}

func checkBinomial(k, n int, alpha float64) error {
	if n < 1 {
		return fmt.Errorf("clopper-pearson: n = %d: must be ≥ 1", n)
	}
	if k < 0 || k > n {
		return fmt.Errorf("clopper-pearson: k = %d: must be in [0, n = %d]", k, n)
	}
	if !(alpha > 0 && alpha < 1) {
		return fmt.Errorf("clopper-pearson: alpha = %v: must be in (0, 1)", alpha)
	}
	return nil
}
