package group

import "math/rand/v2"

// Coins from half a word. Simulate's per-user step for Bernoulli, NPRR and
// Laplace is one biased coin: heads with probability θ (the stochastic
// rounding's θ, or the keep probability a). A coin needs far fewer than
// the 53 bits of rng.Float64, so two users share one 64-bit word:
//
// Let U be a uniform on [0, 1) whose first 32 bits are r (one half of the
// word) and T = ⌊θ·2^32⌋. Then U < θ exactly when r < T, or r = T and the
// remaining bits of U are below rem = θ·2^32 - T. So a coin is heads if
// r < T, tails if r > T, and on a tie (probability 2^-32) it is decided by
// a fresh uniform, heads if rng.Float64() < rem. Its probability of heads
// is T/2^32 + 2^-32·Pr[Float64 < rem] = θ within 2^-85: closer to θ than a
// comparison with one rng.Float64 (within 2^-53), at half the draws.
//
// The callers draw the words of a block of users first (drawWords), decide
// the coins in a loop without calls, and resolve the rare ties of a block
// afterwards: each tie was counted as tails, and a tie that turns out heads
// is moved. The tie uniforms are drawn after the block's words, which
// changes nothing: they are independent of everything else.

// block is the number of users whose words are drawn at once: 32 words on
// the stack.
const block = 64

// drawWords fills ws with rng.Uint64().
func drawWords(ws []uint64, rng *rand.Rand) {
	for i := range ws {
		ws[i] = rng.Uint64()
	}
}

// wordsFor returns the number of words n users take: ⌈n/2⌉.
func wordsFor(n int) int { return (n + 1) / 2 }

// half returns user i's 32 bits of ws: the high half of ws[i/2] for even
// i, the low half for odd i.
func half(ws []uint64, i int) uint64 {
	return ws[i>>1] >> (32 &^ (uint(i&1) << 5)) & 0xffffffff
}

// threshold returns T = ⌊θ·2^32⌋ and rem = θ·2^32 - T for θ in [0, 1).
// θ·2^32 is exact (a power-of-two scaling) and below 2^32, so the
// conversion through int64 is exact and rem is exact.
func threshold(theta float64) (t uint64, rem float64) {
	x := theta * (1 << 32)
	t = uint64(int64(x))
	return t, x - float64(t)
}

// heads returns 1 if r < t, else 0, without a branch: for r, t < 2^32,
// r - t wraps to a number with the top bit set exactly when r < t.
func heads(r, t uint64) int { return int((r - t) >> 63) }

// tieHeads decides a tie: heads with probability rem.
func tieHeads(rem float64, rng *rand.Rand) bool { return rng.Float64() < rem }
