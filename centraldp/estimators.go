package centraldp

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Estimator releases one ε-DP (add-remove) estimate of a dataset's mean.
type Estimator interface {
	// Name returns the registry name ("central-alg3-hg", ...).
	Name() string
	// Estimate returns one release of the mean of a dataset of n values
	// in [l, u] whose sum is sum. The caller clamps the values to [l, u]
	// before summing (the privacy proofs need it). n = 0 is legal (the
	// empty dataset, whose size is itself private); n < 0 or a NaN sum
	// return NaN. One call is O(1) and does not allocate.
	Estimate(n int, sum float64, rng *rand.Rand) float64
}

// Zero-denominator conventions (E1.17): what an estimate is when the
// noisy count (ŝ1 + ŝ2 for Algorithm 3, n̂ for Algorithms 1 and 2, n for
// the swap reference) is exactly 0. It happens with positive probability
// only for the hourglass, whose noisy count is the integer n + K.
const (
	// ZeroDenIEEE: IEEE division, ŝ/0 = ±Inf, then clipped to the
	// range's end on the side of ŝ's sign; 0/0 gives the midpoint.
	ZeroDenIEEE = "ieee"
	// ZeroDenMidpoint: any zero denominator gives the range's midpoint.
	ZeroDenMidpoint = "midpoint"
)

// Options configures an estimator.
type Options struct {
	// L and U are the data range, L < U; both 0 means [0, 1].
	L, U float64
	// ZeroDenominator is ZeroDenIEEE ("ieee", the default when empty) or
	// ZeroDenMidpoint ("midpoint"); see those constants.
	ZeroDenominator string
}

// Estimator registry names (Algorithms 1–3 of the paper and the swap-model
// reference; docs/central.md lists them).
const (
	NameAlg1      = "central-alg1"
	NameAlg2      = "central-alg2"
	NameAlg3Lap   = "central-alg3-lap"
	NameAlg3TwoD  = "central-alg3-2d"
	NameAlg3HG    = "central-alg3-hg"
	NameSwapStair = "central-swap-staircase"
)

var estimatorNames = []string{NameAlg1, NameAlg2, NameAlg3Lap, NameAlg3TwoD, NameAlg3HG, NameSwapStair}

// EstimatorNames returns the estimators' registry names, in the paper's
// order: Algorithms 1, 2, 3 with Laplace, 2-D staircase and hourglass
// noise, and the swap-model staircase reference.
func EstimatorNames() []string { return slices.Clone(estimatorNames) }

// rangeOf validates opt and returns l, u and the zero-denominator mode.
func rangeOf(name string, opt Options) (l, u float64, midpoint bool, err error) {
	l, u = opt.L, opt.U
	if l == 0 && u == 0 {
		l, u = 0, 1
	}
	if math.IsNaN(l) || math.IsInf(l, 0) {
		return 0, 0, false, &ParamError{Where: name, Param: "L", Value: opt.L, Reason: "must be finite"}
	}
	if math.IsNaN(u) || math.IsInf(u, 0) || !(u > l) {
		return 0, 0, false, &ParamError{Where: name, Param: "U", Value: opt.U, Reason: "must be finite and > L"}
	}
	switch opt.ZeroDenominator {
	case "", ZeroDenIEEE:
	case ZeroDenMidpoint:
		midpoint = true
	default:
		return 0, 0, false, &ParamError{Where: name, Param: "ZeroDenominator", Value: opt.ZeroDenominator,
			Reason: `must be "ieee" or "midpoint"`}
	}
	return l, u, midpoint, nil
}

