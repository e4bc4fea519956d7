package mechanisms

import "math"

// TailQuantiler is implemented by continuous mechanisms whose output range
// is unbounded: the quantiles of the report say where its law lies, so
// that a test or an estimator can place finitely many buckets and know the
// mass left in the two tails (the registry-wide suite, package
// mechanisms/mechtest, needs it of every mechanism with an infinite
// [Continuous.OutputRange], and refuses one without it).
type TailQuantiler interface {
	// Quantile returns the p-quantile of the report of x,
	// inf{y : CDF(y, x) ≥ p}, for 0 < p < 1.
	Quantile(p, x float64) float64
}

// Quantile returns the p-quantile of x + Lap(b): x + b·ln(2p) for p ≤ 1/2,
// x - b·ln(2(1-p)) above.
func (m *Laplace) Quantile(p, x float64) float64 {
	if p <= 0.5 {
		return x + m.scale*math.Log(2*p)
	}
	return x - m.scale*math.Log(2*(1-p))
}
