package lp

import (
	"errors"
	"math"
	"sort"
)

// newton solves the Newton systems of the interior-point method,
//
//	H·dx - Aᵀ·dy = r1,   A·dx = rp,   H = Gᵀ·diag(z/s)·G + diag(w/x),
//
// by block elimination. The variables split into D, no two of which share
// a row of G (so H restricted to D is diagonal), and B, the rest. D is
// eliminated by division; what remains is the dense Schur complement S on
// B and then the dense matrix K = F + E·S⁻¹·Eᵀ on the rows of A. The cost
// per iteration is O(nnz(G)·b_row + |B|³ + m_A³) where b_row is the number
// of B variables a D variable reaches through G: for the AAA programme
// (2,193 D variables, 145 B variables, 34 rows of A) well under a
// millisecond of factorisation.
type newton struct {
	p        *Problem
	gt, at   *Sparse // columns of G and of A
	n, ma    int
	mg       int
	isD      []bool
	bpos     []int // position of a B variable in the dense block, -1 for D
	bvars    []int
	nb       int
	hPtr     []int // D variable j's B neighbours are hIdx[hPtr[j]:hPtr[j+1]] (empty for B)
	hIdx     []int
	hVal     []float64
	acc      []float64
	dsr, dxd []float64 // z/s per G row, w/x per variable
	hd       []float64 // diagonal of H on D
	S, E, F  []float64 // nb×nb, ma×nb, ma×ma (row-major)
	K, SiEt  []float64 // ma×ma, nb×ma
	// scratch
	t, rhs1, rhs2, u, v, dxB []float64
	res1, res2, cx, cy, gdx  []float64
	r1                       []float64
	rowHasD                  []bool
	u2                       []int
	u2v                      []float64
}

func newNewton(p *Problem) *newton {
	n := len(p.C)
	ma, _ := p.A.Dims()
	mg, _ := p.G.Dims()
	ns := &newton{p: p, n: n, ma: ma, mg: mg}
	if p.G != nil {
		ns.gt = p.G.transpose()
	} else {
		ns.gt = &Sparse{rows: n, rowPtr: make([]int, n+1)}
	}
	if p.A != nil {
		ns.at = p.A.transpose()
	} else {
		ns.at = &Sparse{rows: n, rowPtr: make([]int, n+1)}
	}
	// Greedy partition: fewest rows of G first.
	order := make([]int, n)
	for j := range order {
		order[j] = j
	}
	deg := func(j int) int { return ns.gt.rowPtr[j+1] - ns.gt.rowPtr[j] }
	sort.SliceStable(order, func(a, b int) bool { return deg(order[a]) < deg(order[b]) })
	rowTaken := make([]bool, mg)
	ns.isD = make([]bool, n)
	for _, j := range order {
		rows, _ := ns.gt.Row(j)
		free := true
		for _, r := range rows {
			if rowTaken[r] {
				free = false
				break
			}
		}
		if free {
			ns.isD[j] = true
			for _, r := range rows {
				rowTaken[r] = true
			}
		}
	}
	ns.rowHasD = rowTaken
	ns.bpos = make([]int, n)
	for j := 0; j < n; j++ {
		ns.bpos[j] = -1
		if !ns.isD[j] {
			ns.bpos[j] = len(ns.bvars)
			ns.bvars = append(ns.bvars, j)
		}
	}
	ns.nb = len(ns.bvars)
	// B neighbours of each D variable through G.
	ns.hPtr = make([]int, n+1)
	mark := make([]int, ns.nb)
	for k := range mark {
		mark[k] = -1
	}
	for j := 0; j < n; j++ {
		if ns.isD[j] {
			rows, _ := ns.gt.Row(j)
			var nbr []int
			for _, r := range rows {
				cols, _ := p.G.Row(r)
				for _, c := range cols {
					if k := ns.bpos[c]; k >= 0 && mark[k] != j {
						mark[k] = j
						nbr = append(nbr, k)
					}
				}
			}
			sort.Ints(nbr)
			ns.hIdx = append(ns.hIdx, nbr...)
		}
		ns.hPtr[j+1] = len(ns.hIdx)
	}
	ns.hVal = make([]float64, len(ns.hIdx))
	ns.acc = make([]float64, ns.nb)
	ns.dsr, ns.dxd, ns.hd = make([]float64, mg), make([]float64, n), make([]float64, n)
	ns.S, ns.E, ns.F = make([]float64, ns.nb*ns.nb), make([]float64, ma*ns.nb), make([]float64, ma*ma)
	ns.K, ns.SiEt = make([]float64, ma*ma), make([]float64, ns.nb*ma)
	ns.t, ns.rhs1, ns.rhs2 = make([]float64, n), make([]float64, ns.nb), make([]float64, ma)
	ns.u, ns.v, ns.dxB = make([]float64, ns.nb), make([]float64, ma), make([]float64, ns.nb)
	ns.res1, ns.res2, ns.cx, ns.cy, ns.gdx = make([]float64, n), make([]float64, ma), make([]float64, n), make([]float64, ma), make([]float64, mg)
	ns.r1 = make([]float64, n)
	return ns
}

