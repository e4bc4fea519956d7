package mechanisms

import "math"

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
