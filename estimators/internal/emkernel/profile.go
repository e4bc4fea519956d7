package emkernel

import "math"

// trProfile is a service's transition matrix compressed for the fast EM route
// (ule_fast.go). Every row r, divided by its maximum (EM does not depend
// on a row's scale; the logarithm of the scale is kept for the
// log-likelihood), is cut into pieces of consecutive input bins: a
// constant piece, where the row is constant (to a relative 1e-13), or an
// explicit piece, whose values are stored. A row of PM or SW is constant
// away from the bins where an edge of the inner window [L(x), R(x)] or
// [s-b, s+b] crosses the bucket, so it has at most five pieces, two of them
// explicit ramps of a few bins. A row with no structure is one explicit
// piece.
//
// Row h (one past the last bucket) is the row of a missing report: all
// ones, one constant piece.
type trProfile struct {
	l          int
	rowOff     []int32   // pieces of row r are pieces[rowOff[r]:rowOff[r+1]]
	pieces     []trPiece // in order of start within a row
	vals       []float64 // values of the explicit pieces
	lnMax      []float64 // ln of each row's maximum (0 for the missing row)
	norm       []float64 // rows divided by their maxima, row-major, (h+1)×l
	band       *trBand   // the rows in band form, or nil
	explPerRow float64   // mean number of explicit bins per row
}

// trBand is a profile whose every normalised row r has the band form
//
//	F_r(t) = base_r + delta_r·[a_r ≤ t < b_r] + left_r(t) + right_r(t),
//
// a plateau [a_r, b_r) over a base, with ramps of eh bins on each side:
// left_r is nonzero only on the bins a_r-eh … a_r-1 and right_r only on
// b_r … b_r+eh-1 (bins outside [0, l) carry 0). PM and SW rows have this
// form with eh of 1 to 4 (the window's edge crossing the bucket), which
// lets the fast route handle a row in a fixed number of operations.
type trBand struct {
	eh          int
	a, b        []int32
	base, delta []float64
	ramp        []float64 // per row, 2·eh values: the left ramp, then the right ramp
}

// trBandMaxEh is the longest ramp of the band form.
const trBandMaxEh = 8

// trPiece is a run [start, end) of input bins of a row: constant with value
// val if off < 0, else explicit with values vals[off : off+end-start].
type trPiece struct {
	start, end int32
	off        int32
	val        float64
}

// trConstTol is the relative tolerance within which consecutive normalised
// entries of a row count as one constant piece; it only absorbs the
// rounding of the exact integrals (a few ulps), so the fast route
// reproduces the dense one to about this relative accuracy.
const trConstTol = 1e-13

// trMinConstRun is the shortest run of equal entries kept as a constant
// piece; shorter runs are explicit.
const trMinConstRun = 3

func buildTrProfile(T []float64, h, l int) *trProfile {
	p := &trProfile{l: l, rowOff: make([]int32, h+2), lnMax: make([]float64, h+1), norm: make([]float64, (h+1)*l)}
	for r := 0; r <= h; r++ {
		p.rowOff[r] = int32(len(p.pieces))
		v := p.norm[r*l : (r+1)*l]
		if r == h {
			for t := range v {
				v[t] = 1
			}
		} else {
			mx := 0.0
			for _, x := range T[r*l : (r+1)*l] {
				mx = max(mx, x)
			}
			if mx > 0 {
				p.lnMax[r] = math.Log(mx)
				for t, x := range T[r*l : (r+1)*l] {
					v[t] = x / mx
				}
			} else {
				p.lnMax[r] = math.Inf(-1) // an empty bucket: never observed
			}
		}
		explStart := -1 // start of the open explicit piece, or -1
		flush := func(end int) {
			if explStart >= 0 {
				p.pieces = append(p.pieces, trPiece{start: int32(explStart), end: int32(end), off: int32(len(p.vals))})
				p.vals = append(p.vals, v[explStart:end]...)
				explStart = -1
			}
		}
		for t := 0; t < l; {
			e := t + 1
			for e < l && math.Abs(v[e]-v[t]) <= trConstTol*math.Abs(v[t]) {
				e++
			}
			if e-t >= trMinConstRun {
				flush(t)
				p.pieces = append(p.pieces, trPiece{start: int32(t), end: int32(e), off: -1, val: v[t]})
			} else if explStart < 0 {
				explStart = t
			}
			t = e
		}
		flush(l)
	}
	p.rowOff[h+1] = int32(len(p.pieces))
	expl := 0
	for _, q := range p.pieces {
		if q.off >= 0 {
			expl += int(q.end - q.start)
		}
	}
	p.explPerRow = float64(expl) / float64(h+1)
	p.band = buildTrBand(p.norm, h+1, l)
	return p
}

// trEqual reports whether x and y agree to the relative tolerance of a
// constant piece.
func trEqual(x, y float64) bool {
	return math.Abs(x-y) <= trConstTol*max(math.Abs(x), math.Abs(y))
}

// buildTrBand fits the band form to every row of norm (rows×l), or
// returns nil if some row needs ramps longer than trBandMaxEh.
//
// For a row v, the base β is v[0] or v[l-1] (whichever gives the shorter
// ramps); the bins where v ≠ β span [s, e); the plateau [a, b) is the
// longest run of equal values within [s, e) that differs from β (empty, at
// s, if there is none); the ramps are [s, a) and [b, e), their values
// v[t] - β.
func buildTrBand(norm []float64, rows, l int) *trBand {
	type fit struct {
		base, delta float64
		a, b, s, e  int
	}
	fits := make([]fit, rows)
	eh := 0
	for r := range rows {
		v := norm[r*l : (r+1)*l]
		best, bestEh := fit{}, -1
		for _, base := range []float64{v[0], v[l-1]} {
			s, e := -1, -1
			for t, x := range v {
				if !trEqual(x, base) {
					if s < 0 {
						s = t
					}
					e = t + 1
				}
			}
			f := fit{base: base}
			if s < 0 {
				f.s, f.e = 0, 0
			} else {
				f.s, f.e, f.a, f.b = s, e, s, s
				// The longest constant run within [s, e) that differs from base.
				for t := s; t < e; {
					u := t + 1
					for u < e && trEqual(v[u], v[t]) {
						u++
					}
					if u-t >= trMinConstRun && u-t > f.b-f.a && !trEqual(v[t], base) {
						f.a, f.b, f.delta = t, u, v[t]-base
					}
					t = u
				}
			}
			rowEh := max(f.a-f.s, f.e-f.b)
			if bestEh < 0 || rowEh < bestEh {
				best, bestEh = f, rowEh
			}
		}
		if bestEh > trBandMaxEh {
			return nil
		}
		fits[r] = best
		eh = max(eh, bestEh)
	}
	bd := &trBand{
		eh: eh, a: make([]int32, rows), b: make([]int32, rows),
		base: make([]float64, rows), delta: make([]float64, rows),
		ramp: make([]float64, rows*2*eh),
	}
	for r, f := range fits {
		v := norm[r*l : (r+1)*l]
		bd.a[r], bd.b[r], bd.base[r], bd.delta[r] = int32(f.a), int32(f.b), f.base, f.delta
		rp := bd.ramp[r*2*eh : (r+1)*2*eh]
		for i := range eh {
			if t := f.a - eh + i; t >= f.s && t < f.a {
				rp[i] = v[t] - f.base
			}
			if t := f.b + i; t < f.e {
				rp[eh+i] = v[t] - f.base
			}
		}
	}
	return bd
}
