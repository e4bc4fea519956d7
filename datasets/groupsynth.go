package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Shapes of SyntheticGrouped: Raab et al.'s four synthetic datasets
// (Section 5.1.1, as the authors' generators draw them).
const (
	ShapeUniform  = "uniform"
	ShapeNormal   = "normal"
	ShapeConstant = "constant"
	ShapeExtremum = "extremum"
)

// Shapes lists the shapes SyntheticGrouped accepts.
var Shapes = []string{ShapeUniform, ShapeNormal, ShapeConstant, ShapeExtremum}

// GroupMean returns μ_g = lo + (g + 1)(hi − lo)/(d + 1), the mean of group g
// of d in the normal, constant and extremum shapes: the d interior points of
// d + 2 equally spaced points of [lo, hi] (for d = 2 on [−1, 1]: ±1/3).
func GroupMean(g, d int, lo, hi float64) float64 {
	return lo + float64(g+1)*(hi-lo)/float64(d+1)
}

// NormalSigma returns the standard deviation of the normal shape,
// σ = 0.2·(hi − lo)/d, as the authors' code uses it (ERRATA E2.3: the paper
// prints N(μ_g, (s+r)/(5d)), which reads as a variance and is 0 on
// [−1, 1]).
func NormalSigma(d int, lo, hi float64) float64 {
	return 0.2 * (hi - lo) / float64(d)
}

// SyntheticGrouped generates one of Raab et al.'s synthetic group datasets on
// [lo, hi] with sizes[g] users in group g (d = len(sizes) ≥ 2 groups):
//
//   - "uniform":  x ~ U[lo, hi] in every group (all means ≈ the midpoint);
//   - "normal":   x ~ N(μ_g, σ²), σ = NormalSigma(d, lo, hi) = 0.2(hi − lo)/d
//     (E2.3), clipped to [lo, hi] (clipped, as the authors' code does, not
//     truncated);
//   - "constant": x = μ_g = GroupMean(g, d, lo, hi) exactly;
//   - "extremum": x = lo + (hi − lo)·Bernoulli((μ_g − lo)/(hi − lo)), only lo
//     or hi; the group mean is μ_g in expectation only.
//
// Rows are generated group by group (group 0's users first) and then
// randomly permuted (rng.Shuffle), as the authors' generator does. The
// draws do not depend on [lo, hi]: a uniform takes one rng.Float64, a
// normal one rng.NormFloat64, an extremum one rng.Float64 compared with
// (g + 1)/(d + 1) (which is (μ_g − lo)/(hi − lo) without its rounding), a
// constant none; so one seed gives, on every range, data that are affine
// images of each other, and Scaled values equal to rounding (the paper's E3
// relies on it, Section 5.2.3). The truth is the sample's own Means, not
// μ_g.
//
// Errors name the parameter: shape unknown, fewer than 2 groups, a negative
// size, no users, lo, hi not finite with lo < hi, rng nil.
func SyntheticGrouped(shape string, sizes []int, lo, hi float64, rng *rand.Rand) (*Grouped, error) {
	switch shape {
	case ShapeUniform, ShapeNormal, ShapeConstant, ShapeExtremum:
	default:
		return nil, fmt.Errorf("synthetic grouped: shape %q: want one of %s", shape, strings.Join(Shapes, ", "))
	}
	d := len(sizes)
	if d < 2 {
		return nil, fmt.Errorf("synthetic grouped: sizes: need at least 2 groups, got %d (a group mean with d = 1 divides by d − 1)", d)
	}
	if d > MaxGroups {
		return nil, fmt.Errorf("synthetic grouped: sizes: %d groups, more than %d", d, MaxGroups)
	}
	n := 0
	for g, s := range sizes {
		if s < 0 {
			return nil, fmt.Errorf("synthetic grouped: sizes[%d] = %d: must be >= 0", g, s)
		}
		if s > math.MaxInt32-n {
			return nil, fmt.Errorf("synthetic grouped: sizes: more than %d users in all", math.MaxInt32)
		}
		n += s
	}
	if n == 0 {
		return nil, fmt.Errorf("synthetic grouped: sizes: every group is empty")
	}
	if err := checkRange(lo, hi); err != nil {
		return nil, fmt.Errorf("synthetic grouped: lo, hi: %v", err)
	}
	if rng == nil {
		return nil, fmt.Errorf("synthetic grouped: rng: %w", errNilRand)
	}

	groups := make([]int32, n)
	values := make([]float64, n)
	sigma := NormalSigma(d, lo, hi)
	i := 0
	for g, s := range sizes {
		mu := GroupMean(g, d, lo, hi)
		p := float64(g+1) / float64(d+1)
		xs := values[i : i+s]
		for j := range s {
			groups[i+j] = int32(g)
		}
		i += s
		// One loop per shape: a switch per user costs as much as a draw.
		switch shape {
		case ShapeUniform:
			for j := range xs {
				xs[j] = min(lo+(hi-lo)*rng.Float64(), hi) // rounding can reach hi, never beyond
			}
		case ShapeNormal:
			for j := range xs {
				xs[j] = max(lo, min(hi, mu+sigma*rng.NormFloat64()))
			}
		case ShapeConstant:
			for j := range xs {
				xs[j] = mu
			}
		case ShapeExtremum:
			for j := range xs {
				xs[j] = lo
				if rng.Float64() < p {
					xs[j] = hi
				}
			}
		}
	}
	rng.Shuffle(n, func(a, b int) {
		groups[a], groups[b] = groups[b], groups[a]
		values[a], values[b] = values[b], values[a]
	})

	labels := make([]string, d)
	for g := range labels {
		labels[g] = strconv.Itoa(g)
	}
	return &Grouped{
		Name:   shape,
		Groups: groups,
		Values: values,
		D:      d,
		Labels: labels,
		Lo:     lo,
		Hi:     hi,
		Source: fmt.Sprintf("synthetic grouped %s(d=%d,n=%d,lo=%s,hi=%s)", shape, d, n, fmtFloat(lo), fmtFloat(hi)),
	}, nil
}

// EqualSizes returns d group sizes summing to n: ⌊n/d⌋ each, the remainder
// to the last group (as the authors' generators do). It returns nil for
// d < 1 or n < 0.
func EqualSizes(n, d int) []int {
	if d < 1 || n < 0 {
		return nil
	}
	sizes := make([]int, d)
	for g := range sizes {
		sizes[g] = n / d
	}
	sizes[d-1] += n % d
	return sizes
}

// ImbalancedSizes returns the two group sizes of Raab et al.'s imbalance
// experiment (E4, Section 5.2.4): group 0 has n0 users, group 1
// round(n0/ratio), rounded half to even as the authors' Python round does
// (ratio = n0/n1 ∈ {1, 0.1, 0.01} gives n1 = 10⁴, 10⁵, 10⁶ for n0 = 10⁴).
// It returns nil for n0 < 1, a ratio that is not finite and > 0, or an n1
// that does not fit an int32 count.
func ImbalancedSizes(n0 int, ratio float64) []int {
	if n0 < 1 || !finite(ratio) || !(ratio > 0) {
		return nil
	}
	n1 := math.RoundToEven(float64(n0) / ratio)
	if !(n1 <= math.MaxInt32) {
		return nil
	}
	return []int{n0, int(n1)}
}
