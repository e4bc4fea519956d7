package emkernel

import (
	"math"
	"sort"
)

// The fast route of EM (see ule.go), exact to rounding.
//
// Write the scaled row of vector k as R_k[t] = L_c(t) · Π_{j<S} F_j(t), with
// L_c the product of its combo services' rows (SR), and F_j the row of its
// bucket in segment service j (PM, SW) divided by the row's maximum. Each
// F_j is a list of pieces of bins (the service's profile, profile.go):
// constant, or explicit (a ramp of a few bins). Merging the S lists cuts
// [0, l) into runs on which every F_j is constant, where R_k = C·L_c(t),
// and explicit bins, where R_k[t] is formed directly. Then
//
//	D_k = Σ_t θ_t R_k[t] = Σ_runs C·(Λ_c(b) − Λ_c(a)) + Σ_explicit θ_t R_k[t],
//
// with Λ_c(t) = Σ_{s<t} θ_s L_c(s) the prefix sums of θ·L_c, built once per
// iteration and combination; and the M-step accumulation
//
//	A_t = Σ_k (n_k/D_k) R_k[t] = Σ_c L_c(t)·(Σ_{s≤t} Δ_c(s) + E_c(t)),
//
// where each run adds w_k·C at a and subtracts it at b of the difference
// array Δ_c of its combination, and each explicit bin adds w_k·R_k[t]/L_c(t)
// to E_c. That is the merged kernel: O(pieces) per vector, whatever l; the
// merge is done once and kept as a program (compile, compiled), or redone
// in every pass (merged) if the programs would be too large.
//
// The grouped kernel goes further when many vectors share the combination
// and every segment row but the last (one PM or SW service: a group per SR
// combination): the shared part g(t) = L_c(t) · Π_{j<S-1} F_j(t) is
// expanded over all l bins once, u = θ·g and its prefix sums U are formed,
// and each vector walks the pieces of its last row only: D_k = Σ_const
// v·(U(b) − U(a)) + Σ_explicit u_t·F(t), the accumulation y = Σ_k w_k F_k
// (difference array plus explicit bins) is expanded once, and A_t +=
// g(t)·y_t. O(l) per group plus a handful of operations per vector; with
// the last service in band form (groupedBand) those are a fixed few.
//
// Two segment services in band form take the pair kernel (ule_pair.go),
// which needs no per-group expansion at all.

// groupMin is the smallest run of vectors handled by the grouped kernel, in
// bins per vector: a group of size ≥ l/uleGroupMinDiv is grouped.
const uleGroupMinDiv = 16

type uleFast struct {
	d       *uleData
	l       int
	profs   []*trProfile // per segment position
	thetaL  [][]float64
	prefix  [][]float64
	slots   []*uleFastSlot
	bounds  []int
	workers int
	gmin    int
	tmp     [][]float64 // per combination, l+1: foldComb's difference array
	share   [][]float64 // per combination, l: its share of A (foldComb)
	prog    *uleProgram // compiled merges, or nil
	kernel  string      // a forced kernel (tests), or ""
	zones   *uleZones   // zone tables of the compiled programs, or nil
	tlpad   [][]float64 // per combination, θ·L_c padded by trBandMaxEh (zones)
	qwTot   []float64
	tab     [][]float64 // per combination: Λ_c (l+1), θ·L_c (l), the zone sums q and U (zones.width each); the compiled programs' table
	uwTot   []float64   // the U references' weights, per combination (zones.size)

	// The pair kernel (ule_pair.go), used when pairMode.
	pairMode     bool
	rows2, rows3 pairRows
	pair         []*pairComb // per combination, nil if unused
	pairTot      *pairAcc
	slow         []uint64 // pairSlowTable
	slowWords    int
	inner        []uint16  // the inner row of every vector
	multi        []int32   // the vectors whose count is not 1 (llSum)
	grid         *pairGrid // the pair kernel's grid form (ule_grid.go), or nil
}

// minPositive returns the smallest entry of the non-nil rows.
func minPositive(rows [][]float64) float64 {
	m := math.Inf(1)
	for _, r := range rows {
		for _, v := range r {
			m = min(m, v)
		}
	}
	return m
}

