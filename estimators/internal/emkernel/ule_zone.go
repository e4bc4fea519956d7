package emkernel

import "slices"

// Zone programs: the compiled kernel (ule_fast.go) for vectors of three or
// more segment services, all in band form (m = 6, 9, ... cycling [SR, PM,
// SW]), in the decomposition of the pair kernel (ule_pair.go). Vector k's
// scaled row is L_c(t)·Π_j (P_j(t) + Q_j(t)), P_j the base-and-plateau part
// of its row in service j and Q_j the ramps, nonzero on at most two zones
// of a few bins outside the plateau. When every zone is free of the other
// rows' zones and of their plateau edges (checked once per vector), the
// row is the piecewise constant Π_j P_j, with breakpoints at the plateau
// edges only, plus, on each zone of row j, M·Q_j(t) with M = Π_{i≠j} P_i
// constant there; so
//
//	D_k = Σ_edges coef·Λ_c(edge) + Σ_zones M·q_j(c, r_j, side),
//
// q_j(c, r, side) = Σ_{t ∈ zone} θ_t·L_c(t)·Q_j(t) computed once per
// iteration for every row, and the accumulation takes w_k·M into a weight
// per (service, combination, row, side) that is spread over the zone's bins
// once per iteration. A program is then 2S+1 breakpoints and 2S zone
// references instead of about 2S+1 runs plus the 2.5·2S ramp bins of the
// explicit program, which other vectors keep.
//
// Merged zone programs go one step further. A row's edge and the ramp zone
// on that side share their multiplier: at the left edge a_j of row j
// (P_j steps up by δ_j) the breakpoint's coefficient is −δ_j·M, M = Π_{i≠j}
// P_i, which is also the zone's multiplier (the other rows are constant on
// the zone and, unless one of them has an edge at a_j too, at a_j); at the
// right edge b_j it is +δ_j·M. So edge and zone are one entry M·U against
// U_j(c, r, left) = q_j(c, r, left) − δ_r·Λ_c(a_r) and U_j(c, r, right) =
// q_j(c, r, right) + δ_r·Λ_c(b_r), formed once per iteration for every row
// next to q (prepareU), and the accumulation's weight W on U is both the
// zone's weight and, times ∓δ_r, the difference array's at the edge
// (foldU). A merged program is the breakpoints at 0 and l and one entry per
// edge or non-empty zone: about half the entries of a zone program, for
// the vectors whose edges are all at distinct bins (the others keep their
// zone programs). It sums D_k in another order than the zone program (the
// results move by rounding).

// The q table has combinations × Σ_j rows × 2 entries (the sum over
// services with distinct rows: those with the same share theirs), and every
// iteration computes and spreads all of them (a few operations each), so
// zones pay only where the table is small against the number of distinct
// vectors: it may have up to uleZoneSmall entries (the only rule before
// m = 12 and 15 took zones), or up to one per distinct vector, within
// uleZoneLimit (32 MiB). (At n = 10⁴, m = 15 the table's 655,360 entries
// cost 2.6 times the CPU of the explicit programs; at n = 10⁶ they take
// 78 % of it.) The table is combination-major, and a slot's vectors are
// sorted by combination, so each slot accumulates into the part of its own
// combinations only (uleFastSlot.cacc): the per-slot tables stay small
// whatever the number of combinations (m = 12, 15 have 16 and 32).
const (
	uleZoneSmall = 1 << 17
	uleZoneLimit = 1 << 22
)

// uleZones holds the zone tables of the segment services.
type uleZones struct {
	rows  []pairRows   // per segment service, its band rows
	zone  [][]pairZone // per segment service and row, its zones and edges
	off   []int        // per segment service, its offset in a combination's part of q
	own   []bool       // per segment service: whether it owns its part (false: an earlier service's with the same rows)
	width int          // entries per combination: index c·width + off + r·2 + side
	size  int
	merge bool // build merged zone programs where they apply
}

