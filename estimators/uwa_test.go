package estimators

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// falseFailure is the probability that a correct implementation fails one
// statistical check of this file.
const falseFailure = 1e-6

// zCrit is the two-sided normal quantile of falseFailure (4.89).
var zCrit = distuv.UnitNormal.Quantile(1 - falseFailure/2)

// referenceValue is v'_i computed literally: Algorithm 1's posterior
// (normalised after every service), the weights of Theorem 4.2, the
// weighted sum of the unbiased values.
func referenceValue(t *testing.T, p *Posterior, ys []float64) float64 {
	t.Helper()
	w := make([]float64, len(ys))
	if err := p.UserWeights(ys, w); err != nil {
		t.Fatal(err)
	}
	var v float64
	for j, y := range ys {
		if y == y {
			v += w[j] * p.unb[j].Value(y)
		}
	}
	return v
}

// UWA's fast route (product of max-scaled rows without normalisation,
// moments of the posterior for quadratic variances, rows folded three at a
// time) gives Algorithm 1–2's value for every user: 1 to 9 services,
// repeated mechanisms, missing reports, a mechanism whose variance is not a
// quadratic (three-outputs, the tabulated route), and a product that
// underflows (1500 SR services at ε = 15 on h = 2 buckets, inputs 0: every
// user's product of rows, each ≥ 1/3 of its maximum, falls below 1e-280,
// and the per-service normalisation takes over).
func TestUWAMatchesAlgorithm(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	type tcase struct {
		name string
		svcs []mechanisms.Mechanism
		nan  float64 // fraction of reports missing
		h    int     // posterior buckets (0: 100)
		zero bool    // inputs 0 instead of Beta(2,5)
	}
	cases := []tcase{
		{"paper 0.1", paperServices(t, 0.1, 0.1, 0.1, 0.1), 0, 0, false},
		{"A3", paperServices(t, 0.3, 0.1, 0.4, 0.2), 0, 0, false},
		{"eps 3", paperServices(t, 3, 2, 4, 1), 0, 0, false},
		{"h 40", paperServices(t, 1, 1, 1, 1), 0, 40, false},
		{"m=1", paperServices(t, 0.5), 0, 0, false},
		{"m=2", paperServices(t, 0.5, 0.7), 0, 0, false},
		{"m=3", paperServices(t, 0.5, 0.7, 1), 0, 0, false},
		{"m=5", paperServices(t, 0.5, 0.7, 1, 1.5, 2), 0, 0, false},
		{"m=6", paperServices(t, 0.5, 0.7, 1, 1.5, 2, 0.2), 0, 0, false},
		{"m=7", paperServices(t, 0.5, 0.7, 1, 1.5, 2, 0.2, 0.3), 0, 0, false},
		{"m=9 subsets", paperServices(t, 0.5, 0.7, 1, 1.5, 2, 0.2, 0.3, 0.1, 4), 0.4, 0, false},
		{"three-outputs", []mechanisms.Mechanism{mustMech(t, "three-outputs", 1), mustMech(t, "pm", 1), mustMech(t, "laplace", 0.5)}, 0.2, 0, false},
	}
	var under []mechanisms.Mechanism
	for range 1500 {
		under = append(under, mustMech(t, "duchi", 15))
	}
	cases = append(cases, tcase{"underflow", under, 0, 2, true})
	const n = 300
	for _, c := range cases {
		u, err := NewUWA(c.svcs, UWAOptions{Workers: 1, Posterior: PosteriorOptions{Buckets: c.h}})
		if err != nil {
			t.Fatal(c.name, err)
		}
		p := u.Posterior()
		xs := betaInputs(n, rng)
		if c.zero {
			clear(xs)
		}
		reports := newReports(len(c.svcs), n)
		perturbAll(t, c.svcs, xs, rng, reports)
		for j := range reports {
			for i := range reports[j] {
				if rng.Float64() < c.nan {
					reports[j][i] = math.NaN()
				}
			}
		}
		sc := newUWAScratch(p.h, len(c.svcs))
		ys := make([]float64, len(c.svcs))
		var sum float64
		count := 0
		slow := 0
		for i := range n {
			for j := range ys {
				ys[j] = reports[j][i]
			}
			got, ok, err := p.userValue(reports, i, sc)
			if err != nil {
				t.Fatal(c.name, err)
			}
			var have int
			for _, y := range ys {
				if y == y {
					have++
				}
			}
			if !ok {
				if have > 0 {
					t.Fatalf("%s: user %d with %d reports not counted", c.name, i, have)
				}
				continue
			}
			want := referenceValue(t, p, ys)
			if !(math.Abs(got-want) <= 1e-10*(1+math.Abs(want))) {
				t.Fatalf("%s: user %d: fast %.17g, Algorithms 1–2 %.17g", c.name, i, got, want)
			}
			sum += got
			count++
			if have >= 2 {
				if S, _, _ := p.productMoments(sc.rows, sc.f); !(S > 1e-280) {
					slow++
				}
			}
		}
		if c.name == "underflow" && slow == 0 {
			t.Error("underflow: no user took the normalised route; the case does not test it")
		}
		est, err := u.Estimate(reports)
		if err != nil {
			t.Fatal(err)
		}
		if want := sum / float64(count); math.Abs(est-want) > 1e-12*(1+math.Abs(want)) {
			t.Errorf("%s: Estimate %v, mean of the users' values %v", c.name, est, want)
		}
	}
}

