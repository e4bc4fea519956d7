package estimators

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/ldpbench/ldpbench/mechanisms"

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

// TestEMStart: EMOptions.Start is the initial θ. Started at the plain
// loop's first iterate θ₁ (and at 2·θ₁: Start need not be normalised),
// one iteration returns its second, θ₂ = F(θ₁), to rounding (1e-14 in L1,
// against ‖θ₂ − θ₁‖₁ of 10⁻² here); a Start of the wrong length or with an
// entry ≤ 0, NaN or infinite is refused. Catches Start ignored (the run
// returns θ₁ = F(uniform)) and the check skipped (a zero bin, which EM
// keeps at zero for good, accepted). (An EM map does not depend on θ's
// scale, so a Start left unnormalised would pass here; estimators
// normalises it for SQUAREM, whose first residual compares θ with F(θ).)
func TestEMStart(t *testing.T) {
	reps, svcs, _ := uleSmallRun(t, 5000, 32, uletest.Mechs(t, 1, 1, 1), 9)
	var path [][]float64
	_, _, err := ULE(t.Context(), reps, svcs, EMOptions{Stop: StopConverged, Accel: AccelNone, MaxIter: 2,
		Trace: func(_ int, theta []float64, _ float64) { path = append(path, slices.Clone(theta)) }})
	if err != nil || len(path) != 2 {
		t.Fatalf("%v, %d iterates", err, len(path))
	}
	double := slices.Clone(path[0])
	for i := range double {
		double[i] *= 2
	}
	for _, start := range [][]float64{path[0], double} {
		got, info, err := ULE(t.Context(), reps, svcs, EMOptions{Stop: StopConverged, Accel: AccelNone, MaxIter: 1, Start: start})
		if err != nil || info.Iterations != 1 {
			t.Fatalf("%v, %+v", err, info)
		}
		if d := histL1(got, path[1]); d > 1e-14 {
			t.Errorf("one iteration from θ₁ (sum %v) is %.3g from θ₂ in L1; θ₂ − θ₁ is %.3g", floats.Sum(start), d, histL1(path[1], path[0]))
		}
	}
	bad := func(i int, v float64) []float64 {
		s := slices.Clone(path[0])
		s[i] = v
		return s
	}
	for _, start := range [][]float64{path[0][:31], append(slices.Clone(path[0]), 0.1), bad(3, 0), bad(0, -1e-3), bad(5, math.NaN()), bad(7, math.Inf(1))} {
		if _, _, err := ULE(t.Context(), reps, svcs, EMOptions{Stop: StopConverged, MaxIter: 1, Start: start}); err == nil {
			t.Errorf("start %v (%d entries) accepted", start, len(start))
		}
	}
}

// TestAccelNone: AccelNone is plain EM, as "": the same estimate bit for
// bit, recorded as "" in EMInfo, under either stopping rule; HistEM and
// 2PEM likewise. Catches "none" sent to SQUAREM (another path: the
// estimate differs in its last bits and E-steps ≠ iterations + 1) or
// refused as an unknown acceleration.
func TestAccelNone(t *testing.T) {
	reps, svcs, _ := uleSmallRun(t, 3000, 32, uletest.Mechs(t, 1, 1, 1), 5)
	for _, stop := range []StopRule{StopAuthors, StopConverged} {
		a, ai, err := ULE(t.Context(), reps, svcs, EMOptions{Stop: stop})
		if err != nil {
			t.Fatal(err)
		}
		b, bi, err := ULE(t.Context(), reps, svcs, EMOptions{Stop: stop, Accel: AccelNone})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a, b) || bi.Accel != "" || bi.ESteps != ai.ESteps || bi.ESteps != bi.Iterations+1 {
			t.Errorf("%s: accel none %+v, default %+v (estimates equal: %v)", stop, bi, ai, slices.Equal(a, b))
		}
	}
	sw, err := mechanisms.NewSquareWave(1)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewHistTransition(sw, 32, TransitionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 2))
	rep := make([]float64, 3000)
	for i := range rep {
		rep[i] = sw.Perturb(rng.Float64(), rng)
	}
	counts := tr.Counts(rep, nil)
	p, err := tr.HistEM(t.Context(), counts, HistEMConfig{Tau: 1e-9, MaxIter: 5000})
	if err != nil {
		t.Fatal(err)
	}
	q, err := tr.HistEM(t.Context(), counts, HistEMConfig{Tau: 1e-9, MaxIter: 5000, Accel: AccelNone})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Hist, q.Hist) || p.Iter != q.Iter || q.ESteps != 0 {
		t.Errorf("HistEM accel none: %d iterations, %d E-steps; default %d (estimates equal: %v)", q.Iter, q.ESteps, p.Iter, slices.Equal(p.Hist, q.Hist))
	}
}
