package lp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	gonumlp "gonum.org/v1/gonum/optimize/convex/lp"
)

// simplexOptimum solves the programme as gonum's dense simplex sees it,
// [A 0; G I]·[x; s] = [b; h], x, s ≥ 0, and reports a refusal (a singular
// initial basis) instead of failing the test.
func simplexOptimum(p *Problem) (opt float64, ok bool) {
	n := len(p.C)
	ma, _ := p.A.Dims()
	mg, _ := p.G.Dims()
	A := mat.NewDense(ma+mg, n+mg, nil)
	b := make([]float64, ma+mg)
	for i := 0; i < ma; i++ {
		cols, vals := p.A.Row(i)
		for k, c := range cols {
			A.Set(i, c, vals[k])
		}
		b[i] = p.B[i]
	}
	for i := 0; i < mg; i++ {
		cols, vals := p.G.Row(i)
		for k, c := range cols {
			A.Set(ma+i, c, vals[k])
		}
		A.Set(ma+i, n+i, 1)
		b[ma+i] = p.H[i]
	}
	c := append(append([]float64(nil), p.C...), make([]float64, mg)...)
	opt, _, err := gonumlp.Simplex(c, A, b, 1e-10, nil)
	return opt, err == nil
}

// denseOf returns m as a gonum dense matrix (rows×n; nil for no rows).
func denseOf(m *Sparse, n int) *mat.Dense {
	r, _ := m.Dims()
	if r == 0 {
		return nil
	}
	d := mat.NewDense(r, n, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < n; j++ {
			d.Set(i, j, m.At(i, j))
		}
	}
	return d
}

// independentCert is the certificate of the package documentation
// written again from its definition, on dense gonum matrices, without
// Check, rowViolation or any sparse product of the package: every row of
// A·x = b and G·x ≤ h within FeasTol of its scale max_j |a_ij|·max(1,
// |x_j|) (1 for an empty row), x, z, w ≥ -FeasTol, the dual residual
// ‖c - Aᵀy + Gᵀz - w‖∞ ≤ GapTol·(1 + ‖c‖∞), and the duality gap
// |cᵀx - (bᵀy - hᵀz)| ≤ GapTol·(1 + |cᵀx|). It returns "" when all hold,
// else the first that fails.
func independentCert(p *Problem, s *Solution, feasTol, gapTol float64) string {
	n := len(p.C)
	x := mat.NewVecDense(n, append([]float64(nil), s.X...))
	rows := func(name string, m *Sparse, rhs []float64, eq bool) string {
		d := denseOf(m, n)
		if d == nil {
			return ""
		}
		r, _ := d.Dims()
		ax := mat.NewVecDense(r, nil)
		ax.MulVec(d, x)
		for i := 0; i < r; i++ {
			scale := 0.0
			for j := 0; j < n; j++ {
				scale = math.Max(scale, math.Abs(d.At(i, j))*math.Max(1, math.Abs(s.X[j])))
			}
			if scale == 0 {
				scale = 1
			}
			v := (ax.AtVec(i) - rhs[i]) / scale
			if eq {
				v = math.Abs(v)
			}
			if !(v <= feasTol) {
				return fmt.Sprintf("%s row %d violated by %.3g of its scale", name, i, v)
			}
		}
		return ""
	}
	if why := rows("A", p.A, p.B, true); why != "" {
		return why
	}
	if why := rows("G", p.G, p.H, false); why != "" {
		return why
	}
	for name, v := range map[string][]float64{"x": s.X, "z": s.Z, "w": s.W} {
		for i, e := range v {
			if !(e >= -feasTol) {
				return fmt.Sprintf("%s[%d] = %.3g", name, i, e)
			}
		}
	}
	r := mat.NewVecDense(n, append([]float64(nil), p.C...))
	if d := denseOf(p.A, n); d != nil {
		aty := mat.NewVecDense(n, nil)
		aty.MulVec(d.T(), mat.NewVecDense(len(s.Y), append([]float64(nil), s.Y...)))
		r.SubVec(r, aty)
	}
	if d := denseOf(p.G, n); d != nil {
		gtz := mat.NewVecDense(n, nil)
		gtz.MulVec(d.T(), mat.NewVecDense(len(s.Z), append([]float64(nil), s.Z...)))
		r.AddVec(r, gtz)
	}
	r.SubVec(r, mat.NewVecDense(n, append([]float64(nil), s.W...)))
	if res := mat.Norm(r, math.Inf(1)) / (1 + mat.Norm(mat.NewVecDense(n, append([]float64(nil), p.C...)), math.Inf(1))); !(res <= gapTol) {
		return fmt.Sprintf("relative dual residual %.3g", res)
	}
	primal := mat.Dot(mat.NewVecDense(n, append([]float64(nil), p.C...)), x)
	dual := 0.0
	for i, v := range p.B {
		dual += v * s.Y[i]
	}
	for i, v := range p.H {
		dual -= v * s.Z[i]
	}
	if g := math.Abs(primal-dual) / (1 + math.Abs(primal)); !(g <= gapTol) {
		return fmt.Sprintf("relative duality gap %.3g", g)
	}
	return ""
}

