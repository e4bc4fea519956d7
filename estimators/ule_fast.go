package estimators

import (
	"math"
	"sort"
)

// The fast route of EM (see ule.go), exact to rounding.
//
// Write the scaled row of vector k as R_k[t] = L_c(t) · Π_{j<S} F_j(t), with
// L_c the product of its combo services' rows (SR), and F_j the row of its
// bucket in segment service j (PM, SW) divided by the row's maximum. Each
// F_j is a list of pieces of bins (the service's profile, transition.go):
// constant, or explicit (a ramp of a few bins). Merging the S lists cuts
// [0, l) into runs on which every F_j is constant, where R_k = C·L_c(t),
// and explicit bins, where R_k[t] is formed directly. Then
//
//	D_k = Σ_t θ_t R_k[t] = Σ_runs C·(Λ_c(b) − Λ_c(a)) + Σ_explicit θ_t R_k[t],
//
// with Λ_c(t) = Σ_{s<t} θ_s L_c(s) the prefix sums of θ·L_c, built once per
// iteration and combination; and the M-step accumulation
//
//	A_t = Σ_k (n_k/D_k) R_k[t] = Σ_c L_c(t)·Σ_s≤t Δ_c(s) + Σ_explicit (n_k/D_k) R_k[t],
//
// where each run adds w_k·C at a and subtracts it at b of the difference
// array Δ_c of its combination. That is the merged kernel: O(pieces) per
// vector, whatever l.
//
// The grouped kernel goes further when many vectors share the combination
// and every segment row but the last (at n = 10⁷, m = 3 [SR, PM, SW], about
// a thousand vectors per (SR, PM) pair): the shared part g(t) = L_c(t) ·
// Π_{j<S-1} F_j(t) is expanded over all l bins once, u = θ·g and its prefix
// sums U are formed, and each vector walks the pieces of its last row only:
// D_k = Σ_const v·(U(b) − U(a)) + Σ_explicit u_t·F(t), the accumulation
// y = Σ_k w_k F_k (difference array plus explicit bins) is expanded once,
// and A_t += g(t)·y_t. O(l) per group plus a handful of operations per
// vector.

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
	tmp     []float64
}

type uleFastSlot struct {
	a    []float64   // direct accumulation of A
	diff [][]float64 // per combination, l+1
	ll   float64

	g, u, U, ydiff, yexpl []float64
	cs                    []uleRun
	ex                    []uleBin
	ip                    []int32
}

type uleRun struct {
	a, b int32
	c    float64
}

type uleBin struct {
	t int32
	v float64
}

func newULEFast(d *uleData, workers int) *uleFast {
	l := d.lay.l
	e := &uleFast{d: d, l: l, workers: workers, gmin: max(2, l/uleGroupMinDiv), tmp: make([]float64, l+1)}
	for _, j := range d.lay.seg {
		e.profs = append(e.profs, d.lay.svcs[j].prof)
	}
	e.thetaL = make([][]float64, len(d.comboL))
	e.prefix = make([][]float64, len(d.comboL))
	for c, L := range d.comboL {
		if L != nil {
			e.thetaL[c] = make([]float64, l)
			e.prefix[c] = make([]float64, l+1)
		}
	}
	K := len(d.count)
	ns := uleSlotsFor(K)
	e.bounds = make([]int, ns+1)
	for s := range ns + 1 {
		e.bounds[s] = K * s / ns
	}
	for range ns {
		s := &uleFastSlot{
			a:     make([]float64, l),
			diff:  make([][]float64, len(d.comboL)),
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
			if L != nil {
				s.diff[c] = make([]float64, l+1)
			}
		}
		e.slots = append(e.slots, s)
	}
	return e
}

func (e *uleFast) eval(theta, a []float64) float64 {
	l := e.l
	for c, L := range e.d.comboL {
		if L == nil {
			continue
		}
		tl, p := e.thetaL[c], e.prefix[c]
		var acc float64
		p[0] = 0
		for t := range l {
			v := theta[t] * L[t]
			tl[t] = v
			acc += v
			p[t+1] = acc
		}
	}
	emForSlots(len(e.slots), e.workers, func(s int) { e.runSlot(s, theta) })

	clear(a)
	var ll float64
	for _, s := range e.slots {
		for t, v := range s.a {
			a[t] += v
		}
		ll += s.ll
	}
	for c, L := range e.d.comboL {
		if L == nil {
			continue
		}
		tmp := e.tmp
		clear(tmp)
		for _, s := range e.slots {
			for t, v := range s.diff[c] {
				tmp[t] += v
			}
		}
		var acc float64
		for t := range l {
			acc += tmp[t]
			a[t] += L[t] * acc
		}
	}
	return ll
}

func (e *uleFast) runSlot(si int, theta []float64) {
	s := e.slots[si]
	d := e.d
	clear(s.a)
	for _, df := range s.diff {
		clear(df)
	}
	ll := newEMLLAcc()
	lo, hi := e.bounds[si], e.bounds[si+1]
	// The group containing lo.
	gi := sort.Search(len(d.groups), func(i int) bool { return int(d.groups[i]) > lo }) - 1
	for k := lo; k < hi; {
		end := min(int(d.groups[gi+1]), hi)
		if d.S >= 1 && end-k >= e.gmin {
			if e.profs[d.S-1].band != nil {
				e.groupedBand(s, &ll, theta, k, end)
			} else {
				e.grouped(s, &ll, theta, k, end)
			}
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

// merged handles vector k alone: it merges the piece lists of its S
// segment rows into constant runs and explicit bins.
func (e *uleFast) merged(s *uleFastSlot, ll *emLLAcc, k int) {
	d := e.d
	l := int32(e.l)
	S := d.S
	c := d.combo[k]
	prefix, thetaL, L := e.prefix[c], e.thetaL[c], d.comboL[c]
	cs, ex := s.cs[:0], s.ex[:0]
	if S == 0 {
		cs = append(cs, uleRun{0, l, 1})
	} else {
		rows := d.seg[k*S : k*S+S]
		ip := s.ip
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
	}
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
	diff := s.diff[c]
	for _, q := range cs {
		wc := w * q.c
		diff[q.a] += wc
		diff[q.b] -= wc
	}
	for _, x := range ex {
		s.a[x.t] += w * L[x.t] * x.v
	}
	s.cs, s.ex = cs, ex
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
