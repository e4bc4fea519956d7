package centraldp

import "math"

// SigmaSq returns σ²(ε) of eq. (2): the minimax normalised MSE of the
// swap model on [0, 1], and the variance of the univariate staircase at
// its MSE-optimal step [GammaStar]:
//
//	σ²(ε) = [2^{−2/3} e^{−2ε/3} (1 + e^{−ε})^{2/3} + e^{−ε}] / (1 − e^{−ε})².
//
// The numerator is a sum of two positive terms and the denominator is
// expm1(−ε)², so the value keeps full relative accuracy from ε ≈ 1e−150
// (σ² ≈ 2/ε²) to ε ≈ 1000 (σ² ≈ 2^{−2/3}e^{−2ε/3}). It returns NaN for
// ε ≤ 0 or NaN.
func SigmaSq(eps float64) float64 {
	if !(eps > 0) {
		return math.NaN()
	}
	b := math.Exp(-eps)
	d := math.Expm1(-eps) // −(1 − b), exact for small ε
	// (1+b)^{2/3} e^{−2ε/3} 2^{−2/3} = exp((2/3)(log1p(b) − ε − ln 2)).
	num := math.Exp(2.0/3.0*(math.Log1p(b)-eps-math.Ln2)) + b
	return num / (d * d)
}

// LowerBound returns σ²(ε)ε²/2, the minimax constant of Theorem 4 and
// Corollary 2 in the normalisation n²ε²·MSE/(2w²). It tends to 1 as ε → 0
// (σ²ε²/2 = 1 − ε²/24 + O(ε⁴)) and falls like e^{−2ε/3}ε²/2^{5/3} at
// large ε.
//
// It bounds the worst case over datasets, not every dataset: Algorithm 3
// at an interior mean sits below it at small ε (its constant is
// ((1−α)² + α²) ≤ 1). Never use it as a pointwise floor.
func LowerBound(eps float64) float64 {
	return SigmaSq(eps) * eps * eps / 2
}

// GammaStar returns the MSE-optimal step γ* of the univariate staircase
// (Geng–Viswanath eq. 50, cited by Theorem 3; E1.12):
//
//	γ* = ((b(1+b)/2)^{1/3} − b)/(1 − b),  b = e^{−ε},
//
// evaluated as b·expm1((2ε + log1p(expm1(−ε)/2))/3)/(−expm1(−ε)), which
// does not cancel: the usual printed form subtracts two nearly equal
// terms at small ε. γ* → ½ as ε → 0 and γ* ≈ 2^{−1/3}e^{−ε/3} as ε → ∞.
// It is not the ℓ1-optimal 1/(1 + e^{ε/2}) (IBM diffprivlib's default).
// It returns NaN for ε ≤ 0 or NaN.
func GammaStar(eps float64) float64 {
	if !(eps > 0) {
		return math.NaN()
	}
	b := math.Exp(-eps)
	d := math.Expm1(-eps) // b − 1
	return b * math.Expm1((2*eps+math.Log1p(d/2))/3) / -d
}
