package group

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Tally is what the aggregator of Algorithm 3 needs from one run: its
// sufficient statistics. Reuse a Tally across Simulate calls: it keeps its
// slices and scratch space, so a run allocates nothing.
type Tally struct {
	// N is the number of users.
	N int
	// Count[g] is C_g = #{i : g′_i = g}, an integer held as float64.
	Count []float64
	// Sum[g] is Σ v′_i over the users with g′_i = g: the raw reports, not
	// divided by a·c.
	Sum []float64
	// Moved is #{i : g′_i ≠ g_i}, the group errors.
	Moved float64

	ints []int     // scratch
	flts []float64 // scratch
	list []float64 // scratch: Piecewise's reports of movers
}

// reset sizes the tally for d groups and n users and zeroes it.
func (t *Tally) reset(d, n int) {
	t.N, t.Moved = n, 0
	t.Count = zeroed(t.Count, d)
	t.Sum = zeroed(t.Sum, d)
}

// scratchInts returns n zeroed ints of scratch space.
func (t *Tally) scratchInts(n int) []int {
	if cap(t.ints) < n {
		t.ints = make([]int, n)
	}
	t.ints = t.ints[:n]
	clear(t.ints)
	return t.ints
}

// scratchList returns n float64s of scratch space, not zeroed: its
// user writes every element before reading it.
func (t *Tally) scratchList(n int) []float64 {
	if cap(t.list) < n {
		t.list = make([]float64, n)
	}
	return t.list[:n]
}

// scratchFloats returns n zeroed float64s of scratch space.
func (t *Tally) scratchFloats(n int) []float64 {
	t.flts = zeroed(t.flts, n)
	return t.flts
}

func zeroed(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// Simulate runs the mechanism for every user i, with group groups[i] in
// {0, …, d-1} and value values[i] in [-1, 1], and writes the aggregate to
// t (reset first). The tally has exactly the law of the tally of one
// Perturb call per user (see the package documentation for why), at a
// cost of about one uniform draw per user for Bernoulli, NPRR, Laplace and
// Piecewise. It checks every input before drawing anything and returns an
// error naming the first bad user; a value mechanism that fails (an
// external program's) returns its error.
func (m *Mechanism) Simulate(t *Tally, groups []int32, values []float64, rng *rand.Rand) error {
	if len(groups) != len(values) {
		return fmt.Errorf("group: Simulate: %d groups but %d values", len(groups), len(values))
	}
	if err := checkUsers(groups, values, m.cfg.D); err != nil {
		return err
	}
	t.reset(m.cfg.D, len(groups))
	switch {
	case m.nprr != nil:
		m.simulateIndex(t, groups, values, rng)
	case m.lap != nil:
		m.simulateLaplace(t, groups, values, rng)
	case m.pm != nil:
		m.simulatePW(t, groups, values, rng)
	default:
		return m.simulatePerUser(t, groups, values, rng)
	}
	return nil
}

// checkUsers returns an error naming the first user whose group is
// outside [0, d) or whose value is outside [-1, 1] or NaN.
//
// The scan is branch-free: a group g is valid when uint32(g) < d, that is
// when uint64(uint32(g)) - d has its top bit set, and the bits are ANDed;
// a value v is valid when the bits of |v| are at most those of 1.0 (which
// also rejects NaN, whose bits are above every finite value's), that is
// when bits(1) - bits(|v|) has its top bit clear, and those are ORed. Only
// a batch that fails the scan is searched for the first bad user.
func checkUsers(groups []int32, values []float64, d int) error {
	const abs = 1<<63 - 1
	one := math.Float64bits(1)
	okGroups := uint64(1 << 63)
	var badValues uint64
	for i, g := range groups {
		okGroups &= uint64(uint32(g)) - uint64(d)
		badValues |= one - math.Float64bits(values[i])&abs
	}
	if okGroups>>63 == 1 && badValues>>63 == 0 {
		return nil
	}
	for i, g := range groups {
		if g < 0 || int(g) >= d {
			return fmt.Errorf("group: user %d: group %d outside [0, %d)", i, g, d)
		}
		if v := values[i]; !(v >= -1 && v <= 1) {
			return fmt.Errorf("group: user %d: value %v outside [-1, 1]", i, v)
		}
	}
	return nil
}

// scatterMovers adds to arrive[h] the users who left each group g
// (movers[g] of them) and landed on h: each mover's new group is uniform
// on the d-1 others, independently, so the destinations of a group's
// movers are a multinomial (spread).
func scatterMovers(rng *rand.Rand, movers, arrive []int) {
	d := len(movers)
	for g, n := range movers {
		if n == 0 {
			continue
		}
		spread(rng, n, d-1, arrive, func(j int) int {
			h := g + 1 + j
			if h >= d {
				h -= d
			}
			return h
		})
	}
}

// b2i returns 1 if c, else 0, without a branch.
func b2i(c bool) int {
	var i int
	if c {
		i = 1
	}
	return i
}

// b2u returns 1 if c, else 0, without a branch.
func b2u(c bool) uint64 {
	var i uint64
	if c {
		i = 1
	}
	return i
}

// choose returns a if c, else b, without a branch.
func choose(c bool, a, b float64) float64 {
	ab, bb := math.Float64bits(a), math.Float64bits(b)
	if c {
		bb = ab
	}
	return math.Float64frombits(bb)
}
