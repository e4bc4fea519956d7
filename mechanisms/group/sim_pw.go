package group

import (
	"math"
	"math/rand/v2"
)

// pwFast holds the constants of Group Piecewise's one-uniform sampler.
type pwFast struct {
	a, invA      float64 // keep probability a and 1/a
	invNotA      float64 // 1/(1-a): maps a mover's u in [a, 1) onto [0, 1)
	pin, invPin  float64 // e^{ε2/2}/(e^{ε2/2}+1), the window's probability, and 1/pin
	c            float64 // C = (e^{ε2/2}+1)/(e^{ε2/2}-1)
	lSlope, lOff float64 // l(x) = (C+1)/2·x - (C-1)/2
	cm1          float64 // C - 1, the window's length
	outScale     float64 // (C+1)/(1-pin): maps the outer uniform onto [0, C+1)
}

// newPWFast returns the sampler's constants for GRR (a, with 1-a given
// accurately) over d groups and PM at ε2 (Raab et al. Definition 3).
func newPWFast(a, notA float64, eps2 float64) pwFast {
	s := math.Exp(eps2 / 2)
	c := 1 / math.Tanh(eps2/4) // (s+1)/(s-1)
	pin := 1 / (1 + 1/s)
	return pwFast{
		a: a, invA: 1 / a,
		invNotA: 1 / notA,
		pin:     pin, invPin: 1 / pin,
		c:      c,
		lSlope: (c + 1) / 2, lOff: (c - 1) / 2,
		cm1:      c - 1,
		outScale: (c + 1) / (1 / (1 + s)),
	}
}

// simulatePW is Simulate for Group Piecewise. Per user, one uniform u
// decides everything the user itself decides:
//
//   - u < a: the user keeps its group g, and w = u/a, uniform on [0, 1)
//     given that, makes the PM report of its value v, added to group g;
//   - u ≥ a: the user moves, and w = (u-a)/(1-a), uniform on [0, 1) given
//     that, makes the PM report of the neutral 0, kept in a list.
//
// Where the movers land is then drawn exactly without them: each mover's
// new group is uniform on the d-1 others, independently of its report, so
// the arrivals at each group are multinomial counts (scatterMovers, d(d-2)
// binomials a run), and the reports of the movers are i.i.d. PM(0) draws
// independent of those counts. Any fixed assignment of the list to the
// groups by the counts therefore has the law of the per-user one: group
// h's arrivals take the next arrive[h] reports of the list. This spares a
// mover the share of its uniform that chose its group (and a scattered
// read-modify-write per user), and makes the run about a third cheaper.
//
// PM's report from w (Definition 3): w < pin puts it uniformly in the
// window [l, r], at l + (C-1)·w/pin; otherwise o = (w-pin)(C+1)/(1-pin) is
// uniform on [0, C+1), the total length of [-C, l) ∪ (r, C], and the report
// is -C + o on the left part (o < l + C) and r + (o - (l + C)) = o - 1 on
// the right one. So the sides are chosen by their lengths, and a side of
// length 0 (at v = ±1) is never chosen.
//
// Precision: each rescaling spreads the 2^-53 grid of rng.Float64, so the
// uniform that places a report keeps 53 - log2(1/(a·pin)) bits (kept) or
// 53 - log2(1/((1-a)(1-pin))) bits (movers): at least 40.7 bits over the
// paper's grid (d ≤ 64, ε ≤ 10, ε1/ε from 0.1 to 0.9; the worst is a kept
// user at d = 64, ε = 10, ε1/ε = 0.1, where a = 2.1e-4), a resolution of
// 6e-13, far below what any test or estimate can see. A rescaled uniform
// that rounds up to 1 gives a report at ±C (within rounding), still in the
// output range.
func (m *Mechanism) simulatePW(t *Tally, groups []int32, values []float64, rng *rand.Rand) {
	d := m.cfg.D
	ints := t.scratchInts(4 * d)
	size, kept, movers, arrive := ints[:d], ints[d:2*d], ints[2*d:3*d], ints[3*d:]
	// One slot more than the users: block writes every user's report to
	// the list and only a mover's advances it.
	list := t.scratchList(len(groups) + 1)
	nList := 0
	var us [block]float64
	for start := 0; start < len(groups); start += block {
		end := min(start+block, len(groups))
		u := us[:end-start]
		for i := range u {
			u[i] = rng.Float64()
		}
		nList = m.pwFast.block(size, kept, t.Sum[:d], list, nList, groups[start:end], values[start:end], u)
	}
	for g := range d {
		movers[g] = size[g] - kept[g]
	}
	t.Moved = float64(nList)
	scatterMovers(rng, movers, arrive)
	next := 0
	for h := range d {
		s := 0.0
		for _, y := range list[next : next+arrive[h]] {
			s += y
		}
		next += arrive[h]
		t.Sum[h] += s
		t.Count[h] = float64(kept[h] + arrive[h])
	}
}

// block tallies the users of one block from their uniforms us (see
// simulatePW): it counts every user in size[g] and a kept one in kept[g]
// with its report in sums[g], and appends a mover's report to
// list[n:], returning the new length.
//
// The loop has no branch: whether a user keeps the group and where its
// report falls are coin flips that a branch predictor cannot learn. A kept
// user and a mover make the same PM report, of v or of 0, from their
// rescaled uniforms. The block is first split into kept users and movers
// (branch-free: each index is written to both lists and only the right
// list's length grows), so that each loop is simpler than one loop over
// both kinds of user (6 % faster in BenchmarkSimulate).
func (f *pwFast) block(size, kept []int, sums, list []float64, n int, groups []int32, values, us []float64) int {
	d := len(size)
	kept, sums = kept[:d], sums[:d]
	values, us = values[:len(groups)], us[:len(groups)]
	var keptIdx, moverIdx [block]uint8
	nk, nm := 0, 0
	a := f.a
	for i, g := range groups {
		k := b2i(us[i] < a)
		size[g]++
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
		kept[g]++
		sums[g] += y
	}
	invNotA := f.invNotA
	l0 := -lOff
	list = list[n : n+nm]
	for j, i := range moverIdx[:nm] {
		w := (us[i] - a) * invNotA
		o := (w - pin) * outScale
		list[j] = choose(w < pin, l0+cm1*(w*invPin), o-choose(o < l0+c, c, 1))
	}
	return n + nm
}