var errSingular = errors.New("lp: Newton system singular (dependent equality rows or an unbounded face)")

// factor forms and factorises the reduced systems at the iterate.
func (ns *newton) factor(x, w, s, z []float64) error {
	p, nb, ma := ns.p, ns.nb, ns.ma
	for i := range ns.dsr {
		ns.dsr[i] = z[i] / s[i]
	}
	for j := range ns.dxd {
		ns.dxd[j] = w[j] / x[j]
	}
	clear(ns.S)
	clear(ns.E)
	clear(ns.F)
	for k, j := range ns.bvars {
		ns.S[k*nb+k] = ns.dxd[j]
	}
	// Gᵀ·diag·G on B×B for the rows of G that hold no D variable.
	for r := 0; r < ns.mg; r++ {
		if ns.rowHasD[r] {
			continue
		}
		cols, vals := p.G.Row(r)
		d := ns.dsr[r]
		for a, ca := range cols {
			ka := ns.bpos[ca]
			if ka < 0 {
				continue
			}
			for b, cb := range cols {
				if kb := ns.bpos[cb]; kb >= 0 {
					ns.S[ka*nb+kb] += d * vals[a] * vals[b]
				}
			}
		}
	}
	// Eliminate D. The rows R_j of a D variable j contribute to S
	//   Σ_r d_r·b_r·b_rᵀ - h·hᵀ/H_j,  h = Σ_r d_r·a_r·b_r,  H_j = δ + Σ_r d_r·a_r²
	// (a_r = G[r][j], b_r the B part of row r, δ = w_j/x_j). Formed as
	// written, the two terms cancel to many digits when a row is nearly
	// active (d_r huge), which is where the iterations end; the Lagrange
	// identity gives the same matrix without the cancellation:
	//   (δ·Σ_r d_r·b_r·b_rᵀ + Σ_{r<s} d_r·d_s·u_rs·u_rsᵀ)/H_j,  u_rs = a_r·b_s - a_s·b_r.
	for j := 0; j < ns.n; j++ {
		if !ns.isD[j] {
			continue
		}
		rows, gv := ns.gt.Row(j)
		delta := ns.dxd[j]
		h := delta
		for q, r := range rows {
			d := ns.dsr[r] * gv[q]
			h += d * gv[q]
			cols, vals := p.G.Row(r)
			for c, col := range cols {
				if k := ns.bpos[col]; k >= 0 {
					ns.acc[k] += d * vals[c]
				}
			}
		}
		ns.hd[j] = h
		idx := ns.hIdx[ns.hPtr[j]:ns.hPtr[j+1]]
		hv := ns.hVal[ns.hPtr[j]:ns.hPtr[j+1]]
		for a, k := range idx {
			hv[a] = ns.acc[k]
			ns.acc[k] = 0
		}
		for q, r := range rows {
			f := delta * ns.dsr[r] / h
			cols, vals := p.G.Row(r)
			for a, ca := range cols {
				if ka := ns.bpos[ca]; ka >= 0 {
					for b, cb := range cols {
						if kb := ns.bpos[cb]; kb >= 0 {
							ns.S[ka*nb+kb] += f * vals[a] * vals[b]
						}
					}
				}
			}
			for q2 := q + 1; q2 < len(rows); q2++ {
				r2 := rows[q2]
				f2 := ns.dsr[r] * ns.dsr[r2] / h
				ns.u2 = ns.u2[:0]
				ns.u2v = ns.u2v[:0]
				c1, v1 := p.G.Row(r)
				c2, v2 := p.G.Row(r2)
				for a, c := range c2 { // a_r·b_s
					if k := ns.bpos[c]; k >= 0 {
						ns.u2 = append(ns.u2, k)
						ns.u2v = append(ns.u2v, gv[q]*v2[a])
					}
				}
				for a, c := range c1 { // - a_s·b_r
					if k := ns.bpos[c]; k >= 0 {
						ns.u2 = append(ns.u2, k)
						ns.u2v = append(ns.u2v, -gv[q2]*v1[a])
					}
				}
				for a, ka := range ns.u2 {
					for b, kb := range ns.u2 {
						ns.S[ka*nb+kb] += f2 * ns.u2v[a] * ns.u2v[b]
					}
				}
			}
		}
		arows, av := ns.at.Row(j)
		for a, qa := range arows {
			f := av[a] / h
			for b, qb := range arows {
				ns.F[qa*ma+qb] += f * av[b]
			}
			for b, k := range idx {
				ns.E[qa*nb+k] -= f * hv[b]
			}
		}
	}
	for k, j := range ns.bvars {
		arows, av := ns.at.Row(j)
		for a, q := range arows {
			ns.E[q*nb+k] += av[a]
		}
	}
	if err := cholesky(ns.S, nb); err != nil {
		return err
	}
	// K = F + E·S⁻¹·Eᵀ.
	col := ns.u
	for q := 0; q < ma; q++ {
		for k := 0; k < nb; k++ {
			col[k] = ns.E[q*nb+k]
		}
		cholSolve(ns.S, nb, col)
		for k := 0; k < nb; k++ {
			ns.SiEt[k*ma+q] = col[k]
		}
	}
	copy(ns.K, ns.F)
	for q1 := 0; q1 < ma; q1++ {
		for q2 := 0; q2 < ma; q2++ {
			sum := 0.0
			for k := 0; k < nb; k++ {
				sum += ns.E[q1*nb+k] * ns.SiEt[k*ma+q2]
			}
			ns.K[q1*ma+q2] += sum
		}
	}
	return cholesky(ns.K, ma)
}