// newULEZones returns the zone tables, or nil if a segment service has no
// band form or the table would be too large (uleZoneSmall, uleZoneLimit).
func newULEZones(e *uleFast) *uleZones {
	d := e.d
	if d.S < 3 {
		return nil
	}
	z := &uleZones{}
	C := len(d.comboL)
	for _, p := range e.profs {
		if p.band == nil {
			return nil
		}
		pr := newPairRows(p.band)
		z.rows = append(z.rows, pr)
		z.zone = append(z.zone, pairZones(&pr, e.l))
		// Services with the same rows (the same mechanism and budget, as
		// in every m ≥ 6 cell of Table 1) share their part: the same
		// zone sums and U, and one weight per row, spread once.
		shared := -1
		for k, q := range z.rows[:len(z.rows)-1] {
			if z.own[k] && q.e == pr.e && slices.Equal(q.rows, pr.rows) && slices.Equal(q.ramp, pr.ramp) {
				shared = k
				break
			}
		}
		if shared >= 0 {
			z.off = append(z.off, z.off[shared])
			z.own = append(z.own, false)
			continue
		}
		z.off = append(z.off, z.width)
		z.own = append(z.own, true)
		z.width += len(pr.rows) * 2
	}
	z.size = C * z.width
	if z.size > uleZoneLimit || (z.size > uleZoneSmall && z.size > len(d.count)) {
		return nil
	}
	return z
}

// prepare computes combination c's zone sums into qc (its width entries)
// from θ·L_c (padded by trBandMaxEh).
func (z *uleZones) prepare(c int, tlpad, qc []float64) {
	const M = trBandMaxEh
	for j := range z.rows {
		if !z.own[j] {
			continue
		}
		p := &z.rows[j]
		E := p.e
		n := len(p.rows)
		q := qc[z.off[j] : z.off[j]+n*2]
		for r, w := range p.rows {
			a, b := int(w.a), int(w.b)
			rp := p.ramp[r*2*E : (r+1)*2*E]
			xl := tlpad[M+a-E : M+a]
			xr := tlpad[M+b : M+b+E]
			var sl, sr float64
			for i := range E {
				sl += rp[i] * xl[i]
				sr += rp[E+i] * xr[i]
			}
			q[2*r], q[2*r+1] = sl, sr
		}
	}
}

// prepareU computes combination c's U (its width entries) from its zone
// sums q and prefix sums lam (Λ_c, l+1 entries): U = q − δ·Λ_c(a) on the
// left of a row with an edge at a, q + δ·Λ_c(b) on the right of one with
// an edge at b, q where there is no edge.
func (z *uleZones) prepareU(lam, q, u []float64) {
	for j := range z.rows {
		if !z.own[j] {
			continue
		}
		p := &z.rows[j]
		o := z.off[j]
		for r, w := range p.rows {
			x := &z.zone[j][r]
			ul, ur := q[o+2*r], q[o+2*r+1]
			if x.c[0] >= 0 {
				ul -= w.delta * lam[w.a]
			}
			if x.c[1] >= 0 {
				ur += w.delta * lam[w.b]
			}
			u[o+2*r], u[o+2*r+1] = ul, ur
		}
	}
}

// foldU moves the weights uw of combination c's U references into its zone
// weights qw (both its width entries) and its difference array (tmp,
// which holds +Δ_c): the edge at a of a row takes −δ·W there, the one at b
// +δ·W, so Δ_c takes +δ·W at a and −δ·W at b.
func (z *uleZones) foldU(uw, qw, tmp []float64) {
	for j := range z.rows {
		if !z.own[j] {
			continue
		}
		p := &z.rows[j]
		o := z.off[j]
		for r, w := range p.rows {
			wl, wr := uw[o+2*r], uw[o+2*r+1]
			if wl == 0 && wr == 0 {
				continue
			}
			x := &z.zone[j][r]
			qw[o+2*r] += wl
			qw[o+2*r+1] += wr
			if x.c[0] >= 0 {
				tmp[w.a] += w.delta * wl
			}
			if x.c[1] >= 0 {
				tmp[w.b] -= w.delta * wr
			}
		}
	}
}

