package mechanisms

import (
	"math"
	"slices"
)

// The design search of the N-output mechanism: which N, outputs Ω and p0
// to use at a budget ε (Algorithm 2 corrected, Theorems 4 and 5, eq. (12)),
// each candidate scored by the exact worst case of its law (noutput.go).

// NOutputMaxN is the largest N that [NewNOutput] considers. The optimal N
// is about 17 at ε = 8 and about 250 at ε = 16; above ε ≈ 20 the cap binds
// and the mechanism is the best one with at most this many outputs.
const NOutputMaxN = 999

// valid reports whether the outputs are finite, positive and strictly
// increasing (E0.8): then the configuration is an unbiased ε-LDP
// mechanism.
func (c *noConfig) valid() bool {
	if len(c.a) != c.n || !(c.a[0] > 0) {
		return false
	}
	for i, v := range c.a {
		if math.IsInf(v, 0) || math.IsNaN(v) || (i > 0 && !(v > c.a[i-1])) {
			return false
		}
	}
	// Knots strictly increasing too (t·a_j may round onto its neighbour).
	for j := 1; j < c.n; j++ {
		if !(c.knot(j) > c.knot(j-1)) {
			return false
		}
	}
	return c.n == 1 || c.knot(c.n-1) < 1
}

// setOutputs sets the positive outputs a and, with them, Σa_j², which
// every variance of the configuration uses.
func (c *noConfig) setOutputs(a []float64) {
	c.a = a
	c.s2 = 0
	for _, v := range a {
		c.s2 += v * v
	}
}

// theorem4 sets the outputs of Theorem 4: a_n = 1/t,
// a_{n-1} = ((2t-1) - 8p·ΣP_iQ_i)/(1 + 8p·ΣP_i²)·a_n, and
// a_i = (4t-2)a_{i+1} - a_{i+2}, with P, Q the same recurrence started
// from (P_n, P_{n-1}) = (0, 1) and (Q_n, Q_{n-1}) = (1, 0). The recurrence
// has |4t-2| < 2, so its errors grow at most linearly in n. buf is reused
// if large enough.
func (c *noConfig) theorem4(buf []float64) {
	n := c.n
	a := slices.Grow(buf[:0], n)[:n]
	an := 1 / c.t
	a[n-1] = an
	if n >= 2 {
		k := 4*c.t - 2
		// P_i, Q_i for i = n, n-1, …, 1; only the sums are kept.
		pN, pN1 := 0.0, 1.0 // P_{i+2}, P_{i+1}
		qN, qN1 := 1.0, 0.0
		sPQ, sPP := 0.0, 1.0 // the i = n-1 and i = n terms
		for i := n - 2; i >= 1; i-- {
			pi := k*pN1 - pN
			qi := k*qN1 - qN
			sPQ += pi * qi
			sPP += pi * pi
			pN, pN1 = pN1, pi
			qN, qN1 = qN1, qi
		}
		a[n-2] = ((2*c.t - 1) - 8*c.p*sPQ) / (1 + 8*c.p*sPP) * an
		for i := n - 3; i >= 0; i-- {
			a[i] = k*a[i+1] - a[i+2]
		}
	}
	c.setOutputs(a)
	c.how = "theorem 4"
}

// theorem5 sets the outputs of Theorem 5: a_n = 1/t, a_i = C_i·a_{i+1},
// C_1 = 1/(4t-1) (even N) or 1/(4t-2) (odd N), and
// C_{i+1} = 1/((2t-1) + √((2t-1)² + K_i)), K_i = C_i² + 2C_i - 4t·C_i: the
// positive root of K_i·C² + (4t-2)C - 1 = 0 written without the
// cancellation of the printed form (ERRATA E0.9). It returns false unless
// 0 < C_i < 1 for every i. The caller sets p0 = p for odd N
// (p = 1/(e+N-1)).
func (c *noConfig) theorem5(buf []float64) bool {
	n := c.n
	a := slices.Grow(buf[:0], n)[:n]
	// C_1 … C_{n-1} are stored in a[0 … n-2] first, then turned into a.
	cc := 1 / (4*c.t - 1)
	if c.odd {
		cc = 1 / (4*c.t - 2)
	}
	h := 2*c.t - 1
	for i := 0; i < n-1; i++ {
		if !(cc > 0 && cc < 1) {
			return false
		}
		a[i] = cc
		d := h*h + cc*(cc+2-4*c.t)
		if !(d >= 0) {
			if i < n-2 {
				return false
			}
			break
		}
		cc = 1 / (h + math.Sqrt(d))
	}
	a[n-1] = 1 / c.t
	for i := n - 2; i >= 0; i-- {
		a[i] *= a[i+1]
	}
	c.setOutputs(a)
	c.how = "theorem 5"
	return true
}