// scaleRows returns p with row i of A (and of G) and its right-hand side
// multiplied by 10^u, u uniform on [lo, hi]: the same feasible set and
// optimum, rows of very different magnitudes.
func scaleRows(rng *rand.Rand, p *Problem, lo, hi float64) *Problem {
	sc := func(m *Sparse, rhs []float64) (*Sparse, []float64) {
		r, c := m.Dims()
		if m == nil {
			return nil, nil
		}
		var t []Triplet
		b := make([]float64, r)
		for i := 0; i < r; i++ {
			f := math.Pow(10, lo+(hi-lo)*rng.Float64())
			cols, vals := m.Row(i)
			for k, j := range cols {
				t = append(t, Triplet{i, j, vals[k] * f})
			}
			b[i] = rhs[i] * f
		}
		s, err := NewSparse(r, c, t)
		if err != nil {
			panic(err)
		}
		return s, b
	}
	q := &Problem{C: p.C}
	q.A, q.B = sc(p.A, p.B)
	q.G, q.H = sc(p.G, p.H)
	return q
}

// infeasible returns p with an extra equality row Σ_j u_j·x_j = -1,
// u_j ∈ [0.5, 1.5): x ≥ 0 makes its left side ≥ 0, so every x violates it
// by at least 1/1.5 of its scale.
func infeasible(rng *rand.Rand, p *Problem) *Problem {
	n := len(p.C)
	ma, _ := p.A.Dims()
	var t []Triplet
	for i := 0; i < ma; i++ {
		cols, vals := p.A.Row(i)
		for k, j := range cols {
			t = append(t, Triplet{i, j, vals[k]})
		}
	}
	for j := 0; j < n; j++ {
		t = append(t, Triplet{ma, j, 0.5 + rng.Float64()})
	}
	a, err := NewSparse(ma+1, n, t)
	if err != nil {
		panic(err)
	}
	return &Problem{C: p.C, A: a, B: append(append([]float64(nil), p.B...), -1), G: p.G, H: p.H}
}

// unbounded returns p with an extra variable of cost -1 that appears in
// no row: the objective falls without bound along it, and every dual
// pair has residual r_j = -1 - w_j ≤ -1 in its column.
func unbounded(p *Problem) *Problem {
	n := len(p.C)
	widen := func(m *Sparse) *Sparse {
		r, _ := m.Dims()
		if m == nil {
			return nil
		}
		var t []Triplet
		for i := 0; i < r; i++ {
			cols, vals := m.Row(i)
			for k, j := range cols {
				t = append(t, Triplet{i, j, vals[k]})
			}
		}
		s, err := NewSparse(r, n+1, t)
		if err != nil {
			panic(err)
		}
		return s
	}
	return &Problem{C: append(append([]float64(nil), p.C...), -1), A: widen(p.A), B: p.B, G: widen(p.G), H: p.H}
}

