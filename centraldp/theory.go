package centraldp

import "math"

// LeadingConstant returns the leading-order normalised MSE
// 𝒩 = n²ε²·MSE/(2w²) of the estimator called name at a dataset mean
// μ = l + α·w (docs/central.md, "Leading-order constants": derived from the
// first-order error terms):
//
//	central-alg1            4(W² + μ²)/w², W = max(|l|, |u|)
//	central-alg2            1 + (2α − 1)²
//	central-alg3-lap        (1 − α)² + α²
//	central-alg3-2d         (σ̃²ε²/2)·((1 − α)² + α²), σ̃² the 2-D staircase's E[x²] at γ̃*
//	central-alg3-hg         (σ²ε²/2)·((1 − α)² + α²), σ² = SigmaSq(ε)
//	central-swap-staircase  σ²ε²/2
//
// These hold for large n and α away from 0 and 1 (farther than a few
// √2/(nε)). At α exactly 0 or 1 clipping removes the outward half of the
// noise and the value returned is half the formula's (Alg. 3-Laplace ½,
// Alg. 2 1, Alg. 1 on [0, 1] 2 at μ = 0 and 4 at μ = 1); between, the
// constant moves from one to the other within a few √2/(nε) of the end,
// which this function does not model. α outside [0, 1] is an error.
func LeadingConstant(name string, eps, alpha float64, opt Options) (float64, error) {
	where := "central: " + name
	l, u, _, err := rangeOf(where, opt)
	if err != nil {
		return 0, err
	}
	switch name {
	case NameAlg1, NameAlg2, NameAlg3Lap:
		err = checkLaplaceEps(where, eps)
	case NameAlg3TwoD, NameAlg3HG, NameSwapStair:
		err = checkStairEps(where, eps)
	default:
		return 0, &ParamError{Where: "central", Param: "estimator", Value: name, Reason: "unknown; known: " + joinNames()}
	}
	if err != nil {
		return 0, err
	}
	if !(alpha >= 0 && alpha <= 1) {
		return 0, &ParamError{Where: where, Param: "alpha", Value: alpha, Reason: "must be in [0, 1]"}
	}
	w := u - l
	shape := (1-alpha)*(1-alpha) + alpha*alpha
	var c float64
	switch name {
	case NameAlg1:
		W := max(math.Abs(l), math.Abs(u))
		mu := l + alpha*w
		c = 4 * (W*W + mu*mu) / (w * w)
	case NameAlg2:
		c = 2 * shape // 1 + (2α − 1)² = 2((1−α)² + α²)
	case NameAlg3Lap:
		c = shape
	case NameAlg3TwoD:
		c = staircase2DVar(eps, Staircase2DGamma(eps)) * eps * eps / 2 * shape
	case NameAlg3HG:
		c = LowerBound(eps) * shape
	case NameSwapStair:
		c = LowerBound(eps)
	}
	if alpha == 0 || alpha == 1 {
		c /= 2
	}
	return c, nil
}
