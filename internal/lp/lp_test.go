package lp

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomProblem returns a feasible, bounded LP (c > 0, x ≥ 0) with ma
// equality and mg inequality rows of density dens, feasible at a random
// positive x0 with random positive slack.
func randomProblem(rng *rand.Rand, n, ma, mg int, dens float64) *Problem {
	x0 := make([]float64, n)
	for j := range x0 {
		x0[j] = rng.Float64()
	}
	c := make([]float64, n)
	for j := range c {
		c[j] = 0.1 + rng.Float64()
	}
	build := func(m int, cover bool) (*Sparse, []float64) {
		var t []Triplet
		for j := 0; cover && j < n; j++ { // no empty columns (gonum's simplex refuses them)
			t = append(t, Triplet{rng.IntN(m), j, rng.NormFloat64()})
		}
		for i := 0; i < m; i++ {
			t = append(t, Triplet{i, rng.IntN(n), rng.NormFloat64()}) // no empty rows
			for j := 0; j < n; j++ {
				if rng.Float64() < dens {
					t = append(t, Triplet{i, j, rng.NormFloat64()})
				}
			}
		}
		s, err := NewSparse(m, n, t)
		if err != nil {
			panic(err)
		}
		r := make([]float64, m)
		s.MulVec(r, x0)
		return s, r
	}
	a, b := build(ma, mg == 0)
	g, h := build(mg, mg > 0)
	for i := range h {
		h[i] += rng.Float64()
	}
	return &Problem{C: c, A: a, B: b, G: g, H: h}
}

// denseReference solves p with gonum's dense simplex on the standard form
// [A 0; G I]·[x; s] = [b; h], x, s ≥ 0: an independent solver.
func denseReference(t testing.TB, p *Problem) float64 {
	t.Helper()
	opt, ok := simplexOptimum(p)
	if !ok {
		t.Fatal("gonum simplex refused the programme")
	}
	return opt
}

// TestSolveMatchesDenseSimplex: on random sparse LPs of several shapes
// (more inequality rows than variables, as in the AAA programme; few;
// equality-heavy), the interior point's optimum equals gonum's dense
// simplex to 1e-8 relative, and its certificate passes. A sign error in
// the dual update, a wrong Schur complement, or a wrong partition of
// the variables would leave a gap or a wrong optimum.
func TestSolveMatchesDenseSimplex(t *testing.T) {
	cases := []struct {
		n, ma, mg int
		dens      float64
	}{
		{10, 2, 30, 0.1},
		{25, 3, 80, 0.08},
		{40, 10, 10, 0.2},
		{30, 0, 60, 0.1},
		{15, 5, 0, 0.5},
		{60, 6, 150, 0.03},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range cases {
		for rep := 0; rep < 3; rep++ {
			p := randomProblem(rng, tc.n, tc.ma, tc.mg, tc.dens)
			sol, err := Solve(p, nil)
			if err != nil {
				t.Fatalf("%+v rep %d: %v (cert %+v)", tc, rep, err, sol.Cert)
			}
			ref := denseReference(t, p)
			if d := math.Abs(sol.Cert.Primal-ref) / (1 + math.Abs(ref)); d > 1e-8 {
				t.Errorf("%+v rep %d: optimum %.12g, gonum simplex %.12g (rel %.2g)", tc, rep, sol.Cert.Primal, ref, d)
			}
		}
	}
}

// TestCheckRejects: the certificate fails for a point that is feasible but
// not optimal (gap), for a perturbed primal (row violation), and for a
// dual with a wrong sign; a checker that only echoed the solver's own
// residuals, or ignored the sign of z, would pass them.
func TestCheckRejects(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := randomProblem(rng, 20, 3, 40, 0.15)
	sol, err := Solve(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	clone := func(v []float64) []float64 { return append([]float64(nil), v...) }
	// Primal moved along a row of A: equality violated.
	x := clone(sol.X)
	x[0] += 1e-6
	if Check(p, x, sol.Y, sol.Z, sol.W).OK(nil) == nil {
		t.Error("a primal off by 1e-6 passed")
	}
	// Duals halved: dual residual.
	y := clone(sol.Y)
	for i := range y {
		y[i] *= 0.5
	}
	if Check(p, sol.X, y, sol.Z, sol.W).OK(nil) == nil && len(y) > 0 {
		t.Error("halved equality multipliers passed")
	}
	// A negative z.
	z := clone(sol.Z)
	z[0] = -1e-6
	if Check(p, sol.X, sol.Y, z, sol.W).OK(nil) == nil {
		t.Error("a negative inequality multiplier passed")
	}
}

// TestInfeasible: x0 + x1 = -1 with x ≥ 0 has no solution; Solve must
// return an error, never a "solution".
func TestInfeasible(t *testing.T) {
	A, _ := NewSparse(1, 2, []Triplet{{0, 0, 1}, {0, 1, 1}})
	_, err := Solve(&Problem{C: []float64{1, 1}, A: A, B: []float64{-1}}, nil)
	if err == nil {
		t.Fatal("infeasible programme solved")
	}
}

// TestBadInput: dimensions and non-finite data are refused with the name
// of what is wrong.
func TestBadInput(t *testing.T) {
	A, _ := NewSparse(1, 2, []Triplet{{0, 0, 1}})
	for _, tc := range []struct {
		p    *Problem
		want string
	}{
		{&Problem{}, "no variables"},
		{&Problem{C: []float64{1, math.NaN()}}, "c[1]"},
		{&Problem{C: []float64{1, 1, 1}, A: A, B: []float64{1}}, "columns"},
		{&Problem{C: []float64{1, 1}, A: A}, "right-hand side"},
	} {
		if _, err := Solve(tc.p, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one naming %q", tc.p, err, tc.want)
		}
	}
	if _, err := NewSparse(2, 2, []Triplet{{2, 0, 1}}); err == nil {
		t.Error("entry outside the matrix accepted")
	}
}
