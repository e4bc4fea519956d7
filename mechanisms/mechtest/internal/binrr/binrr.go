// Package binrr is a mechanism written outside package mechanisms, only
// through its public API, as a user would write one: randomised response
// on a bit. It exists for the tests of package mechtest, which register it
// (mechanisms.Register) and run the registry-wide suite on it.
package binrr

import (
	"math"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Name is the name the tests register it under.
const Name = "test-binrr"

// RR reports a bit for an input x on [-1, 1]: it rounds x to the bit s,
// s = 1 with probability (1+x)/2, then keeps s with probability
// σ = e^ε/(e^ε+1) and flips it otherwise. So
//
//	P[1 | x] = (1+x)/2·σ + (1-x)/2·(1-σ) = 1/2 + x·(2σ-1)/2,
//
// whose ratio over inputs is at most σ/(1-σ) = e^ε (x = 1 against x = -1).
// The report is biased; Debias maps it to (2y-1)·c, c = (e^ε+1)/(e^ε-1),
// whose mean is x and whose variance is c² - x² (its square is c²).
// Duchi et al.'s mechanism has this law on {-c, c}: here it is reached by
// two draws and a de-biasing map instead of one draw by inversion.
type RR struct {
	eps   float64
	sigma float64 // e^ε/(e^ε+1)
	sigc  float64 // 1/(e^ε+1), not 1 - σ, which loses digits at large ε
	c     float64 // (e^ε+1)/(e^ε-1)
}

var _ interface {
	mechanisms.Mechanism
	mechanisms.Variancer
	mechanisms.Discrete
	mechanisms.Debiaser
	mechanisms.WordCounter
} = (*RR)(nil)

// New returns the mechanism at budget eps.
func New(eps float64) (*RR, error) {
	if !(eps > 0) || math.IsInf(eps, 0) {
		return nil, &mechanisms.ParamError{Mechanism: Name, Param: "epsilon", Value: eps, Reason: "must be finite and positive"}
	}
	return &RR{eps: eps, sigma: 1 / (1 + math.Exp(-eps)), sigc: 1 / (1 + math.Exp(eps)), c: 1 / math.Tanh(eps/2)}, nil
}

// Info is the registry entry.
func Info() mechanisms.Info {
	return mechanisms.Info{Name: Name, Summary: "randomised response on a rounded bit (a test's own mechanism)", New: func(eps float64) (mechanisms.Mechanism, error) {
		m, err := New(eps)
		if err != nil {
			return nil, err
		}
		return m, nil
	}}
}

func (m *RR) Name() string             { return Name }
func (m *RR) Epsilon() float64         { return m.eps }
func (m *RR) Domain() (lo, hi float64) { return -1, 1 }

// Perturb takes two words: the rounding's uniform, then the flip's.
func (m *RR) Perturb(x float64, rng *rand.Rand) float64 {
	s := rng.Float64() < (1+x)/2
	if rng.Float64() < m.sigc {
		s = !s
	}
	if s {
		return 1
	}
	return 0
}

// PerturbBatch is the sequence of Perturb calls.
func (m *RR) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	for i, x := range xs {
		if !(x >= -1 && x <= 1) {
			return &mechanisms.InputError{Mechanism: Name, Index: i, Value: x, Lo: -1, Hi: 1}
		}
	}
	dst = dst[:len(xs)]
	for i, x := range xs {
		dst[i] = m.Perturb(x, rng)
	}
	return nil
}

// WordsPerReport: always two (Perturb's two rng.Float64).
func (m *RR) WordsPerReport() (counts []int, probs []float64) {
	return []int{2}, []float64{1}
}

func (m *RR) Outputs() []float64 { return outputs[:] }

var outputs = [2]float64{0, 1}

func (m *RR) Probabilities(x float64, dst []float64) {
	// Sums of non-negative terms, which keep their relative accuracy.
	dst[0] = (1+x)/2*m.sigc + (1-x)/2*m.sigma
	dst[1] = (1+x)/2*m.sigma + (1-x)/2*m.sigc
}

func (m *RR) Debias(y float64) float64 { return (2*y - 1) * m.c }

func (m *RR) Variance(x float64) float64 { return m.c*m.c - x*x }

func (m *RR) WorstCaseVariance() float64 { return m.c * m.c }
