package emkernel

import (
	"math"
	"sort"
)

// The pair kernel of the fast route: exactly two segment services, both in
// band form (trBand), which is ULE over [SR, PM, SW] (and [PM, SW], [PM,
// PM], ...). It costs a fixed few dozen operations per distinct vector and
// nothing per group of vectors, so an iteration costs O(distinct + C·(h + l)).
//
// Write service 2's row (the outer one, key order) as F2 = P2 + Q2, with
// P2(t) = β2 + δ2·[a2 ≤ t < b2] (base and plateau) and Q2 the ramps, nonzero
// only on the zones Z2L = [a2-E2, a2) and Z2R = [b2, b2+E2); the same for
// service 3's row (the inner one). With θL = θ·L_c and Θ its prefix sums,
//
//	D = Σ_t θL·F2·F3 = Σ θL·P2·P3 + Σ θL·Q2·F3 + Σ θL·P2·Q3,
//	Σ θL·P2·P3 = β2β3·Θ(l) + β2δ3·Θ[a3, b3) + δ2β3·Θ[a2, b2) + δ2δ3·Θ[a2, b2)∩[a3, b3),
//
// Θ[x, y) = Θ(y) - Θ(x). When P3 is constant on each ramp zone of row 2, P2
// on each zone of row 3, and the zones of the two rows do not meet (a
// table of row pairs built once, pairSlowTable; all but about 0.5 % of the
// vectors of [SR, PM, SW] at the authors' discretisation),
//
//	Σ θL·Q2·F3 = P3(a2-1)·QL2 + P3(b2)·QR2,   Σ θL·P2·Q3 = P2(a3-1)·QL3 + P2(b3)·QR3,
//
// with QL2 = Σ_{Z2L} θL·Q2 and the like, computed once per iteration and
// row. Otherwise the zones are summed bin by bin (the exact slow path).
//
// The accumulation A(t) = Σ_k w_k·L_c(t)·F2(t)·F3(t), w_k = n_k/D_k, takes
// the same terms apart: L_c(t) is applied once per iteration; β2β3 and
// δ2β3·[a2, b2) through W2[r2] = Σ w·β3, β2δ3·[a3, b3) through
// W3[r3] = Σ w·β2, the intersection through a difference array, and the
// ramps through per-row weights QW2L[r2] = Σ w·P3(a2-1) (and so on) that
// are spread over the zones once per iteration.

// pairRow is one band row in the layout of the pair kernel: the plateau
// [a, b) over the base, delta its height above the base.
type pairRow struct {
	a, b        int32
	base, delta float64
}

// pairRows holds a band profile's rows for the pair kernel.
type pairRows struct {
	e    int // ramp length E
	rows []pairRow
	ramp []float64 // 2E per row: left zone, right zone
}

// newPairRows lays out bd's rows, with room for pairCap of them.
func newPairRows(bd *trBand) pairRows {
	p := pairRows{e: bd.eh, rows: make([]pairRow, len(bd.a), max(len(bd.a), pairCap)), ramp: bd.ramp}
	for r := range bd.a {
		p.rows[r] = pairRow{a: bd.a[r], b: bd.b[r], base: bd.base[r], delta: bd.delta[r]}
	}
	return p
}

// plateau returns P(x) = base + delta·[a ≤ x < b] of row r.
func (p *pairRows) plateau(r, x int) float64 {
	w := &p.rows[r]
	if int(w.a) <= x && x < int(w.b) {
		return w.base + w.delta
	}
	return w.base
}

// q returns the ramp Q(x) of row r.
func (p *pairRows) q(r, x int) float64 {
	a, b, e := int(p.rows[r].a), int(p.rows[r].b), p.e
	switch {
	case x >= a-e && x < a:
		return p.ramp[r*2*e+x-(a-e)]
	case x >= b && x < b+e:
		return p.ramp[r*2*e+e+x-b]
	}
	return 0
}

