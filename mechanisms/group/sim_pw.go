package group

import (
	"math"
	"math/rand/v2"
)

// pwFast holds the constants of Group Piecewise's one-uniform sampler.
type pwFast struct {
	a, invA      float64 // keep probability a and 1/a
	moveScale    float64 // (d-1)/(1-a): maps u in [a, 1) onto [0, d-1)
	pin, invPin  float64 // e^{ε2/2}/(e^{ε2/2}+1), the window's probability, and 1/pin
	c            float64 // C = (e^{ε2/2}+1)/(e^{ε2/2}-1)
	lSlope, lOff float64 // l(x) = (C+1)/2·x - (C-1)/2
	cm1          float64 // C - 1, the window's length
	outScale     float64 // (C+1)/(1-pin): maps the outer uniform onto [0, C+1)
}

// newPWFast returns the sampler's constants for GRR (a, with 1-a given
// accurately) over d groups and PM at ε2 (p2 spec §2.4).
func newPWFast(a, notA float64, d int, eps2 float64) pwFast {
	s := math.Exp(eps2 / 2)
	c := 1 / math.Tanh(eps2/4) // (s+1)/(s-1)
	pin := 1 / (1 + 1/s)
	return pwFast{
		a: a, invA: 1 / a,
		moveScale: float64(d-1) / notA,
		pin:       pin, invPin: 1 / pin,
		c:      c,
		lSlope: (c + 1) / 2, lOff: (c - 1) / 2,
		cm1:      c - 1,
		outScale: (c + 1) / (1 / (1 + s)),
	}
}

// simulatePW is Simulate for Group Piecewise, per user from one uniform u:
//
//   - u < a: the user keeps the group, and w = u/a, uniform on [0, 1)
//     given that, makes the PM report of v;
//   - u ≥ a: the user moves; s = (u-a)(d-1)/(1-a) is uniform on [0, d-1),
//     its integer part j picks the new group g+1+j mod d (uniform on the
//     others) and its fractional part w, uniform on [0, 1) and independent
//     of j, makes the PM report of the neutral 0.
//
// PM's report from w (spec §2.4): w < pin puts it uniformly in the window
// [l, r], at l + (C-1)·w/pin; otherwise o = (w-pin)(C+1)/(1-pin) is uniform
// on [0, C+1), the total length of [-C, l) ∪ (r, C], and the report is
// -C + o on the left part (o < l + C) and r + (o - (l + C)) = o - 1 on the
// right one. So the sides are chosen by their lengths, and a side of
// length 0 (at v = ±1) is never chosen.
//
// Precision: each rescaling spreads the 2^-53 grid of rng.Float64, so the
// uniform that places a report keeps 53 - log2(1/(a·pin)) bits (kept) or
// 53 - log2((d-1)/((1-a)(1-pin))) bits (movers): at least 38.6 bits over
// the paper's grid (d ≤ 64, ε ≤ 10, ε1/ε from 0.1 to 0.9; the worst is a
// mover at d = 64, ε = 10, ε1/ε = 0.9), a resolution of 2.4e-12, far
// below what any test or estimate can see. A rescaled uniform that rounds
// up to 1 gives a report at ±C (within rounding), still in the output
// range.
func (m *Mechanism) simulatePW(t *Tally, groups []int32, values []float64, rng *rand.Rand) {
	d := m.cfg.D
	counts := t.scratchInts(d)
	moved := 0
	var us [block]float64
	for start := 0; start < len(groups); start += block {
		end := min(start+block, len(groups))
		u := us[:end-start]
		for i := range u {
			u[i] = rng.Float64()
		}
		moved += m.pwFast.block(counts, t.Sum[:d], groups[start:end], values[start:end], u)
	}
	for h, n := range counts {
		t.Count[h] = float64(n)
	}
	t.Moved = float64(moved)
}

// block tallies the users of one block from their uniforms us (see
// simulatePW) into counts and sums, and returns the number who moved.
//
// It first splits the block into kept users and movers (branch-free: each
// index is written to both lists and only the right list's length grows),
// then runs one loop over each, without calls and with the selections of
// the report's part of PM's law made without a branch: whether a user
// keeps the group and where its report falls are coin flips that a branch
// predictor cannot learn. The split makes each loop simpler than one loop
// over both kinds of user (about 20 % faster).
func (f *pwFast) block(counts []int, sums []float64, groups []int32, values, us []float64) (moved int) {
	d := len(counts)
	sums = sums[:d]
	values, us = values[:len(groups)], us[:len(groups)]
	var keptIdx, moverIdx [block]uint8
	nk, nm := 0, 0
	a := f.a
	for i := range groups {
		k := b2i(us[i] < a)
		keptIdx[nk&(block-1)] = uint8(i)
		moverIdx[nm&(block-1)] = uint8(i)
		nk += k
		nm += 1 - k
	}
	invA, pin, invPin, c := f.invA, f.pin, f.invPin, f.c
	lSlope, lOff, cm1, outScale := f.lSlope, f.lOff, f.cm1, f.outScale
	for _, i := range keptIdx[:nk] {
		g := groups[i]
		w := us[i] * invA
		l := lSlope*values[i] - lOff
		o := (w - pin) * outScale
		y := choose(w < pin, l+cm1*(w*invPin), o-choose(o < l+c, c, 1))
		counts[g]++
		sums[g] += y
	}
	ms := f.moveScale
	l0 := -lOff
	for _, i := range moverIdx[:nm] {
		g := int(groups[i])
		s := (us[i] - a) * ms
		j := min(int(s), d-2)
		w := s - float64(j)
		h := g + 1 + j
		h -= d * b2i(h >= d)
		o := (w - pin) * outScale
		y := choose(w < pin, l0+cm1*(w*invPin), o-choose(o < l0+c, c, 1))
		counts[h]++
		sums[h] += y
	}
	return nm
}
