package estimators

import (
	"math"
	"testing"

	"github.com/ldpbench/ldpbench/estimators/internal/uletest"
)

// TestEMAccelOptions: SQUAREM is refused under the authors' rule (its
// stopping point is one of the plain path) and an unknown acceleration is
// refused; under the converged rule ULE, EMS and EMSHistogram run it,
// record it in EMInfo with E-steps counted (more than the cycles, at
// least two per cycle plus the first), and reach plain EM's converged
// estimate to the tolerance of the rule (here 1e-12 on LL). Catches an
// option that is silently ignored (Accel empty, E-steps = iterations + 1),
// and the accelerated loop run under the authors' rule.
func TestEMAccelOptions(t *testing.T) {
	reps, svcs, _ := uleSmallRun(t, 5000, 32, uletest.Mechs(t, 1, 1, 1), 9)
	for _, o := range []EMOptions{
		{Accel: AccelSquarem},
		{Accel: AccelSquarem, Stop: StopAuthors},
		{Accel: "anderson", Stop: StopConverged},
	} {
		if _, _, err := ULE(t.Context(), reps, svcs, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	counts := svcs[1].OutputHistogram(reps[1])
	for name, run := range map[string]func(EMOptions) ([]float64, EMInfo, error){
		"ule": func(o EMOptions) ([]float64, EMInfo, error) { return ULE(t.Context(), reps, svcs, o) },
		"ems": func(o EMOptions) ([]float64, EMInfo, error) { return EMS(t.Context(), reps[1], svcs[1], o) },
		"ems-histogram": func(o EMOptions) ([]float64, EMInfo, error) {
			return EMSHistogram(t.Context(), counts, svcs[1], o)
		},
	} {
		plain, pi, err := run(EMOptions{Stop: StopConverged, LLTol: 1e-16, ThetaTol: 1e-15, MaxIter: 200000})
		if err != nil {
			t.Fatal(err)
		}
		acc, ai, err := run(EMOptions{Stop: StopConverged, LLTol: 1e-12, Accel: AccelSquarem})
		if err != nil {
			t.Fatal(err)
		}
		if pi.Accel != "" || pi.ESteps != pi.Iterations+1 {
			t.Errorf("%s plain: %+v", name, pi)
		}
		if ai.Accel != AccelSquarem || ai.Rule != StopConverged || ai.ESteps < 2*ai.Iterations+1 || !isProbVector(acc) {
			t.Errorf("%s squarem: %+v", name, ai)
		}
		var d float64
		for i := range acc {
			d += math.Abs(acc[i] - plain[i])
		}
		t.Logf("%s: plain %d E-steps, SQUAREM %d; L1 %.2g, ΔLL %.2g", name, pi.ESteps, ai.ESteps, d, ai.LL-pi.LL)
		if d > 1e-6 || math.Abs(ai.LL-pi.LL) > 1e-10*math.Abs(pi.LL) {
			t.Errorf("%s: SQUAREM %.3g from plain EMS's fixed point in L1, LL %.12g vs %.12g", name, d, ai.LL, pi.LL)
		}
	}
}