type uleFastSlot struct {
	a    []float64   // direct accumulation of A
	diff [][]float64 // per combination, l+1
	expl [][]float64 // per combination, l: explicit bins (times L_c at the end)
	ll   float64

	g, u, U, ydiff, yexpl []float64
	cs                    []uleRun
	ex                    []uleBin
	ip                    []int32

	cdbuf   []float64   // D of the slot's vectors (compiled kernel)
	cacc    [][]float64 // per combination c0…c1-1 (compiled kernel): −Δ_c (l+1), E_c (l), zone and U weights (zones.width each), laid out as tab
	c0, c1  int         // the slot's vectors' combinations are c0 … c1-1 (sorted by combination)
	pair    []*pairAcc  // per combination, pair mode only
	dbuf    []float64   // D of the vectors of a group
	slowIdx []int32     // the group's vectors on the slow path
	slowT   []uint16    // one slow-path vector's ramp terms (pairSlowTerms)
	slowV   []float64
}

type uleRun struct {
	a, b int32
	c    float64
}

type uleBin struct {
	t int32
	v float64
}

// newULEFast prepares the fast route. kernel forces a kernel (tests):
// "merged" (merged anew in every pass), "compiled" (merged zone programs,
// or zone programs, where they apply), "zoned" (compiled, zone programs
// but none merged), "explicit" (compiled, no zone programs), "grouped"
// (generic pieces), "band", "pair", "pairgrid", or "" (the pair kernel
// where it applies, else by group size, with the vectors handled alone
// compiled).
func newULEFast(d *uleData, workers int, kernel string) *uleFast {
	l := d.lay.l
	e := &uleFast{d: d, l: l, workers: workers, kernel: kernel, gmin: max(2, l/uleGroupMinDiv)}
	for _, j := range d.lay.seg {
		e.profs = append(e.profs, d.lay.svcs[j].prof)
	}
	e.thetaL = make([][]float64, len(d.comboL))
	e.prefix = make([][]float64, len(d.comboL))
	e.tab = make([][]float64, len(d.comboL))
	e.tmp = make([][]float64, len(d.comboL))
	e.share = make([][]float64, len(d.comboL))
	for c, L := range d.comboL {
		if L != nil {
			e.tmp[c], e.share[c] = make([]float64, l+1), make([]float64, l)
			// Λ_c and θ·L_c side by side, as the compiled programs read
			// them (room for the zone sums is added with the zones).
			e.tab[c] = make([]float64, 2*l+1)
			e.prefix[c] = e.tab[c][:l+1]
			e.thetaL[c] = e.tab[c][l+1 : 2*l+1]
		}
	}
	if d.S == 2 && pairUsable(e.profs[0].band, e.profs[1].band) && minPositive(d.comboL) > 1e-40 &&
		l+1 <= pairCap && len(e.profs[1].band.a) <= pairCap && (e.kernel == "" || e.kernel == "pair" || e.kernel == "pairgrid") {
		e.pairMode = true
		e.rows2 = newPairRows(e.profs[0].band)
		e.rows3 = newPairRows(e.profs[1].band)
		e.slow, e.slowWords = pairSlowTable(&e.rows2, &e.rows3, l)
		e.inner = make([]uint16, len(d.count))
		for k := range e.inner {
			e.inner[k] = d.seg[2*k+1]
		}
		h2, h3 := len(e.rows2.rows), len(e.rows3.rows)
		e.pair = make([]*pairComb, len(d.comboL))
		for c, L := range d.comboL {
			if L != nil {
				e.pair[c] = &pairComb{
					thetaL: make([]float64, l+2*trBandMaxEh), prefix: make([]float64, l+1, pairCap),
					q2: make([][2]float64, h2), q3: make([][2]float64, h3), in3: make([]pairInner, h3, pairCap),
				}
			}
		}
		e.pairTot = newPairAcc(l, h2, h3)
	}
	e.multi = multiCounts(d.count)
	K := len(d.count)
	ns := uleSlotsFor(K)
	e.bounds = make([]int, ns+1)
	for s := range ns + 1 {
		e.bounds[s] = K * s / ns
	}
	if e.pairMode && e.kernel != "pair" && gridCountsExact(d.count) {
		// The grid form where most cells are occupied; its slots hold
		// whole groups (each slot starts at the group holding the sparse
		// form's start).
		if e.kernel == "pairgrid" || float64(K) >= pairGridOccupancy*float64(e.gridCells()) {
			e.grid = e.newPairGrid()
			ns = min(ns, gridSlots)
			e.bounds = e.bounds[:ns+1]
			for s := range ns + 1 {
				e.bounds[s] = K * s / ns
			}
			for s := 1; s < ns; s++ {
				gi := sort.Search(len(d.groups), func(i int) bool { return int(d.groups[i]) > e.bounds[s] }) - 1
				e.bounds[s] = int(d.groups[gi])
			}
			for _, pc := range e.pair {
				if pc != nil {
					pc.grid = make([]float64, gIn*gStride)
				}
			}
		}
	}
	for range ns {
		s := &uleFastSlot{
			a:     make([]float64, l),
			diff:  make([][]float64, len(d.comboL)),
			expl:  make([][]float64, len(d.comboL)),
			g:     make([]float64, l),
			u:     make([]float64, l+2*trBandMaxEh),
			U:     make([]float64, l+1),
			ydiff: make([]float64, l+1),
			yexpl: make([]float64, l+2*trBandMaxEh),
			cs:    make([]uleRun, 0, l+1),
			ex:    make([]uleBin, 0, l+1),
			ip:    make([]int32, d.S),
		}
		for c, L := range d.comboL {
			if L == nil {
				continue
			}
			if e.pairMode {
				if s.pair == nil {
					s.pair = make([]*pairAcc, len(d.comboL))
					s.dbuf = make([]float64, len(e.rows3.rows))
					s.slowIdx = make([]int32, pairCap)
				}
				s.pair[c] = newPairAcc(l, len(e.rows2.rows), len(e.rows3.rows))
				if e.grid != nil {
					s.pair[c].grid = make([]float64, gAcc*gStride)
				}
			} else {
				s.diff[c] = make([]float64, l+1)
				s.expl[c] = make([]float64, l)
			}
		}
		if lo, hi := e.bounds[len(e.slots)], e.bounds[len(e.slots)+1]; lo < hi {
			s.c0, s.c1 = int(d.combo[lo]), int(d.combo[hi-1])+1
		}
		if !e.pairMode {
			s.cdbuf = make([]float64, e.bounds[len(e.slots)+1]-e.bounds[len(e.slots)])
		}
		e.slots = append(e.slots, s)
	}
	if !e.pairMode && e.kernel != "merged" {
		if e.kernel == "" || e.kernel == "compiled" || e.kernel == "zoned" {
			e.zones = newULEZones(e)
		}
		if e.zones != nil && 2*l+1+2*e.zones.width > uleProgIdxMax {
			e.zones = nil
		}
		if e.zones != nil {
			e.zones.merge = e.kernel != "zoned"
		}
		if 2*l+1 <= uleProgIdxMax {
			e.prog = e.compile()
		}
		if e.prog == nil || !e.prog.hasZones {
			e.zones = nil
		}
		if e.prog != nil {
			// The programs' tables are read and written through arrays of
			// uleProgIdxMax entries (compiled: no bounds check per entry,
			// the uint16 index being in range by construction), so their
			// capacity is that; the entries past the length are never
			// touched.
			for c, t := range e.tab {
				if t != nil {
					e.tab[c] = append(make([]float64, 0, uleProgIdxMax), t...)
					e.prefix[c] = e.tab[c][:l+1]
					e.thetaL[c] = e.tab[c][l+1 : 2*l+1]
				}
			}
		}
		width := 0
		if e.zones != nil {
			width = e.zones.width
			e.tlpad = make([][]float64, len(d.comboL))
			for c, L := range d.comboL {
				if L != nil {
					e.tlpad[c] = make([]float64, l+2*trBandMaxEh)
					e.tab[c] = append(e.tab[c], make([]float64, 2*width)...)
					e.prefix[c] = e.tab[c][:l+1]
					e.thetaL[c] = e.tab[c][l+1 : 2*l+1]
				}
			}
			e.qwTot = make([]float64, e.zones.size)
			e.uwTot = make([]float64, e.zones.size)
		}
		if e.prog != nil {
			// The slot's vectors are sorted by combination: it
			// accumulates into those of combinations c0…c1-1 only.
			for _, s := range e.slots {
				s.cacc = make([][]float64, len(d.comboL))
				for c := s.c0; c < s.c1; c++ {
					if d.comboL[c] != nil {
						s.cacc[c] = make([]float64, 2*l+1+2*width, uleProgIdxMax)
					}
				}
			}
		}
	}
	return e
}

