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
// The batch samplers make their reports with the code Perturb makes them
// with, so a batch equals the same sequence of Perturb calls bit for bit,
// and spend nothing per report beyond that code and the generator's calls:
// the inputs are checked in one branch-free pass (checkInputs), and there is
// no call per report but the generator's. Duchi, the piecewise family and
// Square Wave make a report with a report method that the compiler inlines
// (each is kept within its inlining budget). (Laplace is the exception to
// the first rule: its batch takes the signs of 64 reports from one word, and
// does not use the blocks below; see its PerturbBatch.)
//
// Duchi and Square Wave make a batch block by block, in two passes: the
// first (drawUniforms) draws the block's uniforms into an array on the
// stack, in order, and the second computes the reports from them in a loop
// without calls, so that the constants and the loop state stay in
// registers (a call, here the generator's, clobbers all of them) and the
// long operations of consecutive reports (Square Wave's division) overlap.
// 32 uniforms are 256 bytes: the array stays on the goroutine's stack, so
// nothing is allocated; longer blocks are no faster. A batch shorter than
// smallBatch is not worth the array and is made report by report. The piecewise family, with two draws to a short computation,
// loops over the inputs directly, drawing and computing one report at a
// time, which measures a little faster there.
const batchBlock = 32

// smallBatch is the length below which a two-pass batch sampler makes its
// reports one by one (see batchBlock).
const smallBatch = 4

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
