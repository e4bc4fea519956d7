package emkernel

import (
	"math"
	"math/bits"
	"unsafe"
)

// The grid form of the pair kernel (ule_pair.go), for data in which most
// (combination, outer row, inner row) cells hold a vector: at ε = 0.1 and
// n = 10M about 99 % of the 2 × 1025 × 1025 cells of [SR, PM, SW] do.
//
// The pair kernel's branches compare the inner row's plateau [a3, b3) with
// the outer row's [a2, b2), and the rows' plateaus move with the row index,
// so for one outer row the branches go the same way on a few runs of inner
// rows. Those runs are found once (newPairGrid); on a run the pair kernel's D
// is a fixed linear combination of seven per-inner-row quantities,
//
//	D = C1·β3 + C2·δ3 + β2·g3 + P2L·ql3 + P2R·qr3 + cB·δ3Θ(b3) − cA·δ3Θ(a3),
//
// with the coefficients the run's (below), and every accumulation of the
// pair kernel is w = n/D times a coefficient of the run, added to a
// per-inner-row array or to two sums over the run, Σ w·β3 and Σ w·δ3. The
// kernel therefore walks every cell of the group's span of inner rows in
// order, whether a vector is there or not (its count is then 0), reading
// and writing arrays in sequence: no gathers, no scatters and no branches
// per cell. The empty cells cost a division each, so the pair kernel's
// sparse form stays the better one when most cells are empty
// (pairGridOccupancy).
//
// The ramps' sums ql3, qr3 and the plateau terms are the pair kernel's,
// and so is the slow path: a run of cells whose row pair the slow table
// lists is skipped, and the group's vectors there go to pairSlowVector.

// The flags of a run: which way each branch of the pair kernel goes.
const (
	gridL3   uint8 = 1 << iota // a3 < a2 ≤ b3: P3(a2−1) = β3 + δ3
	gridR3                     // a3 ≤ b2 < b3: P3(b2) = β3 + δ3
	gridL2                     // a2 < a3 ≤ b2: P2(a3−1) = β2 + δ2
	gridR2                     // a2 ≤ b3 < b2: P2(b3) = β2 + δ2
	gridI                      // the plateaus intersect: max(a2, a3) < min(b2, b3)
	gridA                      // ... and the intersection starts at a3 > a2
	gridB                      // ... and ends at b3 < b2
	gridSlow                   // the row pair takes the slow path
)

// pairGridOccupancy is the share of occupied cells above which the grid
// form is chosen. BenchmarkPairGridVsSparse: sparse ÷ grid per iteration
// is 1.47 at 21 % (n = 0.5M, ε = 0.1) and 2.23 at 38 % (n = 1M), about 6.4
// times the occupancy, so the two break even near 16 %.
const pairGridOccupancy = 0.18

// The per-inner-row arrays of the grid form, gStride entries apart in one
// slice, so that the kernel addresses all of them from one pointer. The
// stride is not a power of two: at pairCap·8 bytes apart the kernel's
// dozen streams would fall into the same L1 sets and alias at 4 KiB.
const gStride = pairCap + 16

const (
	// pairComb.grid, per iteration (β3 and δ3 are fixed).
	gBeta, gDelta, gG, gQL, gQR, gDA, gDB, gIn = 0, 1, 2, 3, 4, 5, 6, 7
	// pairAcc.grid, the accumulations: Σ w·β2, and Σ w·δ2 where P2L is
	// β2 + δ2 (gWL), where the intersection starts at a3 (gUA), where both
	// hold (gLB), and the same on the right; gJunk takes what no array
	// needs.
	gWB, gWL, gUA, gLB, gWR, gUB, gRB, gJunk, gAcc = 0, 1, 2, 3, 4, 5, 6, 7, 8
)

// gridRun is a run [lo, hi) of inner rows of one group on which the
// branches of the pair kernel all go the same way.
type gridRun struct {
	lo, hi int32
	flags  uint8
}

