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