// The estimate does not depend on the number of goroutines.
func TestUWAWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	svcs := paperServices(t, 0.2, 0.4, 0.1, 0.3)
	const n = 3*uwaBlock + 17
	xs := betaInputs(n, rng)
	reports := newReports(4, n)
	perturbAll(t, svcs, xs, rng, reports)
	var first float64
	for w := 1; w <= 5; w++ {
		u, _ := NewUWA(svcs, UWAOptions{Workers: w})
		est, err := u.Estimate(reports)
		if err != nil {
			t.Fatal(err)
		}
		o, err := OracleUWA(reports, svcs, xs, w)
		if err != nil {
			t.Fatal(err)
		}
		if w == 1 {
			first = est + o
		} else if est+o != first {
			t.Errorf("workers %d: estimate differs", w)
		}
	}
}

func TestUWAErrors(t *testing.T) {
	svcs := paperServices(t, 1, 1)
	u, _ := NewUWA(svcs, UWAOptions{})
	if _, err := u.Estimate(newReports(3, 5)); err == nil {
		t.Error("3 report columns for 2 services accepted")
	}
	if _, err := u.Estimate([][]float64{make([]float64, 4), make([]float64, 5)}); err == nil {
		t.Error("columns of different lengths accepted")
	}
	nan := math.NaN()
	if _, err := u.Estimate([][]float64{{nan}, {nan}}); err == nil {
		t.Error("no report at all accepted")
	}
	if _, err := u.Estimate([][]float64{{0.5}, {0.1}}); err == nil {
		t.Error("an SR report of 0.5 accepted")
	}
	if _, err := UA([][]float64{{nan}, {nan}}, svcs); err == nil {
		t.Error("UA without reports accepted")
	}
	if _, err := NewUWA([]mechanisms.Mechanism{mustMech(t, "hm-tp", 1)}, UWAOptions{}); err == nil {
		t.Error("UWA over hm-tp (atoms) accepted")
	}
}

// trialStats accumulates the errors of one estimator over trials.
type trialStats struct {
	sum, sumSq, sumNorm float64 // Σerr, Σerr², Σerr²/theory
	n                   int
}

func (s *trialStats) add(err, theory float64) {
	s.sum += err
	s.sumSq += err * err
	s.sumNorm += err * err / theory
	s.n++
}

func (s *trialStats) mse() float64 { return s.sumSq / float64(s.n) }

// checkTheory: with an unbiased estimate that is a sum of many independent
// reports (CLT), Σ_trials err²/theory is χ²(trials).
func (s *trialStats) checkTheory(t *testing.T, what string) {
	t.Helper()
	chi := distuv.ChiSquared{K: float64(s.n)}
	lo, hi := chi.Quantile(falseFailure/2), chi.Quantile(1-falseFailure/2)
	if s.sumNorm < lo || s.sumNorm > hi {
		t.Errorf("%s: Σerr²/theory = %.1f outside [%.1f, %.1f] (%d trials)", what, s.sumNorm, lo, hi, s.n)
	}
}

