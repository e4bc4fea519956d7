package mechanisms

import "math"

// NewPMSub returns Zhao et al.'s PM-SUB (Section V-C, Algorithm 4): the
// piecewise family ([Piecewise]) with t = e^{ε/3}, registered as "pm-sub".
// Its worst-case variance is eq. (33),
// 5e^{4ε/3}/(3(e^ε-1)²) + 5e^{2ε/3}/(3(e^ε-1)²) + 2e^ε/(e^ε-1)², below
// PM's for every ε (Table II). Its output range is [-A, A], not [-1, 1]
// (E3.11).
func NewPMSub(eps float64) (*Piecewise, error) {
	if err := checkEpsilon("pm-sub", eps); err != nil {
		return nil, err
	}
	return NewPiecewise("pm-sub", eps, math.Exp(eps/3))
}

// NewPMOpt returns Zhao et al.'s PM-OPT (Section V-B, Algorithm 3): the
// piecewise family with the width t = [PMOptT](eps) that minimises the
// worst-case variance eq. (32), registered as "pm-opt".
func NewPMOpt(eps float64) (*Piecewise, error) {
	if err := checkEpsilon("pm-opt", eps); err != nil {
		return nil, err
	}
	return NewPiecewise("pm-opt", eps, PMOptT(eps))
}

// PMOptT returns PM-OPT's width parameter t*: the unique positive root of
// the quartic (58), t⁴ + 2e·t³ - 2e·t - e² = 0 with e = e^ε, to full float64
// precision, for every ε > 0 (NaN for ε ≤ 0 or NaN).
//
// It is not computed from the closed form eq. (30): its branch (30b) is
// misprinted (E3.4: the sign of the second root makes t negative), and even
// corrected it is 0/0 at ε = ln √2 and loses digits near it and at large ε.
// The corrected closed form serves as an independent check in the tests.
//
// Uniqueness: the quartic is -e² < 0 at t = 0 and convex for t > 0, so it
// has one positive root; it is negative at t = 1 (1 - e² < 0) and positive
// at t = 1 + (e/2)^{1/3} (there 2t³ - 2t = 2t(t-1)(t+1) > 2(t-1)³ = e), so
// t* lies in (1, 1 + (e/2)^{1/3}). With k = e^{ε/3} and t = k·u the
// equation divided by e² reads
//
//	u⁴·k⁻² + 2u³ - 2u·k⁻² - 1 = 0,
//
// whose coefficients stay finite for every ε (e^ε itself overflows above
// 709); u is found by bisection in [1/k, 1/k + 2^{-1/3}] down to adjacent
// floats. The root is simple and well conditioned: the terms of the
// equation are O(1) and its derivative 4u³k⁻² + 6u² - 2k⁻² is at least 4u²
// at the root (where u ≥ 1/k), so the result is accurate to a few ulps. As ε → 0, t* → 1; as ε → ∞, t* → (e^ε/2)^{1/3} (E3.14).
func PMOptT(eps float64) float64 {
	if !(eps > 0) {
		return math.NaN()
	}
	k := math.Exp(eps / 3)
	if math.IsInf(k, 1) {
		return k
	}
	k2 := math.Exp(-2 * eps / 3) // k⁻²
	q := func(u float64) float64 {
		u2 := u * u
		return u2*u2*k2 + 2*u2*u - 2*u*k2 - 1
	}
	lo := 1 / k
	hi := lo + 0.7937005259840998 // + 2^{-1/3}: q(hi) > 0 with a wide margin
	lo, hi = bisectAdjacent(lo, hi, func(u float64) bool { return q(u) < 0 })
	u := hi
	if math.Abs(q(lo)) < math.Abs(q(hi)) {
		u = lo
	}
	return k * u
}
