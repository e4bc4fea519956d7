package aaa_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/aaa"
)

// The noise programme for a uniform prior over the 17 grid points at
// ε = 2: its optimum, the size of the authors' formulation, and the exact
// ε of the released law.
func ExampleSolveNoise() {
	prior := make([]float64, 17)
	for i := range prior {
		prior[i] = 1
	}
	nz, err := aaa.SolveNoise(aaa.NoiseConfig{Eps: 2, Prior: prior})
	if err != nil {
		fmt.Println(err)
		return
	}
	m := aaa.NewPhase2(nz)
	fmt.Printf("%d variables, %d ratio rows, optimum %.4f, released ε ≤ 2: %v\n",
		nz.M*nz.N, nz.RatioRows, nz.Objective, m.AuditedEpsilon() <= 2*(1+1e-9))
	// Output: 2193 variables, 39440 ratio rows, optimum 0.7903, released ε ≤ 2: true
}

// One run of NP-AAA on 20,000 records (every record reports: dim 1).
func ExampleProtocol_Run() {
	xs := make([]float64, 20000)
	for i := range xs {
		xs[i] = -1 + 2*float64(i%100)/99 // mean 0
	}
	p, err := aaa.New(aaa.Config{Variant: aaa.NPAAA, Eps: 3}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := p.Run(context.Background(), xs, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("phase 1: %d reports, phase 2: %d; |estimate| < 0.05: %v\n", res.N1, res.N2, res.Estimate > -0.05 && res.Estimate < 0.05)
	// Output: phase 1: 2000 reports, phase 2: 18000; |estimate| < 0.05: true
}
