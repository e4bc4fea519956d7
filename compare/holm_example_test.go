package compare_test

import (
	"fmt"

	"github.com/ldpbench/ldpbench/compare"
)

// Four p-values of one spec's checks, adjusted by Holm's step-down
// procedure: at α = 0.05 only the smallest (0.01 × 4) is a move; 0.02
// becomes 0.06.
func ExampleHolm() {
	adjusted := compare.Holm([]float64{0.04, 0.5, 0.01, 0.02})
	for _, p := range adjusted {
		fmt.Printf("%.2f ", p)
	}
	fmt.Println()
	// Output: 0.08 0.50 0.04 0.06
}