// spread adds the weights qw of combination c over the zones' bins of
// expl (length l).
func (z *uleZones) spread(c int, qw, expl []float64) {
	l := len(expl)
	for j := range z.rows {
		if !z.own[j] {
			continue
		}
		p := &z.rows[j]
		E := p.e
		n := len(p.rows)
		w := qw[c*z.width+z.off[j] : c*z.width+z.off[j]+n*2]
		for r, row := range p.rows {
			wl, wr := w[2*r], w[2*r+1]
			if wl == 0 && wr == 0 {
				continue
			}
			a, b := int(row.a), int(row.b)
			rp := p.ramp[r*2*E : (r+1)*2*E]
			for i := range E {
				if t := a - E + i; t >= 0 && t < l {
					expl[t] += wl * rp[i]
				}
				if t := b + i; t < l {
					expl[t] += wr * rp[E+i]
				}
			}
		}
	}
}

// vector builds vector k's zone program, appending its breakpoints and
// zone references (or, merged, its U references) to pr; it returns false
// (and appends nothing) if a zone meets another row's zone or plateau
// edge.
func (z *uleZones) vector(d *uleData, k int, pr *uleProgram) bool {
	S := d.S
	if S > 64 {
		return false
	}
	rows := d.seg[k*S : k*S+S]
	c := int(d.combo[k])
	for j := range S {
		x := &z.zone[j][rows[j]]
		for i := range S {
			if i == j {
				continue
			}
			y := &z.zone[i][rows[i]]
			if !x.constOnZones(y) || x.meets(y) {
				return false
			}
		}
	}
	// P(t) = Π_j P_j(t) at t.
	P := func(t int) float64 {
		v := 1.0
		for j := range S {
			w := &z.rows[j].rows[rows[j]]
			if int(w.a) <= t && t < int(w.b) {
				v *= w.base + w.delta
			} else {
				v *= w.base
			}
		}
		return v
	}
	var edges [2 * 64]int
	ne := 0
	for j := range S {
		for _, e := range z.zone[j][rows[j]].c {
			if e > 0 {
				edges[ne] = e
				ne++
			}
		}
	}
	es := edges[:ne]
	slices.Sort(es)
	es = slices.Compact(es)
	l := len(d.comboL[c])
	if z.merge && len(es) == ne {
		// Every edge at its own bin: the merged program.
		pr.bpPos = append(pr.bpPos, 0, uint16(l))
		pr.bpCoef = append(pr.bpCoef, -P(0), P(l-1))
		for j := range S {
			x := &z.zone[j][rows[j]]
			for side, at := range [2]int{x.c[0], x.c[1]} {
				zs := [2][2]int{{x.l0, x.l1}, {x.h0, x.h1}}[side]
				if at < 0 { // no edge: the zone alone, if any
					if zs[0] >= zs[1] {
						continue
					}
					at = zs[0]
				}
				m := 1.0
				for i := range S {
					if i == j {
						continue
					}
					w := &z.rows[i].rows[rows[i]]
					if int(w.a) <= at && at < int(w.b) {
						m *= w.base + w.delta
					} else {
						m *= w.base
					}
				}
				pr.uIdx = append(pr.uIdx, uint32(c*z.width+z.off[j]+int(rows[j])*2+side))
				pr.uM = append(pr.uM, m)
			}
		}
		pr.merged++
		return true
	}
	prev := 0.0 // the value left of the breakpoint (0 left of 0)
	for i := 0; i <= len(es); i++ {
		pos := 0
		if i > 0 {
			pos = es[i-1]
		}
		v := P(pos)
		pr.bpPos = append(pr.bpPos, uint16(pos))
		pr.bpCoef = append(pr.bpCoef, prev-v)
		prev = v
	}
	pr.bpPos = append(pr.bpPos, uint16(l))
	pr.bpCoef = append(pr.bpCoef, prev)
	// Zones: M = Π_{i≠j} P_i on the zone.
	for j := range S {
		x := &z.zone[j][rows[j]]
		for side, zs := range [2][2]int{{x.l0, x.l1}, {x.h0, x.h1}} {
			if zs[0] >= zs[1] {
				continue
			}
			m := 1.0
			for i := range S {
				if i == j {
					continue
				}
				w := &z.rows[i].rows[rows[i]]
				if int(w.a) <= zs[0] && zs[0] < int(w.b) {
					m *= w.base + w.delta
				} else {
					m *= w.base
				}
			}
			pr.zIdx = append(pr.zIdx, uint32(c*z.width+z.off[j]+int(rows[j])*2+side))
			pr.zM = append(pr.zM, m)
		}
	}
	return true
}
