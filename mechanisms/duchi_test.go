package mechanisms_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/mechtest"
)

func TestDuchiReference(t *testing.T) {
	// C = (e^ε+1)/(e^ε-1) and the worst case C², from mpmath (40 digits).
	for _, c := range []struct{ eps, c, worst float64 }{
		{0.5, 4.0829881650735965683, 16.670792356131055059},
		{1, 2.1639534137386528488, 4.6826943768311692758},
		{4, 1.0373147207275480959, 1.0760218298380710993},
	} {
		m, err := mechanisms.NewDuchi(c.eps)
		if err != nil {
			t.Fatal(err)
		}
		if !relClose(m.C(), c.c, 1e-15) || !relClose(m.WorstCaseVariance(), c.worst, 1e-15) {
			t.Errorf("ε=%v: C %v, worst %v; want %v, %v", c.eps, m.C(), m.WorstCaseVariance(), c.c, c.worst)
		}
		if out := m.Outputs(); len(out) != 2 || out[0] != -m.C() || out[1] != m.C() {
			t.Errorf("ε=%v: outputs %v", c.eps, out)
		}
	}
	// The probabilities as printed (Du et al. Section 2.3), and the
	// variance.
	for _, eps := range []float64{0.01, 0.5, 1, 4, 16} {
		m, _ := mechanisms.NewDuchi(eps)
		e := math.Exp(eps)
		ps := make([]float64, 2)
		for _, x := range mechtest.Grid(-1, 1, 20) {
			m.Probabilities(x, ps)
			want := 0.5 + x*(e-1)/(2*e+2)
			if math.Abs(ps[1]-want) > 1e-15 || math.Abs(ps[0]-(1-want)) > 1e-15 {
				t.Errorf("ε=%v x=%v: probabilities %v, want P[+] = %v", eps, x, ps, want)
			}
			c := (e + 1) / (e - 1)
			if !relClose(m.Variance(x), c*c-x*x, 1e-12) {
				t.Errorf("ε=%v x=%v: variance %v, want %v", eps, x, m.Variance(x), c*c-x*x)
			}
		}
	}
	// The small probability keeps its relative accuracy at large ε.
	m, _ := mechanisms.NewDuchi(30)
	ps := make([]float64, 2)
	m.Probabilities(1, ps)
	if want := 1 / (1 + math.Exp(30)); !relClose(ps[0], want, 1e-15) {
		t.Errorf("ε=30: P[-C | 1] = %v, want %v", ps[0], want)
	}
}

// skewedDuchi reports +C with probability P[+C|x] + shift: biased.
type skewedDuchi struct {
	*mechanisms.Duchi
	shift float64
}

func (m skewedDuchi) Perturb(x float64, rng *rand.Rand) float64 {
	ps := [2]float64{}
	m.Duchi.Probabilities(x, ps[:])
	if rng.Float64() < ps[1]+m.shift {
		return m.C()
	}
	return -m.C()
}

func (m skewedDuchi) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	for i, x := range xs {
		dst[i] = m.Perturb(x, rng)
	}
	return nil
}

func (m skewedDuchi) Probabilities(x float64, dst []float64) {
	m.Duchi.Probabilities(x, dst)
	dst[0] -= m.shift
	dst[1] += m.shift
}

// misreportedDuchi has the constants of one budget and claims another.
type misreportedDuchi struct {
	*mechanisms.Duchi
	claimed *mechanisms.Duchi
}

func (m misreportedDuchi) Epsilon() float64           { return m.claimed.Epsilon() }
func (m misreportedDuchi) Variance(x float64) float64 { return m.claimed.Variance(x) }
func (m misreportedDuchi) WorstCaseVariance() float64 { return m.claimed.WorstCaseVariance() }

func TestDuchiBrokenCaught(t *testing.T) {
	rng := newRNG(31)
	for _, eps := range epsGrid {
		d, _ := mechanisms.NewDuchi(eps)
		skewed := skewedDuchi{d, 0.02}
		for _, x := range xGrid {
			if err := mechtest.Unbiased(skewed, x, nMC, rng, mechtest.DefaultAlpha); err == nil {
				t.Errorf("ε=%v x=%v: the unbiasedness check missed a probability shifted by 0.02", eps, x)
			}
		}
		if err := mechtest.ProbabilitiesSumToOne(skewed, xGrid, 1e-12); err == nil {
			t.Errorf("ε=%v: ProbabilitiesSumToOne missed the bias", eps)
		}

		xs := mechtest.Grid(-1, 1, 100)
		for _, c := range []struct {
			factor     float64
			ldp, tight bool
		}{{1.5, false, false}, {0.5, true, false}} {
			inner, _ := mechanisms.NewDuchi(c.factor * eps)
			m := misreportedDuchi{inner, d}
			if err := mechtest.DiscreteLDP(m, xs, eps, 1e-9); (err == nil) != c.ldp {
				t.Errorf("ε=%v factor %v: DiscreteLDP error %v", eps, c.factor, err)
			}
			if err := mechtest.DiscreteLDPTight(m, xs, eps, 1e-9); (err == nil) != c.tight {
				t.Errorf("ε=%v factor %v: DiscreteLDPTight error %v", eps, c.factor, err)
			}
			if err := mechtest.Variance(m, 0.5, nMC, rng, mechtest.DefaultAlpha); err == nil {
				t.Errorf("ε=%v factor %v: the variance check missed wrong constants", eps, c.factor)
			}
		}
	}
}
