package estimators

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Test-only wrappers: a built-in mechanism in a new type offering the
// interfaces listed, so that no type switch on the built-in type matches.
type wrapBase struct{ m mechanisms.Mechanism }

func (w wrapBase) Name() string                              { return "wrapped-" + w.m.Name() }
func (w wrapBase) Epsilon() float64                          { return w.m.Epsilon() }
func (w wrapBase) Domain() (lo, hi float64)                  { return w.m.Domain() }
func (w wrapBase) Perturb(x float64, rng *rand.Rand) float64 { return w.m.Perturb(x, rng) }
func (w wrapBase) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	return w.m.PerturbBatch(dst, xs, rng)
}

// wrapDensity: variance, density and CDF, no bucket probabilities.
type wrapDensity struct {
	wrapBase
	c mechanisms.Continuous
	v mechanisms.Variancer
}

func (w wrapDensity) Variance(x float64) float64    { return w.v.Variance(x) }
func (w wrapDensity) WorstCaseVariance() float64    { return w.v.WorstCaseVariance() }
func (w wrapDensity) OutputRange() (lo, hi float64) { return w.c.OutputRange() }
func (w wrapDensity) Density(y, x float64) float64  { return w.c.Density(y, x) }
func (w wrapDensity) CDF(y, x float64) float64      { return w.c.CDF(y, x) }
func newWrapDensity(m mechanisms.Mechanism) wrapDensity {
	return wrapDensity{wrapBase{m}, m.(mechanisms.Continuous), m.(mechanisms.Variancer)}
}

// wrapBuckets: wrapDensity with exact bucket probabilities.
type wrapBuckets struct{ wrapDensity }

func (w wrapBuckets) BucketGivenBin(ylo, yhi, xlo, xhi float64) float64 {
	return w.c.BucketGivenBin(ylo, yhi, xlo, xhi)
}

// wrapDiscrete: variance and a discrete law.
type wrapDiscrete struct {
	wrapBase
	d mechanisms.Discrete
	v mechanisms.Variancer
}

func (w wrapDiscrete) Variance(x float64) float64             { return w.v.Variance(x) }
func (w wrapDiscrete) WorstCaseVariance() float64             { return w.v.WorstCaseVariance() }
func (w wrapDiscrete) Outputs() []float64                     { return w.d.Outputs() }
func (w wrapDiscrete) Probabilities(x float64, dst []float64) { w.d.Probabilities(x, dst) }

// TestPosteriorWindowGeneric: the window likelihood of an unbounded
// mechanism with a density, from its CDF (or the density's quadrature far
// in the tail), has the shape of Laplace's closed-form rows, for reports at
// 0, near, across and far beyond the midpoints.
func TestPosteriorWindowGeneric(t *testing.T) {
	for _, eps := range []float64{0.5, 1, 5} {
		lap := mustMech(t, "laplace", eps)
		w := newWrapDensity(lap)
		if mechanisms.Has(w, mechanisms.CapBuckets) || !mechanisms.Has(w, mechanisms.CapDensity) {
			t.Fatalf("wrapper capabilities %v", mechanisms.CapabilitiesOf(w))
		}
		p, err := NewPosterior([]mechanisms.Mechanism{lap, w}, PosteriorOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := p.lik[1].(*postWindow); !ok {
			t.Fatalf("wrapper's likelihood is %T, want the generic window", p.lik[1])
		}
		h := p.Buckets()
		for _, y := range []float64{0, 1e-9, -0.3, 0.7, 1.5, -2.5, 6, -20, 60 / eps} {
			a, _ := p.lik[0].row(y, make([]float64, h))
			b, ok := p.lik[1].row(y, make([]float64, h))
			if !ok {
				t.Fatalf("ε = %v, y = %v: generic window refuses the report", eps, y)
			}
			sameShape(t, "window", b, a, 1e-9)
		}
	}
}

// TestHistTransitionGeneric: a bounded mechanism with bucket probabilities
// that no structured path knows (Three-Outputs and PM in new types) gets
// the same transition matrix as the structured one.
func TestHistTransitionGeneric(t *testing.T) {
	const d = 64
	for _, c := range []struct {
		m, w mechanisms.Mechanism
		opt  TransitionOptions
	}{
		{mustMech(t, "three-outputs", 1), wrapDiscrete{wrapBase{mustMech(t, "three-outputs", 1)}, mustMech(t, "three-outputs", 1).(mechanisms.Discrete), mustMech(t, "three-outputs", 1).(mechanisms.Variancer)}, TransitionOptions{}},
		{mustMech(t, "pm", 2), wrapBuckets{newWrapDensity(mustMech(t, "pm", 2))}, TransitionOptions{Buckets: 80}},
	} {
		ref, err := NewHistTransition(c.m, d, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		got, err := NewHistTransition(c.w, d, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.w.Name(), err)
		}
		rd, gd := ref.Dense(), got.Dense()
		if len(rd) != len(gd) {
			t.Fatalf("%s: %d entries, structured %d", c.w.Name(), len(gd), len(rd))
		}
		for i := range rd {
			if !(math.Abs(rd[i]-gd[i]) <= 1e-12) {
				t.Fatalf("%s: entry %d: %v, structured %v", c.w.Name(), i, gd[i], rd[i])
			}
		}
	}
	if _, err := NewHistTransition(newWrapDensity(mustMech(t, "laplace", 1)), d, TransitionOptions{}); err == nil || !strings.Contains(err.Error(), "needs a bounded output") {
		t.Errorf("unbounded: %v", err)
	}
}

// TestServiceNeeds: NewService refuses by capability, naming it.
func TestServiceNeeds(t *testing.T) {
	_, err := NewService(newWrapDensity(mustMech(t, "laplace", 1)), ServiceOptions{Bins: 16})
	if !errors.Is(err, ErrUnboundedOutput) || !strings.Contains(err.Error(), "needs a bounded output: wrapped-laplace's output is unbounded") {
		t.Errorf("unbounded: %v", err)
	}
	_, err = NewService(newWrapDensity(mustMech(t, "pm", 1)), ServiceOptions{Bins: 16})
	if err == nil || !strings.Contains(err.Error(), "needs bucket probabilities") {
		t.Errorf("no buckets: %v", err)
	}
	if _, err := NewService(wrapBuckets{newWrapDensity(mustMech(t, "pm", 1))}, ServiceOptions{Bins: 16, Buckets: 16}); err != nil {
		t.Errorf("bounded with buckets: %v", err)
	}
}
