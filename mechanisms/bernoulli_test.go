package mechanisms_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/mechtest"
)

// TestBernoulliReference: c = (e^ε-1)/(e^ε+1) and the worst case 1/c² as
// literal digits (mpmath, 40 digits), and Probabilities as Algorithm 1's
// two steps composed literally, P[+1 | v] = β(1+v)/2 + (1-β)(1-v)/2. Catches
// RR at the wrong budget (ε/2: c off by a factor ~2) and a sign flip.
func TestBernoulliReference(t *testing.T) {
	for _, c := range []struct{ eps, c, worst float64 }{
		{0.5, 0.24491866240370912928, 16.670792356131055059},
		{1, 0.4621171572600097585, 4.6826943768311692758},
		{4, 0.96402758007581688395, 1.0760218298380710993},
	} {
		m, err := mechanisms.NewBernoulli(c.eps)
		if err != nil {
			t.Fatal(err)
		}
		if !relClose(m.C(), c.c, 1e-15) || !relClose(m.WorstCaseVariance(), c.worst, 1e-14) {
			t.Errorf("ε=%v: c %v, worst %v; want %v, %v", c.eps, m.C(), m.WorstCaseVariance(), c.c, c.worst)
		}
	}
	for _, eps := range []float64{0.01, 0.5, 1, 4, 16} {
		m, _ := mechanisms.NewBernoulli(eps)
		if out := m.Outputs(); !slices.Equal(out, []float64{-1, 1}) {
			t.Errorf("ε=%v: outputs %v", eps, out)
		}
		beta := math.Exp(eps) / (math.Exp(eps) + 1)
		ps := make([]float64, 2)
		for _, v := range mechtest.Grid(-1, 1, 20) {
			m.Probabilities(v, ps)
			want := beta*(1+v)/2 + (1-beta)*(1-v)/2
			if math.Abs(ps[1]-want) > 1e-15 || math.Abs(ps[0]-(1-want)) > 1e-15 {
				t.Errorf("ε=%v v=%v: probabilities %v, want P[+1] = %v", eps, v, ps, want)
			}
			// E[Y²] = 1, so Var of Y/c is 1/c² - v² (which cancels at
			// large ε: compared to the scale 1/c²).
			if want := 1/(m.C()*m.C()) - v*v; math.Abs(m.Variance(v)-want) > 1e-14/(m.C()*m.C()) {
				t.Errorf("ε=%v v=%v: variance %v, want %v", eps, v, m.Variance(v), want)
			}
			if got := m.Debias(1); !relClose(got, 1/m.C(), 1e-15) {
				t.Errorf("ε=%v: Debias(1) = %v", eps, got)
			}
		}
	}
	// At ε = 16 and v = ±1 the variance is 1/sinh²(8) (mpmath), which
	// 1/c² - 1 would lose 7 digits of.
	m16, _ := mechanisms.NewBernoulli(16)
	if got, want := m16.Variance(1), 4.5014080019037795278e-7; !relClose(got, want, 1e-14) {
		t.Errorf("ε=16: Var(1) = %v, want %v", got, want)
	}
	// The small probability keeps its relative accuracy at large ε.
	m, _ := mechanisms.NewBernoulli(30)
	ps := make([]float64, 2)
	m.Probabilities(1, ps)
	if want := 1 / (1 + math.Exp(30)); !relClose(ps[0], want, 1e-15) {
		t.Errorf("ε=30: P[-1 | 1] = %v, want %v", ps[0], want)
	}
}

// TestBernoulliExact: probabilities sum to 1 with an unbiased de-biased
// report, and the privacy ratio is exactly e^ε (attained at v = ±1).
func TestBernoulliExact(t *testing.T) {
	xs := mechtest.Grid(-1, 1, 1000)
	for _, eps := range []float64{0.01, 0.5, 1, 4, 16} {
		m, _ := mechanisms.NewBernoulli(eps)
		if err := mechtest.ProbabilitiesSumToOne(m, xs, 1e-12); err != nil {
			t.Error(err)
		}
		if err := mechtest.DiscreteLDPTight(m, xs, eps, 1e-12); err != nil {
			t.Error(err)
		}
	}
}

// TestBernoulliStatistics: the reports fit the exact law (chi-square), the
// de-biased reports are unbiased with the closed-form variance (alpha 1e-6
// each), on xGrid at every ε of epsGrid.
func TestBernoulliStatistics(t *testing.T) {
	rng := newRNG(311)
	for _, eps := range epsGrid {
		m, _ := mechanisms.NewBernoulli(eps)
		for _, x := range xGrid {
			if err := mechtest.DiscreteFit(m, x, nMC, rng, mechtest.DefaultAlpha); err != nil {
				t.Error(err)
			}
		}
		checkMoments(t, m, xGrid, rng)
	}
}

