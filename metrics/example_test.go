package metrics_test

import (
	"fmt"
	"math"

	"github.com/ldpbench/ldpbench/metrics"
)

// The RMSE is formed at summary time from the per-trial squared errors, not
// as the mean of per-trial absolute errors.
func ExampleSquaredError() {
	truth := 0.2
	estimates := []float64{0.1, 0.5, 0.2} // one per trial
	var sq []float64
	var meanAbs float64
	for _, est := range estimates {
		sq = append(sq, metrics.SquaredError(est, truth))
		meanAbs += metrics.AbsError(est, truth) / float64(len(estimates))
	}
	fmt.Printf("RMSE %.4f, mean absolute error %.4f\n", metrics.RMSE(sq), meanAbs)
	// Output:
	// RMSE 0.1826, mean absolute error 0.1333
}

func ExampleScaledAbsError() {
	// Error relative to the width of the domain [−1, 1], and relative error.
	fmt.Printf("%.2f\n", metrics.ScaledAbsError(0.3, 0.2, 2))
	fmt.Printf("%.2f\n", metrics.ScaledAbsError(0.3, 0.2, 0.2))
	fmt.Println(metrics.ScaledAbsError(0.3, 0, 0)) // |truth| = 0
	// Output:
	// 0.05
	// 0.50
	// NaN
}

// Wasserstein1 is the distance between the distributions on the data domain.
// The authors' quantity (ERRATA E0.2) compares only the sorted bin heights and
// cannot see that the mass has moved.
func ExampleWasserstein1() {
	// 4 bins on [−1, 1]: all mass in the left half, or all in the right half.
	left := []float64{0.5, 0.5, 0, 0}
	right := []float64{0, 0, 0.5, 0.5}
	fmt.Println("w1:        ", metrics.Wasserstein1(left, right, 0.5))
	fmt.Println("w1-authors:", metrics.Wasserstein1Authors(left, right, nil))
	// Output:
	// w1:         1
	// w1-authors: 0
}

// The divergence ("js-div") is what the multi-service authors' code computes;
// the paper prints the distance ("js-dist"), its square root (ERRATA E4.1).
func ExampleJSDivergence() {
	p := []float64{1, 0}
	q := []float64{0, 1}
	fmt.Printf("js-div  %.6f (ln 2 = %.6f)\n", metrics.JSDivergence(p, q), math.Ln2)
	fmt.Printf("js-dist %.6f\n", metrics.JSDistance(p, q))
	counts := []float64{30, 10} // counts and probabilities give the same value
	fmt.Printf("js-div  %.6f\n", metrics.JSDivergence(counts, []float64{0.75, 0.25}))
	// Output:
	// js-div  0.693147 (ln 2 = 0.693147)
	// js-dist 0.832555
	// js-div  0.000000
}

func ExampleKL() {
	fmt.Printf("%.6f\n", metrics.KL([]float64{0.5, 0.5}, []float64{0.25, 0.75}))
	fmt.Println(metrics.KL([]float64{0.5, 0.5}, []float64{1, 0}))
	// Output:
	// 0.143841
	// +Inf
}

func ExampleHistogram() {
	values := []float64{-1, -0.5, 0, 0.5, 1, 3, math.NaN()}
	dst := make([]float64, 4)
	metrics.Histogram(values, -1, 1, 4, dst)
	// Edges go to the bin on the right; 1 (the right edge) and 3 (outside,
	// clamped) go to the last bin; NaN is skipped.
	fmt.Println(dst)
	// Output:
	// [1 1 1 3]
}

func ExampleHistogramVariance() {
	p := make([]float64, 1024)
	for i := range p {
		p[i] = 1
	}
	// 1/3 minus Sheppard's correction Δ²/12, Δ = 2/1024.
	fmt.Printf("%.12f\n", metrics.HistogramVariance(p, -1, 1))
	// Output:
	// 0.333333015442
}

func ExampleHistogramQuantile() {
	p := []float64{1, 3} // mass ¼ on [0, 1), ¾ on [1, 2]
	for _, prob := range []float64{0.25, 0.5, 1} {
		fmt.Printf("q(%.2f) interpolated %.4f, bin centre %.1f\n", prob,
			metrics.HistogramQuantile(p, 0, 2, prob),
			metrics.HistogramQuantileBinCentre(p, 0, 2, prob))
	}
	// Output:
	// q(0.25) interpolated 1.0000, bin centre 0.5
	// q(0.50) interpolated 1.3333, bin centre 1.5
	// q(1.00) interpolated 2.0000, bin centre 1.5
}

func ExampleQuantileSquaredError() {
	est := []float64{1, 0, 0, 0}   // all mass in [0, 1)
	truth := []float64{0, 1, 0, 0} // all mass in [1, 2)
	// Every decile is off by one bin width: per-trial value 1.
	fmt.Println(metrics.QuantileSquaredError(est, truth, 0, 4, metrics.Deciles()))
	// Output:
	// 1
}

func ExampleDescribe() {
	for _, name := range []string{"js-div", "rmse", "nope"} {
		d, ok := metrics.Describe(name)
		fmt.Printf("%s %v: %s\n", name, ok, d)
	}
	// Output:
	// js-div true: Jensen–Shannon divergence, natural log, no square root, in [0, ln 2]
	// rmse true: derived: sqrt of the mean of mse over trials
	// nope false:
}
