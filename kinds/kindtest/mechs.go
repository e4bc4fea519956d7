package kindtest

import (
	"math/rand/v2"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Test-only mechanisms for the kinds' capability tests: each wraps a
// built-in one in a new type that offers exactly the interfaces listed, so
// that no type switch on a built-in type (*mechanisms.Laplace,
// *mechanisms.Piecewise, ...) can match it and only its capabilities
// decide where it goes.

// base forwards the Mechanism methods under a name of its own.
type base struct {
	name string
	m    mechanisms.Mechanism
}

func (b base) Name() string                              { return b.name }
func (b base) Epsilon() float64                          { return b.m.Epsilon() }
func (b base) Domain() (lo, hi float64)                  { return b.m.Domain() }
func (b base) Perturb(x float64, rng *rand.Rand) float64 { return b.m.Perturb(x, rng) }
func (b base) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	return b.m.PerturbBatch(dst, xs, rng)
}

// variance forwards Variancer.
type variance struct{ v mechanisms.Variancer }

func (v variance) Variance(x float64) float64 { return v.v.Variance(x) }
func (v variance) WorstCaseVariance() float64 { return v.v.WorstCaseVariance() }

// density forwards the density part of Continuous.
type density struct{ c mechanisms.Continuous }

func (d density) OutputRange() (lo, hi float64) { return d.c.OutputRange() }
func (d density) Density(y, x float64) float64  { return d.c.Density(y, x) }
func (d density) CDF(y, x float64) float64      { return d.c.CDF(y, x) }

// buckets forwards BucketGivenBin.
type buckets struct{ c mechanisms.Continuous }

func (b buckets) BucketGivenBin(ylo, yhi, xlo, xhi float64) float64 {
	return b.c.BucketGivenBin(ylo, yhi, xlo, xhi)
}

// law forwards Discrete.
type law struct{ d mechanisms.Discrete }

func (l law) Outputs() []float64                     { return l.d.Outputs() }
func (l law) Probabilities(x float64, dst []float64) { l.d.Probabilities(x, dst) }

// DensityOnly is Laplace with its variance, density and CDF but no bucket
// probabilities: an unbounded mechanism with a density (capabilities
// variance, density).
type DensityOnly struct {
	base
	variance
	density
}

// NewDensityOnly returns DensityOnly named name at eps.
func NewDensityOnly(name string, eps float64) (*DensityOnly, error) {
	l, err := mechanisms.NewLaplace(eps)
	if err != nil {
		return nil, err
	}
	return &DensityOnly{base{name, l}, variance{l}, density{l}}, nil
}

// NoVariance is PM without its variance: bounded, with a density and
// bucket probabilities (capabilities bucket-probabilities, bounded-output,
// density).
type NoVariance struct {
	base
	density
	buckets
}

// NewNoVariance returns NoVariance named name at eps.
func NewNoVariance(name string, eps float64) (*NoVariance, error) {
	p, err := mechanisms.NewPM(eps)
	if err != nil {
		return nil, err
	}
	return &NoVariance{base{name, p}, density{p}, buckets{p}}, nil
}

// ContinuousCopy is PM with every capability, in a new type (variance,
// bucket-probabilities, bounded-output, density).
type ContinuousCopy struct {
	base
	variance
	density
	buckets
}

// NewContinuousCopy returns ContinuousCopy named name at eps.
func NewContinuousCopy(name string, eps float64) (*ContinuousCopy, error) {
	p, err := mechanisms.NewPM(eps)
	if err != nil {
		return nil, err
	}
	return &ContinuousCopy{base{name, p}, variance{p}, density{p}, buckets{p}}, nil
}

// DiscreteCopy is Three-Outputs in a new type (variance, discrete-law,
// bucket-probabilities, bounded-output).
type DiscreteCopy struct {
	base
	variance
	law
}

// NewDiscreteCopy returns DiscreteCopy named name at eps.
func NewDiscreteCopy(name string, eps float64) (*DiscreteCopy, error) {
	d, err := mechanisms.NewThreeOutputs(eps)
	if err != nil {
		return nil, err
	}
	return &DiscreteCopy{base{name, d}, variance{d}, law{d}}, nil
}

// Register registers a test-only mechanism named name, built by newT, for
// the duration of t.
func Register[T mechanisms.Mechanism](t testing.TB, name, summary string, newT func(name string, eps float64) (T, error)) {
	t.Helper()
	unregister, err := mechanisms.Register(mechanisms.Info{Name: name, Summary: summary, New: func(eps float64) (mechanisms.Mechanism, error) {
		m, err := newT(name, eps)
		if err != nil {
			return nil, err
		}
		return m, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unregister)
}
