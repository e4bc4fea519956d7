package estimators

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ldpbench/ldpbench/mechanisms"
)

func histL1(a, b []float64) float64 {
	var d float64
	for i := range a {
		d += math.Abs(a[i] - b[i])
	}
	return d
}

// TestHistEMSquarem: HistEM and both phases of 2PEM under Accel =
// squarem, against the plain loop run to Tau = 1e-15 on the normalised
// counts' LL (the accelerated run: Tau = 1e-13), in at least 5 times fewer
// E-steps. Where plain EM converges (EMS smoothing; 2PEM's MAP phase 2,
// run from the same prior) SQUAREM's estimate is within 1e-6 of it in L1.
// Plain EM without smoothing (HistEM's MLE, 2PEM's phase 1) converges
// sublinearly to an MLE with bins at 0 and stops 4·10⁻⁵ short in L1, so
// there the check is that SQUAREM climbs the same concave likelihood at
// least as high. Catches a map that differs from the plain update (the
// MAP prior or the smoothing left out: another fixed point, 10⁻³ or more
// away), E-steps not counted, Iter and ESteps confused.
func TestHistEMSquarem(t *testing.T) {
	skipUnderRace(t, "13 s")
	rng := rand.New(rand.NewPCG(3, 4))
	beta := distuv.Beta{Alpha: 2, Beta: 5, Src: rng}
	const n = 20000
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = 2*beta.Rand() - 1
	}
	sw, err := mechanisms.NewSquareWave(1)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewHistTransition(sw, 32, TransitionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rep := make([]float64, n)
	for i, x := range xs {
		rep[i] = sw.Perturb((x+1)/2, rng)
	}
	counts := tr.Counts(rep, nil)
	for _, smooth := range []bool{false, true} {
		plain, err := tr.HistEM(context.Background(), counts, HistEMConfig{Tau: 1e-15, MaxIter: 400000, Smooth: smooth})
		if err != nil {
			t.Fatal(err)
		}
		acc, err := tr.HistEM(context.Background(), counts, HistEMConfig{Tau: 1e-13, MaxIter: 400000, Smooth: smooth, Accel: AccelSquarem})
		if err != nil {
			t.Fatal(err)
		}
		d := histL1(plain.Hist, acc.Hist)
		t.Logf("HistEM smooth=%v: plain %d iterations (cap %v), SQUAREM %d E-steps (%d cycles); L1 %.2g, ΔLL %.2g", smooth, plain.Iter, plain.CapHit, acc.ESteps, acc.Iter, d, acc.LL-plain.LL)
		near := d <= 1e-6
		if !smooth {
			near = acc.LL >= plain.LL-1e-15
		}
		if plain.CapHit || acc.CapHit || !near || 5*acc.ESteps > plain.Iter+1 || acc.ESteps <= 2*acc.Iter {
			t.Errorf("HistEM smooth=%v: plain %+v / SQUAREM %d E-steps %d cycles cap %v, L1 %.3g", smooth, plain.CapHit, acc.ESteps, acc.Iter, acc.CapHit, d)
		}
	}

	// 2PEM (both phases, the second MAP-EM with the first's prior).
	const eps = 1.0
	hm, err := mechanisms.NewHMNP(eps)
	if err != nil {
		t.Fatal(err)
	}
	var pmSub, nout []float64
	for _, x := range xs {
		if rng.Float64() < hm.Alpha() {
			nout = append(nout, hm.NOutput().Perturb(x, rng))
		} else {
			pmSub = append(pmSub, hm.PMSub().Perturb(x, rng))
		}
	}
	plain, err := TwoPEM(context.Background(), pmSub, nout, eps, hm, TwoPEMConfig{D: 32, Tau: 1e-15, MaxIter: 400000})
	if err != nil {
		t.Fatal(err)
	}
	acc, err := TwoPEM(context.Background(), pmSub, nout, eps, hm, TwoPEMConfig{D: 32, Tau: 1e-13, MaxIter: 400000, Accel: AccelSquarem})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("2PEM: plain %d + %d iterations, SQUAREM %d + %d E-steps; ΔLL1 %.2g", plain.Iter1, plain.Iter2, acc.ESteps1, acc.ESteps2, acc.LL1-plain.LL1)
	if plain.CapHit || acc.CapHit || acc.LL1 < plain.LL1-1e-15 {
		t.Errorf("2PEM: caps %v %v, phase-1 LL %.15g, plain %.15g", plain.CapHit, acc.CapHit, acc.LL1, plain.LL1)
	}
	if 5*(acc.ESteps1+acc.ESteps2) > plain.Iter1+plain.Iter2+2 {
		t.Errorf("2PEM: SQUAREM %d E-steps, plain %d iterations: want at least 5 times fewer", acc.ESteps1+acc.ESteps2, plain.Iter1+plain.Iter2)
	}
	// Phase 2 from the same prior: the same MAP estimate.
	mats, err := NewTwoPEMMatrices(hm, 32, DTildeCeil)
	if err != nil {
		t.Fatal(err)
	}
	noCounts := mats.NO.Counts(nout, nil)
	p2, err := mats.NO.HistEM(context.Background(), noCounts, HistEMConfig{Tau: 1e-15, MaxIter: 400000, Prior: acc.Phase1})
	if err != nil {
		t.Fatal(err)
	}
	a2, err := mats.NO.HistEM(context.Background(), noCounts, HistEMConfig{Tau: 1e-13, MaxIter: 400000, Prior: acc.Phase1, Accel: AccelSquarem})
	if err != nil {
		t.Fatal(err)
	}
	if d := histL1(p2.Hist, a2.Hist); d > 1e-6 || histL1(a2.Hist, acc.Hist) > 1e-6 {
		t.Errorf("2PEM phase 2: SQUAREM %.3g from plain MAP-EM in L1 (TwoPEM's phase 2 %.3g)", d, histL1(a2.Hist, acc.Hist))
	}
}
