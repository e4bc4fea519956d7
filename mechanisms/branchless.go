package mechanisms

import (
	"math"
	"math/rand/v2"
)

// choose returns a if c and b otherwise, without a branch: the compiler
// turns the select on the bit patterns into a conditional move. The
// samplers use it for their random case splits, whose outcome a branch
// predictor cannot learn (a mispredicted branch costs about as much as
// drawing two uniforms).
func choose(c bool, a, b float64) float64 {
	ab, bb := math.Float64bits(a), math.Float64bits(b)
	if c {
		bb = ab
	}
	return math.Float64frombits(bb)
}

// b2i returns 1 if c and 0 otherwise, without a branch (SETcc).
func b2i(c bool) int {
	var i int
	if c {
		i = 1
	}
	return i
}

// batchBlock is the number of reports a batch sampler makes per block.
//
// A batch is made block by block, each in two passes: the first
// (drawUniforms) draws the block's uniforms into an array on the stack, in
// the order Perturb would draw them; the second computes the reports from
// them in a loop without calls, so that the constants and the loop state
// stay in registers (a call, here the generator's, clobbers all of them)
// and the arithmetic of consecutive reports overlaps. The second pass makes
// each report with the code Perturb makes it with (a report method small
// enough to be inlined, or for Laplace a kernel that Perturb runs on a
// block of one), so a batch equals the same sequence of Perturb calls bit
// for bit. 128 reports of up to two uniforms are 2 KiB: the array stays in
// L1 and on the goroutine's stack, so nothing is allocated, and zeroing it
// costs less than a report.
//
// The block loop is written out in each PerturbBatch: passed to a shared
// helper as a func value, the second pass would make the array escape to
// the heap.
const batchBlock = 128

// drawUniforms sets us[i] = rng.Float64() for every i, in order.
func drawUniforms(us []float64, rng *rand.Rand) {
	for i := range us {
		us[i] = rng.Float64()
	}
}

// batchDst returns dst[:n], and panics if dst is shorter than n (slicing
// alone would not when cap(dst) ≥ n).
func batchDst(dst []float64, n int) []float64 {
	if len(dst) < n {
		panic("mechanisms: PerturbBatch: dst is shorter than xs")
	}
	return dst[:n]
}
