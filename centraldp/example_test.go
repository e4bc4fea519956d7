package centraldp_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/centraldp"
)

// One private release of a dataset's mean by Algorithm 3 with hourglass
// noise, and the theory it is measured against.
func ExampleNewEstimator() {
	const eps = 1.0
	e, err := centraldp.NewEstimator("central-alg3-hg", eps, centraldp.Options{L: 0, U: 1})
	if err != nil {
		panic(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	// A dataset of 10,000 values in [0, 1] whose sum is 2,500: the
	// estimator sees only (n, Σx).
	n, sum := 10000, 2500.0
	mse := 0.0
	const runs = 100000
	for range runs {
		d := e.Estimate(n, sum, rng) - sum/float64(n)
		mse += d * d / runs
	}
	lc, _ := centraldp.LeadingConstant("central-alg3-hg", eps, 0.25, centraldp.Options{})
	fmt.Printf("normalised MSE %.2f, theory %.3f, minimax lower bound %.3f\n",
		mse*float64(n*n)*eps*eps/2, lc, centraldp.LowerBound(eps))
	// Output: normalised MSE 0.60, theory 0.599, minimax lower bound 0.959
}

// The staircase at its MSE-optimal step has variance σ²(ε), eq. (2).
func ExampleGammaStar() {
	for _, eps := range []float64{0.1, 1, 4} {
		s, _ := centraldp.NewStaircase(eps, centraldp.GammaStar(eps), 1)
		fmt.Printf("ε = %g: γ* = %.4f, E[X²] = %.6g, σ²(ε) = %.6g\n", eps, centraldp.GammaStar(eps), s.SecondMoment(), centraldp.SigmaSq(eps))
	}
	// Output:
	// ε = 0.1: γ* = 0.4917, E[X²] = 199.917, σ²(ε) = 199.917
	// ε = 1: γ* = 0.4167, E[X²] = 1.9181, σ²(ε) = 1.9181
	// ε = 4: γ* = 0.1958, E[X²] = 0.0649788, σ²(ε) = 0.0649788
}

// The hourglass's two coordinates sum to an integer multiple of Δ, and
// its line index K is returned exactly.
func ExampleHourglass_Sample() {
	h, _ := centraldp.NewHourglass(2, centraldp.GammaStar(2), 1)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 3 {
		z1, z2, k := h.Sample(rng)
		fmt.Printf("K = %2d, Z1 + Z2 = %.0f\n", k, z1+z2)
	}
	// Output:
	// K = -1, Z1 + Z2 = -1
	// K =  0, Z1 + Z2 = 0
	// K =  0, Z1 + Z2 = 0
}

// The 2-D staircase's optimal step has no closed form (E1.13); at large ε
// it approaches e^{−ε/4}, and its variance exceeds the hourglass's σ²(ε).
func ExampleStaircase2DGamma() {
	for _, eps := range []float64{1, 4, 10} {
		g := centraldp.Staircase2DGamma(eps)
		s, _ := centraldp.NewStaircase2D(eps, g, 1)
		fmt.Printf("ε = %g: γ̃* = %.4f, σ̃²/σ² = %.3f\n", eps, g, s.SecondMoment()/centraldp.SigmaSq(eps))
	}
	// Output:
	// ε = 1: γ̃* = 0.6975, σ̃²/σ² = 1.035
	// ε = 4: γ̃* = 0.3905, σ̃²/σ² = 1.398
	// ε = 10: γ̃* = 0.0850, σ̃²/σ² = 3.113
}

// Leading-order normalised MSE n²ε²·MSE/(2w²) of the three Laplace
// algorithms at the centre of [0, 1] (docs/central.md, "Leading-order
// constants").
func ExampleLeadingConstant() {
	for _, name := range []string{"central-alg1", "central-alg2", "central-alg3-lap"} {
		c, _ := centraldp.LeadingConstant(name, 1, 0.5, centraldp.Options{})
		fmt.Printf("%s: %g\n", name, c)
	}
	// Output:
	// central-alg1: 5
	// central-alg2: 1
	// central-alg3-lap: 0.5
}

// How often Algorithm 3 with hourglass noise meets a zero denominator
// n + K = 0 (E1.17) on the small datasets of App. H at ε = 4.
func ExampleHourglass_LineProb() {
	const eps = 4.0
	h, err := centraldp.NewHourglass(eps, centraldp.GammaStar(eps), 1)
	if err != nil {
		panic(err)
	}
	for _, n := range []int{1, 2, 4} {
		fmt.Printf("|D| = %d: P(n + K = 0) = %.3g\n", n, h.LineProb(-n))
	}
	// Output:
	// |D| = 1: P(n + K = 0) = 0.0573
	// |D| = 2: P(n + K = 0) = 0.0018
	// |D| = 4: P(n + K = 0) = 1.11e-06
}