// solve sets (dx, dy) to the solution of H·dx - Aᵀ·dy = r1, A·dx = rp.
func (ns *newton) solve(r1, rp, dx, dy []float64) {
	nb, ma := ns.nb, ns.ma
	clear(ns.rhs1)
	copy(ns.rhs2, rp)
	for j := 0; j < ns.n; j++ {
		if k := ns.bpos[j]; k >= 0 {
			ns.rhs1[k] += r1[j]
			continue
		}
		t := r1[j] / ns.hd[j]
		ns.t[j] = t
		for a, k := range ns.hIdx[ns.hPtr[j]:ns.hPtr[j+1]] {
			ns.rhs1[k] -= ns.hVal[ns.hPtr[j]+a] * t
		}
		arows, av := ns.at.Row(j)
		for a, q := range arows {
			ns.rhs2[q] -= av[a] * t
		}
	}
	copy(ns.u, ns.rhs1)
	cholSolve(ns.S, nb, ns.u)
	for q := 0; q < ma; q++ {
		s := ns.rhs2[q]
		for k := 0; k < nb; k++ {
			s -= ns.E[q*nb+k] * ns.u[k]
		}
		dy[q] = s
	}
	cholSolve(ns.K, ma, dy)
	copy(ns.dxB, ns.rhs1)
	for k := 0; k < nb; k++ {
		s := 0.0
		for q := 0; q < ma; q++ {
			s += ns.E[q*nb+k] * dy[q]
		}
		ns.dxB[k] += s
	}
	cholSolve(ns.S, nb, ns.dxB)
	for j := 0; j < ns.n; j++ {
		if k := ns.bpos[j]; k >= 0 {
			dx[j] = ns.dxB[k]
			continue
		}
		v := r1[j]
		for a, k := range ns.hIdx[ns.hPtr[j]:ns.hPtr[j+1]] {
			v -= ns.hVal[ns.hPtr[j]+a] * ns.dxB[k]
		}
		arows, av := ns.at.Row(j)
		for a, q := range arows {
			v += av[a] * dy[q]
		}
		dx[j] = v / ns.hd[j]
	}
}

