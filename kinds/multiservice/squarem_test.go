package multiservice

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/estimators"
)

// TestMultiserviceSquarem runs cells of Figs 4e–h and 5e–h
// (multiservice-fig4-dist: [SR, PM, SW] at equal ε; -fig5-dist: the
// budget configuration C1) through the kind with params.accel = squarem
// and with plain EM, both under stop = converged at ll_tol = 1e-12 on the
// same reports, at the specs' 1024 bins (n = 5,000: the plain runs take
// thousands of iterations whatever n is; the gain grows with n: 2.7-4.1x
// at n = 2,000, 5.0-6.7x at 5,000). Plain EMS stopped so is not yet
// at its fixed point on these cells (its path still moves by about 10⁻⁷
// per iteration, 10⁻³ in all), so the checks are that SQUAREM (a) takes at
// least 5 times fewer E-steps, recorded as em_iterations; (b) ends where
// plain EMS is heading: the L1 distance from the plain path to SQUAREM's
// estimate falls along the path (at 1/4, 1/2, 3/4 and the end of its
// iterations) to below a third of its start; (c) ends at an LL no lower
// than plain EMS's by more than the rule's tolerance. Catches an
// accelerated run that stops early (its E-steps counted as cycles: (a)
// passes, (b) fails), a different fixed point (the map without smoothing:
// (b) fails), and em_iterations not recording the E-steps.
//
// Under -short only the EMS row runs (about 0.7 s); the three ULE rows
// (about 12 s, 7 of them at ε = 0.1) are left to make test.
func TestMultiserviceSquarem(t *testing.T) {
	skipUnderRace(t, "9 s")
	for _, c := range []struct {
		method string
		eps    float64
		params map[string]string
	}{
		{"ule", 0.1, map[string]string{"services": "sr,pm,sw"}},
		{"ule", 0.4, map[string]string{"services": "sr,pm,sw"}},
		{"ems-sw", 0.4, map[string]string{"services": "sr,pm,sw"}},
		{"ule", 0.6, map[string]string{"services": "C", "config": "1"}},
	} {
		if testing.Short() && c.method != "ems-sw" {
			t.Logf("%s ε=%v %v: skipped under -short (make test runs it)", c.method, c.eps, c.params)
			continue
		}
		params := map[string]string{"stop": "converged", "ll_tol": "1e-12", "accel": "squarem"}
		for k, v := range c.params {
			params[k] = v
		}
		r := distRun(t, c.method, c.eps, 5000, params)
		sc := r.scratch()
		if err := r.draw(sc.reports, rand.New(rand.NewPCG(5, 5))); err != nil {
			t.Fatal(err)
		}
		reports := sc.reports
		sqHist, sq, err := r.distEst(context.Background(), reports)
		if err != nil {
			t.Fatal(err)
		}
		out, err := r.Trial(context.Background(), 0, rand.New(rand.NewPCG(5, 5)), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out {
			if m.Metric == "em_iterations" && m.Value != float64(sq.ESteps) {
				t.Errorf("%s %v: em_iterations %v, run %+v", c.method, c.params, m.Value, sq)
			}
		}
		// Plain EM under the same options on the same reports, its path
		// against SQUAREM's estimate.
		opt := r.cell.cfg.em
		opt.Accel = ""
		var dists []float64
		l1 := func(th []float64) float64 {
			var d float64
			for i := range th {
				d += math.Abs(th[i] - sqHist[i])
			}
			return d
		}
		var path [][]float64
		opt.Trace = func(iter int, th []float64, _ float64) {
			if iter == 1 || iter%500 == 0 {
				path = append(path, append([]float64(nil), th...))
			}
		}
		mechs := r.mechs
		if strings.HasPrefix(c.method, "ems-") {
			j := r.cell.method.service
			reports, mechs = reports[j:j+1], mechs[j:j+1]
		}
		svcs, err := estimators.NewServices(mechs, r.cell.cfg.bins)
		if err != nil {
			t.Fatal(err)
		}
		last, plain, err := estimators.ULE(context.Background(), reports, svcs, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []int{0, 1, 2, 3} {
			dists = append(dists, l1(path[q*(len(path)-1)/4]))
		}
		dists = append(dists, l1(last))
		ratio := float64(plain.ESteps) / float64(sq.ESteps)
		if sq.Accel != estimators.AccelSquarem || ratio < 5 {
			t.Errorf("%s ε=%v %v: plain %d E-steps, SQUAREM %d (%.1fx; want ≥ 5)", c.method, c.eps, c.params, plain.ESteps, sq.ESteps, ratio)
		}
		if sq.LL < plain.LL-1e-12*math.Abs(plain.LL) {
			t.Errorf("%s ε=%v %v: SQUAREM LL %.12g below plain's %.12g", c.method, c.eps, c.params, sq.LL, plain.LL)
		}
		t.Logf("%s ε=%v %v: plain %d E-steps (%s), SQUAREM %d (%.1fx, %s); ΔLL %.3g; L1 from the plain path to SQUAREM's estimate %.3g",
			c.method, c.eps, c.params, plain.ESteps, plain.Stop, sq.ESteps, ratio, sq.Stop, sq.LL-plain.LL, dists)
		for i := 1; i < len(dists); i++ {
			if dists[i] >= dists[i-1] {
				t.Errorf("%s ε=%v %v: the plain path does not approach SQUAREM's estimate: %.3g", c.method, c.eps, c.params, dists)
				break
			}
		}
		if dists[len(dists)-1] > dists[0]/3 {
			t.Errorf("%s ε=%v %v: plain EMS ends %.3g from SQUAREM's estimate, %.3g after one iteration", c.method, c.eps, c.params, dists[len(dists)-1], dists[0])
		}
	}
}

// TestSquaremFixedPointCells: SQUAREM, the default of stop = converged,
// reaches plain EM's fixed point, on cells that differ in ε, services
// (one service's EMS; ULE over [SR, PM, SW], over C1 and over m = 6), n
// and bins (32–128: few enough that plain EM converges in thousands of
// iterations, so the reference is the fixed point itself, not a point of
// its path; the 1024-bin cells are TestMultiserviceSquarem's).
//
// The bound. Both runs stop on the θ test at tol = 10⁻⁹ (ll_tol 10⁻³⁰⁰, so
// the LL test never fires first). Near the fixed point θ* EM is linear,
// θ' − θ* ≈ J(θ − θ*), and its slowest mode contracts by ρ per step; ρ̂ is
// measured as the ratio of plain EM's last two step lengths. A point
// whose plain step is at most tol is within tol/(1 − ρ) of θ*: plain EM
// stopped there, and SQUAREM stops where one map of its estimate moves by
// at most tol. So ‖θ_SQUAREM − θ_plain‖₁ ≤ 2·tol/(1 − ρ̂) (ρ̂ 0.991–0.999
// here; the bound 2.4·10⁻⁷–1.8·10⁻⁶, the distances measured at 0.13–0.48
// of it). That SQUAREM's estimate is a fixed point is checked independently
// of its own stopping test: one plain EM map from it (EMOptions.Start,
// MaxIter 1) moves θ by at most tol.
//
// At the default tolerance (ll_tol 10⁻¹⁰ relative, which stops both loops
// on the LL test) SQUAREM's estimate is a stopping point of plain EM's own
// rule: one plain map from it changes LL by less than 10⁻¹⁰·|LL| (plain EM
// started there would stop at once; measured 0.3–7 % of that), and it is
// closer to the fixed point than plain EM's own stopping point is (by
// 20–100× in L1 here).
//
// Catches: SQUAREM stopping early (its tolerances planted 100× looser in
// runSquarem: the distance to the reference and the plain map's step from
// its estimate exceed the bounds), a map other than EMS's (without the
// smoothing: a different fixed point), and the kind's default not applied
// (the cell's EM options are checked: SQUAREM by default, plain with
// accel = none, plain under stop = authors).
func TestSquaremFixedPointCells(t *testing.T) {
	skipUnderRace(t, "6 s")
	const tol = 1e-9
	l1 := func(a, b []float64) float64 {
		var d float64
		for i := range a {
			d += math.Abs(a[i] - b[i])
		}
		return d
	}
	for _, c := range []struct {
		method string
		eps    float64
		n      int
		params map[string]string
	}{
		{"ems-pm", 0.5, 20000, map[string]string{"services": "sr,pm,sw", "bins": "64"}},
		{"ems-sw", 1, 10000, map[string]string{"services": "sr,pm,sw", "bins": "32"}},
		{"ems-sr", 0.5, 10000, map[string]string{"services": "sr,pm,sw", "bins": "32"}},
		{"ule", 0.3, 20000, map[string]string{"services": "sr,pm,sw", "bins": "64"}},
		{"ule", 0.6, 5000, map[string]string{"services": "C", "config": "1", "bins": "128"}},
		{"ule", 0.2, 20000, map[string]string{"services": "sr,pm,sw", "m": "6", "bins": "64"}},
	} {
		name := fmt.Sprintf("%s ε=%v n=%d %v", c.method, c.eps, c.n, c.params)
		cell := func(kv ...string) *cellRun {
			params := maps.Clone(c.params)
			for i := 0; i < len(kv); i += 2 {
				params[kv[i]] = kv[i+1]
			}
			return distRun(t, c.method, c.eps, c.n, params)
		}
		// The defaults the kind applies.
		for _, d := range []struct {
			kv   []string
			want estimators.Accel
		}{
			{[]string{"stop", "converged"}, estimators.AccelSquarem},
			{[]string{"stop", "converged", "accel", "none"}, ""},
			{[]string{"stop", "authors"}, ""},
			{[]string{"stop", "authors", "accel", "none"}, ""},
		} {
			if got := cell(d.kv...).cell.cfg.em.Accel; got != d.want {
				t.Fatalf("%s %v: EM acceleration %q, want %q", name, d.kv, got, d.want)
			}
		}

		tight := []string{"stop", "converged", "ll_tol", "1e-300", "theta_tol", fmt.Sprint(tol), "max_iter", "2000000"}
		sqRun, plainRun := cell(tight...), cell(append(tight, "accel", "none")...)
		sc := sqRun.scratch()
		if err := sqRun.draw(sc.reports, rand.New(rand.NewPCG(5, 5))); err != nil {
			t.Fatal(err)
		}
		reports, mechs := sc.reports, sqRun.mechs
		if strings.HasPrefix(c.method, "ems-") {
			j := sqRun.cell.method.service
			reports, mechs = reports[j:j+1], mechs[j:j+1]
		}
		svcs, err := estimators.NewServices(mechs, sqRun.cell.cfg.bins)
		if err != nil {
			t.Fatal(err)
		}
		// step is one plain EM (EMS) map from θ: its L1 length and the
		// change of LL.
		step := func(theta []float64, llTheta float64) (float64, float64) {
			next, info, err := estimators.ULE(context.Background(), reports, svcs, estimators.EMOptions{Stop: estimators.StopConverged, Accel: estimators.AccelNone, MaxIter: 1, Start: theta})
			if err != nil || info.Iterations != 1 {
				t.Fatalf("%s: one EM map: %v, %+v", name, err, info)
			}
			return l1(next, theta), info.LL - llTheta
		}

		// SQUAREM through the kind; plain EM direct, its last steps traced.
		sq, sqInfo, err := sqRun.distEst(context.Background(), sc.reports)
		if err != nil {
			t.Fatal(err)
		}
		opt := plainRun.cell.cfg.em
		var prev []float64
		var steps [2]float64
		opt.Trace = func(_ int, theta []float64, _ float64) {
			if prev != nil {
				steps[0], steps[1] = steps[1], l1(prev, theta)
			}
			prev = append(prev[:0], theta...)
		}
		plain, plainInfo, err := estimators.ULE(context.Background(), reports, svcs, opt)
		if err != nil {
			t.Fatal(err)
		}
		if sqInfo.Accel != estimators.AccelSquarem || sqInfo.Stop != estimators.StopReasonTheta || plainInfo.Accel != "" || plainInfo.Stop != estimators.StopReasonTheta {
			t.Fatalf("%s: SQUAREM %+v, plain %+v: want both stopped by the θ test", name, sqInfo, plainInfo)
		}
		rho := steps[1] / steps[0]
		if !(rho > 0 && rho < 1) {
			t.Fatalf("%s: plain EM's last steps %v do not contract", name, steps)
		}
		bound := 2 * tol / (1 - rho)
		d := l1(sq, plain)
		resid, _ := step(sq, sqInfo.LL)
		t.Logf("%s: plain %d iterations (ρ̂ %.6f), SQUAREM %d E-steps; L1 %.3g (bound %.3g), SQUAREM's plain step %.3g; ΔLL %.3g",
			name, plainInfo.Iterations, rho, sqInfo.ESteps, d, bound, resid, sqInfo.LL-plainInfo.LL)
		if d > bound {
			t.Errorf("%s: SQUAREM %.3g from plain EM's fixed point in L1, bound 2·tol/(1−ρ̂) = %.3g", name, d, bound)
		}
		if resid > tol {
			t.Errorf("%s: one plain EM map moves SQUAREM's estimate by %.3g, tolerance %g: not a fixed point", name, resid, tol)
		}
		if sqInfo.ESteps >= plainInfo.ESteps {
			t.Errorf("%s: SQUAREM took %d E-steps, plain EM %d", name, sqInfo.ESteps, plainInfo.ESteps)
		}

		// The default tolerance, as the shipped specs run it.
		defSq, defPlain := cell("stop", "converged"), cell("stop", "converged", "accel", "none")
		dsq, dsqInfo, err := defSq.distEst(context.Background(), sc.reports)
		if err != nil {
			t.Fatal(err)
		}
		dpl, dplInfo, err := defPlain.distEst(context.Background(), sc.reports)
		if err != nil {
			t.Fatal(err)
		}
		sqStep, sqDLL := step(dsq, dsqInfo.LL)
		plStep, _ := step(dpl, dplInfo.LL)
		llTol := 1e-10 * math.Abs(dsqInfo.LL)
		t.Logf("%s default: plain %d iterations, %.3g from the fixed point, its next step %.3g; SQUAREM %d E-steps, %.3g from it, next step %.3g changing LL by %.3g (tolerance %.3g)",
			name, dplInfo.Iterations, l1(dpl, plain), plStep, dsqInfo.ESteps, l1(dsq, plain), sqStep, sqDLL, llTol)
		if math.Abs(sqDLL) >= llTol {
			t.Errorf("%s: one plain EM map from SQUAREM's default estimate changes LL by %.3g, plain EM's rule stops below %.3g", name, sqDLL, llTol)
		}
		if l1(dsq, plain) > l1(dpl, plain) {
			t.Errorf("%s: at the default tolerance SQUAREM ends %.3g from the fixed point, plain EM %.3g", name, l1(dsq, plain), l1(dpl, plain))
		}
	}
}