// TestSolveErrorAgreesWithCertificate: over random programmes — feasible,
// feasible with rows scaled by 10^±6, infeasible and unbounded — and
// random options (tolerances from far tighter than the stopping rule's
// 1e-11 to looser than the defaults, iteration caps from 1), Solve's error
// is nil exactly when an independent checker (independentCert, not
// Check) accepts the returned pair under the same tolerances, and a
// non-nil error wraps ErrNotConverged. Catches: returning at the stopping
// rule without the certificate (a FeasTol below 1e-11 is then claimed),
// keeping a best iterate that was not certified, an error for a last
// iterate that does meet the certificate, and a certificate computed on
// the equilibrated problem or with unrescaled multipliers. The checker
// sums in another order than Check, so the two could disagree only on a
// measure within a few ulps of its tolerance; the seed is fixed.
func TestSolveErrorAgreesWithCertificate(t *testing.T) {
	shapes := []struct {
		n, ma, mg int
		dens      float64
	}{
		{10, 2, 30, 0.1}, {25, 3, 80, 0.08}, {40, 10, 10, 0.2}, {30, 0, 60, 0.1}, {15, 5, 0, 0.5},
	}
	rng := rand.New(rand.NewPCG(7, 8))
	count := map[string]int{}
	for k := 0; k < 400; k++ {
		sh := shapes[rng.IntN(len(shapes))]
		p := randomProblem(rng, sh.n, sh.ma, sh.mg, sh.dens)
		kind := []string{"feasible", "scaled", "infeasible", "unbounded"}[rng.IntN(4)]
		switch kind {
		case "scaled":
			p = scaleRows(rng, p, -6, 6)
		case "infeasible":
			p = infeasible(rng, p)
		case "unbounded":
			p = unbounded(p)
		}
		var opt *Options
		feasTol, gapTol := 1e-9, 1e-8
		if rng.IntN(2) == 0 {
			feasTol, gapTol = math.Pow(10, -14+8*rng.Float64()), math.Pow(10, -12+7*rng.Float64())
			opt = &Options{FeasTol: feasTol, GapTol: gapTol}
			if rng.IntN(2) == 0 {
				opt.MaxIter = 1 + rng.IntN(30)
			}
		}
		sol, err := Solve(p, opt)
		why := independentCert(p, sol, feasTol, gapTol)
		if (err == nil) != (why == "") {
			t.Errorf("case %d (%s %+v, options %+v): Solve error %v, independent certificate %q", k, kind, sh, opt, err, why)
		}
		if err != nil && !errors.Is(err, ErrNotConverged) {
			t.Errorf("case %d: error %v does not wrap ErrNotConverged", k, err)
		}
		if err == nil && (kind == "infeasible" || kind == "unbounded") {
			t.Errorf("case %d: %s programme solved", k, kind)
		}
		if err == nil {
			count[kind+" solved"]++
		} else {
			count[kind+" refused"]++
		}
	}
	t.Logf("%v", count)
	// Both outcomes must occur for the feasible kinds, or the agreement
	// would be checked on one side only.
	for _, k := range []string{"feasible solved", "feasible refused", "scaled solved", "scaled refused", "infeasible refused", "unbounded refused"} {
		if count[k] < 5 {
			t.Errorf("only %d cases %s: the test no longer covers it", count[k], k)
		}
	}
}