// pairComb is the per-iteration state of one combination c.
type pairComb struct {
	thetaL []float64    // θ·L_c with a margin of trBandMaxEh zeros on both sides
	prefix []float64    // Θ, l+1
	q2, q3 [][2]float64 // per row of services 2 and 3: Σ_{ZL} θL·Q, Σ_{ZR} θL·Q
	in3    []pairInner  // per row of service 3, what a vector of the fast path reads
	grid   []float64    // the grid form's per-inner-row arrays (ule_grid.go), or nil
}

// pairInner packs, for one row of service 3 and one iteration, every
// quantity the fast path reads for a vector with that inner row, so that a
// vector costs one gather of a 48-byte record rather than four of the row,
// its ramp sums and two prefix sums.
type pairInner struct {
	a, b        int32
	base, delta float64
	ql, qr      float64 // Σ_{ZL} θL·Q3, Σ_{ZR} θL·Q3
	g           float64 // δ3·(Θ(b) − Θ(a))
}

// pairAcc is one slot's accumulators for one combination.
type pairAcc struct {
	diff       []float64    // l+1
	expl       []float64    // l + 2·trBandMaxEh, offset trBandMaxEh
	w2, w3     [][3]float64 // per row: Σ w·β_other, Σ w·P_other(a-1), Σ w·P_other(b)
	used       bool
	slowVector int
	grid       []float64 // the grid form's accumulations (ule_grid.go), or nil
}

func newPairAcc(l, h2, h3 int) *pairAcc {
	return &pairAcc{
		diff: make([]float64, l+1, pairCap), expl: make([]float64, l+2*trBandMaxEh),
		w2: make([][3]float64, h2), w3: make([][3]float64, h3, pairCap),
	}
}

func (p *pairAcc) reset() {
	clear(p.diff)
	clear(p.expl)
	clear(p.w2)
	clear(p.w3)
	p.used = false
	p.slowVector = 0
}

// uleRowSums sets q[r] = (Σ_{i<E} Q_L(r, i)·x[a_r-E+i], Σ_i Q_R(r, i)·x[b_r+i])
// for every row, x padded by trBandMaxEh.
func uleRowSums(p *pairRows, xpad []float64, q [][2]float64) {
	const M = trBandMaxEh
	e := p.e
	for r := range q {
		a, b := int(p.rows[r].a), int(p.rows[r].b)
		rp := p.ramp[r*2*e : (r+1)*2*e]
		xl := xpad[M+a-e : M+a]
		xr := xpad[M+b : M+b+e]
		var sl, sr float64
		for i := range e {
			sl += rp[i] * xl[i]
			sr += rp[e+i] * xr[i]
		}
		q[r] = [2]float64{sl, sr}
	}
}

// pairPrepare computes the per-iteration sums of every used combination.
func (e *uleFast) pairPrepare(theta []float64) {
	const M = trBandMaxEh
	l := e.l
	for c, pc := range e.pair {
		if pc == nil {
			continue
		}
		L := e.d.comboL[c]
		tl := pc.thetaL[M : M+l]
		for t := range l {
			tl[t] = theta[t] * L[t]
		}
		prefixSum(pc.prefix, tl)
		uleRowSums(&e.rows2, pc.thetaL, pc.q2)
		uleRowSums(&e.rows3, pc.thetaL, pc.q3)
		for r, w := range e.rows3.rows {
			pc.in3[r] = pairInner{a: w.a, b: w.b, base: w.base, delta: w.delta, ql: pc.q3[r][0], qr: pc.q3[r][1],
				g: w.delta * (pc.prefix[w.b] - pc.prefix[w.a])}
		}
	}
}