// gridSlots bounds the grid form's slots: each folds and sums
// accumulations of every inner row per combination it holds (two
// slots' of 1,025 rows cost about a group's cells), so fewer slots than
// uleSlotsFor's 32 (still 8 per worker on 2 cores, for balance) save 7 %
// of an iteration at n = 1M.
const gridSlots = 16

// uleProgIdxMax bounds the compiled programs' table (tab) so that an
// index into it fits in a uint16.
const uleProgIdxMax = 1 << 16

func (e *uleFast) eval(theta, a []float64) float64 {
	if e.pairMode {
		e.pairPrepare(theta)
		if e.grid != nil {
			e.gridPrepare()
			emForSlots(len(e.slots), e.workers, e.gridSlot)
		} else {
			emForSlots(len(e.slots), e.workers, e.pairSlot)
		}
		return e.pairFinish(a)
	}
	// Per combination (on the workers: with zones, m ≥ 6, this is 3-5 ms
	// of a pass at n = 1M, m = 15, which one core would do alone): θ·L_c,
	// its prefix sums and the zone sums; then the slots; then, per
	// combination, the slots' accumulations folded into its share of A,
	// which is added to a in combination order, so the bits do not depend
	// on the workers.
	emForSlots(len(e.d.comboL), e.workers, func(c int) { e.prepareComb(c, theta) })
	emForSlots(len(e.slots), e.workers, func(s int) { e.runSlot(s, theta) })
	emForSlots(len(e.d.comboL), e.workers, e.foldComb)
	clear(a)
	var ll float64
	for _, s := range e.slots {
		for t, v := range s.a {
			a[t] += v
		}
		ll += s.ll
	}
	for c, L := range e.d.comboL {
		if L != nil {
			addTo(a, e.share[c])
		}
	}
	return ll
}