// TestBernoulliIsNPRR1: Bernoulli is simplified NPRR with k = 1
// (Raab et al. Section 3.2.4, Algorithm 2): the same outputs, probabilities
// (to rounding), slope and variance at every input and budget.
func TestBernoulliIsNPRR1(t *testing.T) {
	for _, eps := range []float64{0.01, 0.5, 1, 4, 16} {
		b, _ := mechanisms.NewBernoulli(eps)
		n, _ := mechanisms.NewNPRR(eps, 1)
		if !slices.Equal(b.Outputs(), n.Outputs()) || !relClose(n.C(), b.C(), 1e-15) {
			t.Errorf("ε=%v: outputs %v vs %v, c %v vs %v", eps, b.Outputs(), n.Outputs(), b.C(), n.C())
		}
		pb, pn := make([]float64, 2), make([]float64, 2)
		for _, x := range mechtest.Grid(-1, 1, 200) {
			b.Probabilities(x, pb)
			n.Probabilities(x, pn)
			if math.Abs(pb[0]-pn[0]) > 1e-15 || math.Abs(pb[1]-pn[1]) > 1e-15 {
				t.Errorf("ε=%v x=%v: Bernoulli %v, NPRR(k=1) %v", eps, x, pb, pn)
			}
			if !relClose(n.Variance(x), b.Variance(x), 1e-13) || !relClose(n.SecondMoment(x), 1, 1e-14) {
				t.Errorf("ε=%v x=%v: variance %v vs %v, NPRR E[Y²] %v (want 1)", eps, x, b.Variance(x), n.Variance(x), n.SecondMoment(x))
			}
		}
		if !relClose(n.WorstCaseVariance(), b.WorstCaseVariance(), 1e-14) {
			t.Errorf("ε=%v: worst %v vs %v", eps, b.WorstCaseVariance(), n.WorstCaseVariance())
		}
	}
}

// TestBernoulliBatch: a batch equals the same Perturb calls (lengths
// around the block sizes), also in place; a bad input gives an
// *InputError at its index before any draw; a short dst panics.
func TestBernoulliBatch(t *testing.T) {
	m, _ := mechanisms.NewBernoulli(1)
	checkBatch(t, m)
	_, err := mechanisms.NewBernoulli(0)
	var pe *mechanisms.ParamError
	if !errors.As(err, &pe) || pe.Param != "epsilon" || err.Error() != "bernoulli: parameter epsilon = 0: must be finite and > 0" {
		t.Errorf("NewBernoulli(0): %v", err)
	}
}

// checkBatch is TestPerturbBatch's check for one mechanism whose batch is
// a sequence of Perturb calls, over several batch lengths.
func checkBatch(t *testing.T, m mechanisms.Mechanism) {
	t.Helper()
	for _, n := range []int{1, 3, 4, 31, 32, 33, 100} {
		xs := mechtest.Grid(-1, 1, n-1+b2i(n == 1))[:n]
		rng := newRNG(uint64(n))
		want := make([]float64, n)
		for i, x := range xs {
			want[i] = m.Perturb(x, rng)
		}
		got := make([]float64, n)
		if err := m.PerturbBatch(got, xs, newRNG(uint64(n))); err != nil {
			t.Fatal(err)
		}
		inPlace := slices.Clone(xs)
		if err := m.PerturbBatch(inPlace, inPlace, newRNG(uint64(n))); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) || !slices.Equal(inPlace, want) {
			t.Errorf("%s n=%d: batch %v, in place %v, Perturb %v", m.Name(), n, got, inPlace, want)
		}
	}
	xs := mechtest.Grid(-1, 1, 40)
	for _, bad := range []float64{math.NaN(), -1 - 1e-9, 1 + 1e-9, math.Inf(-1)} {
		in := slices.Clone(xs)
		in[17] = bad
		r1, r2 := newRNG(5), newRNG(5)
		err := m.PerturbBatch(make([]float64, len(in)), in, r1)
		var ie *mechanisms.InputError
		if !errors.As(err, &ie) || ie.Index != 17 || ie.Lo != -1 || ie.Hi != 1 || ie.Mechanism != m.Name() {
			t.Errorf("%s: input %v gives error %v, want *InputError at index 17", m.Name(), bad, err)
		}
		if r1.Uint64() != r2.Uint64() {
			t.Errorf("%s: a rejected batch drew from the generator", m.Name())
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Errorf("%s: PerturbBatch with a short dst did not panic", m.Name())
			}
		}()
		_ = m.PerturbBatch(make([]float64, len(xs)-1), xs, newRNG(1))
	}()
	rng := newRNG(9)
	dst := make([]float64, len(xs))
	if a := testing.AllocsPerRun(50, func() { _ = m.PerturbBatch(dst, xs, rng) }); a != 0 {
		t.Errorf("%s: PerturbBatch allocates %v times", m.Name(), a)
	}
}