// pairGrid is the grid form's layout, built once.
type pairGrid struct {
	// per group: its combination and outer row (read from the vectors'
	// arrays, the first vector of each group is a cache miss: 5 % of an
	// iteration at n = 1M)
	comb, row2 []int32
	runStart   []int32 // per group g: its runs are runs[runStart[g]:runStart[g+1]]
	runs       []gridRun
	span       []int32   // per group: the first inner row of its span and the offset of its counts in cnt, 2 per group
	cnt        []float32 // per group, the counts over its span; 0 where no vector or slow (exact: gridCountsExact)
	nbits      []uint8   // per group, the bits of its largest count in cnt
	// per group g: its vectors on the slow path are slowStart[g]:slowStart[g+1]
	// of slowN (their counts) and slowR3 (their inner rows), kept apart from
	// the vectors' arrays so that the pass reads them in sequence
	slowStart []int32
	slowN     []float64
	slowR3    []uint16
	// per vector i on the slow path: its ramp terms (pairSlowTerms) are
	// slowT, slowV [slowTerm[i]:slowTerm[i+1]]
	slowTerm []int32
	slowT    []uint16
	slowV    []float64
}

// gridFlags returns the flags of the cell (r2, r3).
func gridFlags(row2, row3 pairRow, slow bool) uint8 {
	a2, b2, a3, b3 := row2.a, row2.b, row3.a, row3.b
	var f uint8
	if a3 < a2 && a2 <= b3 {
		f |= gridL3
	}
	if a3 <= b2 && b2 < b3 {
		f |= gridR3
	}
	if a2 < a3 && a3 <= b2 {
		f |= gridL2
	}
	if a2 <= b3 && b3 < b2 {
		f |= gridR2
	}
	if max(a2, a3) < min(b2, b3) {
		f |= gridI
		if a3 > a2 {
			f |= gridA
		}
		if b3 < b2 {
			f |= gridB
		}
	}
	if slow {
		f |= gridSlow
	}
	return f
}

// gridCountsExact reports whether every count is a whole number below 2^24,
// so exact as a float32 (the grid's counts are float32 to halve the memory
// its passes stream) and a sum of powers of two for its log-likelihood
// (gridPow). A count is a number of users, so in practice always.
func gridCountsExact(count []float64) bool {
	for _, n := range count {
		if !(n >= 0 && n < 1<<24) || n != math.Trunc(n) {
			return false
		}
	}
	return true
}

// gridCells returns the number of cells the grid form would walk: the sum
// over groups of the span of their inner rows.
func (e *uleFast) gridCells() int {
	groups := e.d.groups
	cells := 0
	for gi := range len(groups) - 1 {
		cells += int(e.inner[groups[gi+1]-1]) + 1 - int(e.inner[groups[gi]])
	}
	return cells
}

// newPairGrid lays out the groups of d (vectors sorted by combination,
// outer row, inner row) as runs and count rows.
func (e *uleFast) newPairGrid() *pairGrid {
	d := e.d
	ng := len(d.groups) - 1
	g := &pairGrid{runStart: make([]int32, 1, ng+1), span: make([]int32, 0, 2*ng), slowStart: make([]int32, 1, ng+1),
		comb: make([]int32, ng), row2: make([]int32, ng), slowTerm: []int32{0}}
	for gi := range ng {
		k0, k1 := int(d.groups[gi]), int(d.groups[gi+1])
		r2 := int(d.seg[2*k0])
		g.comb[gi], g.row2[gi] = d.combo[k0], int32(r2)
		lo3, hi3 := int(e.inner[k0]), int(e.inner[k1-1])+1
		off := len(g.cnt)
		g.span = append(g.span, int32(lo3), int32(off))
		g.cnt = append(g.cnt, make([]float32, hi3-lo3)...)
		slowRow := e.slow[r2*e.slowWords : (r2+1)*e.slowWords]
		isSlow := func(r3 int) bool { return slowRow[r3>>6]>>(r3&63)&1 != 0 }
		var most uint
		for k := k0; k < k1; k++ {
			if r3 := int(e.inner[k]); !isSlow(r3) {
				g.cnt[off+r3-lo3] = float32(d.count[k])
				most = max(most, uint(d.count[k]))
			} else {
				g.slowN = append(g.slowN, d.count[k])
				g.slowR3 = append(g.slowR3, e.inner[k])
				g.slowT, g.slowV = e.pairSlowTerms(r2, r3, g.slowT, g.slowV)
				g.slowTerm = append(g.slowTerm, int32(len(g.slowT)))
			}
		}
		g.slowStart = append(g.slowStart, int32(len(g.slowN)))
		g.nbits = append(g.nbits, uint8(bits.Len(most)))
		row2 := e.rows2.rows[r2]
		for r3 := lo3; r3 < hi3; r3++ {
			f := gridFlags(row2, e.rows3.rows[r3], isSlow(r3))
			if n := len(g.runs); int(g.runStart[gi]) < n && g.runs[n-1].flags == f {
				g.runs[n-1].hi++
				continue
			}
			g.runs = append(g.runs, gridRun{lo: int32(r3), hi: int32(r3 + 1), flags: f})
		}
		g.runStart = append(g.runStart, int32(len(g.runs)))
	}
	return g
}