// TestSolveRowScaled: every random programme of these shapes solves at
// the default options both as drawn and with each row (and its
// right-hand side) multiplied by 10^u, u uniform on [-6, 6], and the two
// optima agree with gonum's dense simplex to 1e-8 relative (the
// certificate's gap), or with each other where the simplex refuses the
// programme. Catches a certificate or stopping rule that judges
// rows absolutely or against the largest right-hand side (the solver
// then gives up on most scaled equality-heavy programmes, as it did
// before rows were judged on their own scale), equilibration that
// forgets to rescale the multipliers (the dual residual on the programme
// as given fails), and a scaling that changes the optimum.
func TestSolveRowScaled(t *testing.T) {
	shapes := []struct {
		n, ma, mg int
		dens      float64
	}{
		{10, 2, 30, 0.1}, {25, 3, 80, 0.08}, {30, 0, 60, 0.1}, {15, 5, 0, 0.5}, {40, 10, 10, 0.2},
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for _, sh := range shapes {
		for rep := 0; rep < 20; rep++ {
			p := randomProblem(rng, sh.n, sh.ma, sh.mg, sh.dens)
			ref, ok := simplexOptimum(p)
			for _, q := range []*Problem{p, scaleRows(rng, p, -6, 6)} {
				sol, err := Solve(q, nil)
				if err != nil {
					t.Errorf("%+v rep %d (scaled %v): %v", sh, rep, q != p, err)
					continue
				}
				if why := independentCert(q, sol, 1e-9, 1e-8); why != "" {
					t.Errorf("%+v rep %d: certified by Solve, not by the independent checker: %s", sh, rep, why)
				}
				if !ok {
					ref, ok = sol.Cert.Primal, true // gonum refused (a singular basis): compare scaled with unscaled
				}
				if d := math.Abs(sol.Cert.Primal-ref) / (1 + math.Abs(ref)); d > 1e-8 {
					t.Errorf("%+v rep %d (scaled %v): optimum %.12g, gonum simplex %.12g (rel %.2g)", sh, rep, q != p, sol.Cert.Primal, ref, d)
				}
			}
		}
	}
}

// scaledExample is the programme of ExampleSolve with the equality row
// k·x0 + k·1e-6·x1 = 2k added: for every k > 0 the optimum is at
// x1 = 4/(3 - 1e-6) (where x0 + 3·x1 ≤ 6 meets the row), x0 = 2 - 1e-6·x1.
func scaledExample(k float64) *Problem {
	G, _ := NewSparse(2, 2, []Triplet{{0, 0, 1}, {0, 1, 1}, {1, 0, 1}, {1, 1, 3}})
	A, _ := NewSparse(1, 2, []Triplet{{0, 0, k}, {0, 1, k * 1e-6}})
	return &Problem{C: []float64{-1, -2}, A: A, B: []float64{2 * k}, G: G, H: []float64{4, 6}}
}

// TestSolveScaledExample: the row 1e6·x0 + x1 = 2e6 beside rows of unit
// scale (which the solver once gave up on, its absolute certificate
// asking 1e-9 of a row that rounds by 2e-10), and the same row divided by
// 1e6 or multiplied by up to 1e9 more, all solve to the same point: the
// analytic vertex to 1e-9 and its value to 1e-9 relative (the vertex is
// non-degenerate with unit-scale reduced costs, so the certificate's
// 1e-8 gap leaves x within about that of the vertex; the measured error
// is below 1e-9). Catches a row judged absolutely, a scale applied to the
// row but not to its right-hand side, and multipliers left unrescaled.
func TestSolveScaledExample(t *testing.T) {
	x1 := 4 / (3 - 1e-6)
	x0 := 2 - 1e-6*x1
	opt := -x0 - 2*x1
	for _, k := range []float64{1, 1e6, 1e-6, 1e9, 1e15, 1e-12} {
		p := scaledExample(k)
		sol, err := Solve(p, nil)
		if err != nil {
			t.Errorf("k = %g: %v", k, err)
			continue
		}
		if why := independentCert(p, sol, 1e-9, 1e-8); why != "" {
			t.Errorf("k = %g: independent certificate: %s", k, why)
		}
		if math.Abs(sol.X[0]-x0) > 1e-9 || math.Abs(sol.X[1]-x1) > 1e-9 || math.Abs(sol.Cert.Primal-opt) > 1e-9*(1+math.Abs(opt)) {
			t.Errorf("k = %g: x = (%.12g, %.12g), optimum %.12g; want (%.12g, %.12g), %.12g", k, sol.X[0], sol.X[1], sol.Cert.Primal, x0, x1, opt)
		}
		// The equality row's multiplier scales as 1/k: from the two
		// active rows, k·y·(3 - 1e-6) = -1 for every k; the dual
		// residual's 1e-8 bounds its error.
		if want := -1 / (3 - 1e-6); math.Abs(sol.Y[0]*k-want) > 1e-7 {
			t.Errorf("k = %g: y·k = %.12g, want %.12g", k, sol.Y[0]*k, want)
		}
	}
}

// TestSolveIterationCap reaches every way Solve can end early. For
// random programmes (a third of them row-scaled), every iteration cap
// from 1 to 30 and five sets of tolerances (the defaults; loose ones the
// last iterate meets before the stopping rule's 1e-11; a FeasTol the
// stopping rule does not imply; a GapTol of 1e-14, whose decade-inside
// target rounding denies, so that a certified iterate in (0.1, 0.5]·GapTol
// is kept while the iterations go on; both), Solve's error must agree
// with the independent checker, and each early ending must occur: the
// best certified iterate returned from an earlier iteration, the last
// iterate returned as certified, and an error. (A return with
// max(dual residual, gap) above 0.1·GapTol is not the stopping rule's:
// it is the best iterate when it comes from before the cap, the last
// when from the cap.) Catches failed() returning its best iterate, or
// keeping one, without the certificate, and failed() giving an error for
// a last iterate that meets the certificate, or none for one that does
// not.
func TestSolveIterationCap(t *testing.T) {
	tols := []Options{{}, {FeasTol: 1e-6, GapTol: 1e-5}, {FeasTol: 1e-13}, {GapTol: 1e-14}, {FeasTol: 1e-13, GapTol: 1e-14}}
	rng := rand.New(rand.NewPCG(13, 14))
	var best, last, refused int
	for rep := 0; rep < 12; rep++ {
		p := randomProblem(rng, 25, 3, 60, 0.1)
		if rep%3 == 2 {
			p = scaleRows(rng, p, -6, 6)
		}
		for _, tol := range tols {
			for k := 1; k <= 30; k++ {
				o := tol
				o.MaxIter = k
				sol, err := Solve(p, &o)
				ft, gt := o.defaults().FeasTol, o.defaults().GapTol
				why := independentCert(p, sol, ft, gt)
				if (err == nil) != (why == "") {
					t.Errorf("rep %d, options %+v: Solve error %v, independent certificate %q", rep, o, err, why)
				}
				switch {
				case err != nil:
					refused++
				case math.Max(sol.Cert.DualResidual, sol.Cert.RelGap) <= 0.1*gt:
					// the stopping rule's iterate
				case sol.Iterations < k:
					best++
				default:
					last++
				}
			}
		}
	}
	t.Logf("best certified iterate returned %d times, last iterate %d, refused %d", best, last, refused)
	if best == 0 || last == 0 || refused == 0 {
		t.Errorf("an early ending was not reached (best %d, last %d, refused %d)", best, last, refused)
	}
}
