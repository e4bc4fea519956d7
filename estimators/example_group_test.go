package estimators_test

import (
	"fmt"

	"github.com/ldpbench/ldpbench/estimators"
)

// A collector has received n = 1000 reports (g′, v′) of Group Laplace over
// d = 3 groups, with ε1 = ln 8 for the group: GRR keeps the group with
// probability a = 8/(8 + 2) = 0.8 and reports each other group with
// q = 0.1; Laplace noise is unbiased, c = 1. Values range over [0, 100].
// The tally holds, per reported group, the raw count and the raw sum of
// the v′ on [−1, 1].
func ExampleGroupMeans() {
	const n, a, q, c = 1000, 0.8, 0.1, 1.0
	counts := []float64{520, 310, 170}
	sums := []float64{240, -84, 8}

	nHat := make([]float64, 3)
	sHat := make([]float64, 3)
	means := make([]float64, 3)
	estimators.GroupCounts(nHat, counts, n, a, q) // (C_g − n·q)/(a − q)
	estimators.GroupSums(sHat, sums, a, c)        // Sum_g/(a·c)
	estimators.GroupMeans(means, counts, nHat, sHat, 0, 100, estimators.GroupAsPrinted)
	for g := range means {
		fmt.Printf("group %d: n̂ = %.0f, ŝ = %.0f, mean %.1f\n", g, nHat[g], sHat[g], means[g])
	}
	// Output:
	// group 0: n̂ = 600, ŝ = 300, mean 75.0
	// group 1: n̂ = 300, ŝ = -105, mean 32.5
	// group 2: n̂ = 100, ŝ = 10, mean 55.0
}

// The as-printed ratio has no guard: a group whose count estimate comes out
// small gives a mean far outside the range (E2.13). The robust mode floors
// n̂ at 1 and clips the mean to [lo, hi].
func ExampleGroupMean() {
	count, nHat, sHat := 3.0, 0.5, 2.0 // few reports; n̂ close to 0
	fmt.Println(estimators.GroupMean(count, nHat, sHat, 0, 100, estimators.GroupAsPrinted))
	fmt.Println(estimators.GroupMean(count, nHat, sHat, 0, 100, estimators.GroupRobust))
	fmt.Println(estimators.GroupMean(0, -12.5, 0, 0, 100, estimators.GroupAsPrinted)) // no report: the midpoint
	// Output:
	// 250
	// 100
	// 50
}

// The delta-method theory of one group of Group Piecewise at ε = 4 split
// evenly (ε1 = ε2 = 2), d = 2, on the Constant dataset of the paper's
// Table 3: 10,000 users per group, every value at 1/3 on [−1, 1].
func ExampleGroupTheory() {
	a, q := 0.8807970779778824, 0.11920292202211755 // GRR at ε1 = 2, d = 2
	m2 := func(u float64) float64 {                 // Piecewise's E[v′² | u] at ε2 = 2
		z := 2.718281828459045 // e^{ε2/2}
		return u*u + u*u/(z-1) + (z+3)/(3*(z-1)*(z-1))
	}
	values := make([]float64, 10000)
	for i := range values {
		values[i] = 1.0 / 3
	}
	th, err := estimators.NewGroupTheory(20000, a, q, 1, values, m2, m2(0))
	if err != nil {
		panic(err)
	}
	fmt.Printf("CV(n̂) = %.4f\n", th.CVCount())
	fmt.Printf("expected scaled absolute error %.3e (std %.3e)\n", th.MeanAbsScaledError(), th.StdAbsScaledError())
	fmt.Printf("group error ratio %.4f ± %.4f\n", th.GroupErrorRatio(), th.GroupErrorRatioStd())
	// Output:
	// CV(n̂) = 0.0060
	// expected scaled absolute error 3.839e-03 (std 2.900e-03)
	// group error ratio 0.1192 ± 0.0023
}