// gridPrepare fills the per-iteration arrays of the grid form (after
// pairPrepare).
func (e *uleFast) gridPrepare() {
	for _, pc := range e.pair {
		if pc == nil {
			continue
		}
		at := func(k int) []float64 { return pc.grid[k*gStride : k*gStride+len(e.rows3.rows)] }
		beta, delta, g, ql, qr, da, db := at(gBeta), at(gDelta), at(gG), at(gQL), at(gQR), at(gDA), at(gDB)
		for r, w := range e.rows3.rows {
			in := &pc.in3[r]
			beta[r], delta[r], g[r], ql[r], qr[r] = w.base, w.delta, in.g, in.ql, in.qr
			da[r] = w.delta * pc.prefix[w.a]
			db[r] = w.delta * pc.prefix[w.b]
		}
	}
}

// gridGroup runs the grid form over group gi (combination c, outer row
// r2): its log-likelihood goes into lanes (the runs', gridKernel) and into
// the sum returned (the rest).
func (e *uleFast) gridGroup(s *uleFastSlot, gi int, lanes *gridLanes) float64 {
	g := e.grid
	c, r2 := g.comb[gi], int(g.row2[gi])
	pc, acc := e.pair[c], s.pair[c]
	acc.used = true
	row2 := e.rows2.rows[r2]
	a2, b2 := int(row2.a), int(row2.b)
	beta2, delta2 := row2.base, row2.delta
	top2 := beta2 + delta2
	th := pc.prefix
	x2 := beta2*th[len(th)-1] + delta2*(th[b2]-th[a2])
	ql2, qr2 := pc.q2[r2][0], pc.q2[r2][1]
	c1 := x2 + ql2 + qr2
	lo3, off := int(g.span[2*gi]), int(g.span[2*gi+1])
	var sw2, sw2l, sw2r, atA2, atB2, ll float64
	for _, run := range g.runs[g.runStart[gi]:g.runStart[gi+1]] {
		f := run.flags
		if f&gridSlow != 0 {
			continue
		}
		var k gridCoef
		k.c1, k.beta2, k.delta2 = c1, beta2, delta2
		k.p2l, k.p2r = beta2, beta2
		k.lOff, k.rOff = gJunk*gStride, gJunk*gStride
		if f&gridL3 != 0 {
			k.c2 += ql2
		}
		if f&gridR3 != 0 {
			k.c2 += qr2
		}
		if f&gridI != 0 {
			hi, lo := th[b2], th[a2]
			if f&gridB != 0 {
				hi, k.cB = 0, delta2
			}
			if f&gridA != 0 {
				lo, k.cA = 0, delta2
			}
			k.c2 += delta2 * (hi - lo)
		}
		switch f & (gridL2 | gridA) {
		case gridL2 | gridA:
			k.lOff = gLB * gStride
		case gridL2:
			k.lOff = gWL * gStride
		case gridA:
			k.lOff = gUA * gStride
		}
		switch f & (gridR2 | gridB) {
		case gridR2 | gridB:
			k.rOff = gRB * gStride
		case gridR2:
			k.rOff = gWR * gStride
		case gridB:
			k.rOff = gUB * gStride
		}
		if f&gridL2 != 0 {
			k.p2l = top2
		}
		if f&gridR2 != 0 {
			k.p2r = top2
		}
		lo, hi := int(run.lo), int(run.hi)
		sb, sd, rll := gridKernel(&k, pc.grid, acc.grid, g.cnt[off+lo-lo3:off+hi-lo3], lo, int(g.nbits[gi]), lanes)
		ll += rll
		sw2 += sb
		sw2l += sb
		sw2r += sb
		if f&gridL3 != 0 {
			sw2l += sd
		}
		if f&gridR3 != 0 {
			sw2r += sd
		}
		if f&gridI != 0 {
			if f&gridA == 0 {
				atA2 += delta2 * sd
			}
			if f&gridB == 0 {
				atB2 += delta2 * sd
			}
		}
	}
	acc.diff[a2] += atA2
	acc.diff[b2] -= atB2
	acc2 := &acc.w2[r2]
	acc2[0] += sw2
	acc2[1] += sw2l
	acc2[2] += sw2r

	// The log-likelihood of the slow path's vectors (the runs' is in
	// lanes, and in ll where it fell back).
	i0, i1 := g.slowStart[gi], g.slowStart[gi+1]
	for i := i0; i < i1; i++ {
		t0, t1 := g.slowTerm[i], g.slowTerm[i+1]
		n := g.slowN[i]
		D := e.pairSlowVector(pc, acc, r2, int(g.slowR3[i]), n, g.slowT[t0:t1], g.slowV[t0:t1])
		ll += n * math.Log(D)
	}
	return ll
}