// prepareComb computes θ·L_c, its prefix sums Λ_c and, with zones, the
// zone sums q and U of combination c.
func (e *uleFast) prepareComb(c int, theta []float64) {
	L := e.d.comboL[c]
	if L == nil {
		return
	}
	l := e.l
	tl, p := e.thetaL[c], e.prefix[c]
	var acc float64
	p[0] = 0
	for t := range l {
		v := theta[t] * L[t]
		tl[t] = v
		acc += v
		p[t+1] = acc
	}
	if e.zones != nil {
		tp := e.tlpad[c]
		copy(tp[trBandMaxEh:trBandMaxEh+l], tl)
		w := e.zones.width
		q := e.tab[c][2*l+1 : 2*l+1+w]
		e.zones.prepare(c, tp, q)
		e.zones.prepareU(p, q, e.tab[c][2*l+1+w:2*l+1+2*w])
	}
}

// foldComb folds the slots' accumulations of combination c (in slot
// order) into its share of A, e.share[c][t] = L_c(t)·(Σ_{s≤t} Δ_c(s) +
// E_c(t)), the zone weights spread over E_c first.
func (e *uleFast) foldComb(c int) {
	L := e.d.comboL[c]
	if L == nil {
		return
	}
	l := e.l
	tmp, tmp2 := e.tmp[c], e.share[c]
	clear(tmp)
	clear(tmp2)
	var qw, uw []float64
	if e.zones != nil {
		// Every slot adds its weights of c, in slot order.
		w := e.zones.width
		qw, uw = e.qwTot[c*w:(c+1)*w], e.uwTot[c*w:(c+1)*w]
		clear(qw)
		clear(uw)
		for _, s := range e.slots {
			if s.c0 <= c && c < s.c1 {
				if ca := s.cacc[c]; ca != nil {
					addTo(qw, ca[2*l+1:2*l+1+w])
					addTo(uw, ca[2*l+1+w:2*l+1+2*w])
				}
			}
		}
	}
	for _, s := range e.slots {
		// Only the slots whose vectors have combination c (the
		// others' arrays for c are zero, and adding them changes no
		// bit).
		if s.c0 <= c && c < s.c1 {
			if ca := s.cacc; ca != nil {
				// The compiled kernel accumulates −Δ_c: subtracting
				// it gives the bits of adding Δ_c (rounding is
				// symmetric), so the result does not depend on it.
				subFrom(tmp, ca[c][:l+1])
				addTo(tmp2, ca[c][l+1:2*l+1])
			} else {
				addTo(tmp, s.diff[c])
				addTo(tmp2, s.expl[c])
			}
		}
	}
	if e.zones != nil {
		e.zones.foldU(uw, qw, tmp)
		e.zones.spread(c, e.qwTot, tmp2)
	}
	var acc float64
	for t := range l {
		acc += tmp[t]
		tmp2[t] = L[t] * (acc + tmp2[t])
	}
}

