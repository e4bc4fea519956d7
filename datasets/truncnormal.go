package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// MinAcceptance is the smallest probability P(lo ≤ X ≤ hi), X ~ N(μ, σ), for
// which TruncNormal samples by rejection; below it the expected 1/p proposals
// per sample would make rejection spin, and TruncNormal returns an error.
const MinAcceptance = 1e-6

// TruncNormal returns n samples of N(mu, sigma) truncated to [lo, hi].
//
// Truncation is by rejection: draw x ~ N(mu, sigma) (rng.NormFloat64) and keep
// it only if lo ≤ x ≤ hi. The result follows the truncated-normal law exactly,
// density φ((x−μ)/σ)/(σ·p) on [lo, hi], p = Φ((hi−μ)/σ) − Φ((lo−μ)/σ). This is
// unlike clipping, which piles the mass outside the window onto atoms at lo
// and hi and changes the mean. Paper 003's 16-dimensional data use μ ∈ {0,
// 1/3, 2/3, 1}, σ = 1/4, [lo, hi] = [−1, 1]; there p ≥ 0.5.
//
// mu must be finite, sigma finite and > 0, lo < hi (not NaN; infinite bounds
// are allowed), and p ≥ MinAcceptance, else an error reports p.
func TruncNormal(n int, mu, sigma, lo, hi float64, rng *rand.Rand) ([]float64, error) {
	if err := checkN(n, rng); err != nil {
		return nil, err
	}
	if err := checkTruncNormal(mu, sigma, lo, hi); err != nil {
		return nil, err
	}
	out := make([]float64, n)
	for i := range out {
		for {
			x := mu + sigma*rng.NormFloat64()
			if x >= lo && x <= hi {
				out[i] = x
				break
			}
		}
	}
	return out, nil
}

func checkTruncNormal(mu, sigma, lo, hi float64) error {
	if !finite(mu) {
		return fmt.Errorf("gaussian: mu must be finite, got %v", mu)
	}
	if !finite(sigma) || !(sigma > 0) {
		return fmt.Errorf("gaussian: sigma must be finite and > 0, got %v", sigma)
	}
	if math.IsNaN(lo) || math.IsNaN(hi) || !(lo < hi) {
		return fmt.Errorf("gaussian: need lo < hi, got lo=%v hi=%v", lo, hi)
	}
	if p := truncNormalMass(mu, sigma, lo, hi); !(p >= MinAcceptance) {
		return fmt.Errorf("gaussian: window [%v, %v] has probability %.3g under N(mu=%v, sigma=%v), below %g: rejection sampling would not finish", lo, hi, p, mu, sigma, MinAcceptance)
	}
	return nil
}

// truncNormalMass returns P(lo ≤ X ≤ hi) for X ~ N(mu, sigma), computed from
// the complementary error function on the side of the window away from the
// mean, so that far-tail windows keep their relative accuracy.
func truncNormalMass(mu, sigma, lo, hi float64) float64 {
	a := (lo - mu) / (sigma * math.Sqrt2)
	b := (hi - mu) / (sigma * math.Sqrt2)
	switch {
	case a >= 0: // window entirely above the mean
		return 0.5 * (math.Erfc(a) - math.Erfc(b))
	case b <= 0: // window entirely below the mean
		return 0.5 * (math.Erfc(-b) - math.Erfc(-a))
	default:
		return 1 - 0.5*(math.Erfc(-a)+math.Erfc(b))
	}
}