// NewEstimator returns the estimator called name at budget eps on the
// range and zero-denominator convention of opt. The Laplace-based ones
// (central-alg1, -alg2, -alg3-lap) accept any finite ε > 0, the
// staircase-based ones ε in [1e−9, 700].
func NewEstimator(name string, eps float64, opt Options) (Estimator, error) {
	where := "central: " + name
	if !slices.Contains(estimatorNames, name) {
		return nil, &ParamError{Where: "central", Param: "estimator", Value: name, Reason: "unknown; known: " + joinNames()}
	}
	l, u, midpoint, err := rangeOf(where, opt)
	if err != nil {
		return nil, err
	}
	switch name {
	case NameAlg1, NameAlg2, NameAlg3Lap:
		err = checkLaplaceEps(where, eps)
	default:
		err = checkStairEps(where, eps)
	}
	if err != nil {
		return nil, err
	}
	w := u - l
	m := l + w/2
	switch name {
	case NameAlg1:
		W := max(math.Abs(l), math.Abs(u))
		return &alg1{clip: clipper{lo: l, hi: u, mid: m, midpoint: midpoint},
			sScale: 2 * W / eps, nScale: 2 / eps}, nil
	case NameAlg2:
		return &alg2{clip: clipper{lo: -w / 2, hi: w / 2, mid: 0, midpoint: midpoint},
			m: m, sScale: w / eps, nScale: 2 / eps}, nil
	case NameAlg3Lap:
		return &alg3Lap{alg3: newAlg3(l, w, midpoint), scale: 1 / eps}, nil
	case NameAlg3TwoD:
		return &alg3TwoD{alg3: newAlg3(l, w, midpoint), noise: newStaircase2D(eps, Staircase2DGamma(eps), 1)}, nil
	case NameAlg3HG:
		return &alg3HG{alg3: newAlg3(l, w, midpoint), noise: newHourglass(eps, GammaStar(eps), 1)}, nil
	default: // NameSwapStair
		return &swapStair{clip: clipper{lo: -w / 2, hi: w / 2, mid: 0, midpoint: midpoint},
			m: m, noise: newStaircase(eps, GammaStar(eps), w)}, nil
	}
}