func (e *uleFast) runSlot(si int, theta []float64) {
	s := e.slots[si]
	d := e.d
	clear(s.a)
	for _, df := range s.diff[s.c0:s.c1] {
		clear(df)
	}
	for _, x := range s.expl[s.c0:s.c1] {
		clear(x)
	}
	for _, x := range s.cacc {
		clear(x)
	}
	ll := newEMLLAcc()
	lo, hi := e.bounds[si], e.bounds[si+1]
	// The group containing lo, and the first vector of multi at or after lo.
	gi := sort.Search(len(d.groups), func(i int) bool { return int(d.groups[i]) > lo }) - 1
	mi := sort.Search(len(e.multi), func(i int) bool { return int(e.multi[i]) >= lo })
	isGrouped := func(k, end int) bool {
		switch e.kernel {
		case "merged", "compiled", "explicit":
			return false
		case "grouped", "band":
			return d.S >= 1
		}
		return d.S >= 1 && end-k >= e.gmin
	}
	for k := lo; k < hi; {
		end := min(int(d.groups[gi+1]), hi)
		grouped := isGrouped(k, end)
		if !grouped && e.prog != nil {
			// Consecutive groups handled alone make one run of the
			// compiled kernel (one log-likelihood sum, not one per group).
			for end < hi && !isGrouped(end, min(int(d.groups[gi+2]), hi)) {
				gi++
				end = min(int(d.groups[gi+1]), hi)
			}
		}
		if grouped {
			if e.profs[d.S-1].band != nil && e.kernel != "grouped" {
				e.groupedBand(s, &ll, theta, k, end)
			} else {
				e.grouped(s, &ll, theta, k, end)
			}
		} else if e.prog != nil {
			e.compiled(s, &ll, k, end, &mi)
		} else {
			for ; k < end; k++ {
				e.merged(s, &ll, k)
			}
		}
		k = end
		gi++
	}
	s.ll = ll.value()
}

// mergeVector merges the piece lists of vector k's S segment rows into
// constant runs (appended to cs, value the product of the rows' constants)
// and explicit bins (appended to ex, value the product of the rows'
// values); the combination's factor L_c is not included.
func (e *uleFast) mergeVector(k int, ip []int32, cs []uleRun, ex []uleBin) ([]uleRun, []uleBin) {
	d := e.d
	l := int32(e.l)
	S := d.S
	if S == 0 {
		return append(cs, uleRun{0, l, 1}), ex
	}
	rows := d.seg[k*S : k*S+S]
	for j, p := range e.profs {
		ip[j] = p.rowOff[rows[j]]
	}
	for pos := int32(0); pos < l; {
		end := l
		allConst := true
		C := 1.0
		for j, p := range e.profs {
			pc := &p.pieces[ip[j]]
			end = min(end, pc.end)
			if pc.off >= 0 {
				allConst = false
			} else {
				C *= pc.val
			}
		}
		if allConst {
			cs = append(cs, uleRun{pos, end, C})
		} else {
			for t := pos; t < end; t++ {
				v := 1.0
				for j, p := range e.profs {
					pc := &p.pieces[ip[j]]
					if pc.off < 0 {
						v *= pc.val
					} else {
						v *= p.vals[pc.off+t-pc.start]
					}
				}
				ex = append(ex, uleBin{t, v})
			}
		}
		pos = end
		for j, p := range e.profs {
			if p.pieces[ip[j]].end == end {
				ip[j]++
			}
		}
	}
	return cs, ex
}

// merged handles vector k alone: it merges the piece lists of its S
// segment rows into constant runs and explicit bins.
func (e *uleFast) merged(s *uleFastSlot, ll *emLLAcc, k int) {
	d := e.d
	c := d.combo[k]
	prefix, thetaL := e.prefix[c], e.thetaL[c]
	cs, ex := e.mergeVector(k, s.ip, s.cs[:0], s.ex[:0])
	var D float64
	for _, q := range cs {
		D += q.c * (prefix[q.b] - prefix[q.a])
	}
	for _, x := range ex {
		D += thetaL[x.t] * x.v
	}
	n := d.count[k]
	ll.add(n, D)
	if !(D > 0) {
		return
	}
	w := n / D
	diff, expl := s.diff[c], s.expl[c]
	for _, q := range cs {
		wc := w * q.c
		diff[q.a] += wc
		diff[q.b] -= wc
	}
	for _, x := range ex {
		expl[x.t] += w * x.v
	}
	s.cs, s.ex = cs, ex
}

