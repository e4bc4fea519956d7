package mechanisms

import (
	"fmt"
	"math/rand/v2"
)

// Estimate is a mechanism whose reports are unbiased estimates of inputs on
// [-1, 1], with their closed-form variance: what a mean estimator averages.
type Estimate interface {
	Mechanism
	Variancer
}

// Unbiased returns m as an [Estimate] on [-1, 1].
//
// A mechanism that is already unbiased on [-1, 1] is returned as it is. A
// mechanism on another domain [lo, hi] (Square Wave on [0, 1]) is wrapped:
// the input x is mapped to lo + (x+1)(hi-lo)/2, the report is de-biased if m
// is a [Debiaser], and the estimate u is mapped back to 2(u-lo)/(hi-lo) - 1;
// variances scale by (2/(hi-lo))², so SW's [0, 1] variance is multiplied by 4
// (ERRATA E4.5). m must implement [Variancer].
func Unbiased(m Mechanism) (Estimate, error) {
	v, ok := m.(Variancer)
	if !ok {
		return nil, fmt.Errorf("%s: no closed-form variance, so it cannot serve as an unbiased estimate", m.Name())
	}
	lo, hi := m.Domain()
	_, biased := m.(Debiaser)
	if lo == -1 && hi == 1 && !biased {
		return m.(Estimate), nil
	}
	u := &rescaled{m: m, v: v, lo: lo, half: (hi - lo) / 2}
	u.debias, _ = m.(Debiaser)
	return u, nil
}

// rescaled adapts a mechanism on [lo, hi] to unbiased estimates on [-1, 1].
type rescaled struct {
	m      Mechanism
	v      Variancer
	debias Debiaser // nil when m is unbiased
	lo     float64
	half   float64 // (hi-lo)/2
}

func (r *rescaled) Name() string             { return r.m.Name() }
func (r *rescaled) Epsilon() float64         { return r.m.Epsilon() }
func (r *rescaled) Domain() (lo, hi float64) { return -1, 1 }

func (r *rescaled) toInner(x float64) float64 { return r.lo + (x+1)*r.half }

func (r *rescaled) toOuter(y float64) float64 {
	if r.debias != nil {
		y = r.debias.Debias(y)
	}
	return (y-r.lo)/r.half - 1
}

func (r *rescaled) Perturb(x float64, rng *rand.Rand) float64 {
	return r.toOuter(r.m.Perturb(r.toInner(x), rng))
}

func (r *rescaled) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	if err := checkInputs(r.Name(), xs, -1, 1); err != nil {
		return err
	}
	dst = dst[:len(xs)]
	for i, x := range xs {
		dst[i] = r.toInner(x)
	}
	// The inner batch reads its inputs before writing each output, so it may
	// run in place.
	if err := r.m.PerturbBatch(dst, dst, rng); err != nil {
		return err
	}
	for i, y := range dst {
		dst[i] = r.toOuter(y)
	}
	return nil
}

func (r *rescaled) Variance(x float64) float64 {
	return r.v.Variance(r.toInner(x)) / (r.half * r.half)
}

func (r *rescaled) WorstCaseVariance() float64 {
	return r.v.WorstCaseVariance() / (r.half * r.half)
}