// sortSearch32 returns the first index i of the increasing x with x[i] ≥ v.
func sortSearch32(x []int32, v int32) int {
	lo, hi := 0, len(x)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if x[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// gridCoef holds a run's coefficients.
type gridCoef struct {
	c1, c2, beta2, p2l, p2r, cA, cB, delta2 float64       // the AVX-512 assembly reads them at offsets 0, 8, ..., 56
	lOff, rOff                              int           // the arrays of pairAcc.grid that take w·δ2
	vec                                     [8][4]float64 // c1 ... delta2, four times each: the AVX2 assembly's operands (fillVec)
}

// fillVec fills k.vec from the scalars.
func (k *gridCoef) fillVec() {
	for i, c := range [8]float64{k.c1, k.c2, k.beta2, k.p2l, k.p2r, k.cA, k.cB, k.delta2} {
		k.vec[i] = [4]float64{c, c, c, c}
	}
}

// The flags of gridBlocksAVX2: the terms of D and the accumulations a
// run has.
const (
	gridUseDB = 1 << iota // cB ≠ 0
	gridUseDA             // cA ≠ 0
	gridUseLt             // the left accumulation is not gJunk
	gridUseRt             // the right one is not
)

// flags returns the run's flags. Junk runs (97 % of the cells on the right
// at n = 1M, ε = 0.1, and half on the left) and a zero cB (97 %) or cA
// (half) skip their loads, multiply-adds and stores.
func (k *gridCoef) flags() int {
	f := 0
	if k.cB != 0 {
		f |= gridUseDB
	}
	if k.cA != 0 {
		f |= gridUseDA
	}
	if k.lOff != gJunk*gStride {
		f |= gridUseLt
	}
	if k.rOff != gJunk*gStride {
		f |= gridUseRt
	}
	return f
}

// The assembly reads gridCoef.vec at this offset.
var _ = [1]struct{}{}[unsafe.Offsetof(gridCoef{}.vec)-80]
var _ = [1]struct{}{}[unsafe.Offsetof(gridCoef{}.delta2)-56]

// gridKernel runs one run of cells, inner rows lo, lo+1, ... with counts
// cnt (each below 2^nbits): it adds w·β2 to the gWB accumulation and w·δ2
// to the run's left and right ones, and returns Σ w·β3 and Σ w·δ3; the
// log-likelihood Σ n·ln D goes into lanes, or where it cannot into the
// sum returned. gridBlocks runs the cells: AVX-512 or AVX2 assembly where
// the CPU has it, else gridBlocksGo (the same operations in the same
// order, so the three agree bit for bit).
//
// The log-likelihood is the logarithm of a product, as in llSum: each of
// four lanes (cells i mod 4) multiplies in D^n, from the bits of n and
// D's repeated squares, and moves the product's binary exponent into an
// integer after every block of eight cells (two cells per lane; the
// cells past the run's end, up to the next multiple of 8, multiply in 1);
// the lanes go on from run to run over a slot, and one logarithm per lane
// at the end gives Σ n·ln D (gridLanes.logSum). (A logarithm per cell
// cost 60 % of the kernel's time, 1.65 of 2.72 ns per cell; moving the
// exponent once per two cells rather than once per cell saves 9 % more,
// and changes no bit of the products: scaling by a power of two is exact.)
// The product's relative rounding error, and so the absolute error of the
// sum, is below 2^-53 per multiplication: about (2·nbits+1)·2^-53 per
// cell, 5e-10 over 10⁶ cells at nbits = 2, far below the authors'
// |ΔLL| < 1e-3. If a product leaves [2^-959, 2^961) after a block, or the
// second cell's factor reaches 2^33 (else the product after the first
// cell was above 2^-992, in the normal range; beyond, it may have lost
// bits unseen), which a D^n near the ends of the floating-point range would
// do (not at the D ≥ 1e-40 of the pair kernel and its counts, but not
// excluded), the lanes are restored and the run's sum is taken again, a
// logarithm per cell (gridLLSlow). (A product that overflowed after the
// first cell stays infinite or NaN, and is caught at the block's end.)
func gridKernel(k *gridCoef, in, ac []float64, cnt []float32, lo, nbits int, lanes *gridLanes) (sb, sd, llSlow float64) {
	p, e := lanes.p, lanes.e
	gridBlocks(k, in[lo:], ac[gWB*gStride+lo:], ac[k.lOff+lo:], ac[k.rOff+lo:], cnt, nbits, lanes)
	sb = (lanes.sb[0] + lanes.sb[1]) + (lanes.sb[2] + lanes.sb[3])
	sd = (lanes.sd[0] + lanes.sd[1]) + (lanes.sd[2] + lanes.sd[3])
	if lanes.bad == [4]uint64{} {
		lanes.cells += (len(cnt) + 7) &^ 7
	} else {
		lanes.p, lanes.e = p, e
		llSlow = gridLLSlow(k, in, cnt, lo)
	}
	return sb, sd, llSlow
}

// gridLanes holds the lane sums of gridBlocks, four lanes each (cells
// i mod 4), at the offsets the assembly reads and writes them: sb, sd and
// bad are a run's, p and e go on over the runs of a slot.
type gridLanes struct {
	sb, sd [4]float64 // Σ w·β3, Σ w·δ3
	p      [4]float64 // the log-likelihood products, in [1, 2)
	e      [4]uint64  // the sums of the biased exponents taken from them, one per cell
	bad    [4]uint64  // nonzero if a product left [2^-959, 2^961) (gridExpLo, gridExpHi) or a block's second factor reached 2^33 (gridFHi)
	cells  int        // the cells whose exponents e holds, each run padded to a multiple of 8 (an exponent per lane per 8 cells)
}

// startRun clears the run's sums (the products go on).
func (g *gridLanes) startRun() {
	g.sb, g.sd, g.bad = [4]float64{}, [4]float64{}, [4]uint64{}
}

// newGridLanes returns lanes with empty products.
func newGridLanes() gridLanes { return gridLanes{p: [4]float64{1, 1, 1, 1}} }

// The biased exponents outside which a product is out of range, and
// above which the second factor of a block is (gridKernel).
const (
	gridExpLo = 64
	gridExpHi = 2047 - 64
	gridFHi   = 1023 + 32
)

// logSum returns the log-likelihood the lanes hold.
func (g *gridLanes) logSum() float64 {
	u := (math.Log(g.p[0]) + math.Log(g.p[1])) + (math.Log(g.p[2]) + math.Log(g.p[3]))
	e := int64(g.e[0]+g.e[1]+g.e[2]+g.e[3]) - 1023*int64(g.cells/2)
	return u + float64(e)*math.Ln2
}

// gridLLSlow returns Σ n·ln D over cells lo, lo+1, ..., a logarithm each.
func gridLLSlow(k *gridCoef, in []float64, cnt []float32, lo int) float64 {
	var ll float64
	for i, c := range cnt {
		if c != 0 {
			D, _, _ := gridD(k, in, lo+i)
			ll += float64(c) * math.Log(D)
		}
	}
	return ll
}

// gridD returns D, β3 and δ3 of the cell whose β3 is x[xi] (the other
// inputs gStride apart): one multiplication, then a fused multiply-add per
// term, in the assembly's order.
func gridD(k *gridCoef, x []float64, xi int) (D, b3, d3 float64) {
	b3, d3 = x[xi], x[xi+gDelta*gStride]
	D = float64(k.c1 * b3)
	D = math.FMA(k.c2, d3, D)
	D = math.FMA(k.beta2, x[xi+gG*gStride], D)
	D = math.FMA(k.p2l, x[xi+gQL*gStride], D)
	D = math.FMA(k.p2r, x[xi+gQR*gStride], D)
	D = math.FMA(k.cB, x[xi+gDB*gStride], D)
	D = math.FMA(-k.cA, x[xi+gDA*gStride], D)
	return D, b3, d3
}

// gridBlocksGo is gridBlocks in Go: cells i = 0, 1, ..., len(cnt)−1
// (each count below 2^nbits) of x (β3 of the first cell; the other inputs
// gStride apart) and wb, lt, rt (its accumulations), in blocks of eight
// as the assembly takes them (the last one padded with factors 1), with
// the sums kept in four lanes, i mod 4, going on from those in lanes.
func gridBlocksGo(k *gridCoef, x, wb, lt, rt []float64, cnt []float32, nbits int, lanes *gridLanes) {
	f := k.flags()
	useLt, useRt := f&gridUseLt != 0, f&gridUseRt != 0
	for i0 := 0; i0 < len(cnt); i0 += 8 {
		for i := i0; i < i0+8; i++ {
			F := 1.0
			j := i & 3
			if i < len(cnt) {
				c := cnt[i]
				n := float64(c)
				D, b3, d3 := gridD(k, x, i)
				w := n / D
				lanes.sb[j] = math.FMA(w, b3, lanes.sb[j])
				lanes.sd[j] = math.FMA(w, d3, lanes.sd[j])
				wb[i] = math.FMA(w, k.beta2, wb[i])
				wd := float64(w * k.delta2)
				if useLt {
					lt[i] += wd
				}
				if useRt {
					rt[i] += wd
				}
				F = gridPow(D, uint64(int32(c)), nbits)
			}
			if i-i0 < 4 {
				// The first cell of the lane's two: no renormalisation.
				lanes.p[j] = float64(lanes.p[j] * F)
				continue
			}
			p, e, bad := gridRenorm(lanes.p[j], F)
			lanes.p[j] = p
			lanes.e[j] += e
			if bad {
				lanes.bad[j] = 1<<64 - 1
			}
		}
	}
}

// gridPow returns D^n (n below 2^nbits), formed from the bits of n and
// D's repeated squares: the steps of the assembly, which multiplies by
// D^(2^b), or by 1 where bit b of n is clear (the same bits). F is formed
// apart from the lanes' products so that the products of successive cells
// depend on each other through one multiplication only.
func gridPow(D float64, n uint64, nbits int) float64 {
	F := 1.0
	for range nbits {
		if n&1 != 0 {
			F = float64(F * D)
		}
		D = float64(D * D)
		n >>= 1
	}
	return F
}

// gridRenorm returns p·F with its binary exponent taken out (p' in
// [1, 2)), the biased exponent, and whether the block is out of range:
// that exponent outside [gridExpLo, gridExpHi], or F ≥ 2^33 (the biased
// exponent of F above gridFHi; see gridKernel).
func gridRenorm(p, F float64) (float64, uint64, bool) {
	b := math.Float64bits(float64(p * F))
	e := b >> 52
	return math.Float64frombits(b&(1<<52-1) | 1023<<52), e, e < gridExpLo || e > gridExpHi || math.Float64bits(F)>>52 > gridFHi
}

// gridFold moves a slot's grid accumulations of one combination into the
// pair kernel's (w3 and the difference array) and clears them.
func (e *uleFast) gridFold(acc *pairAcc) {
	h3 := len(e.rows3.rows)
	at := func(k int) []float64 { return acc.grid[k*gStride : k*gStride+h3] }
	wb, wl, ua, lb, wr, ub, rb := at(gWB), at(gWL), at(gUA), at(gLB), at(gWR), at(gUB), at(gRB)
	for r, row := range e.rows3.rows {
		w := &acc.w3[r]
		w[0] += wb[r]
		w[1] += wb[r] + wl[r] + lb[r]
		w[2] += wb[r] + wr[r] + rb[r]
		if v := row.delta * (ua[r] + lb[r]); v != 0 {
			acc.diff[row.a] += v
		}
		if v := row.delta * (ub[r] + rb[r]); v != 0 {
			acc.diff[row.b] -= v
		}
		// Cleared as they are read (gJunk is never written).
		wb[r], wl[r], ua[r], lb[r], wr[r], ub[r], rb[r] = 0, 0, 0, 0, 0, 0, 0
	}
}

// gridSlot runs the grid form over the groups of slot si.
func (e *uleFast) gridSlot(si int) {
	d := e.d
	s := e.slots[si]
	// The accumulations the slot did not use last time are still clear.
	for _, acc := range s.pair {
		if acc != nil && acc.used {
			acc.reset()
		}
	}
	// The slot's bounds are group starts (newULEFast).
	g0 := sortSearch32(d.groups, int32(e.bounds[si]))
	g1 := sortSearch32(d.groups, int32(e.bounds[si+1]))
	var ll float64
	lanes := newGridLanes()
	for gi := g0; gi < g1; gi++ {
		ll += e.gridGroup(s, gi, &lanes)
	}
	for _, acc := range s.pair {
		if acc != nil && acc.used {
			e.gridFold(acc)
		}
	}
	s.ll = ll + lanes.logSum()
}
