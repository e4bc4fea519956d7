package mechanisms_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/mechanisms"
)

func ExampleNewPM() {
	m, err := mechanisms.NewPM(1)
	if err != nil {
		panic(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	lo, hi := m.OutputRange()
	fmt.Printf("output range [%.4f, %.4f]\n", lo, hi)
	for _, x := range []float64{-1, 0, 0.5} {
		fmt.Printf("x = %4.1f: report %7.4f, variance %.4f\n", x, m.Perturb(x, rng), m.Variance(x))
	}
	fmt.Printf("worst-case variance %.4f\n", m.WorstCaseVariance())
	// Output:
	// output range [-4.0830, 4.0830]
	// x = -1.0: report  1.3452, variance 5.2236
	// x =  0.0: report -0.2164, variance 3.6821
	// x =  0.5: report -2.1089, variance 4.0675
	// worst-case variance 5.2236
}

func ExampleNew() {
	m, err := mechanisms.New("duchi", 1)
	if err != nil {
		panic(err)
	}
	d := m.(mechanisms.Discrete)
	ps := make([]float64, 2)
	d.Probabilities(0.5, ps)
	fmt.Printf("outputs %.4f\n", d.Outputs())
	fmt.Printf("P[report | x = 0.5] = %.4f\n", ps)

	rng := rand.New(rand.NewPCG(1, 2))
	xs := []float64{-1, -0.5, 0, 0.5, 1}
	reports := make([]float64, len(xs))
	if err := m.PerturbBatch(reports, xs, rng); err != nil {
		panic(err)
	}
	fmt.Printf("reports %.4f\n", reports)

	_, err = mechanisms.New("duchi", 0)
	fmt.Println(err)
	// Output:
	// outputs [-2.1640 2.1640]
	// P[report | x = 0.5] = [0.3845 0.6155]
	// reports [-2.1640 -2.1640 -2.1640 2.1640 -2.1640]
	// duchi: parameter epsilon = 0: must be finite and > 0
}

func ExampleUnbiased() {
	sw, err := mechanisms.NewSquareWave(1)
	if err != nil {
		panic(err)
	}
	// SW takes s in [0, 1] and reports on [-b, 1+b], biased. As an Estimate
	// it takes x in [-1, 1] and returns unbiased estimates of x, with four
	// times the [0, 1] variance (ERRATA E4.5).
	u, err := mechanisms.Unbiased(sw)
	if err != nil {
		panic(err)
	}
	fmt.Printf("SW on [0, 1]: worst-case variance %.4f\n", sw.WorstCaseVariance())
	fmt.Printf("SW on [-1, 1]: worst-case variance %.4f\n", u.WorstCaseVariance())
	// Output:
	// SW on [0, 1]: worst-case variance 1.3790
	// SW on [-1, 1]: worst-case variance 5.5161
}