// pairSlot runs the pair kernel over the vectors of slot si.
func (e *uleFast) pairSlot(si int) {
	d := e.d
	s := e.slots[si]
	// The accumulations the slot did not use last time are still clear.
	for _, acc := range s.pair {
		if acc != nil && acc.used {
			acc.reset()
		}
	}
	lo, hi := e.bounds[si], e.bounds[si+1]
	words := e.slowWords
	var ll float64
	mi := sort.Search(len(e.multi), func(i int) bool { return int(e.multi[i]) >= lo })
	// The groups (runs of vectors sharing (c, r2)) meeting [lo, hi).
	gi := sort.Search(len(d.groups), func(i int) bool { return int(d.groups[i]) > lo }) - 1
	for k := lo; k < hi; gi++ {
		end := min(int(d.groups[gi+1]), hi)
		c := d.combo[k]
		r2 := int(d.seg[2*k])
		pc, acc := e.pair[c], s.pair[c]
		acc.used = true
		cnt := d.count[k:end]
		dbuf := s.dbuf[:len(cnt)]
		ns := e.pairGroup(pc, acc, r2, e.slow[r2*words:(r2+1)*words], e.inner[k:end], cnt, dbuf, s.slowIdx)
		for _, i := range s.slowIdx[:ns] {
			r3 := int(e.inner[k+int(i)])
			s.slowT, s.slowV = e.pairSlowTerms(r2, r3, s.slowT[:0], s.slowV[:0])
			dbuf[i] = e.pairSlowVector(pc, acc, r2, r3, cnt[i], s.slowT, s.slowV)
		}
		m0 := mi
		for mi < len(e.multi) && int(e.multi[mi]) < end {
			mi++
		}
		ll += llSumGroup(cnt, dbuf, e.multi[m0:mi], int32(k))
		k = end
	}
	s.ll = ll
}

// pairCap bounds the bins (l+1) and the inner rows of the pair kernel: its
// hot loop views its tables as arrays of pairCap entries and masks the
// indices, which spares the bounds checks and the registers holding the
// lengths.
const pairCap = 4096

// pairGroup runs the fast path over the vectors of one (c, r2) group,
// whose inner rows are inner and counts cnt: it writes D to dbuf, adds the
// accumulations, and writes the indices of the vectors left to the slow
// path to slow, returning their number.
func (e *uleFast) pairGroup(pc *pairComb, acc *pairAcc, r2 int, slowRow []uint64, inner []uint16, cnt, dbuf []float64, slow []int32) (ns int) {
	const mask = pairCap - 1
	in3 := (*[pairCap]pairInner)(pc.in3[:pairCap])
	th := (*[pairCap]float64)(pc.prefix[:pairCap])
	w3 := (*[pairCap][3]float64)(acc.w3[:pairCap])
	diff := (*[pairCap]float64)(acc.diff[:pairCap])
	sr := (*[pairCap / 64]uint64)(slowRow[:pairCap/64])
	sl := (*[pairCap]int32)(slow[:pairCap])
	row2 := e.rows2.rows[r2]
	a2, b2 := int(row2.a), int(row2.b)
	beta2, delta2 := row2.base, row2.delta
	top2 := beta2 + delta2
	// The terms of D that depend on row 2 alone.
	x2 := beta2*pc.prefix[len(pc.prefix)-1] + delta2*(pc.prefix[b2]-pc.prefix[a2])
	ql2, qr2 := pc.q2[r2][0], pc.q2[r2][1]
	var sw2, sw2l, sw2r float64 // Σ w·β3, Σ w·P3(a2-1), Σ w·P3(b2)
	var atA2, atB2 float64      // the intersection's weights at a2 and b2
	inner = inner[:len(cnt)]
	dbuf = dbuf[:len(cnt)]
	for i, n := range cnt {
		r3 := int(inner[i]) & mask
		if sr[r3>>6]>>(r3&63)&1 != 0 {
			sl[ns&mask] = int32(i)
			ns++
			continue
		}
		row3 := &in3[r3]
		a3, b3 := int(row3.a), int(row3.b)
		beta3, delta3 := row3.base, row3.delta
		// P3 at the zones of row 2, P2 at the zones of row 3.
		p3l, p3r := beta3, beta3
		if a3 < a2 && a2 <= b3 {
			p3l += delta3
		}
		if a3 <= b2 && b2 < b3 {
			p3r += delta3
		}
		p2l, p2r := beta2, beta2
		if a2 < a3 && a3 <= b2 {
			p2l = top2
		}
		if a2 <= b3 && b3 < b2 {
			p2r = top2
		}
		D := beta3*x2 + beta2*row3.g + p3l*ql2 + p3r*qr2 + p2l*row3.ql + p2r*row3.qr
		lo23, hi23 := max(a2, a3)&mask, min(b2, b3)&mask
		inter := 0.0
		if lo23 < hi23 {
			inter = delta2 * delta3
			D += inter * (th[hi23] - th[lo23])
		}
		dbuf[i] = D
		w := n / D
		sw2 += w * beta3
		sw2l += w * p3l
		sw2r += w * p3r
		acc3 := &w3[r3]
		acc3[0] += w * beta2
		acc3[1] += w * p2l
		acc3[2] += w * p2r
		if inter != 0 {
			// Where the intersection starts at a2 (ends at b2) every vector
			// of the group would add to the same entry, a chain of
			// store-to-load forwarding through memory: sum those in
			// registers and add them once, after the loop.
			wi := w * inter
			if a3 <= a2 {
				atA2 += wi
			} else {
				diff[lo23] += wi
			}
			if b3 >= b2 {
				atB2 += wi
			} else {
				diff[hi23] -= wi
			}
		}
	}
	diff[a2&mask] += atA2
	diff[b2&mask] -= atB2
	acc2 := &acc.w2[r2]
	acc2[0] += sw2
	acc2[1] += sw2l
	acc2[2] += sw2r
	return ns
}

