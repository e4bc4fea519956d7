package estimators

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/metrics"
)

// uleSmallRun simulates [SR, PM, SW] (or mechs) on n Beta(2,5) values.
func uleSmallRun(t *testing.T, n, bins int, mechs []mechanisms.Mechanism, seed uint64) ([][]float64, []*Service, []float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	v := uleBetaInputs(n, 2, 5, rng)
	return uleReports(t, v, mechs, rng), uleServices(t, mechs, bins), v
}

func isProbVector(p []float64) bool {
	var s float64
	for _, v := range p {
		if !(v >= 0) {
			return false
		}
		s += v
	}
	return math.Abs(s-1) < 1e-12
}

// TestEMLogLikelihoodMonotone checks that plain EM (no smoothing) never
// decreases the log-likelihood, on both routes, and that every iterate is a
// probability vector.
func TestEMLogLikelihoodMonotone(t *testing.T) {
	reps, svcs, _ := uleSmallRun(t, 3000, 128, uleMechs(t, 0.5, 1, 2), 3)
	for _, dense := range []bool{false, true} {
		var lls []float64
		bad := false
		opt := EMOptions{NoSmooth: true, MaxIter: 300, Stop: StopConverged, Dense: dense,
			Trace: func(it int, theta []float64, ll float64) {
				lls = append(lls, ll)
				if !isProbVector(theta) {
					bad = true
				}
			}}
		theta, info, err := ULE(t.Context(), reps, svcs, opt)
		if err != nil {
			t.Fatal(err)
		}
		if bad || !isProbVector(theta) {
			t.Errorf("dense=%v: an iterate is not a probability vector", dense)
		}
		if len(lls) != info.Iterations {
			t.Errorf("dense=%v: %d trace calls for %d iterations", dense, len(lls), info.Iterations)
		}
		for i := 1; i < len(lls); i++ {
			if lls[i] < lls[i-1]-1e-9*math.Abs(lls[i-1]) {
				t.Errorf("dense=%v: LL decreased at iteration %d: %v -> %v", dense, i+1, lls[i-1], lls[i])
			}
		}
		if lls[len(lls)-1] != info.LL {
			t.Errorf("dense=%v: final LL %v, info %v", dense, lls[len(lls)-1], info.LL)
		}
	}
}

// TestEMRecoversHistogram checks consistency: with informative services and
// plain EM run to convergence, the estimate approaches the true 16-bin
// histogram as n grows. Fixed seed; the JS divergences at n = 2·10³ and
// 2·10⁵ are about 2e-2 and 4e-4, and the test asks for a tenfold decrease
// and JS < 2e-3 at the largest n.
func TestEMRecoversHistogram(t *testing.T) {
	const bins = 16
	var js []float64
	for _, n := range []int{2000, 20000, 200000} {
		reps, svcs, v := uleSmallRun(t, n, bins, uleMechs(t, 2, 2, 2), 11)
		theta, info, err := ULE(t.Context(), reps, svcs, EMOptions{NoSmooth: true, Stop: StopConverged, MaxIter: 3000})
		if err != nil {
			t.Fatal(err)
		}
		d := metrics.JSDivergence(uleTruth(v, bins), theta)
		js = append(js, d)
		t.Logf("n = %d: JS %.3g after %d iterations (%s)", n, d, info.Iterations, info.Stop)
	}
	if !(js[2] < js[0]/10) || !(js[2] < 2e-3) {
		t.Errorf("JS by n: %v", js)
	}
}

