package estimators

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
)

func mustMech(t testing.TB, name string, eps float64) mechanisms.Mechanism {
	t.Helper()
	m, err := mechanisms.New(name, eps)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// normalised returns r/Σr.
func normalised(r []float64) []float64 {
	var s float64
	for _, v := range r {
		s += v
	}
	out := make([]float64, len(r))
	for k, v := range r {
		out[k] = v / s
	}
	return out
}

func sumOf(r []float64) float64 {
	var s float64
	for _, v := range r {
		s += v
	}
	return s
}

// sameShape fails unless a and b are proportional to a relative tol.
func sameShape(t *testing.T, what string, a, b []float64, tol float64) {
	t.Helper()
	na, nb := normalised(a), normalised(b)
	for k := range na {
		if !(math.Abs(na[k]-nb[k]) <= tol*nb[k]) {
			t.Fatalf("%s: bucket %d: %.17g vs reference %.17g (relative tolerance %g)", what, k, na[k], nb[k], tol)
		}
	}
}

// The Laplace likelihood of a report is the probability of the window
// [y-τ, y+τ], τ = √|y|, given μ_k (Du et al. §4.2, eq. (7)): checked against the CDF
// probability from mechanisms.Laplace (BucketGivenBin at the midpoint), for windows on either side of the
// midpoints, across them, tiny, and at y = 0 (the point density, E4.3); at
// ε = 300 the direct route is taken.
func TestPosteriorLaplaceWindow(t *testing.T) {
	for _, eps := range []float64{0.1, 1, 5, 300} {
		m := mustMech(t, "laplace", eps).(*mechanisms.Laplace)
		p, err := NewPosterior([]mechanisms.Mechanism{m}, PosteriorOptions{})
		if err != nil {
			t.Fatal(err)
		}
		lik := p.lik[0]
		scratch := make([]float64, p.h)
		for _, y := range []float64{-40, -3, -2.7, -1.2, -0.5, -1e-9, 1e-12, 0.003, 0.5, 0.99, 1.7, 2.6, 2.7, 9, 80} {
			r, ok := lik.row(y, scratch)
			if !ok {
				t.Fatalf("ε=%v y=%v: no row", eps, y)
			}
			tau := math.Sqrt(math.Abs(y))
			ref := make([]float64, p.h)
			for k, mu := range p.mu {
				// The mechanism's own exact bucket probability (its
				// survival side for windows above μ_k).
				ref[k] = m.BucketGivenBin(y-tau, y+tau, mu, mu)
			}
			if s := sumOf(ref); !(s > 0) {
				continue // beyond float64 (ε = 300 far from the window)
			}
			// Both sides take a difference of CDF values for a window
			// that contains μ_k, which loses digits in proportion to
			// 1/(window mass) ≈ b/τ: 1e-15·b/τ is the tolerance; at
			// ε = 300 exponents of a few hundred add their rounding.
			tol := max(1e-12, 1e-15*m.Scale()/tau)
			if eps > 200 {
				tol *= 100
			}
			sameShape(t, fmt.Sprintf("laplace ε=%v y=%v", eps, y), r, ref, tol)
		}
		r, _ := lik.row(0, scratch)
		ref := make([]float64, p.h)
		for k, mu := range p.mu {
			ref[k] = m.Density(0, mu)
		}
		sameShape(t, "laplace y=0", r, ref, 1e-12)
	}
	// Compat clamp (E4.3): a report beyond (2/ε)·ln 5 is treated as the
	// clamp value.
	m := mustMech(t, "laplace", 2)
	p, _ := NewPosterior([]mechanisms.Mechanism{m}, PosteriorOptions{LaplaceClamp: true})
	q, _ := NewPosterior([]mechanisms.Mechanism{m}, PosteriorOptions{})
	a, _ := p.lik[0].row(50, make([]float64, 100))
	b, _ := q.lik[0].row(math.Log(5), make([]float64, 100))
	sameShape(t, "clamp", a, b, 1e-12)
}

// The PM likelihood is the exact probability of the report's output bucket
// of [-C, C] at the input midpoint (the correct lookup); the authors' lookup
// (E4.2) takes the row of the nearest input midpoint instead, so a report
// beyond 1 gets the last bucket's row.
func TestPosteriorPM(t *testing.T) {
	m := mustMech(t, "pm", 0.5).(*mechanisms.Piecewise)
	lo, hi := m.OutputRange()
	p, err := NewPosterior([]mechanisms.Mechanism{m}, PosteriorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := (hi - lo) / 100
	for _, y := range []float64{lo, -3.1, -0.99, 0, 0.37, 2.5, hi} {
		r, _ := p.lik[0].row(y, nil)
		b := min(int((y-lo)/w), 99)
		ylo, yhi := lo+float64(b)*w, lo+float64(b+1)*w
		ref := make([]float64, 100)
		for k, mu := range p.mu {
			ref[k] = m.CDF(yhi, mu) - m.CDF(ylo, mu)
		}
		sameShape(t, "pm", r, ref, 1e-9)
	}
	a, _ := NewPosterior([]mechanisms.Mechanism{m}, PosteriorOptions{PMLookup: PMLookupAuthors})
	got, _ := a.lik[0].row(2.5, nil)
	last, _ := p.lik[0].row(hi, nil)
	right, _ := p.lik[0].row(2.5, nil)
	sameShape(t, "authors' lookup of 2.5", got, last, 0)
	if d := normalised(got)[0] - normalised(right)[0]; d == 0 {
		t.Error("the authors' lookup gives the correct row: the compat option does nothing")
	}
	if _, err := NewPosterior([]mechanisms.Mechanism{m}, PosteriorOptions{PMLookup: "nearest"}); err == nil {
		t.Error("an unknown PM lookup is accepted")
	}
}

// The SW likelihood is Li et al.'s transform: the probability of the
// report's bucket of [-b, 1+b] for an input uniform over the input bin
// (BucketGivenBin), checked against a fine midpoint rule over the bin.
func TestPosteriorSW(t *testing.T) {
	m := mustMech(t, "sw", 1).(*mechanisms.SquareWave)
	p, err := NewPosterior([]mechanisms.Mechanism{m}, PosteriorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := m.OutputRange()
	w := (hi - lo) / 100
	for _, y := range []float64{lo, 0.01, 0.5, 0.73, hi} {
		r, _ := p.lik[0].row(y, nil)
		b := min(int((y-lo)/w), 99)
		ylo, yhi := lo+float64(b)*w, lo+float64(b+1)*w
		ref := make([]float64, 100)
		const steps = 4000
		for k := range ref {
			slo := float64(k) / 100
			var s float64
			for i := range steps {
				x := slo + (float64(i)+0.5)/steps/100
				s += m.CDF(yhi, x) - m.CDF(ylo, x)
			}
			ref[k] = s / steps
		}
		sameShape(t, "sw", r, ref, 1e-5)
	}
}

// SR's likelihood is its exact two-point law at the midpoints.
func TestPosteriorSR(t *testing.T) {
	m := mustMech(t, "duchi", 0.3).(*mechanisms.Duchi)
	p, _ := NewPosterior([]mechanisms.Mechanism{m}, PosteriorOptions{Buckets: 40})
	for o, y := range m.Outputs() {
		r, _ := p.lik[0].row(y, nil)
		ref := make([]float64, 40)
		probs := make([]float64, 2)
		for k, mu := range p.mu {
			m.Probabilities(mu, probs)
			ref[k] = probs[o]
		}
		sameShape(t, "sr", r, ref, 1e-14)
	}
	if _, ok := p.lik[0].row(0.5, nil); ok {
		t.Error("SR accepts a report that is not ±C")
	}
}

// Mechanisms without a likelihood are refused with a reason; the variances
// of the paper's four mechanisms are recognised as quadratics.
func TestPosteriorServices(t *testing.T) {
	if _, err := NewPosterior([]mechanisms.Mechanism{mustMech(t, "hm", 1)}, PosteriorOptions{}); err == nil || !strings.Contains(err.Error(), "needs a discrete law or a density") {
		t.Errorf("hm: %v", err)
	}
	p, err := NewPosterior(paperServices(t, 0.1, 0.7, 2, 4), PosteriorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !p.allQuad {
		t.Errorf("quadratic variances not recognised: %v", p.quad)
	}
	if _, err := NewPosterior(nil, PosteriorOptions{}); err == nil {
		t.Error("no services accepted")
	}
	if _, err := NewPosterior(paperServices(t, 1), PosteriorOptions{Buckets: 1}); err == nil {
		t.Error("h = 1 accepted")
	}
}

// Algorithm 1's posterior does not depend on the order of the services
// (it is the normalised product of the likelihoods), and a user without
// reports keeps the uniform prior.
func TestPosteriorUser(t *testing.T) {
	svcs := paperServices(t, 0.5, 0.5, 0.5, 0.5)
	p, _ := NewPosterior(svcs, PosteriorOptions{})
	rev := []mechanisms.Mechanism{svcs[3], svcs[2], svcs[1], svcs[0]}
	q, _ := NewPosterior(rev, PosteriorOptions{})
	rng := rand.New(rand.NewPCG(3, 3))
	reports := newReports(4, 1)
	perturbAll(t, svcs, []float64{0.4}, rng, reports)
	ys := []float64{reports[0][0], reports[1][0], reports[2][0], reports[3][0]}
	a, b := make([]float64, 100), make([]float64, 100)
	if err := p.User(ys, a, make([]float64, 100)); err != nil {
		t.Fatal(err)
	}
	if err := q.User([]float64{ys[3], ys[2], ys[1], ys[0]}, b, make([]float64, 100)); err != nil {
		t.Fatal(err)
	}
	sameShape(t, "order", a, b, 1e-12)
	nan := math.NaN()
	if err := p.User([]float64{nan, nan, nan, nan}, a, b); err != nil {
		t.Fatal(err)
	}
	for _, v := range a {
		if v != 0.01 {
			t.Fatalf("no reports: posterior %v, want the uniform prior", a[:3])
		}
	}
}