// pairSlowVector handles one vector of the slow path exactly and returns
// its D; ts and vs are its ramp terms (pairSlowTerms).
func (e *uleFast) pairSlowVector(pc *pairComb, acc *pairAcc, r2, r3 int, n float64, ts []uint16, vs []float64) float64 {
	const M = trBandMaxEh
	Th := pc.prefix
	row2, row3 := e.rows2.rows[r2], e.rows3.rows[r3]
	a2, b2, a3, b3 := int(row2.a), int(row2.b), int(row3.a), int(row3.b)
	beta2, delta2, beta3, delta3 := row2.base, row2.delta, row3.base, row3.delta
	D := beta3*(beta2*Th[len(Th)-1]+delta2*(Th[b2]-Th[a2])) + beta2*delta3*(Th[b3]-Th[a3])
	lo23, hi23 := max(a2, a3), min(b2, b3)
	inter := 0.0
	if lo23 < hi23 {
		inter = delta2 * delta3
		D += inter * (Th[hi23] - Th[lo23])
	}
	vs = vs[:len(ts)]
	tl := pc.thetaL
	var s float64
	for i, t := range ts {
		s += tl[M+int(t)] * vs[i]
	}
	D += s
	w := n / D
	acc.w2[r2][0] += w * beta3
	acc.w3[r3][0] += w * beta2
	if inter != 0 {
		acc.diff[lo23] += w * inter
		acc.diff[hi23] -= w * inter
	}
	expl := acc.expl[M : M+e.l]
	for i, t := range ts {
		expl[t] += w * vs[i]
	}
	acc.slowVector++
	return D
}

// pairSlowTable returns the bit table of the row pairs that take the slow
// path: bit r3 of row r2 is set unless P3 is constant on each ramp zone of
// row r2, P2 on each ramp zone of row r3, and the zones of the two rows do
// not meet (the conditions of the fast path, with each row's actual ramp
// zones, clipped to the bins, and the actual change points of P).
func pairSlowTable(r2s, r3s *pairRows, l int) ([]uint64, int) {
	words := pairCap / 64
	z2, z3 := pairZones(r2s, l), pairZones(r3s, l)
	tab := make([]uint64, len(r2s.rows)*words)
	for r2 := range r2s.rows {
		x := &z2[r2]
		for r3 := range r3s.rows {
			y := &z3[r3]
			if !x.constOnZones(y) || !y.constOnZones(x) || x.meets(y) {
				tab[r2*words+r3/64] |= 1 << (r3 % 64)
			}
		}
	}
	return tab, words
}

// pairZone describes a row for pairSlowTable: its ramp zones [l0, l1) and
// [h0, h1) (the bins with a nonzero ramp value), and the change points of
// its plateau part P (at most two; -1 for none).
type pairZone struct {
	l0, l1, h0, h1 int
	c              [2]int
}

