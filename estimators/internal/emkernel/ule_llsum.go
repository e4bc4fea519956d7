package emkernel

import "math"

// The log-likelihood of an E-step pass, Σ_k n_k·ln(D_k), is needed in every
// iteration for the stopping rule, and a logarithm per distinct vector costs
// about a quarter of the pair kernel's time. Most vectors have n_k = 1 (at
// n = 1M, m = 3 about 3 in 4), so llSum takes the logarithm of a product
// instead: Σ ln D_k = ln Π D_k, the product kept in four independent chains
// of multiplications (one multiplication per vector) whose binary exponents
// are moved into an integer after every block of 32 vectors (eight factors
// per chain), and adds (n_k − 1)·ln D_k only for the vectors whose count is
// not 1. Where those are the majority (at n = 10M about 3 in 4) a logarithm
// per vector is cheaper, and llSumGroup takes that route. The product's
// relative rounding error after K factors is below K·2^-53 (1e-10 at
// K = 1M), an absolute error of 1e-10 in LL, far below the authors'
// |ΔLL| < 1e-3 test.

// The factors that enter the product lie in [2^-64, 2^64): eight of them
// cannot leave the normal range from a chain value in [1, 2). llExpLo is
// the biased exponent of 2^-64.
const (
	llFactorMin = 0x1p-64
	llFactorMax = 0x1p64
	llExpLo     = 1023 - 64
)

// llSum returns Σ_i n[i]·ln(d[i]). multi lists, in increasing order, the
// indices base+i of the entries with n[i] != 1; every other n[i] must be 1.
// Entries of d outside [llFactorMin, llFactorMax) (including 0, negative
// and NaN) take math.Log.
func llSum(n, d []float64, multi []int32, base int32) float64 {
	d = d[:len(n)]
	var p [4]float64
	p[0], p[1], p[2], p[3] = 1, 1, 1, 1
	var exp int
	var extra float64 // logs of the factors outside the product's range
	i := 0
	for ; i+32 <= len(d); i += 32 {
		blk := (*[32]float64)(d[i : i+32])
		// One test per block: every factor's biased exponent in
		// [llExpLo, llExpLo+128), i.e. the factor in [2^-64, 2^64) (sign bit
		// clear; not 0, subnormal, Inf or NaN).
		var bad uint64
		for _, x := range blk {
			bad |= (math.Float64bits(x)>>52 - llExpLo) &^ 127
		}
		if bad == 0 {
			for j := 0; j < 32; j += 4 {
				p[0] *= blk[j]
				p[1] *= blk[j+1]
				p[2] *= blk[j+2]
				p[3] *= blk[j+3]
			}
		} else {
			for j, x := range blk {
				x, extra = llFactor(x, extra)
				p[j&3] *= x
			}
		}
		for c := range p {
			p[c], exp = llRescale(p[c], exp)
		}
	}
	for ; i < len(d); i++ {
		x := d[i]
		x, extra = llFactor(x, extra)
		p[0] *= x
		p[0], exp = llRescale(p[0], exp)
	}
	s := math.Log(p[0]*p[1]) + math.Log(p[2]*p[3]) + float64(exp)*math.Ln2 + extra
	for _, k := range multi {
		k -= base
		x := d[k]
		if x >= llFactorMin && x < llFactorMax {
			s += (n[k] - 1) * fastLog(x)
		} else {
			s += (n[k] - 1) * math.Log(x)
		}
	}
	return s
}

// llSumGroup returns Σ_i n[i]·ln(d[i]) by llSum, or by a logarithm per
// entry (logLikSum) where most counts are not 1 (BenchmarkLLSum: the
// product saves a quarter with 1 in 4 counts above 1, and costs half as
// much again with 3 in 4).
func llSumGroup(n, d []float64, multi []int32, base int32) float64 {
	if 2*len(multi) > len(n) {
		s0, s1 := logLikSum(n, d)
		return s0 + s1
	}
	return llSum(n, d, multi, base)
}

// llFactor returns the factor x enters the product as, 1 if x is outside
// the product's range (its logarithm then goes into extra).
func llFactor(x, extra float64) (float64, float64) {
	if x >= llFactorMin && x < llFactorMax {
		return x, extra
	}
	return 1, extra + math.Log(x)
}

// llRescale returns p with its binary exponent set to 0 (p in [1, 2)) and
// exp plus the exponent removed. p must be positive and normal.
func llRescale(p float64, exp int) (float64, int) {
	b := math.Float64bits(p)
	return math.Float64frombits(b&^(0x7ff<<52) | 1023<<52), exp + int(b>>52&0x7ff) - 1023
}

// multiCounts returns the indices of the vectors whose count is not 1.
func multiCounts(count []float64) []int32 {
	var m []int32
	for k, n := range count {
		if n != 1 {
			m = append(m, int32(k))
		}
	}
	return m
}
