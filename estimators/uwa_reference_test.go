package estimators

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// uwaReference is v'_i of Theorem 4.2 computed from first principles,
// sharing no code with UWA's weights (uwa.go) or Posterior.UserWeights:
// the posterior f over the h bucket midpoints μ_k = -1 + (2k+1)/h is
// Algorithm 1's (Posterior.User, whose likelihood rows posterior_test.go
// checks against the mechanisms' own laws); the expected variance of
// service j's unbiased value is V_j = Σ_k f_k·Var_j(μ_k), Var_j the
// mechanism's closed-form variance on [-1, 1] (NewUnbiaser, Square Wave's
// times 4); the weights are w_j = (1/V_j)/Σ_t (1/V_t), the inverse
// VARIANCES, and v' = Σ_j w_j·A'_j(y_j). It returns v', the weights, and
// the bound on |UWA's v' − v'| (uwaBound).
func uwaReference(t *testing.T, p *Posterior, us []Unbiaser, ys []float64) (v float64, w []float64, bound float64) {
	t.Helper()
	h := p.Buckets()
	f := make([]float64, h)
	if err := p.User(ys, f, make([]float64, h)); err != nil {
		t.Fatal(err)
	}
	w = make([]float64, len(ys))
	vals := make([]float64, len(ys))
	var den float64
	m := 0
	for j, y := range ys {
		if y != y {
			continue
		}
		m++
		var V float64
		for k, fk := range f {
			mu := -1 + float64(2*k+1)/float64(h)
			V += fk * us[j].Variance(mu)
		}
		w[j] = 1 / V
		den += w[j]
		vals[j] = us[j].Value(y)
	}
	for j, y := range ys {
		if y == y {
			w[j] /= den
			v += w[j] * vals[j]
		}
	}
	return v, w, uwaBound(p, f, w, vals, ys, m, v)
}

// uwaBound is a first-order bound on the rounding difference between two
// computations of v' = Σ_j r_j·u_j / Σ_j r_j, r_j = 1/V_j, over the m
// reports of one user (u = 2^-53, h buckets):
//
//   - this file's: f normalised after each of the m services (a product,
//     a sum of h positive terms and a division: (h+1)·u each), V_j a sum
//     of h positive terms and the closed-form variances (≤ 8u): relative
//     error ≤ δ_ref = (m+1)(h+1)u + 8u;
//   - UWA's fast route: the product of the m max-scaled rows (m·u) and, for
//     quadratic variances, V_j·S = α_j·S + β_j·M1 + γ_j·M2 with moments
//     summed over h buckets, absolute error ≤ (h+m+3)u·K_j with K_j =
//     |α_j|S + |β_j|Σf|μ| + |γ_j|M2: relative error ≤ (h+m+3)u·κ_j,
//     κ_j = K_j/(V_j·S); plus the quadratic's acceptance tolerance in setVariance,
//     1e-12 relative at every midpoint; or for tabulated variances (h+m)u;
//     or the normalised route, δ_ref again;
//
// so each 1/V_j is within δ = δ_ref + max(1e-12 + (h+m+3)u·κ_j, δ_ref)
// (relative) on the two sides, which moves v' by at most δ·Σ_j w_j|u_j −
// v'| (∂v'/∂log r_j = w_j(u_j − v')), and the final sums and the division
// add (m+3)u·(Σ_j w_j|u_j| + |v'|) on each side. The result is that sum
// times 1.01 (second-order terms).
func uwaBound(p *Posterior, f, w, vals, ys []float64, m int, v float64) float64 {
	const u = 0x1p-53
	h := float64(p.Buckets())
	M := float64(m)
	dRef := (M+1)*(h+1)*u + 8*u
	dFast := dRef
	for j, y := range ys {
		if y != y {
			continue
		}
		var abs, V float64
		for k, fk := range f {
			mu := p.mu[k]
			abs += fk * (math.Abs(p.qa[j]) + math.Abs(p.qb[j]*mu) + math.Abs(p.qc[j]*mu*mu))
			V += fk * p.varTab[j][k]
		}
		dFast = max(dFast, 1e-12+(h+M+3)*u*abs/V, (h+M)*u)
	}
	var spread, mag float64
	for j, y := range ys {
		if y == y {
			spread += w[j] * math.Abs(vals[j]-v)
			mag += w[j] * math.Abs(vals[j])
		}
	}
	return 1.01 * ((dRef+dFast)*spread + 2*(M+3)*u*(mag+math.Abs(v)))
}