func pairZones(p *pairRows, l int) []pairZone {
	z := make([]pairZone, len(p.rows))
	E := p.e
	for r, w := range p.rows {
		a, b := int(w.a), int(w.b)
		rp := p.ramp[r*2*E : (r+1)*2*E]
		q := pairZone{l0: a, l1: a, h0: b, h1: b, c: [2]int{-1, -1}}
		for i := range E {
			if rp[i] != 0 && a-E+i >= 0 {
				q.l0 = a - E + i
				break
			}
		}
		for i := E - 1; i >= 0; i-- {
			if rp[E+i] != 0 && b+i < l {
				q.h1 = b + i + 1
				break
			}
		}
		if w.delta != 0 && a < b {
			if a > 0 {
				q.c[0] = a
			}
			if b < l {
				q.c[1] = b
			}
		}
		z[r] = q
	}
	return z
}

// constOnZones reports whether the plateau part of y is constant on each
// ramp zone of x: no change point c of y with start < c < end.
func (x *pairZone) constOnZones(y *pairZone) bool {
	for _, c := range y.c {
		if c < 0 {
			continue
		}
		if (x.l0 < c && c < x.l1) || (x.h0 < c && c < x.h1) {
			return false
		}
	}
	return true
}

// meets reports whether a ramp zone of x meets one of y.
func (x *pairZone) meets(y *pairZone) bool {
	over := func(s0, e0, s1, e1 int) bool { return s0 < e0 && s1 < e1 && s0 < e1 && s1 < e0 }
	return over(x.l0, x.l1, y.l0, y.l1) || over(x.l0, x.l1, y.h0, y.h1) ||
		over(x.h0, x.h1, y.l0, y.l1) || over(x.h0, x.h1, y.h0, y.h1)
}

// pairUsable reports whether the pair kernel applies to two band
// profiles: every row's base must be positive, so that every D_k is, and
// the smallest row entry not so small that a product of D's underflows
// between rescalings.
func pairUsable(bands ...*trBand) bool {
	for _, bd := range bands {
		if bd == nil {
			return false
		}
		for r, b := range bd.base {
			if !(b > 1e-40) || !(b+bd.delta[r] > 1e-40) {
				return false
			}
		}
	}
	return true
}

// pairSlowTerms appends to ts and vs the ramp terms of a slow-path vector
// with rows r2 and r3 (those of a vector whose rows' zones and edges are
// close): bin t and value v = Q2·F3 on Z2, then P2·Q3 on Z3, so that its
// D has Σ θL(t)·v and its accumulation w·v at t. They depend on the rows
// only, and are formed once (the grid form) or per pass (the sparse form).
func (e *uleFast) pairSlowTerms(r2, r3 int, ts []uint16, vs []float64) ([]uint16, []float64) {
	l := e.l
	r2s, r3s := &e.rows2, &e.rows3
	zone := func(rows *pairRows, r int) [2][2]int {
		a, b, E := int(rows.rows[r].a), int(rows.rows[r].b), rows.e
		return [2][2]int{{max(a-E, 0), a}, {b, min(b+E, l)}}
	}
	for _, z := range zone(r2s, r2) {
		for t := z[0]; t < z[1]; t++ {
			ts = append(ts, uint16(t))
			vs = append(vs, r2s.q(r2, t)*(r3s.plateau(r3, t)+r3s.q(r3, t)))
		}
	}
	for _, z := range zone(r3s, r3) {
		for t := z[0]; t < z[1]; t++ {
			ts = append(ts, uint16(t))
			vs = append(vs, r3s.q(r3, t)*r2s.plateau(r2, t))
		}
	}
	return ts, vs
}

