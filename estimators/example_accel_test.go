package estimators_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// EMS on 20,000 Piecewise reports (ε = 0.5) over 32 bins, run to convergence plainly
// (6,526 E-steps) and with SQUAREM (310): the same histogram.
func ExampleEMOptions_squarem() {
	pm, _ := mechanisms.New("pm", 0.5)
	svc, _ := estimators.NewService(pm, estimators.ServiceOptions{Bins: 32})
	rng := rand.New(rand.NewPCG(1, 2))
	reports := make([]float64, 20000)
	for i := range reports {
		reports[i] = pm.Perturb(2*rng.Float64()*rng.Float64()-1, rng)
	}
	ctx := context.Background()
	plain, pi, _ := estimators.EMS(ctx, reports, svc, estimators.EMOptions{Stop: estimators.StopConverged, LLTol: 1e-15})
	fast, fi, _ := estimators.EMS(ctx, reports, svc, estimators.EMOptions{Stop: estimators.StopConverged, LLTol: 1e-12, Accel: estimators.AccelSquarem})
	var l1 float64
	for i := range plain {
		l1 += math.Abs(plain[i] - fast[i])
	}
	fmt.Printf("L1 distance below 1e-6: %v; at least 5x fewer E-steps: %v\n", l1 < 1e-6, 5*fi.ESteps <= pi.ESteps)
	// Output:
	// L1 distance below 1e-6: true; at least 5x fewer E-steps: true
}