// uleProgram is the merge of every vector handled alone, compiled once:
// vector k's runs enter D as Σ coef·Λ_c(pos) over its breakpoints (a run
// [a, b) of value C gives -C at a and +C at b, one coefficient where runs
// meet), its explicit bins as Σ val·θ_t·L_c(t), its zone references
// (ule_zone.go) as Σ M·q, and a merged zone program's U references as
// Σ M·U. (Breakpoints at 0 add nothing to D, Λ_c(0) = 0, but start their
// runs in the accumulation.)
//
// All are entries (idx, coef) of one program, entries
// entOff[k]:entOff[k+1], breakpoints first, then explicit bins, then zone
// and U references (the order of the sum D): idx indexes the
// combination's table uleFast.tab[c], where Λ_c is at 0…l, θ·L_c at
// l+1…2l, the zone sums q and then U after them, and the same index of the
// slot's accumulator cacc[c] (−Δ_c, E_c, zone and U weights) takes
// w_k·coef. One loop for D and one for the accumulation per vector, and
// 10 bytes per entry, keep the kernel (which streams the programs, 10⁶
// vectors of 6–18 entries at m = 6–15) short.
type uleProgram struct {
	entOff   []uint32
	entIdx   []uint16
	entCoef  []float64
	hasZones bool // some vector has zone or U references
	zoned    int  // the vectors compiled to zone programs
	merged   int  // ... of which merged (U references)

	// Scratch of compile: one vector's breakpoints, explicit bins and
	// zone references (zIdx indexes the whole zone table).
	bpPos  []uint16
	bpCoef []float64
	exPos  []uint16
	exVal  []float64
	zIdx   []uint32
	zM     []float64
	uIdx   []uint32 // merged: U references (indexed as zIdx)
	uM     []float64
}

// uleProgramLimit bounds the compiled programs (bytes); beyond it the
// vectors are merged anew in every iteration.
const uleProgramLimit = 2 << 30

// compile builds the programs of the vectors handled alone (those in
// groups smaller than gmin), or returns nil if they would exceed
// uleProgramLimit. The caller checks that 2l+1 (and the zone table, with
// zones) fits uleProgIdxMax.
func (e *uleFast) compile() *uleProgram {
	d := e.d
	K := len(d.count)
	l := e.l
	pr := &uleProgram{entOff: make([]uint32, K+1)}
	ip := make([]int32, d.S)
	var cs []uleRun
	var ex []uleBin
	for gi := 0; gi+1 < len(d.groups); gi++ {
		k0, k1 := int(d.groups[gi]), int(d.groups[gi+1])
		alone := !(d.S >= 1 && k1-k0 >= e.gmin) || e.kernel == "compiled" || e.kernel == "explicit"
		for k := k0; k < k1; k++ {
			pr.bpPos, pr.bpCoef = pr.bpPos[:0], pr.bpCoef[:0]
			pr.exPos, pr.exVal = pr.exPos[:0], pr.exVal[:0]
			pr.zIdx, pr.zM = pr.zIdx[:0], pr.zM[:0]
			pr.uIdx, pr.uM = pr.uIdx[:0], pr.uM[:0]
			if alone && e.zones != nil && e.zones.vector(d, k, pr) {
				pr.zoned++ // a zone program
			} else if alone {
				cs, ex = e.mergeVector(k, ip, cs[:0], ex[:0])
				for i, q := range cs {
					if !(i > 0 && cs[i-1].b == q.a) {
						pr.bpPos = append(pr.bpPos, uint16(q.a))
						pr.bpCoef = append(pr.bpCoef, -q.c)
					}
					c := q.c
					if i+1 < len(cs) && cs[i+1].a == q.b {
						c -= cs[i+1].c
					}
					pr.bpPos = append(pr.bpPos, uint16(q.b))
					pr.bpCoef = append(pr.bpCoef, c)
				}
				for _, x := range ex {
					pr.exPos = append(pr.exPos, uint16(x.t))
					pr.exVal = append(pr.exVal, x.v)
				}
			}
			for i, p := range pr.bpPos {
				pr.entIdx = append(pr.entIdx, p)
				pr.entCoef = append(pr.entCoef, pr.bpCoef[i])
			}
			for i, p := range pr.exPos {
				pr.entIdx = append(pr.entIdx, uint16(l+1+int(p)))
				pr.entCoef = append(pr.entCoef, pr.exVal[i])
			}
			for i, p := range pr.zIdx {
				local := int(p) - int(d.combo[k])*e.zones.width
				pr.entIdx = append(pr.entIdx, uint16(2*l+1+local))
				pr.entCoef = append(pr.entCoef, pr.zM[i])
				pr.hasZones = true
			}
			for i, p := range pr.uIdx {
				local := int(p) - int(d.combo[k])*e.zones.width
				pr.entIdx = append(pr.entIdx, uint16(2*l+1+e.zones.width+local))
				pr.entCoef = append(pr.entCoef, pr.uM[i])
				pr.hasZones = true
			}
			if size := 10 * len(pr.entIdx); size > uleProgramLimit {
				return nil
			}
			pr.entOff[k+1] = uint32(len(pr.entIdx))
		}
	}
	return pr
}

