package mechtest

import (
	"fmt"
	"math"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Grid returns n+1 equally spaced points from lo to hi, both included.
func Grid(lo, hi float64, n int) []float64 {
	g := make([]float64, n+1)
	for i := range g {
		g[i] = lo + (hi-lo)*float64(i)/float64(n)
	}
	g[n] = hi
	return g
}

// name returns the mechanism's name when m is also a Mechanism.
func name(m any) string {
	if mm, ok := m.(mechanisms.Mechanism); ok {
		return fmt.Sprintf("%s (ε = %v)", mm.Name(), mm.Epsilon())
	}
	return fmt.Sprintf("%T", m)
}

// ProbabilitiesSumToOne checks, for every x in xs, that the output
// probabilities of m lie in [0, 1], sum to 1 and give an unbiased report:
// Σ_i o_i·p_i(x) = x, the outputs o_i de-biased first if m is a
// [mechanisms.Debiaser]. tol is absolute for probabilities and relative to
// max(1, max|o_i|) for the mean.
func ProbabilitiesSumToOne(m mechanisms.Discrete, xs []float64, tol float64) error {
	outs := m.Outputs()
	if len(outs) == 0 {
		return fmt.Errorf("%s: empty output alphabet", name(m))
	}
	for i := 1; i < len(outs); i++ {
		if !(outs[i] > outs[i-1]) {
			return fmt.Errorf("%s: outputs not strictly increasing at %d: %v", name(m), i, outs)
		}
	}
	vals := append([]float64(nil), outs...)
	if d, ok := m.(mechanisms.Debiaser); ok {
		for i, o := range vals {
			vals[i] = d.Debias(o)
		}
	}
	scale := 1.0
	for _, o := range vals {
		scale = max(scale, math.Abs(o))
	}
	ps := make([]float64, len(outs))
	for _, x := range xs {
		m.Probabilities(x, ps)
		sum, mean := 0.0, 0.0
		for i, p := range ps {
			if !(p >= -tol && p <= 1+tol) {
				return fmt.Errorf("%s: P[%v | x = %v] = %v is not a probability", name(m), outs[i], x, p)
			}
			sum += p
			mean += vals[i] * p
		}
		if !(math.Abs(sum-1) <= tol) {
			return fmt.Errorf("%s: probabilities at x = %v sum to 1%+.3g", name(m), x, sum-1)
		}
		if !(math.Abs(mean-x) <= tol*scale) {
			return fmt.Errorf("%s: expected report at x = %v is %v (biased by %.3g)", name(m), x, mean, mean-x)
		}
	}
	return nil
}

// DiscreteRatio returns the privacy ratio of m over the inputs xs:
// max over outputs o of max_x P[o|x] / min_x P[o|x]. It is +Inf if some
// output has probability 0 at one input and not at another; outputs that
// are impossible at every input are ignored.
func DiscreteRatio(m mechanisms.Discrete, xs []float64) float64 {
	k := len(m.Outputs())
	lo := make([]float64, k)
	hi := make([]float64, k)
	for i := range lo {
		lo[i], hi[i] = math.Inf(1), math.Inf(-1)
	}
	ps := make([]float64, k)
	for _, x := range xs {
		m.Probabilities(x, ps)
		for i, p := range ps {
			lo[i] = min(lo[i], p)
			hi[i] = max(hi[i], p)
		}
	}
	return maxRatio(lo, hi)
}

func maxRatio(lo, hi []float64) float64 {
	r := 0.0
	for i := range lo {
		switch {
		case math.IsNaN(lo[i]) || math.IsNaN(hi[i]):
			return math.NaN()
		case hi[i] <= 0:
			// impossible everywhere
		case lo[i] <= 0:
			return math.Inf(1)
		default:
			r = max(r, hi[i]/lo[i])
		}
	}
	return r
}

// DensityRatio returns the privacy ratio of m over the inputs xs and the
// outputs ys: max over y of max_x f(y|x) / min_x f(y|x). It is +Inf if some
// y has density 0 at one input and not at another; outputs of density 0 at
// every input are ignored. Avoid ys on a discontinuity of the density,
// where the value is a convention.
func DensityRatio(m mechanisms.Continuous, xs, ys []float64) float64 {
	lo := make([]float64, len(ys))
	hi := make([]float64, len(ys))
	for j := range ys {
		lo[j], hi[j] = math.Inf(1), math.Inf(-1)
	}
	for _, x := range xs {
		for j, y := range ys {
			f := m.Density(y, x)
			lo[j] = min(lo[j], f)
			hi[j] = max(hi[j], f)
		}
	}
	return maxRatio(lo, hi)
}

func checkRatio(what string, m any, r, eps, tol float64, tight bool) error {
	bound := math.Exp(eps)
	if !(r <= bound*(1+tol)) {
		return fmt.Errorf("%s: %s ratio %v exceeds e^ε = %v for ε = %v: not ε-LDP", name(m), what, r, bound, eps)
	}
	if tight && !(r >= bound*(1-tol)) {
		return fmt.Errorf("%s: %s ratio %v does not attain e^ε = %v for ε = %v: the mechanism spends less than its budget", name(m), what, r, bound, eps)
	}
	return nil
}

// DiscreteLDP checks that DiscreteRatio(m, xs) ≤ e^ε(1+tol): the exact
// ε-LDP condition over the grid xs.
func DiscreteLDP(m mechanisms.Discrete, xs []float64, eps, tol float64) error {
	return checkRatio("probability", m, DiscreteRatio(m, xs), eps, tol, false)
}

// DiscreteLDPTight is [DiscreteLDP] that also requires the bound to be
// attained, ratio ≥ e^ε(1-tol): a mechanism that adds more noise than its
// budget allows (its constants computed for a smaller ε) fails it.
func DiscreteLDPTight(m mechanisms.Discrete, xs []float64, eps, tol float64) error {
	return checkRatio("probability", m, DiscreteRatio(m, xs), eps, tol, true)
}

// DensityLDP checks that DensityRatio(m, xs, ys) ≤ e^ε(1+tol).
func DensityLDP(m mechanisms.Continuous, xs, ys []float64, eps, tol float64) error {
	return checkRatio("density", m, DensityRatio(m, xs, ys), eps, tol, false)
}

// DensityLDPTight is [DensityLDP] that also requires the bound to be
// attained over the grids, ratio ≥ e^ε(1-tol).
func DensityLDPTight(m mechanisms.Continuous, xs, ys []float64, eps, tol float64) error {
	return checkRatio("density", m, DensityRatio(m, xs, ys), eps, tol, true)
}

// checkEdges validates a partition.
func checkEdges(what string, e []float64) error {
	if len(e) < 2 {
		return fmt.Errorf("%s edges: need at least 2, got %d", what, len(e))
	}
	for i := 1; i < len(e); i++ {
		if !(e[i] > e[i-1]) {
			return fmt.Errorf("%s edges not strictly increasing at %d: %v", what, i, e)
		}
	}
	return nil
}

// bins calls f for every input bin [xEdges[i], xEdges[i+1]] and every
// point bin [x, x], x an edge.
func bins(xEdges []float64, f func(xlo, xhi float64) error) error {
	for i, x := range xEdges {
		if err := f(x, x); err != nil {
			return err
		}
		if i+1 < len(xEdges) {
			if err := f(x, xEdges[i+1]); err != nil {
				return err
			}
		}
	}
	return nil
}

// BucketsSumToOne checks that the buckets (yEdges[j], yEdges[j+1]], which
// must cover the output range of m (edges may be ±Inf), have probabilities
// BucketGivenBin in [0, 1] summing to 1 within tol, for every input bin of
// the partition xEdges and for every edge as a point input.
func BucketsSumToOne(m mechanisms.Continuous, yEdges, xEdges []float64, tol float64) error {
	if err := checkEdges("output", yEdges); err != nil {
		return err
	}
	if err := checkEdges("input", xEdges); err != nil {
		return err
	}
	lo, hi := m.OutputRange()
	if yEdges[0] > lo || yEdges[len(yEdges)-1] < hi {
		return fmt.Errorf("%s: output edges [%v, %v] do not cover the range [%v, %v]", name(m), yEdges[0], yEdges[len(yEdges)-1], lo, hi)
	}
	return bins(xEdges, func(xlo, xhi float64) error {
		sum := 0.0
		for j := 0; j+1 < len(yEdges); j++ {
			p := m.BucketGivenBin(yEdges[j], yEdges[j+1], xlo, xhi)
			if !(p >= -tol && p <= 1+tol) {
				return fmt.Errorf("%s: bucket (%v, %v] given bin [%v, %v] has probability %v", name(m), yEdges[j], yEdges[j+1], xlo, xhi, p)
			}
			sum += p
		}
		if !(math.Abs(sum-1) <= tol) {
			return fmt.Errorf("%s: buckets given bin [%v, %v] sum to 1%+.3g", name(m), xlo, xhi, sum-1)
		}
		return nil
	})
}

// BucketsMatchDensity checks BucketGivenBin against an independent
// numerical double integral of Density, (1/(xhi-xlo))∫∫ f(y|x) dy dx over
// every finite bucket (yEdges[j], yEdges[j+1]] and every input bin of
// xEdges (and every edge as a point input, a single integral), to absolute
// tolerance tol (1e-9 is met comfortably). The integrals are adaptive
// Simpson with an initial subdivision into 32 panels, which locates the
// jumps and kinks of piecewise densities to about 1e-13 without knowing
// where they are; features narrower than 1/128 of a bucket or bin could be
// missed, so use edges of comparable scale to the mechanism's windows.
func BucketsMatchDensity(m mechanisms.Continuous, yEdges, xEdges []float64, tol float64) error {
	if err := checkEdges("output", yEdges); err != nil {
		return err
	}
	if err := checkEdges("input", xEdges); err != nil {
		return err
	}
	const panels, inner, outer = 32, 1e-14, 1e-13
	for j := 0; j+1 < len(yEdges); j++ {
		ylo, yhi := yEdges[j], yEdges[j+1]
		if math.IsInf(ylo, 0) || math.IsInf(yhi, 0) {
			continue
		}
		prob := func(x float64) float64 {
			return Integrate(func(y float64) float64 { return m.Density(y, x) }, ylo, yhi, panels, inner)
		}
		err := bins(xEdges, func(xlo, xhi float64) error {
			var want float64
			if xlo == xhi {
				want = prob(xlo)
			} else {
				want = Integrate(prob, xlo, xhi, panels, outer) / (xhi - xlo)
			}
			got := m.BucketGivenBin(ylo, yhi, xlo, xhi)
			if !(math.Abs(got-want) <= tol) {
				return fmt.Errorf("%s: bucket (%v, %v] given bin [%v, %v]: BucketGivenBin %v, integral of the density %v (difference %.3g)",
					name(m), ylo, yhi, xlo, xhi, got, want, got-want)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// CDFConsistent checks the CDF of m at every x in xs over the increasing
// outputs ys: it is non-decreasing, within [0, 1], 0 at or below the output
// range and 1 at or above it (for a finite range), and
// CDF(ys[j+1], x) - CDF(ys[j], x) equals BucketGivenBin(ys[j], ys[j+1], x, x)
// within tol. With [BucketsMatchDensity] this ties the CDF to the density.
func CDFConsistent(m mechanisms.Continuous, xs, ys []float64, tol float64) error {
	if err := checkEdges("output", ys); err != nil {
		return err
	}
	lo, hi := m.OutputRange()
	for _, x := range xs {
		if !math.IsInf(lo, 0) {
			if c := m.CDF(lo, x); !(math.Abs(c) <= tol) {
				return fmt.Errorf("%s: CDF(%v | x = %v) = %v at the lower end of the range", name(m), lo, x, c)
			}
		}
		if !math.IsInf(hi, 0) {
			if c := m.CDF(hi, x); !(math.Abs(c-1) <= tol) {
				return fmt.Errorf("%s: CDF(%v | x = %v) = %v at the upper end of the range", name(m), hi, x, c)
			}
		}
		prev := math.Inf(-1)
		for j, y := range ys {
			c := m.CDF(y, x)
			if !(c >= -tol && c <= 1+tol) || c < prev-tol {
				return fmt.Errorf("%s: CDF(%v | x = %v) = %v is not a non-decreasing probability", name(m), y, x, c)
			}
			if j > 0 {
				want := m.BucketGivenBin(ys[j-1], y, x, x)
				if !(math.Abs(c-prev-want) <= tol) {
					return fmt.Errorf("%s: CDF difference over (%v, %v] at x = %v is %v, BucketGivenBin %v", name(m), ys[j-1], y, x, c-prev, want)
				}
			}
			prev = c
		}
	}
	return nil
}