// solveRefined is solve followed by two steps of iterative refinement on
// the unreduced system, whose residual is formed from the sparse G and A:
// it recovers the digits the dense eliminations lose when the diagonal
// scalings spread over many orders of magnitude near the optimum.
func (ns *newton) solveRefined(r1, rp, dx, dy []float64) {
	ns.solve(r1, rp, dx, dy)
	for range 2 {
		// res1 = r1 - (H·dx - Aᵀ·dy), res2 = rp - A·dx.
		ns.p.G.MulVec(ns.gdx, dx)
		for i := range ns.gdx {
			ns.gdx[i] *= ns.dsr[i]
		}
		for j := range ns.res1 {
			ns.res1[j] = r1[j] - ns.dxd[j]*dx[j]
		}
		ns.p.G.MulTransVecAdd(ns.res1, -1, ns.gdx)
		ns.p.A.MulTransVecAdd(ns.res1, 1, dy)
		ns.p.A.MulVec(ns.res2, dx)
		for i := range ns.res2 {
			ns.res2[i] = rp[i] - ns.res2[i]
		}
		ns.solve(ns.res1, ns.res2, ns.cx, ns.cy)
		for j := range dx {
			dx[j] += ns.cx[j]
		}
		for i := range dy {
			dy[i] += ns.cy[i]
		}
	}
}

// direction computes the full search direction for the complementarity
// right-hand sides rxw (of x∘w) and rsz (of s∘z).
func (ns *newton) direction(rp, rg, rd, rxw, rsz, x, w, s, z, dx, dy, dz, dw, ds []float64) {
	// r1 = -rd - Gᵀ·S⁻¹(rsz - Z·rg) + X⁻¹·rxw
	r1 := ns.r1
	for i := range ds {
		ds[i] = (rsz[i] - z[i]*rg[i]) / s[i] // temporary use of ds
	}
	for j := range r1 {
		r1[j] = -rd[j] + rxw[j]/x[j]
	}
	ns.p.G.MulTransVecAdd(r1, -1, ds)
	ns.solveRefined(r1, rp, dx, dy)
	ns.p.G.MulVec(ds, dx)
	for i := range ds {
		ds[i] = rg[i] - ds[i]
		dz[i] = (rsz[i] - z[i]*ds[i]) / s[i]
	}
	for j := range dw {
		dw[j] = (rxw[j] - w[j]*dx[j]) / x[j]
	}
}

// cholesky factorises the symmetric positive definite n×n matrix a (row
// major) in place into its lower factor. A pivot that is not positive is
// replaced by a tiny multiple of the largest diagonal entry (the standard
// regularisation of interior-point normal equations, whose matrices
// become semidefinite in the limit); a matrix with no positive pivot at
// all is reported as singular.
func cholesky(a []float64, n int) error {
	if n == 0 {
		return nil
	}
	dmax := 0.0
	for i := 0; i < n; i++ {
		dmax = math.Max(dmax, a[i*n+i])
	}
	if !(dmax > 0) {
		return errSingular
	}
	floor := dmax * 1e-30
	for j := 0; j < n; j++ {
		d := a[j*n+j]
		for k := 0; k < j; k++ {
			d -= a[j*n+k] * a[j*n+k]
		}
		if !(d > floor) {
			d = math.Max(floor, dmax*1e-16)
		}
		d = math.Sqrt(d)
		a[j*n+j] = d
		for i := j + 1; i < n; i++ {
			v := a[i*n+j]
			for k := 0; k < j; k++ {
				v -= a[i*n+k] * a[j*n+k]
			}
			a[i*n+j] = v / d
		}
	}
	return nil
}

// cholSolve overwrites b with the solution of L·Lᵀ·x = b.
func cholSolve(l []float64, n int, b []float64) {
	for i := 0; i < n; i++ {
		v := b[i]
		for k := 0; k < i; k++ {
			v -= l[i*n+k] * b[k]
		}
		b[i] = v / l[i*n+i]
	}
	for i := n - 1; i >= 0; i-- {
		v := b[i]
		for k := i + 1; k < n; k++ {
			v -= l[k*n+i] * b[k]
		}
		b[i] = v / l[i*n+i]
	}
}