// compiled runs the programs of the vectors [k0, k1).
func (e *uleFast) compiled(s *uleFastSlot, ll *emLLAcc, k0, k1 int, mi *int) {
	d := e.d
	pr := e.prog
	dbuf := s.cdbuf[:k1-k0]
	cnt := d.count[k0:k1]
	combo := d.combo[k0:k1]
	off := pr.entOff[k0 : k1+1]
	for i, n := range cnt {
		c := combo[i]
		tab := (*[uleProgIdxMax]float64)(e.tab[c][:uleProgIdxMax])
		acc := (*[uleProgIdxMax]float64)(s.cacc[c][:uleProgIdxMax])
		idx, coef := pr.entIdx[off[i]:off[i+1]], pr.entCoef[off[i]:off[i+1]]
		coef = coef[:len(idx)]
		var D float64
		for j, p := range idx {
			D += coef[j] * tab[p]
		}
		dbuf[i] = D
		w := n / D
		if !(D > 0) {
			w = 0 // a vector impossible under θ: LL is -Inf
		}
		for j, p := range idx {
			acc[p] += w * coef[j]
		}
	}
	for *mi < len(e.multi) && int(e.multi[*mi]) < k0 { // past other kernels' vectors
		*mi++
	}
	m0 := *mi
	for *mi < len(e.multi) && int(e.multi[*mi]) < k1 {
		*mi++
	}
	ll.logSum += llSumGroup(d.count[k0:k1], dbuf, e.multi[m0:*mi], int32(k0))
}

// grouped handles the vectors [k0, k1), which share their combination and
// every segment row but the last.
func (e *uleFast) grouped(s *uleFastSlot, ll *emLLAcc, theta []float64, k0, k1 int) {
	d := e.d
	l := e.l
	S := d.S
	c := d.combo[k0]
	g := d.comboL[c]
	if S > 1 {
		g = s.g
		copy(g, d.comboL[c])
		for j := 0; j < S-1; j++ {
			p := e.profs[j]
			r := int(d.seg[k0*S+j])
			row := p.norm[r*l : (r+1)*l]
			for t := range g {
				g[t] *= row[t]
			}
		}
	}
	u, U := s.u, s.U
	var acc float64
	U[0] = 0
	for t := range l {
		v := theta[t] * g[t]
		u[t] = v
		acc += v
		U[t+1] = acc
	}
	ydiff, yexpl := s.ydiff, s.yexpl
	clear(ydiff)
	clear(yexpl)
	inner := e.profs[S-1]
	for k := k0; k < k1; k++ {
		r := d.seg[k*S+S-1]
		ps := inner.pieces[inner.rowOff[r]:inner.rowOff[r+1]]
		var D float64
		for i := range ps {
			p := &ps[i]
			if p.off < 0 {
				D += p.val * (U[p.end] - U[p.start])
			} else {
				vals := inner.vals[p.off : p.off+p.end-p.start]
				uu := u[p.start:p.end]
				for i, v := range vals {
					D += uu[i] * v
				}
			}
		}
		n := d.count[k]
		ll.add(n, D)
		if !(D > 0) {
			continue
		}
		w := n / D
		for i := range ps {
			p := &ps[i]
			if p.off < 0 {
				wv := w * p.val
				ydiff[p.start] += wv
				ydiff[p.end] -= wv
			} else {
				vals := inner.vals[p.off : p.off+p.end-p.start]
				ye := yexpl[p.start:p.end]
				for i, v := range vals {
					ye[i] += w * v
				}
			}
		}
	}
	acc = 0
	sa := s.a
	for t := range l {
		acc += ydiff[t]
		sa[t] += g[t] * (acc + yexpl[t])
	}
}