func joinNames() string {
	s := ""
	for i, n := range estimatorNames {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

// clipper is Clip(num/den, [lo, hi]) with the zero-denominator convention.
type clipper struct {
	lo, hi, mid float64
	midpoint    bool // ZeroDenMidpoint
}

// ratio returns Clip(num/den, [lo, hi]). A zero den gives mid under
// ZeroDenMidpoint; under IEEE, num/0 = ±Inf clips to an end and 0/0 (or
// any other NaN quotient, e.g. Inf/Inf from a noise draw's +Inf tail on a
// ~1e−19 event) gives mid. Compares, not math.Max/Min, which would carry
// a NaN through.
func (c *clipper) ratio(num, den float64) float64 {
	if den == 0 && c.midpoint {
		return c.mid
	}
	q := num / den
	switch {
	case q < c.lo:
		return c.lo
	case q > c.hi:
		return c.hi
	case q == q:
		return q
	default: // NaN
		return c.mid
	}
}

// badInput reports an input an estimator answers with NaN.
func badInput(n int, sum float64) bool { return n < 0 || sum != sum }

// alg1 is Algorithm 1: ε/2 on the sum (sensitivity W = max(|l|, |u|),
// E1.11) and ε/2 on the count.
type alg1 struct {
	clip           clipper
	sScale, nScale float64 // 2W/ε and 2/ε
}

func (e *alg1) Name() string { return NameAlg1 }

// Estimate returns Clip((Σx + Lap(2W/ε))/(n + Lap(2/ε)), [l, u]), as
// printed: the sum is not centred, so the error grows with W (Lemma 10
// does not hold for it). Three words: two exponentials, one for both signs.
func (e *alg1) Estimate(n int, sum float64, rng *rand.Rand) float64 {
	if badInput(n, sum) {
		return math.NaN()
	}
	signs := rng.Uint64()
	sHat := sum + signed(e.sScale*rng.ExpFloat64(), signs)
	nHat := float64(n) + signed(e.nScale*rng.ExpFloat64(), signs>>1)
	return e.clip.ratio(sHat, nHat)
}

// alg2 is Algorithm 2: the values shifted by the midpoint m, so the sum's
// sensitivity is w/2 and its noise Lap(w/ε) at ε/2.
type alg2 struct {
	clip           clipper // on [−w/2, w/2]
	m              float64
	sScale, nScale float64 // w/ε and 2/ε
}

func (e *alg2) Name() string { return NameAlg2 }

// Estimate returns Clip((Σ(x−m) + Lap(w/ε))/(n + Lap(2/ε)), [−w/2, w/2])
// + m. Three words.
func (e *alg2) Estimate(n int, sum float64, rng *rand.Rand) float64 {
	if badInput(n, sum) {
		return math.NaN()
	}
	fn := float64(n)
	signs := rng.Uint64()
	sHat := (sum - fn*e.m) + signed(e.sScale*rng.ExpFloat64(), signs)
	nHat := fn + signed(e.nScale*rng.ExpFloat64(), signs>>1)
	return e.clip.ratio(sHat, nHat) + e.m
}

// alg3 holds what Algorithm 3 needs besides its noise: the transform
// s1 = Σ(x − l)/w, s2 = n − s1, whose neighbouring changes are
// ±(x′, 1 − x′), x′ ∈ [0, 1] (ℓ1 sensitivity exactly 1), and the output
// w·Clip(ŝ1/(ŝ1 + ŝ2), [0, 1]) + l.
type alg3 struct {
	clip clipper // on [0, 1]
	l, w float64
}

func newAlg3(l, w float64, midpoint bool) alg3 {
	return alg3{clip: clipper{lo: 0, hi: 1, mid: 0.5, midpoint: midpoint}, l: l, w: w}
}

// s1 returns Σ(x − l)/w from n and Σx.
func (a *alg3) s1(n int, sum float64) float64 { return (sum - float64(n)*a.l) / a.w }

func (a *alg3) out(num, den float64) float64 { return a.w*a.clip.ratio(num, den) + a.l }

// alg3Lap is Algorithm 3 with i.i.d. Lap(1/ε) on each coordinate
// (Theorem 1; "Laplace with parameter ε" is a rate, E1.10).
type alg3Lap struct {
	alg3
	scale float64 // 1/ε
}

func (e *alg3Lap) Name() string { return NameAlg3Lap }

// Estimate returns w·Clip(ŝ1/(ŝ1 + ŝ2), [0, 1]) + l, ŝi = si + Lap(1/ε).
// Three words.
func (e *alg3Lap) Estimate(n int, sum float64, rng *rand.Rand) float64 {
	if badInput(n, sum) {
		return math.NaN()
	}
	s1 := e.s1(n, sum)
	s2 := float64(n) - s1
	signs := rng.Uint64()
	h1 := s1 + signed(e.scale*rng.ExpFloat64(), signs)
	h2 := s2 + signed(e.scale*rng.ExpFloat64(), signs>>1)
	return e.out(h1, h1+h2)
}

// alg3TwoD is Algorithm 3 with the 2-D ℓ1 staircase (Δ = 1, γ̃*;
// Lemma 5).
type alg3TwoD struct {
	alg3
	noise Staircase2D
}

func (e *alg3TwoD) Name() string { return NameAlg3TwoD }

// Estimate is as for Algorithm 3 with (Z1, Z2) from the 2-D staircase.
func (e *alg3TwoD) Estimate(n int, sum float64, rng *rand.Rand) float64 {
	if badInput(n, sum) {
		return math.NaN()
	}
	s1 := e.s1(n, sum)
	s2 := float64(n) - s1
	z1, z2 := e.noise.Sample(rng)
	h1 := s1 + z1
	return e.out(h1, h1+(s2+z2))
}

// alg3HG is Algorithm 3 with hourglass noise (Δ = 1, γ*; Theorem 3).
type alg3HG struct {
	alg3
	noise Hourglass
}

func (e *alg3HG) Name() string { return NameAlg3HG }

// Estimate returns w·Clip((s1 + Z1)/(n + K), [0, 1]) + l. The
// denominator ŝ1 + ŝ2 = n + Z1 + Z2 = n + K is formed as the integer
// n + K (E1.17): summed in floats it could be ±1e−16 instead of 0 and
// turn the zero-denominator convention into a coin flip.
func (e *alg3HG) Estimate(n int, sum float64, rng *rand.Rand) float64 {
	if badInput(n, sum) {
		return math.NaN()
	}
	z1, _, k := e.noise.Sample(rng)
	return e.out(e.s1(n, sum)+z1, float64(n+k))
}

// swapStair is the swap-model reference of App. H (reading (ii) of
// E1.16): n public, the sum's sensitivity w under a swap, noise
// staircase(ε, γ*, Δ = w).
type swapStair struct {
	clip  clipper // on [−w/2, w/2]
	m     float64
	noise Staircase
}

func (e *swapStair) Name() string { return NameSwapStair }

// Estimate returns Clip((Σx + Z)/n, [l, u]), computed centred as
// m + Clip((Σx − n·m + Z)/n, [−w/2, w/2]) (the same number in exact
// arithmetic; centring keeps the rounding at the scale of w, not of |l|).
// n = 0 follows the zero-denominator convention. Three words.
func (e *swapStair) Estimate(n int, sum float64, rng *rand.Rand) float64 {
	if badInput(n, sum) {
		return math.NaN()
	}
	z, _, _ := e.noise.Sample(rng)
	fn := float64(n)
	return e.clip.ratio(sum-fn*e.m+z, fn) + e.m
}
