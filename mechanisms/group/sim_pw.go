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
// 53 - log2((d-1)/((1-a)(1-pin))) bits (movers): at least 40 bits for
// d ≤ 64 at every ε the paper uses, far below what any test or estimate
// can see. A rescaled uniform that rounds up to 1 gives a report at ±C
// (within rounding), still in the output range.
//
// The loop computes both branches and selects, without a branch: whether a
// user keeps the group and which part of PM's law the report falls in are
// coin flips a branch predictor cannot learn.
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
// simulatePW) into counts and sums, and returns the number who moved. It
// makes no call, so that the constants stay in registers.
func (f *pwFast) block(counts []int, sums []float64, groups []int32, values, us []float64) (moved int) {
	d := len(counts)
	values, us = values[:len(groups)], us[:len(groups)]
	a, invA, moveScale := f.a, f.invA, f.moveScale
	pin, invPin, c := f.pin, f.invPin, f.c
	lSlope, lOff, cm1, outScale := f.lSlope, f.lOff, f.cm1, f.outScale
	for i, g32 := range groups {
		g := int(g32)
		u := us[i]
		kept := u < a
		k := b2i(kept)
		s := (u - a) * moveScale
		// For a mover, j = ⌊s⌋ (clamped: s may round up to d-1) and the new
		// group g+1+j mod d; for a kept user s < 0 and h is g. Arithmetic,
		// not branches: both conditions are coin flips.
		j := int(s)
		j -= (j - (d - 2)) * b2i(j > d-2)
		h := g + 1 + j
		h -= d * b2i(h >= d)
		h += (g - h) * k
		x := choose(kept, values[i], 0)
		w := choose(kept, u*invA, s-float64(j))
		l := lSlope*x - lOff
		inner := l + cm1*(w*invPin)
		o := (w - pin) * outScale
		outer := o - choose(o < l+c, c, 1)
		counts[h]++
		sums[h] += choose(w < pin, inner, outer)
		moved += 1 - k
	}
	return moved
}
