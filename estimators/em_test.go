package estimators

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ldpbench/ldpbench/estimators/internal/uletest"
	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/metrics"
)

// uleSmallRun simulates [SR, PM, SW] (or mechs) on n Beta(2,5) values.
func uleSmallRun(t *testing.T, n, bins int, mechs []mechanisms.Mechanism, seed uint64) ([][]float64, []*Service, []float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	v := uletest.BetaInputs(n, 2, 5, rng)
	return uletest.Reports(t, v, mechs, rng), uleServices(t, mechs, bins), v
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
	reps, svcs, _ := uleSmallRun(t, 3000, 128, uletest.Mechs(t, 0.5, 1, 2), 3)
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

// TestEMRecoversHistogram checks that EM finds the maximum-likelihood
// histogram, whose error shrinks as 1/n with the spread that the Fisher
// information predicts: plain EM (no smoothing) run to convergence on
// [SR, PM, SW] at ε = 3 over l = 16 bins, at n = 2·10⁴, 2·10⁵ and 2·10⁶.
//
// The model is exact here: every input sits at the midpoint of its bin
// (bin s drawn with probability ∝ 1 + 3s/15, so every bin holds about
// 2.5 % of the users or more) and every service's matrix is evaluated at
// the midpoints (InputMidpoint, 64 output buckets for PM and SW), so a
// user of bin s reports the vector W = (w_1, w_2, w_3) with probability
// A_W[s] = Π_j T_j[w_j, s], and the truth is the users' histogram h. With
// the inputs fixed, the MLE θ̂ is asymptotically normal about h with
// covariance C/n, C = F⁻¹ − diag(h), F = Σ_W A_W A_Wᵀ / (A_W·h) the Fisher
// information of one user (F⁻¹ − hhᵀ is the covariance when the inputs
// are drawn afresh; the histogram's own multinomial covariance diag(h) −
// hhᵀ is not error here). To second order JS(θ̂, h) = Σ_s (θ̂_s −
// h_s)²/(8h_s) (the odd orders cancel: JS is symmetric), so 8n·JS is
// distributed as Σ_i λ_i Z_i², λ the eigenvalues of diag(h)^{-1/2}·C·
// diag(h)^{-1/2}, and by Laurent and Massart (2000, Lemma 1)
// P(Σλ_i Z_i² ≥ Σλ + 2√(xΣλ²) + 2x·max λ) ≤ e^{-x}. With e^{-x} =
// 1e-6/6 per check, and the expansion's relative error, |θ̂_s − h_s|/h_s
// in the denominators, bounded by ρ = z·max_s sd_s/h_s (z the normal
// quantile of 1e-6/(6·16) per bin, sd_s² = C_ss/n) as a factor 1 + ρ,
// each of the three checks fails falsely with probability below 1e-6/3
// (below 1e-6 in all), as far as the normal approximation of the MLE
// holds: it is applied only where ρ ≤ 1/2 (here ρ = 0.42, 0.13, 0.04).
// EM must stop on its tolerances (|ΔLL| < 1e-13·|LL|: θ is then far
// closer to the MLE than its spread), not on the iteration cap.
//
// Planted: the matrices' bin "midpoints" shifted by 5 % of a bin, and the
// report bucketed by rounding instead of flooring: JS 5.2e-5 and 3.7e-4
// at n = 2·10⁶ against the bound 2.85e-5 (the former test, JS < 2e-3 at
// n = 2·10⁵ and a tenfold decrease, passed both).
func TestEMRecoversHistogram(t *testing.T) {
	const (
		bins         = 16
		buckets      = 64
		falseFailure = 1e-6
	)
	mechs := uletest.Mechs(t, 3, 3, 3)
	svcs := make([]*Service, len(mechs))
	for j, m := range mechs {
		s, err := NewService(m, ServiceOptions{Bins: bins, Buckets: buckets, Input: InputMidpoint})
		if err != nil {
			t.Fatal(err)
		}
		svcs[j] = s
	}
	x := math.Log(6 / falseFailure)
	z := distuv.UnitNormal.Quantile(1 - falseFailure/(6*bins)/2)
	checked := 0
	for _, n := range []int{20000, 200000, 2000000} {
		rng := rand.New(rand.NewPCG(11, uint64(n)))
		v := make([]float64, n)
		for i := range v {
			var k int // bin k with probability ∝ 1 + 3k/(l−1), by rejection
			for {
				k = rng.IntN(bins)
				if rng.Float64()*4 < 1+3*float64(k)/(bins-1) {
					break
				}
			}
			v[i] = -1 + float64(2*k+1)/bins
		}
		h := uleTruth(v, bins)
		reps := uletest.Reports(t, v, mechs, rng)
		theta, info, err := ULE(t.Context(), reps, svcs, EMOptions{NoSmooth: true, Stop: StopConverged, LLTol: 1e-13, ThetaTol: 1e-15, MaxIter: 100000})
		if err != nil {
			t.Fatal(err)
		}
		if info.Stop == StopReasonMaxIter {
			t.Fatalf("n = %d: EM did not converge in %d iterations", n, info.Iterations)
		}
		lam, sdRel := emFisherSpread(t, svcs, h, n)
		var sum, sum2, top float64
		for _, l := range lam {
			sum += l
			sum2 += l * l
			top = max(top, l)
		}
		rho := z * sdRel
		bound := (sum + 2*math.Sqrt(x*sum2) + 2*x*top) / (8 * float64(n)) * (1 + rho)
		js := metrics.JSDivergence(theta, h)
		t.Logf("n = %d: JS %.3g, bound %.3g (mean %.3g; max z·sd/h %.2f), %d iterations (%s)", n, js, bound, sum/(8*float64(n)), rho, info.Iterations, info.Stop)
		if rho > 0.5 {
			continue // the normal approximation is not trusted here
		}
		checked++
		if !(js <= bound) {
			t.Errorf("n = %d: JS(EM, truth) = %.4g above its bound %.4g (false-failure probability %g)", n, js, bound, falseFailure/3)
		}
	}
	if checked < 2 {
		t.Errorf("only %d sample sizes were in the normal regime", checked)
	}
}

// emFisherSpread returns the eigenvalues of diag(h)^{-1/2}·C·diag(h)^{-1/2},
// C = F⁻¹ − diag(h) (TestEMRecoversHistogram), and max_s sd_s/h_s with
// sd_s² = C_ss/n, for the linked services svcs at the histogram h.
func emFisherSpread(t *testing.T, svcs []*Service, h []float64, n int) ([]float64, float64) {
	t.Helper()
	l := len(h)
	F := mat.NewSymDense(l, nil)
	a := make([]float64, l)
	var walk func(j int, prod []float64)
	walk = func(j int, prod []float64) {
		if j == len(svcs) {
			var p float64
			for s := range a {
				p += prod[s] * h[s]
			}
			if p > 0 {
				for r := range l {
					for c := r; c < l; c++ {
						F.SetSym(r, c, F.At(r, c)+prod[r]*prod[c]/p)
					}
				}
			}
			return
		}
		next := make([]float64, l)
		for w := range svcs[j].Buckets {
			row := svcs[j].Row(w)
			for s := range l {
				next[s] = prod[s] * row[s]
			}
			walk(j+1, next)
		}
	}
	ones := make([]float64, l)
	for s := range ones {
		ones[s] = 1
	}
	walk(0, ones)
	var chol mat.Cholesky
	if !chol.Factorize(F) {
		t.Fatal("the Fisher information is singular")
	}
	var inv mat.SymDense
	if err := chol.InverseTo(&inv); err != nil {
		t.Fatal(err)
	}
	M := mat.NewSymDense(l, nil)
	var sdRel float64
	for r := range l {
		for c := r; c < l; c++ {
			cv := inv.At(r, c)
			if r == c {
				cv -= h[r]
				sdRel = max(sdRel, math.Sqrt(max(cv, 0)/float64(n))/h[r])
			}
			M.SetSym(r, c, cv/math.Sqrt(h[r]*h[c]))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(M, false) {
		t.Fatal("no eigenvalues")
	}
	lam := eig.Values(nil)
	for i, v := range lam {
		if v < -1e-9*lam[len(lam)-1] {
			t.Fatalf("C is not positive semi-definite: eigenvalue %g", v)
		}
		lam[i] = max(v, 0)
	}
	return lam, sdRel
}

// TestEMSBaselines checks EMS on each service alone: a probability vector,
// EMSHistogram equal to EMS, and the authors' stopping rule recorded.
func TestEMSBaselines(t *testing.T) {
	reps, svcs, _ := uleSmallRun(t, 20000, 1024, uletest.Mechs(t, 0.5, 0.5, 0.5), 5)
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
	reps, svcs, _ := uleSmallRun(t, 5000, 64, uletest.Mechs(t, 1, 1, 1), 9)
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
	reps, svcs, _ := uleSmallRun(t, 40000, 1024, uletest.Mechs(t, 0.3, 0.3, 0.3), 13)
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
	reps, svcs, _ := uleSmallRun(t, 100, 32, uletest.Mechs(t, 1, 1), 1)
	if _, _, err := ULE(t.Context(), reps[:1], svcs, EMOptions{}); err == nil {
		t.Error("one report slice for two services accepted")
	}
	if _, _, err := ULE(t.Context(), [][]float64{reps[0], reps[1][:50]}, svcs, EMOptions{}); err == nil {
		t.Error("unequal report slices accepted")
	}
	other := uleServices(t, uletest.Mechs(t, 1), 64)
	if _, _, err := ULE(t.Context(), reps, []*Service{svcs[0], other[0]}, EMOptions{}); err == nil {
		t.Error("services with different bins accepted")
	}
	if _, _, err := ULE(t.Context(), reps, svcs, EMOptions{MaxIter: -1}); err == nil {
		t.Error("negative MaxIter accepted")
	}
}