// outerFactor returns g(t) = L_c(t)·Π_{j<S-1} F_j(t), the factor shared by
// the group starting at vector k0.
func (e *uleFast) outerFactor(s *uleFastSlot, k0 int) []float64 {
	d := e.d
	l, S := e.l, d.S
	g := d.comboL[d.combo[k0]]
	if S > 1 {
		g = s.g
		copy(g, d.comboL[d.combo[k0]])
		for j := 0; j < S-1; j++ {
			p := e.profs[j]
			r := int(d.seg[k0*S+j])
			row := p.norm[r*l : (r+1)*l]
			for t := range g {
				g[t] *= row[t]
			}
		}
	}
	return g
}

// groupedBand is the grouped kernel for an inner service in band form
// (trBand): each vector costs a fixed handful of operations, 2·eh ramp
// bins and two prefix sums.
func (e *uleFast) groupedBand(s *uleFastSlot, ll *emLLAcc, theta []float64, k0, k1 int) {
	const M = trBandMaxEh // margin of u and yexpl on both sides
	d := e.d
	l, S := e.l, d.S
	g := e.outerFactor(s, k0)
	u, U := s.u[M:M+l], s.U
	for t := range l {
		u[t] = theta[t] * g[t]
	}
	prefixSum(U, u)
	yd, ye := s.ydiff, s.yexpl
	clear(yd)
	clear(ye)
	bd := e.profs[S-1].band
	eh := bd.eh
	uall := s.u
	Ut := U[l]
	var ybase float64
	prod, pexp := 1.0, 0
	cnt := d.count[k0:k1]
	inner := d.seg[k0*S : k1*S]
	for i, n := range cnt {
		r := int(inner[i*S+S-1])
		a, b := int(bd.a[r]), int(bd.b[r])
		base, delta := bd.base[r], bd.delta[r]
		rl := bd.ramp[r*2*eh : r*2*eh+eh]
		rr := bd.ramp[r*2*eh+eh : r*2*eh+2*eh]
		ul := uall[M+a-eh : M+a]
		ur := uall[M+b : M+b+eh]
		D := base*Ut + delta*(U[b]-U[a])
		for i := range rl {
			D += rl[i]*ul[i] + rr[i]*ur[i]
		}
		if n == 1 && D > 1e-30 {
			prod *= D
			if prod < 1e-250 {
				f, x := math.Frexp(prod)
				prod, pexp = f, pexp+x
			}
		} else {
			ll.add(n, D)
		}
		if !(D > 0) {
			continue
		}
		w := n / D
		ybase += w * base
		wd := w * delta
		yd[a] += wd
		yd[b] -= wd
		yl := ye[M+a-eh : M+a]
		yr := ye[M+b : M+b+eh]
		for i := range rl {
			yl[i] += w * rl[i]
			yr[i] += w * rr[i]
		}
	}
	ll.logSum += math.Log(prod) + float64(pexp)*math.Ln2
	y := yd[:l]
	inclusiveScan(y)
	sa := s.a
	yem := ye[M : M+l]
	for t := range l {
		sa[t] += g[t] * (ybase + y[t] + yem[t])
	}
}

// prefixSum writes dst[0] = 0 and dst[i+1] = src[0] + … + src[i]; dst
// has length len(src)+1 and does not overlap src.
func prefixSum(dst, src []float64) {
	dst[0] = 0
	copy(dst[1:], src)
	inclusiveScan(dst[1:])
}

// inclusiveScan replaces x[i] by x[0] + … + x[i]. It runs four interleaved
// chains of additions over the quarters of x and then adds the quarters'
// offsets, so that the latency of one addition per element does not bound
// it.
func inclusiveScan(x []float64) {
	n := len(x)
	if n < 64 {
		var acc float64
		for i, v := range x {
			acc += v
			x[i] = acc
		}
		return
	}
	q := n / 4
	a, b, c, d := x[:q], x[q:2*q], x[2*q:3*q], x[3*q:4*q]
	var s0, s1, s2, s3 float64
	for i := range a {
		s0 += a[i]
		s1 += b[i]
		s2 += c[i]
		s3 += d[i]
		a[i], b[i], c[i], d[i] = s0, s1, s2, s3
	}
	o1 := s0
	o2 := o1 + s1
	o3 := o2 + s2
	o4 := o3 + s3
	for i := range b {
		b[i] += o1
		c[i] += o2
		d[i] += o3
	}
	for i := 4 * q; i < n; i++ {
		o4 += x[i]
		x[i] = o4
	}
}

// subFrom subtracts src from dst element by element.
func subFrom(dst, src []float64) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] -= v
	}
}