// UWA's value of every user (its fast route, the tabulated variances and
// the normalised route for products that underflow), Posterior.UserWeights,
// and Estimate against the first-principles reference, within the
// rounding bound of uwaBound: a deterministic comparison, no sampling.
// Weights 1/σ_j instead of 1/σ_j² (or any other departure from
// inverse-variance weights) move v' by a fraction of the spread of the
// users' values, orders of magnitude beyond the bound.
func TestUWAMatchesFirstPrinciples(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
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
		{"m=2", paperServices(t, 0.5, 0.7), 0, 0, false},
		{"m=3", paperServices(t, 0.5, 0.7, 1), 0, 0, false},
		{"m=5", paperServices(t, 0.5, 0.7, 1, 1.5, 2), 0, 0, false},
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
		u, err := NewUWA(c.svcs, UWAOptions{Workers: 2, Posterior: PosteriorOptions{Buckets: c.h}})
		if err != nil {
			t.Fatal(c.name, err)
		}
		p := u.Posterior()
		us := make([]Unbiaser, len(c.svcs))
		for j, s := range c.svcs {
			if us[j], err = NewUnbiaser(s); err != nil {
				t.Fatal(err)
			}
		}
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
		got := make([]float64, len(c.svcs))
		var sum, sumAbs, sumBound, worst float64
		count := 0
		for i := range n {
			have := 0
			for j := range ys {
				ys[j] = reports[j][i]
				if ys[j] == ys[j] {
					have++
				}
			}
			fast, ok, err := p.userValue(reports, i, sc)
			if err != nil {
				t.Fatal(c.name, err)
			}
			if ok != (have > 0) {
				t.Fatalf("%s: user %d with %d reports: counted %v", c.name, i, have, ok)
			}
			if !ok {
				continue
			}
			want, w, bound := uwaReference(t, p, us, ys)
			if d := math.Abs(fast - want); !(d <= bound) {
				t.Fatalf("%s: user %d: UWA's v' = %.17g, first principles %.17g: |diff| %.3g > bound %.3g", c.name, i, fast, want, d, bound)
			}
			worst = max(worst, math.Abs(fast-want)/max(bound, 1e-300))
			if err := p.UserWeights(ys, got); err != nil {
				t.Fatal(err)
			}
			for j := range w {
				// Both compute f and V_j as this file does (δ_ref each).
				tol := 2.02 * (float64(have+1)*float64(p.h+1) + 8) * 0x1p-53 * w[j]
				if d := math.Abs(got[j] - w[j]); !(d <= tol) {
					t.Fatalf("%s: user %d: UserWeights w_%d = %.17g, first principles %.17g (|diff| %.3g > %.3g)", c.name, i, j, got[j], w[j], d, tol)
				}
			}
			sum += want
			sumAbs += math.Abs(want)
			sumBound += bound
			count++
		}
		est, err := u.Estimate(reports)
		if err != nil {
			t.Fatal(err)
		}
		// The mean of the users' values: their bounds, plus the rounding
		// of two sums of count terms (blocks or not).
		want := sum / float64(count)
		if tol := (sumBound + 2*float64(count+2)*0x1p-53*sumAbs) / float64(count); !(math.Abs(est-want) <= tol) {
			t.Errorf("%s: Estimate %.17g, mean of the first-principles values %.17g (|diff| %.3g > %.3g)", c.name, est, want, math.Abs(est-want), tol)
		}
		t.Logf("%s: %d users, largest |UWA − reference|/bound %.3g", c.name, count, worst)
	}
}
