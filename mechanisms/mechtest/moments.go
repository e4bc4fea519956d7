package mechtest

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// DefaultAlpha is the false-failure probability of one Monte Carlo check.
const DefaultAlpha = 1e-6

// Z returns the two-sided normal critical value z_{1-alpha/2}
// (4.8916... for alpha = 1e-6).
func Z(alpha float64) float64 {
	return distuv.UnitNormal.Quantile(1 - alpha/2)
}

// reports draws n reports of x through m.PerturbBatch (in place, which also
// exercises the aliasing that PerturbBatch allows) and de-biases them when m
// is a [mechanisms.Debiaser]. It also returns the closed-form variance.
func reports(m mechanisms.Mechanism, x float64, n int, rng *rand.Rand, alpha float64) ([]float64, float64, error) {
	if n < 2 {
		return nil, 0, fmt.Errorf("%s: n = %d, need at least 2 reports", m.Name(), n)
	}
	if !(alpha > 0 && alpha < 1) {
		return nil, 0, fmt.Errorf("%s: alpha = %v, need 0 < alpha < 1", m.Name(), alpha)
	}
	v, ok := m.(mechanisms.Variancer)
	if !ok {
		return nil, 0, fmt.Errorf("%s: no closed-form variance (mechanisms.Variancer)", m.Name())
	}
	sigma2 := v.Variance(x)
	if !(sigma2 >= 0) || math.IsInf(sigma2, 0) {
		return nil, 0, fmt.Errorf("%s: Variance(%v) = %v is not a finite non-negative number", m.Name(), x, sigma2)
	}
	ys := make([]float64, n)
	for i := range ys {
		ys[i] = x
	}
	if err := m.PerturbBatch(ys, ys, rng); err != nil {
		return nil, 0, err
	}
	if d, ok := m.(mechanisms.Debiaser); ok {
		for i, y := range ys {
			ys[i] = d.Debias(y)
		}
	}
	return ys, sigma2, nil
}

// Unbiased draws n reports of x (de-biased if m is a [mechanisms.Debiaser])
// and checks that their mean is within z_{1-α/2}·σ/√n of x, σ² being the
// closed-form Variance(x) of m, which must implement
// [mechanisms.Variancer].
//
// False-failure probability: alpha under the normal approximation of the
// sample mean. σ is exact, not estimated, so the normal tail is the only
// approximation; by Cramér's moderate-deviation theorem its relative error
// at z is of order z³γ/(6√n), γ the skewness of a report: about 0.06γ at
// alpha = 1e-6 and n = 1e5, so the true probability is alpha up to a factor
// near 1 for the n of the unit tests (≥ 1e5).
func Unbiased(m mechanisms.Mechanism, x float64, n int, rng *rand.Rand, alpha float64) error {
	ys, sigma2, err := reports(m, x, n, rng, alpha)
	if err != nil {
		return err
	}
	var sum kahan
	for _, y := range ys {
		sum.add(y)
	}
	mean := sum.value() / float64(n)
	se := math.Sqrt(sigma2 / float64(n))
	tol := Z(alpha) * se
	// A floor for rounding, far below any statistical tolerance.
	tol += 1e-12 * (math.Abs(x) + math.Sqrt(sigma2))
	if d := mean - x; !(math.Abs(d) <= tol) {
		return fmt.Errorf("%s (ε = %v): mean of %d reports of x = %v is %v, off by %.3g = %.2f standard errors (tolerance %.3g, alpha %g)",
			m.Name(), m.Epsilon(), n, x, mean, d, d/se, tol, alpha)
	}
	return nil
}

// Variance draws n reports of x (de-biased if m is a [mechanisms.Debiaser])
// and checks their mean squared deviation from x,
// σ̂² = (1/n)Σ(ŷ_i - x)², against the closed-form σ² = Variance(x).
//
// Centring at the true x rather than at the sample mean makes σ̂² an exact
// unbiased estimate of σ² for an unbiased mechanism (check that with
// [Unbiased]); for a biased one it estimates σ² + bias², which the check
// then rejects too. Var[σ̂²] = (μ4 - σ⁴)/n with μ4 = E[(ŷ - x)⁴]; μ4 is
// estimated by the sample fourth moment about x and σ⁴ is the closed form,
// and the tolerance is z_{1-α/2}·sqrt((μ̂4 - σ⁴)/n), plus 1e-12·σ² for
// rounding (it matters only when (ŷ - x)² is constant, as for Duchi's
// mechanism at x = 0, where σ̂² = σ² exactly).
//
// False-failure probability: alpha under the asymptotic normal
// approximation of σ̂² (CLT, with μ4 replaced by its consistent estimate).
// (ŷ - x)² is skewed (skewness about 6.6 for Laplace noise), so the tail
// approximation is coarser than for [Unbiased]: by Cramér's theorem the
// relative error is of order z³γ/(6√n), about ±30 % of alpha for Laplace
// noise at n = 2e5. The true probability is alpha within a factor of about
// 1.5 for n ≥ 2e5.
func Variance(m mechanisms.Mechanism, x float64, n int, rng *rand.Rand, alpha float64) error {
	ys, sigma2, err := reports(m, x, n, rng, alpha)
	if err != nil {
		return err
	}
	var s2, s4 kahan
	for _, y := range ys {
		d2 := (y - x) * (y - x)
		s2.add(d2)
		s4.add(d2 * d2)
	}
	m2 := s2.value() / float64(n)
	m4 := s4.value() / float64(n)
	v4 := max(m4-sigma2*sigma2, 0)
	se := math.Sqrt(v4 / float64(n))
	tol := Z(alpha)*se + 1e-12*sigma2
	if d := m2 - sigma2; !(math.Abs(d) <= tol) {
		return fmt.Errorf("%s (ε = %v): mean squared deviation of %d reports of x = %v is %v, closed form %v: off by %.3g = %.2f standard errors (tolerance %.3g, alpha %g)",
			m.Name(), m.Epsilon(), n, x, m2, sigma2, d, d/se, tol, alpha)
	}
	return nil
}

// kahan is Neumaier's compensated sum: the error of a sum of n terms stays
// at a few ulps instead of growing with n, so that a check whose statistic
// has no randomness (Duchi's squared deviations at x = 0) is not failed by
// rounding.
type kahan struct{ s, c float64 }

func (k *kahan) add(v float64) {
	t := k.s + v
	if math.Abs(k.s) >= math.Abs(v) {
		k.c += (k.s - t) + v
	} else {
		k.c += (v - t) + k.s
	}
	k.s = t
}

func (k *kahan) value() float64 { return k.s + k.c }
