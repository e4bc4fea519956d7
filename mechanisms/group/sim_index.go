package group

import (
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/internal/binomial"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// simulateIndex is Simulate for Bernoulli and NPRR (Bernoulli is NPRR with
// k = 1). Per user it makes the stochastic rounding only, a coin from half
// a word (coin.go), and counts the users by (group, index); everything
// after the rounding is drawn for the counts at once, exactly:
//
//  1. n[g][y] users of group g have the rounded index y. Each keeps its
//     group with probability a, independently: Binomial(n[g][y], a) keep
//     it; the rest, summed over y, are group g's movers.
//  2. GRR over the k+1 indices keeps an index with probability p2 and moves
//     it to each other one with q2; that is the same law as "keep with
//     probability c = p2 - q2, else draw an index uniformly from all k+1"
//     (c + q2 = p2, and (1-c)/(k+1) = q2). So of the kept users with index
//     y, Binomial(kept, c) report y and the rest join group g's uniform
//     pool.
//  3. Each group's movers land uniformly on the d-1 other groups:
//     multinomial counts (scatterMovers).
//  4. A mover reports the neutral value: for nprr0 the NPRR report of 0,
//     which is the index k/2 (k even) or k/2 ± ½ with probability ½ each
//     (k odd, θ = ½) sent through GRR: Binomial(A, c) of the A arrivals
//     keep it (split Binomial(·, ½) between the two middle indices for odd
//     k) and the rest join the uniform pool; for uniform-grid every
//     arrival joins the pool.
//  5. Each group's uniform pool is spread over the k+1 indices
//     (multinomial), and Sum = Σ_j count_j·(2j/k - 1), computed as
//     (2·Σ j·count_j - k·C)/k from exact integers.
//
// Every step replaces independent per-user draws by the law of their
// counts, and the reports' sum depends on the users only through those
// counts, so the tally has the law of the per-user tally. The cost is
// d(k+1) + d(k+1) + d(d-2) + d(k+1) binomial draws a run, independent of
// the number of users.
func (m *Mechanism) simulateIndex(t *Tally, groups []int32, values []float64, rng *rand.Rand) {
	d, k, nprr := m.cfg.D, m.k, m.nprr
	w := k + 1
	ints := t.scratchInts(2*d*w + 3*d)
	hist, out := ints[:d*w], ints[d*w:2*d*w]
	movers, arrive, pool := ints[2*d*w:2*d*w+d], ints[2*d*w+d:2*d*w+2*d], ints[2*d*w+2*d:]

	var ws [block / 2]uint64
	for start := 0; start < len(groups); start += block {
		end := min(start+block, len(groups))
		g, v := groups[start:end], values[start:end]
		words := ws[:wordsFor(len(g))]
		drawWords(words, rng)
		if roundBlock(hist, g, v, words, w, nprr) {
			resolveRoundTies(hist, g, v, words, w, nprr, rng)
		}
	}

	a, notA := m.a, float64(d-1)*m.q // 1 - a = (d-1)q, accurately
	c, notC := m.c, float64(w)*nprr.Q()
	moved := 0
	for g := range d {
		kept := 0
		for y := range w {
			n := hist[g*w+y]
			if n == 0 {
				continue
			}
			kg := binomial.Sample(rng, n, a, notA)
			kv := binomial.Sample(rng, kg, c, notC)
			out[g*w+y] += kv
			pool[g] += kg - kv
			kept += kg
			movers[g] += n - kg
		}
		t.Count[g] = float64(kept)
		moved += movers[g]
	}
	t.Moved = float64(moved)
	scatterMovers(rng, movers, arrive)

	for h := range d {
		n := arrive[h]
		t.Count[h] += float64(n)
		row := out[h*w : (h+1)*w]
		if m.uniform {
			pool[h] += n
		} else if n > 0 {
			kv := binomial.Sample(rng, n, c, notC)
			if k%2 == 0 {
				row[k/2] += kv
			} else {
				up := binomial.Sample(rng, kv, 0.5, 0.5)
				row[k/2] += kv - up
				row[k/2+1] += up
			}
			pool[h] += n - kv
		}
		spread(rng, pool[h], w, row, func(j int) int { return j })
		sj := 0
		for j, cnt := range row {
			sj += j * cnt
		}
		t.Sum[h] = float64(2*sj-k*int(t.Count[h])) / float64(k)
	}
}

// roundBlock adds each user's rounded index to hist[g·w + index], the coin
// of user i being half(words, i) against ⌊θ·2^32⌋, and reports whether a
// coin tied (the tie counted as tails, the cell ⌊s⌋).
//
// The cell and the coin's threshold come from one conversion: s·2^32 is
// exact (s ≤ k scaled by a power of two) and below 2^52 (k ≤ MaxK), so
// x = ⌊s·2^32⌋ as an integer has ⌊s⌋ in its high bits and ⌊θ·2^32⌋ in its
// low 32 bits, θ = s - ⌊s⌋.
func roundBlock(hist []int, g []int32, v []float64, words []uint64, w int, nprr *mechanisms.NPRR) (tie bool) {
	v = v[:len(g)]
	var ties uint64
	for i := range g {
		x := uint64(int64(nprr.Position(v[i]) * (1 << 32)))
		f, t := int(x>>32), x&(1<<32-1)
		r := half(words, i)
		ties |= b2u(r == t)
		hist[int(g[i])*w+f+heads(r, t)]++
	}
	return ties != 0
}

// resolveRoundTies decides the tied coins of a block (see coin.go): a tie
// that comes up heads moves its user from the cell ⌊s⌋ to ⌊s⌋+1.
func resolveRoundTies(hist []int, g []int32, v []float64, words []uint64, w int, nprr *mechanisms.NPRR, rng *rand.Rand) {
	for i := range g {
		s := nprr.Position(v[i]) * (1 << 32)
		x := uint64(int64(s))
		f, t := int(x>>32), x&(1<<32-1)
		if half(words, i) == t && tieHeads(s-float64(x), rng) {
			base := int(g[i])*w + f
			hist[base]--
			hist[base+1]++
		}
	}
}