// gap returns Var_n(x_n*) - Var_1(x_1*), the pieces' maxima (clamped
// vertices) of the last and the first piece, whose sign decides between
// Theorems 4 and 5 and which eq. (12) sets to 0.
func (c *noConfig) gap() float64 {
	vn, _ := c.pieceMax(c.n)
	v1, _ := c.pieceMax(1)
	return vn - v1
}

// nOutputDuchi returns the N = 2 configuration: Duchi et al.'s mechanism,
// a_1 = 1/t = (e+1)/(e-1).
func nOutputDuchi(em1 float64) noConfig {
	c := newConfig(em1, 2, 0)
	c.setOutputs([]float64{1 / c.t})
	c.how = "duchi"
	c.score()
	return c
}

// nOutputThree returns the N = 3 configuration (Section 3.4): one piece
// [0, 1], a_1 = 1/t, and p0 = q in [0, 1/(e+2)] minimising the worst case,
// Var_1 at min(1, x_1*). It is Three-Outputs with P[0 | 0] = e^ε·q.
//
// With p = (1-q)/(e+1) one has p* = (1 - e·q)/2, x_1* = a_1·q/(2p) and,
// while x_1* < 1, a worst case Var_1(x_1*) = a_1²·(q²/(4p²) + 2p*)
// proportional to h(q) = (e+1)²q²/(4(1-q)⁴) + (1-e·q)/(1-q)², whose
// derivative has the sign of
//
//	φ(q) = (e+1)²·q(1+q)/2 + (2 - e - e·q)(1-q)²,
//
// negative at q = 0 exactly when ε > ln 2. When x_1* ≥ 1 the worst case is
// Var_1(1) = (e+1)²/((e-1)²(1-q)) - 1, increasing in q. So the minimum is
// at the root of φ, at the q where x_1* reaches 1, or at an end: these are
// scored exactly and the best is kept (a golden-section minimum serves as a
// safeguard and replaces it only if better by more than rounding). Roots
// are bisected to adjacent floats, so p0 is exact to rounding (a golden
// section alone would find it to about 1e-8 only, which shows in HM-NP,
// whose worst case is not stationary in p0).
func nOutputThree(em1 float64) noConfig {
	f := func(p0 float64) noConfig {
		c := newConfig(em1, 3, p0)
		c.setOutputs([]float64{1 / c.t})
		c.how = "three-outputs"
		c.score()
		return c
	}
	e := em1 + 1
	hi := 1 / (em1 + 3) // p0 = p: p0 = 1/(e+2)
	qs := []float64{0, hi}
	root := func(g func(float64) float64) {
		if !(g(0) < 0 && g(hi) > 0) {
			return
		}
		lo, up := bisectAdjacent(0, hi, func(q float64) bool { return g(q) < 0 })
		qs = append(qs, lo, up)
	}
	root(func(q float64) float64 {
		return (e+1)*(e+1)*q*(1+q)/2 + (2-e-e*q)*(1-q)*(1-q)
	})
	// x_1* = q(e+1)²/(2(e-1)(1-q)²) = 1.
	root(func(q float64) float64 {
		return q*(e+1)*(e+1) - 2*em1*(1-q)*(1-q)
	})
	const g = 0.6180339887498949 // (√5-1)/2
	lo, up := 0.0, hi
	x1, x2 := up-g*(up-lo), lo+g*(up-lo)
	f1, f2 := f(x1).worst, f(x2).worst
	for range 200 {
		if !(up-lo > 1e-17*up) {
			break
		}
		if f1 < f2 {
			up, x2, f2 = x2, x1, f1
			x1 = up - g*(up-lo)
			f1 = f(x1).worst
		} else {
			lo, x1, f1 = x1, x2, f2
			x2 = lo + g*(up-lo)
			f2 = f(x2).worst
		}
	}
	best := f(qs[0])
	for _, q := range qs[1:] {
		if c := f(q); c.worst < best.worst {
			best = c
		}
	}
	// The objective is flat at its minimum: the golden-section point wins
	// only by more than rounding.
	if c := f((lo + up) / 2); c.worst < best.worst*(1-1e-12) {
		best = c
	}
	return best
}

