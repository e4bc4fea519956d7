package lp_test

import (
	"fmt"

	"github.com/ldpbench/ldpbench/internal/lp"
)

// Minimise -x0 - 2·x1 subject to x0 + x1 ≤ 4, x0 + 3·x1 ≤ 6, x ≥ 0: the
// optimum is at the vertex (3, 1) with value -5.
func ExampleSolve() {
	G, _ := lp.NewSparse(2, 2, []lp.Triplet{{0, 0, 1}, {0, 1, 1}, {1, 0, 1}, {1, 1, 3}})
	p := &lp.Problem{C: []float64{-1, -2}, G: G, H: []float64{4, 6}}
	sol, err := lp.Solve(p, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("x = (%.6f, %.6f), optimum %.6f, gap below 1e-8: %v\n", sol.X[0], sol.X[1], sol.Cert.Primal, sol.Cert.RelGap <= 1e-8)
	// Output: x = (3.000000, 1.000000), optimum -5.000000, gap below 1e-8: true
}

// The same programme with the equality row 1e6·x0 + x1 = 2e6 added, a
// row a million times the scale of the others. Each row is judged
// against its own scale (see the package documentation), so the row is
// held to 1e-9 of its largest term, as the row x0 + 1e-6·x1 = 2 would
// be: the optimum moves to x1 = 4/(3 - 1e-6), x0 = 2 - 1e-6·x1.
func ExampleSolve_scaled() {
	G, _ := lp.NewSparse(2, 2, []lp.Triplet{{0, 0, 1}, {0, 1, 1}, {1, 0, 1}, {1, 1, 3}})
	A, _ := lp.NewSparse(1, 2, []lp.Triplet{{0, 0, 1e6}, {0, 1, 1}})
	p := &lp.Problem{C: []float64{-1, -2}, A: A, B: []float64{2e6}, G: G, H: []float64{4, 6}}
	sol, err := lp.Solve(p, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("x = (%.9f, %.9f), optimum %.9f, row violation below 1e-9 of its scale: %v\n", sol.X[0], sol.X[1], sol.Cert.Primal, sol.Cert.EqViolation <= 1e-9)
	// Output: x = (1.999998667, 1.333333778), optimum -4.666666222, row violation below 1e-9 of its scale: true
}
