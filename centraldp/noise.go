package centraldp

import (
	"math"
	"math/rand/v2"
)

// maxGeometric caps a geometric draw ⌊E/ε⌋ before its conversion to an
// integer: E ~ Exp(1) from rng.ExpFloat64 is below 45 except on a ~1e−19
// event where its tail step returns +Inf, and for ε ≥ 1e−9 (the smallest
// the constructors accept) the cap is never reached otherwise.
const maxGeometric = 1 << 52

// geometric returns G = ⌊E·invEps⌋ with E ~ Exp(1): P(G = k) = (1−b)b^k
// on {0, 1, …}, b = e^{−ε}. The exponential comes from rng.ExpFloat64
// (one word, a ziggurat: 1.5 uniforms' time), cheaper than −log(U)/ε
// (3.4) and free of the U = 0 trap (−log 0 = +∞). The conversion truncates,
// which is the floor for the non-negative value.
func geometric(invEps float64, rng *rand.Rand) int {
	x := rng.ExpFloat64() * invEps
	if x > maxGeometric { // also +Inf; predictable, never taken in practice
		x = maxGeometric
	}
	return int(x)
}

// twoSided returns G1 − G2 for two independent geometric draws: the
// two-sided geometric law ((1−b)/(1+b))·b^{|d|} on ℤ. (A fair sign times
// one geometric is not this law: it gives 0 the probability 1 − b instead
// of (1−b)/(1+b), "double-counting" 0.)
func twoSided(invEps float64, rng *rand.Rand) int {
	return geometric(invEps, rng) - geometric(invEps, rng)
}

// TwoSidedGeometric returns D = G1 − G2, G1 and G2 independent geometric
// with ratio r on {0, 1, …}: P(D = d) = ((1−r)/(1+r))·r^{|d|} on ℤ
// (Lemma 4), E[D²] = 2r/(1−r)². r = e^{−ε} must be in [0, 1); r = 0 gives
// 0, and r outside [0, 1) (or NaN) panics.
//
// It takes one logarithm per call to turn r into 1/ε; a hot loop at a
// fixed ε should use an [Hourglass], which keeps 1/ε.
func TwoSidedGeometric(r float64, rng *rand.Rand) int {
	if !(r >= 0 && r < 1) {
		panic("central: TwoSidedGeometric: r must be in [0, 1)")
	}
	if r == 0 {
		return 0
	}
	return twoSided(-1/math.Log(r), rng)
}

// Laplace returns a draw of Lap(scale): density e^{−|z|/scale}/(2·scale),
// variance 2·scale² (the scale parameterisation everywhere, E1.10). It
// takes an exponential (rng.ExpFloat64) and one word for the sign.
func Laplace(scale float64, rng *rand.Rand) float64 {
	return signed(scale*rng.ExpFloat64(), rng.Uint64())
}

// signed returns v negated if bit 0 of s is set, without a branch: the
// bit is moved onto v's sign bit.
func signed(v float64, s uint64) float64 {
	return math.Float64frombits(math.Float64bits(v) ^ s<<63)
}

// unit53 returns the top 53 bits of w as a uniform on [0, 1) (the same
// grid as rng.Float64), leaving w's low bits free for signs.
func unit53(w uint64) float64 {
	return float64(w>>11) * 0x1p-53
}

// Geometric2 is the two-sided geometric law ((1−b)/(1+b))·b^{|d|} on ℤ,
// b = e^{−ε}, with 1/ε kept: [TwoSidedGeometric] at a fixed ε without its
// logarithm per call.
type Geometric2 struct {
	eps, invEps, b float64
}

// NewGeometric2 returns the two-sided geometric law for ε in
// [1e−9, 700].
func NewGeometric2(eps float64) (*Geometric2, error) {
	if err := checkStairEps("central: geometric2", eps); err != nil {
		return nil, err
	}
	return &Geometric2{eps: eps, invEps: 1 / eps, b: math.Exp(-eps)}, nil
}

// Sample returns G1 − G2 (two exponentials).
func (g *Geometric2) Sample(rng *rand.Rand) int { return twoSided(g.invEps, rng) }

// PMF returns P(D = d) = ((1−b)/(1+b))·b^{|d|}.
func (g *Geometric2) PMF(d int) float64 {
	return -math.Expm1(-g.eps) / (1 + g.b) * math.Exp(-g.eps*math.Abs(float64(d)))
}
