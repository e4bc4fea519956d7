package mechanisms_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/mechtest"
)

// grrAsMechanism adapts a categorical sampler to mechanisms.Mechanism and
// mechanisms.Discrete, inputs and outputs being the categories 0, …, d-1
// as floats, so that mechtest.DiscreteFit and the ratio checks apply to
// it. perturb is the sampler under test (GRR.Perturb or a broken one).
type grrAsMechanism struct {
	g       *mechanisms.GRR
	perturb func(x int, rng *rand.Rand) int
	outs    []float64
}

func newGRRAsMechanism(g *mechanisms.GRR, perturb func(int, *rand.Rand) int) grrAsMechanism {
	outs := make([]float64, g.D())
	for i := range outs {
		outs[i] = float64(i)
	}
	if perturb == nil {
		perturb = g.Perturb
	}
	return grrAsMechanism{g: g, perturb: perturb, outs: outs}
}

func (m grrAsMechanism) Name() string             { return fmt.Sprintf("grr(d=%d)", m.g.D()) }
func (m grrAsMechanism) Epsilon() float64         { return m.g.Epsilon() }
func (m grrAsMechanism) Domain() (lo, hi float64) { return 0, float64(m.g.D() - 1) }
func (m grrAsMechanism) Perturb(x float64, rng *rand.Rand) float64 {
	return float64(m.perturb(int(x), rng))
}
func (m grrAsMechanism) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	for i, x := range xs {
		dst[i] = m.Perturb(x, rng)
	}
	return nil
}
func (m grrAsMechanism) Outputs() []float64 { return m.outs }
func (m grrAsMechanism) Probabilities(x float64, dst []float64) {
	m.g.Probabilities(int(x), dst)
}

// TestGRRReference: p = e^ε/(e^ε+d-1) and q = 1/(e^ε+d-1) as printed
// (eq. (2)), p + (d-1)q = 1, p/q = e^ε (the exact LDP ratio), and the
// small q keeps its relative accuracy at large ε. Catches a wrong
// denominator (e^ε+d instead of e^ε+d-1: off by 1/d at small ε).
func TestGRRReference(t *testing.T) {
	for _, eps := range []float64{0.01, 0.5, 1, 4, 16, 40} {
		for _, d := range []int{2, 3, 8, 64, 1000} {
			g, err := mechanisms.NewGRR(eps, d)
			if err != nil {
				t.Fatal(err)
			}
			e := math.Exp(eps)
			wantP, wantQ := e/(e+float64(d-1)), 1/(e+float64(d-1))
			if !relClose(g.P(), wantP, 1e-15) || !relClose(g.Q(), wantQ, 1e-14) {
				t.Errorf("ε=%v d=%d: p %v, q %v; want %v, %v", eps, d, g.P(), g.Q(), wantP, wantQ)
			}
			if s := g.P() + float64(d-1)*g.Q(); math.Abs(s-1) > 1e-15 {
				t.Errorf("ε=%v d=%d: p + (d-1)q = 1%+.3g", eps, d, s-1)
			}
			if !relClose(g.P()/g.Q(), e, 1e-14) {
				t.Errorf("ε=%v d=%d: p/q = %v, want e^ε = %v", eps, d, g.P()/g.Q(), e)
			}
			if g.D() != d || g.Epsilon() != eps {
				t.Errorf("ε=%v d=%d: D %d, Epsilon %v", eps, d, g.D(), g.Epsilon())
			}
		}
	}
}

// TestGRRExact: the probabilities sum to 1 and the privacy ratio over all
// inputs is exactly e^ε (DiscreteLDPTight), for every (ε, d).
func TestGRRExact(t *testing.T) {
	for _, eps := range []float64{0.01, 0.5, 1, 4, 16} {
		for _, d := range []int{2, 3, 8, 64} {
			g, _ := mechanisms.NewGRR(eps, d)
			m := newGRRAsMechanism(g, nil)
			ps := make([]float64, d)
			for x := range d {
				g.Probabilities(x, ps)
				sum := 0.0
				for _, p := range ps {
					sum += p
				}
				if math.Abs(sum-1) > 1e-14 || ps[x] != g.P() {
					t.Errorf("ε=%v d=%d x=%d: probabilities %v sum to 1%+.3g", eps, d, x, ps, sum-1)
				}
			}
			if err := mechtest.DiscreteLDPTight(m, m.outs, eps, 1e-12); err != nil {
				t.Error(err)
			}
		}
	}
}

// TestGRRFit: Perturb's reports fit Probabilities by a chi-square test
// (alpha 1e-6), at the first, a middle and the last category, for domains
// of size 2, 3, 7 and 64 (not powers of two: an offset drawn as
// ⌊u·(d-1)⌋ with the wrong range shows up there). Catches a sampler whose
// offset may be 0 (the true category reported with p + q) or may skip a
// category.
func TestGRRFit(t *testing.T) {
	rng := newRNG(301)
	for _, eps := range []float64{0.5, 1, 4} {
		for _, d := range []int{2, 3, 7, 64} {
			g, _ := mechanisms.NewGRR(eps, d)
			m := newGRRAsMechanism(g, nil)
			for _, x := range []int{0, d / 2, d - 1} {
				if err := mechtest.DiscreteFit(m, float64(x), nMC, rng, mechtest.DefaultAlpha); err != nil {
					t.Error(err)
				}
			}
		}
	}
}

// TestGRRBrokenCaught: the fit test catches an off-by-one offset
// (x + U{0, …, d-2} mod d, which reports x with probability p + q and
// never x-1), at every ε of epsGrid and d = 3, 7.
func TestGRRBrokenCaught(t *testing.T) {
	rng := newRNG(302)
	for _, eps := range epsGrid {
		for _, d := range []int{3, 7} {
			g, _ := mechanisms.NewGRR(eps, d)
			broken := func(x int, rng *rand.Rand) int {
				if rng.Float64() < g.P() {
					return x
				}
				return (x + rng.IntN(d-1)) % d
			}
			m := newGRRAsMechanism(g, broken)
			if err := mechtest.DiscreteFit(m, 1, nMC, rng, mechtest.DefaultAlpha); err == nil {
				t.Errorf("ε=%v d=%d: the fit test missed an offset of 0", eps, d)
			}
		}
	}
}

// TestGRRParamErrors: d < 2 (q would divide by zero) and a bad ε are
// rejected with a *ParamError naming the parameter.
func TestGRRParamErrors(t *testing.T) {
	for _, c := range []struct {
		eps   float64
		d     int
		param string
	}{
		{1, 1, "d"}, {1, 0, "d"}, {1, -3, "d"},
		{0, 4, "epsilon"}, {math.NaN(), 4, "epsilon"}, {math.Inf(1), 4, "epsilon"}, {-1, 4, "epsilon"},
	} {
		g, err := mechanisms.NewGRR(c.eps, c.d)
		var pe *mechanisms.ParamError
		if g != nil || !errors.As(err, &pe) || pe.Param != c.param || pe.Mechanism != "grr" {
			t.Errorf("NewGRR(%v, %d) = %v, %v; want a *ParamError on %s", c.eps, c.d, g, err, c.param)
		}
	}
	_, err := mechanisms.NewGRR(1, 1)
	if want := "grr: parameter d = 1: must be ≥ 2"; err == nil || err.Error() != want {
		t.Errorf("NewGRR(1, 1): %v, want %q", err, want)
	}
}