// TestEMSBaselines checks EMS on each service alone: a probability vector,
// EMSHistogram equal to EMS, and the authors' stopping rule recorded.
func TestEMSBaselines(t *testing.T) {
	reps, svcs, _ := uleSmallRun(t, 20000, 1024, uleMechs(t, 0.5, 0.5, 0.5), 5)
	for j, s := range svcs {
		theta, info, err := EMS(t.Context(), reps[j], s, EMOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !isProbVector(theta) || len(theta) != 1024 {
			t.Errorf("%s: not a probability vector of 1024 bins", s.Mech.Name())
		}
		if info.Rule != StopAuthors || (info.Stop != StopReasonLL && info.Stop != StopReasonTheta && info.Stop != StopReasonMaxIter) {
			t.Errorf("%s: rule %q stop %q", s.Mech.Name(), info.Rule, info.Stop)
		}
		if info.Users != 20000 || info.Distinct > s.Buckets {
			t.Errorf("%s: users %d distinct %d", s.Mech.Name(), info.Users, info.Distinct)
		}
		h, hinfo, err := EMSHistogram(t.Context(), s.OutputHistogram(reps[j]), s, EMOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if hinfo.Iterations != info.Iterations || maxAbsDiff(h, theta) > 1e-15 {
			t.Errorf("%s: EMSHistogram differs from EMS (%d vs %d iterations, %g)", s.Mech.Name(), hinfo.Iterations, info.Iterations, maxAbsDiff(h, theta))
		}
		t.Logf("%s: %d iterations, stop %s", s.Mech.Name(), info.Iterations, info.Stop)
	}
}

// TestEMStoppingRules checks that each rule records why it stopped.
func TestEMStoppingRules(t *testing.T) {
	reps, svcs, _ := uleSmallRun(t, 5000, 64, uleMechs(t, 1, 1, 1), 9)
	_, info, err := ULE(t.Context(), reps, svcs, EMOptions{MaxIter: 7})
	if err != nil {
		t.Fatal(err)
	}
	if info.Stop != StopReasonMaxIter || info.Iterations != 7 {
		t.Errorf("cap: stop %q after %d", info.Stop, info.Iterations)
	}
	_, info, err = ULE(t.Context(), reps, svcs, EMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if info.Rule != StopAuthors || (info.Stop != StopReasonLL && info.Stop != StopReasonTheta) || info.Iterations < 1 {
		t.Errorf("authors: rule %q stop %q after %d", info.Rule, info.Stop, info.Iterations)
	}
	// A loose θ tolerance stops on θ.
	_, info, err = ULE(t.Context(), reps, svcs, EMOptions{Stop: StopConverged, ThetaTol: 1e-2})
	if err != nil {
		t.Fatal(err)
	}
	if info.Stop != StopReasonTheta {
		t.Errorf("converged, loose θ: stop %q after %d", info.Stop, info.Iterations)
	}
	// A huge LL tolerance stops at the first check, the third iteration.
	_, info, err = ULE(t.Context(), reps, svcs, EMOptions{LLTol: 1e300})
	if err != nil {
		t.Fatal(err)
	}
	if info.Stop != StopReasonLL || info.Iterations != 3 {
		t.Errorf("authors, loose: stop %q after %d", info.Stop, info.Iterations)
	}
	_, cinfo, err := ULE(t.Context(), reps, svcs, EMOptions{Stop: StopConverged})
	if err != nil {
		t.Fatal(err)
	}
	if cinfo.Rule != StopConverged || (cinfo.Stop != StopReasonLL && cinfo.Stop != StopReasonTheta) || cinfo.Iterations <= info.Iterations {
		t.Errorf("converged: stop %q after %d", cinfo.Stop, cinfo.Iterations)
	}
	t.Logf("authors: %d iterations; converged: %d (%s)", info.Iterations, cinfo.Iterations, cinfo.Stop)
	if _, _, err := ULE(t.Context(), reps, svcs, EMOptions{Stop: "often"}); err == nil {
		t.Error("unknown rule accepted")
	}
}

// TestULEWorkersAndMissing checks that the result does not depend on the
// number of workers, and that a service whose reports are all missing
// (NaN) changes nothing.
func TestULEWorkersAndMissing(t *testing.T) {
	reps, svcs, _ := uleSmallRun(t, 40000, 1024, uleMechs(t, 0.3, 0.3, 0.3), 13)
	opt := EMOptions{MaxIter: 50, Workers: 1}
	a, ai, err := ULE(t.Context(), reps, svcs, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Workers = 3
	b, bi, err := ULE(t.Context(), reps, svcs, opt)
	if err != nil {
		t.Fatal(err)
	}
	if maxAbsDiff(a, b) != 0 || ai.LL != bi.LL {
		t.Errorf("workers 1 and 3 differ: %g, LL %v %v", maxAbsDiff(a, b), ai.LL, bi.LL)
	}
	// Service 0 (SR) missing for everyone = ULE over [PM, SW].
	nan := make([]float64, len(reps[0]))
	for i := range nan {
		nan[i] = math.NaN()
	}
	c, _, err := ULE(t.Context(), [][]float64{nan, reps[1], reps[2]}, svcs, EMOptions{MaxIter: 50})
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := ULE(t.Context(), reps[1:], svcs[1:], EMOptions{MaxIter: 50})
	if err != nil {
		t.Fatal(err)
	}
	if diff := maxAbsDiff(c, d); diff > 1e-13 {
		t.Errorf("missing SR: differs from ULE without it by %g", diff)
	}
}

func TestULEErrors(t *testing.T) {
	reps, svcs, _ := uleSmallRun(t, 100, 32, uleMechs(t, 1, 1), 1)
	if _, _, err := ULE(t.Context(), reps[:1], svcs, EMOptions{}); err == nil {
		t.Error("one report slice for two services accepted")
	}
	if _, _, err := ULE(t.Context(), [][]float64{reps[0], reps[1][:50]}, svcs, EMOptions{}); err == nil {
		t.Error("unequal report slices accepted")
	}
	other := uleServices(t, uleMechs(t, 1), 64)
	if _, _, err := ULE(t.Context(), reps, []*Service{svcs[0], other[0]}, EMOptions{}); err == nil {
		t.Error("services with different bins accepted")
	}
	if _, _, err := ULE(t.Context(), reps, svcs, EMOptions{MaxIter: -1}); err == nil {
		t.Error("negative MaxIter accepted")
	}
}