// pairFinish adds the slots' accumulations into a (length l) and returns
// the log-likelihood.
func (e *uleFast) pairFinish(a []float64) float64 {
	const M = trBandMaxEh
	l := e.l
	clear(a)
	var ll float64
	for _, s := range e.slots {
		ll += s.ll
	}
	r2s, r3s := &e.rows2, &e.rows3
	tot := e.pairTot
	for c, pc := range e.pair {
		if pc == nil {
			continue
		}
		tot.reset()
		any := false
		for _, s := range e.slots {
			acc := s.pair[c]
			if !acc.used {
				continue
			}
			any = true
			addTo(tot.diff, acc.diff)
			addTo(tot.expl, acc.expl)
			addTo3(tot.w2, acc.w2)
			addTo3(tot.w3, acc.w3)
		}
		if !any {
			continue
		}
		spread := func(rows *pairRows, w [][3]float64) float64 {
			var bsum float64
			E := rows.e
			for r, v := range w {
				a, b := int(rows.rows[r].a), int(rows.rows[r].b)
				bsum += rows.rows[r].base * v[0] // only used for service 2
				if d := rows.rows[r].delta * v[0]; d != 0 {
					tot.diff[a] += d
					tot.diff[b] -= d
				}
				rp := rows.ramp[r*2*E : (r+1)*2*E]
				xl := tot.expl[M+a-E : M+a]
				xr := tot.expl[M+b : M+b+E]
				for i := range E {
					xl[i] += v[1] * rp[i]
					xr[i] += v[2] * rp[E+i]
				}
			}
			return bsum
		}
		beta := spread(r2s, tot.w2)
		spread(r3s, tot.w3)
		L := e.d.comboL[c]
		y := tot.diff[:l]
		inclusiveScan(y)
		ex := tot.expl[M : M+l]
		for t := range l {
			a[t] += L[t] * (beta + y[t] + ex[t])
		}
	}
	return ll
}

func addTo3(dst, src [][3]float64) {
	src = src[:len(dst)]
	for i := range src {
		dst[i][0] += src[i][0]
		dst[i][1] += src[i][1]
		dst[i][2] += src[i][2]
	}
}

func addTo(dst, src []float64) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] += v
	}
}

// logLikSum returns Σ n_i·ln(d_i) in two partial sums (two chains of
// additions), with fastLog written out in the loop.
func logLikSum(n, d []float64) (s0, s1 float64) {
	d = d[:len(n)]
	for i, ni := range n {
		x := d[i]
		b := math.Float64bits(x)
		e := int(b>>52) - 1023
		var v float64
		if e > -1023 && e < 1024 {
			k := (b >> 44) & 255
			m := math.Float64frombits(b&(1<<52-1) | 1023<<52)
			t := &fastLogTab[k]
			r := (m - math.Float64frombits(1023<<52|k<<44)) * t[1]
			v = float64(e)*math.Ln2 + t[0] + r*(1-r*(0.5-r*(1.0/3-r*(0.25-r*0.2))))
		} else {
			v = math.Log(x)
		}
		if i&1 == 0 {
			s0 += ni * v
		} else {
			s1 += ni * v
		}
	}
	return s0, s1
}

// fastLogTab holds ln(1 + k/256) and 256/(256 + k) for k < 256.
var fastLogTab = func() (t [256][2]float64) {
	for k := range t {
		m := 1 + float64(k)/256
		t[k] = [2]float64{math.Log(m), 1 / m}
	}
	return t
}()

// fastLog returns ln x for a positive normal x, to a few units in the last
// place of its terms (it is used for the log-likelihood, a sum of millions
// of them): x = 2^e·m, m = (1 + k/256)(1 + r) with |r| < 1/256, and
// ln(1 + r) by its Taylor series to r⁵, whose remainder is below 1e-15·r.
// Anything else (0, subnormal, Inf, NaN) goes to math.Log.
func fastLog(x float64) float64 {
	b := math.Float64bits(x)
	e := int(b>>52) - 1023
	if e <= -1023 || e >= 1024 {
		return math.Log(x)
	}
	k := (b >> 44) & 255
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52) // in [1, 2)
	t := &fastLogTab[k]
	mk := math.Float64frombits((1023<<52 | k<<44)) // 1 + k/256 exactly
	r := (m - mk) * t[1]
	p := r * (1 - r*(0.5-r*(1.0/3-r*(0.25-r*0.2))))
	return float64(e)*math.Ln2 + t[0] + p
}
