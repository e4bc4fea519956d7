// Package uletest builds the inputs and reports that the tests of package
// estimators and of its kernels (estimators/internal/emkernel) share: the
// distribution services [SR, PM, SW], Beta inputs on [-1, 1], and every
// user's report at every service. It is imported by tests only.
package uletest

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Mechs returns the distribution services [SR, PM, SW] cycled over eps.
func Mechs(tb testing.TB, eps ...float64) []mechanisms.Mechanism {
	tb.Helper()
	names := []string{"duchi", "pm", "sw"}
	out := make([]mechanisms.Mechanism, len(eps))
	for j, e := range eps {
		m, err := mechanisms.New(names[j%3], e)
		if err != nil {
			tb.Fatal(err)
		}
		out[j] = m
	}
	return out
}

// BetaInputs returns n values v = 2u - 1 with u ~ Beta(a, b).
func BetaInputs(n int, a, b float64, rng *rand.Rand) []float64 {
	d := distuv.Beta{Alpha: a, Beta: b, Src: rng}
	v := make([]float64, n)
	for i := range v {
		v[i] = 2*d.Rand() - 1
	}
	return v
}

// Reports perturbs every value through every mechanism: [service][user].
// Square Wave gets s = (v+1)/2.
func Reports(tb testing.TB, v []float64, mechs []mechanisms.Mechanism, rng *rand.Rand) [][]float64 {
	tb.Helper()
	out := make([][]float64, len(mechs))
	s := make([]float64, len(v))
	for i, x := range v {
		s[i] = min(max((x+1)/2, 0), 1)
	}
	for j, m := range mechs {
		out[j] = make([]float64, len(v))
		in := v
		if lo, _ := m.Domain(); lo == 0 {
			in = s
		}
		if err := m.PerturbBatch(out[j], in, rng); err != nil {
			tb.Fatal(err)
		}
	}
	return out
}
