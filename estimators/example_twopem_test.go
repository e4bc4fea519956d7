package estimators_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// 2PEM on the reports of 100,000 HM-NP users whose values are all in the
// upper half of [-1, 1]: the estimated histogram over 8 bins puts almost
// all its mass there.
func ExampleTwoPEM() {
	const eps = 3.0
	hm, _ := mechanisms.NewHMNP(eps)
	rng := rand.New(rand.NewPCG(1, 2))
	var pmSub, nout []float64
	for range 100000 {
		x := 0.25 + 0.5*rng.Float64()
		if rng.Float64() < hm.Alpha() {
			nout = append(nout, hm.NOutput().Perturb(x, rng))
		} else {
			pmSub = append(pmSub, hm.PMSub().Perturb(x, rng))
		}
	}
	res, err := estimators.TwoPEM(context.Background(), pmSub, nout, eps, hm, estimators.TwoPEMConfig{D: 8})
	if err != nil {
		panic(err)
	}
	upper := res.Hist[5] + res.Hist[6]
	fmt.Printf("d̃ = %d PM-SUB buckets; mass on [0.25, 0.75]: %.2f\n", res.DTilde, upper)
	// Output:
	// d̃ = 11 PM-SUB buckets; mass on [0.25, 0.75]: 0.97
}

// The exact transition matrix of Square Wave over 16 input bins and its
// 1024 default output buckets: every column sums to 1.
func ExampleNewHistTransition() {
	sw, _ := mechanisms.NewSquareWave(1)
	tr, _ := estimators.NewHistTransition(sw, 16, estimators.TransitionOptions{})
	T := tr.Dense()
	var col0 float64
	for j := range tr.Rows {
		col0 += T[j*tr.D]
	}
	fmt.Printf("%d rows, column 0 sums to %.12f\n", tr.Rows, col0)
	// Output:
	// 1024 rows, column 0 sums to 1.000000000000
}