// nOutputOddP0 returns the Theorem 4 configuration of odd N ≥ 5 with p0
// from eq. (12): p0 in [0, p] with Var_n(x_n*) = Var_1(x_1*) when the gap
// changes sign on [0, p], found by bisection to adjacent floats; p0 = p
// when Var_n < Var_1 throughout (the argmin of |gap| is then at p). ok is
// false when Var_n > Var_1 even at p0 = 0 (N is too large, Section 3.4
// after eq. (12)) or the outputs are not increasing.
func nOutputOddP0(em1 float64, N int, buf []float64) (noConfig, bool) {
	// gapAt builds the Theorem 4 configuration at p0 in buf (scratch) and
	// returns its gap, or ok = false if its outputs do not increase.
	gapAt := func(p0 float64) (g float64, ok bool) {
		c := newConfig(em1, N, p0)
		c.theorem4(buf)
		buf = c.a
		if !c.valid() {
			return 0, false
		}
		return c.gap(), true
	}
	final := func(p0 float64) (noConfig, bool) {
		c := newConfig(em1, N, p0)
		c.theorem4(nil)
		if !c.valid() {
			return c, false
		}
		c.score()
		return c, true
	}
	pmax := 1 / (em1 + float64(N))
	gHi, ok := gapAt(pmax)
	if !ok {
		return noConfig{}, false
	}
	if gHi < 0 {
		return final(pmax)
	}
	if g0, ok := gapAt(0); !ok || g0 > 0 {
		return noConfig{}, false
	}
	// The gaps at the final ends are kept as the bisection goes (gLo stays
	// -∞ if lo never moves from 0, so that p0 = 0 is never preferred).
	gLo := math.Inf(-1)
	failed := false
	lo, hi := bisectAdjacent(0, pmax, func(p0 float64) bool {
		if failed {
			return true // the result is discarded: just end the bisection
		}
		g, ok := gapAt(p0)
		switch {
		case !ok:
			failed = true
			return true
		case g < 0:
			gLo = g
			return true
		}
		gHi = g
		return false
	})
	if failed {
		return noConfig{}, false
	}
	if math.Abs(gLo) < math.Abs(gHi) {
		return final(lo)
	}
	return final(hi)
}

// nOutputCandidates returns every configuration Algorithm 2 (corrected,
// E0.7: both theorems for every N) considers at budget eps: N = 2, N = 3,
// and for N = 4, 5, … the Theorem 4 configuration (odd N: p0 from eq. (12))
// and the Theorem 5 configuration, each when valid, until the Theorem 4
// sequence at p = 1/(e+N-1) is no longer increasing (or N exceeds maxN).
// Each candidate carries its exact worst case. If only is ≥ 2, only that N
// is built.
func nOutputCandidates(eps float64, only, maxN int) []noConfig {
	em1 := math.Expm1(eps)
	var out []noConfig
	if only == 0 || only == 2 {
		out = append(out, nOutputDuchi(em1))
	}
	if only == 0 || only == 3 {
		out = append(out, nOutputThree(em1))
	}
	var buf []float64
	first, last := 4, maxN
	if only != 0 {
		first, last = max(only, 4), only
	}
	for N := first; N <= last; N++ {
		odd := N%2 == 1
		// The loop test of Algorithm 2: Theorem 4 at p = 1/(e+N-1)
		// (p0 = p for odd N).
		p0 := 0.0
		if odd {
			p0 = 1 / (em1 + float64(N))
		}
		c0 := newConfig(em1, N, p0)
		c0.theorem4(buf)
		buf = c0.a
		switch {
		case !c0.valid():
			if only == 0 {
				return out // N_max passed: Algorithm 2 stops
			}
		case !odd:
			c := c0
			c.a = slices.Clone(c0.a)
			c.score()
			out = append(out, c)
		default:
			if c, ok := nOutputOddP0(em1, N, buf); ok {
				out = append(out, c)
			}
		}
		c5 := newConfig(em1, N, p0)
		if c5.theorem5(nil) && c5.valid() {
			c5.score()
			out = append(out, c5)
		}
	}
	return out
}

// bestConfig returns the candidate with the smallest worst case; worst
// cases within a relative 1e-9 of each other are ties, won by the smaller
// N (fewer bits), then by the smaller worst case.
func bestConfig(cs []noConfig) noConfig {
	best := cs[0]
	for _, c := range cs[1:] {
		switch {
		case c.worst < best.worst*(1-1e-9):
			best = c
		case c.worst <= best.worst*(1+1e-9) && (c.N < best.N || (c.N == best.N && c.worst < best.worst)):
			best = c
		}
	}
	return best
}