// checkUnbiased: the mean error is within zCrit standard errors of 0, the
// standard error estimated from the trials themselves.
func (s *trialStats) checkUnbiased(t *testing.T, what string) {
	t.Helper()
	n := float64(s.n)
	mean := s.sum / n
	se := math.Sqrt((s.sumSq/n - mean*mean) / (n - 1))
	if math.Abs(mean) > zCrit*se {
		t.Errorf("%s: mean error %.3g, %.1f standard errors (%.3g) from 0", what, mean, math.Abs(mean)/se, se)
	}
}

// The paper's mean experiments at test scale (n = 500 users, 4000 trials of
// fresh reports over one Beta(2,5) sample), with equal budgets (Fig. 4,
// ε = 0.1) and the mixed budgets A1–A4 (Fig. 5):
//
//   - UA, every single service and the oracle-weighted UWA match their exact
//     theory (χ² check), and UA and UWA are unbiased within their CIs;
//   - UWA's MSE is below every single service's.
//
// The last check is a ratio of two MSE estimates from the same trials. With
// T trials of (CLT-)normal errors each MSE estimate is σ²·χ²(T)/T, so
// log(MSE_a/MSE_b) has standard deviation at most √(4/T) (the errors of
// UWA and a single service are positively correlated, which only narrows
// it): with T = 4000 the measured ratio exceeds the true one by the factor
// e^{zCrit·√(4/T)} = 1.17 with probability below 1e-6. The check asserts a
// measured ratio below 1, so it fails falsely with probability < 1e-6
// whenever UWA's true ratio is below 1/1.17 = 0.86. The oracle's exact
// ratio (checked below 0.8 here) and the paper's 11.5 %–72.4 % gains put
// it between 0.3 and 0.65 at these settings.
func TestUWAPaperSettings(t *testing.T) {
	if testing.Short() {
		t.Skip("4000 trials per setting")
	}
	const n, trials = 500, 4000
	rng := rand.New(rand.NewPCG(2025, 4))
	xs := betaInputs(n, rng)
	truth := TrueMean(xs)
	for _, c := range []struct {
		name string
		eps  []float64
	}{
		{"equal 0.1", []float64{0.1, 0.1, 0.1, 0.1}},
		{"A1", []float64{0.1, 0.2, 0.3, 0.4}},
		{"A2", []float64{0.2, 0.4, 0.1, 0.3}},
		{"A3", []float64{0.3, 0.1, 0.4, 0.2}},
		{"A4", []float64{0.4, 0.3, 0.2, 0.1}},
	} {
		svcs := paperServices(t, c.eps...)
		u, err := NewUWA(svcs, UWAOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		uaTh, _ := UAExpectedMSE(xs, svcs, nil)
		orTh, _ := OracleUWAExpectedMSE(xs, svcs, nil)
		singleTh := make([]float64, 4)
		bestTh := math.Inf(1)
		for j := range singleTh {
			singleTh[j], _ = ServiceExpectedMSE(xs, svcs, nil, j)
			bestTh = min(bestTh, singleTh[j])
		}
		if orTh/bestTh > 0.8 {
			t.Fatalf("%s: oracle ratio %.3f: the setting cannot resolve UWA < best single", c.name, orTh/bestTh)
		}
		var ua, uwa, oracle trialStats
		single := make([]trialStats, 4)
		reports := newReports(4, n)
		for range trials {
			perturbAll(t, svcs, xs, rng, reports)
			e, err := UA(reports, svcs)
			if err != nil {
				t.Fatal(err)
			}
			ua.add(e-truth, uaTh)
			if e, err = u.Estimate(reports); err != nil {
				t.Fatal(err)
			}
			uwa.add(e-truth, orTh)
			if e, err = OracleUWA(reports, svcs, xs, 1); err != nil {
				t.Fatal(err)
			}
			oracle.add(e-truth, orTh)
			for j := range single {
				if e, err = ServiceMean(reports[j], svcs[j]); err != nil {
					t.Fatal(err)
				}
				single[j].add(e-truth, singleTh[j])
			}
		}
		ua.checkTheory(t, c.name+" UA")
		ua.checkUnbiased(t, c.name+" UA")
		oracle.checkTheory(t, c.name+" oracle UWA")
		uwa.checkUnbiased(t, c.name+" UWA")
		best := math.Inf(1)
		for j := range single {
			single[j].checkTheory(t, c.name+" "+svcs[j].Name())
			best = min(best, single[j].mse())
		}
		ratio := uwa.mse() / best
		t.Logf("%s: MSE UWA/best single %.3f (oracle theory %.3f), UA/best %.3f, UWA/oracle %.3f", c.name, ratio, orTh/bestTh, ua.mse()/best, uwa.mse()/oracle.mse())
		if ratio >= 1 {
			t.Errorf("%s: UWA's MSE %.4g is not below the best single service's %.4g", c.name, uwa.mse(), best)
		}
	}
}

// With users in groups reporting to subsets of the services (Fig. 8c), UA
// pools the reports that exist and a single service sees only its own
// users: both estimates carry a fixed sampling bias against the mean of all
// users, which their exact theory includes. Checked as above, with groups
// of unequal sizes.
func TestSubsetTheory(t *testing.T) {
	skipUnderRace(t, "7 s")
	const n, trials = 1100, 1500
	rng := rand.New(rand.NewPCG(88, 1))
	xs := betaInputs(n, rng)
	truth := TrueMean(xs)
	svcs := paperServices(t, 0.5, 0.5, 0.5, 0.5)
	groups := []UserGroup{
		{0, 300, []int{0, 1}}, {300, 500, []int{2, 3}}, {500, 800, []int{0, 2, 3}}, {800, 1100, []int{0, 1, 2, 3}},
	}
	uaTh, err := UAExpectedMSE(xs, svcs, groups)
	if err != nil {
		t.Fatal(err)
	}
	orTh, _ := OracleUWAExpectedMSE(xs, svcs, groups)
	var singleTh [4]float64
	for j := range singleTh {
		singleTh[j], _ = ServiceExpectedMSE(xs, svcs, groups, j)
	}
	var ua, oracle trialStats
	var single [4]trialStats
	reports := newReports(4, n)
	u, _ := NewUWA(svcs, UWAOptions{Workers: 1})
	var uwa trialStats
	for range trials {
		perturbAll(t, svcs, xs, rng, reports)
		for j := range reports {
			for _, g := range groups {
				if !hasService(g.Services, j) {
					for i := g.Lo; i < g.Hi; i++ {
						reports[j][i] = math.NaN()
					}
				}
			}
		}
		e, _ := UA(reports, svcs)
		ua.add(e-truth, uaTh)
		e, _ = OracleUWA(reports, svcs, xs, 1)
		oracle.add(e-truth, orTh)
		e, err = u.Estimate(reports)
		if err != nil {
			t.Fatal(err)
		}
		uwa.add(e-truth, orTh)
		for j := range single {
			e, _ = ServiceMean(reports[j], svcs[j])
			single[j].add(e-truth, singleTh[j])
		}
	}
	// UA's pooled estimate is biased here (users of 4 services weigh
	// twice those of 2): the χ² check of err²/theory still applies, as
	// err = bias + N(0, var) and the theory is bias² + var... only
	// approximately χ²; so check the mean of err²/theory within its CLT
	// interval instead.
	for _, c := range []struct {
		name string
		s    *trialStats
	}{{"UA", &ua}, {"oracle", &oracle}, {"sr", &single[0]}, {"laplace", &single[1]}, {"pm", &single[2]}, {"sw", &single[3]}} {
		checkMeanRatio(t, "subsets "+c.name, c.s)
	}
	uwa.checkUnbiased(t, "subsets UWA")
}

// checkMeanRatio: err = β + σZ with theory β² + σ², so err²/theory has mean
// 1 and variance (2σ⁴ + 4β²σ²)/theory² ≤ 2; the mean over T trials is
// within zCrit·√(2/T) of 1.
func checkMeanRatio(t *testing.T, what string, s *trialStats) {
	t.Helper()
	m := s.sumNorm / float64(s.n)
	if tol := zCrit * math.Sqrt(2/float64(s.n)); math.Abs(m-1) > tol {
		t.Errorf("%s: mean err²/theory = %.3f, outside 1 ± %.3f", what, m, tol)
	}
}
