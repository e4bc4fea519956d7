package group

import "math/rand/v2"

// simulateLaplace is Simulate for Group Laplace. Per user it flips one
// coin of probability a from half a word (coin.go), which decides whether
// the user keeps the group, and adds the value of a user who does to the
// group's kept sum. Then, exactly:
//
//   - each group's movers land uniformly on the d-1 other groups
//     (multinomial counts, scatterMovers);
//   - every report at group h is its input (v for a kept user, the neutral
//     0 for an arrival) plus independent Laplace noise of scale λ = 2/ε2,
//     so Sum[h] = Σ_{kept in h} v_i + the sum of C_h i.i.d. Laplace(λ)
//     draws, and a sum of m Laplace(λ) draws is λ(G1 - G2) with G1, G2
//     independent Gamma(m, 1) (a Laplace draw is λ(E1 - E2) for two
//     standard exponentials, and m of them sum to a Gamma(m, 1)).
//
// The cost beyond the uniform per user is 2d Gamma draws and d(d-2)
// binomials a run.
func (m *Mechanism) simulateLaplace(t *Tally, groups []int32, values []float64, rng *rand.Rand) {
	d := m.cfg.D
	ints := t.scratchInts(4 * d)
	size, kept, movers, arrive := ints[:d], ints[d:2*d], ints[2*d:3*d], ints[3*d:]
	sums := t.scratchFloats(d)

	t0, rem := threshold(m.a)
	var ws [block / 2]uint64
	for start := 0; start < len(groups); start += block {
		end := min(start+block, len(groups))
		g, v := groups[start:end], values[start:end]
		words := ws[:wordsFor(len(g))]
		drawWords(words, rng)
		if keepBlock(size, kept, sums, g, v, words, t0) {
			resolveKeepTies(kept, sums, g, v, words, t0, rem, rng)
		}
	}
	moved := 0
	for g := range d {
		movers[g] = size[g] - kept[g]
		moved += movers[g]
	}
	t.Moved = float64(moved)
	scatterMovers(rng, movers, arrive)
	lambda := m.lap.Scale()
	for h := range d {
		n := kept[h] + arrive[h]
		t.Count[h] = float64(n)
		t.Sum[h] = sums[h] + lambda*(gammaInt(rng, n)-gammaInt(rng, n))
	}
}

// keepBlock counts each user in size[g], and, if its coin (half(words, i)
// against t) is heads, in kept[g] and its value in sums[g]. It reports
// whether a coin tied (counted as tails).
func keepBlock(size, kept []int, sums []float64, g []int32, v []float64, words []uint64, t uint64) (tie bool) {
	v = v[:len(g)]
	var ties uint64
	for i, gi := range g {
		r := half(words, i)
		ties |= b2u(r == t)
		k := heads(r, t)
		size[gi]++
		kept[gi] += k
		sums[gi] += float64(k) * v[i]
	}
	return ties != 0
}

// resolveKeepTies decides the tied coins of a block (see coin.go): a tie
// that comes up heads keeps its user's group after all.
func resolveKeepTies(kept []int, sums []float64, g []int32, v []float64, words []uint64, t uint64, rem float64, rng *rand.Rand) {
	for i, gi := range g {
		if half(words, i) == t && tieHeads(rem, rng) {
			kept[gi]++
			sums[gi] += v[i]
		}
	}
}
