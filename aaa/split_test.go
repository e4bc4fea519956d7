package aaa

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestPhaseSplit: phase 1 holds the first ⌊0.1·kept⌋ kept records in
// dataset order (docs/aaa.md, ERRATA E0.24), phase 2 the rest, for n not a
// multiple of 10 (1005, 1009, 19) and one that is (1000, 10). The records
// are laid out so that the split is visible in the phase-1 estimate of
// x_P, not only in the counts the result reports: the first ⌊n/10⌋ at −1
// (grid point 0), the next at 0 (grid point 8), the rest at 1. At ε = 30
// a GRR report is its input with probability 1 − 16e^−30/(1 + 16e^−30),
// so the ≤ 101 phase-1 reports are all exact but with probability
// 1.5e-10 (the false-failure probability on any seed), and then the prior
// is exactly e₀ (every other bin's count is 0, clipped to 0) if and only
// if phase 1 holds no record beyond the first ⌊n/10⌋. N1 + N2 = Kept = n
// (dim 1). With dim 3 and the shuffled split, where which records are
// kept is random, N1 = ⌊Kept/10⌋. Catches a default split of 0.2 (N1 =
// 201 of 1005, the prior ≈ 1/2 at −1 and at 1), a split rounded up (N1 =
// 101, the prior 1/101 at grid point 8) and a phase 1 taken from the end
// (the prior e₁₆); before it only ExampleProtocol_Run's printed 2000 of
// 20,000 saw the fraction. Every run at ε = 30 shares one solved
// programme (the prior is e₀ every time): about 0.15 CPU-s.
func TestPhaseSplit(t *testing.T) {
	cache := NewCache(4)
	p, err := New(Config{Eps: 30}, cache)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1005, 1009, 19, 1000, 10} {
		xs := make([]float64, n)
		for i := range xs {
			switch {
			case i < n/10:
				xs[i] = -1
			case i == n/10:
				xs[i] = 0
			default:
				xs[i] = 1
			}
		}
		res, err := p.Run(context.Background(), xs, rand.New(rand.NewPCG(uint64(n), 1)))
		if err != nil {
			t.Fatal(err)
		}
		if res.Kept != n || res.N1 != n/10 || res.N2 != n-n/10 {
			t.Errorf("n = %d: kept %d, phase 1 %d, phase 2 %d; want %d, ⌊0.1·%d⌋ = %d, %d", n, res.Kept, res.N1, res.N2, n, n, n/10, n-n/10)
		}
		for j, v := range res.Prior {
			if want := map[bool]float64{true: 1, false: 0}[j == 0]; v != want {
				t.Errorf("n = %d: phase-1 prior[%d] = %v, want %v (phase 1 is the first %d records, all at −1)", n, j, v, want, n/10)
			}
		}
	}
	for _, cfg := range []Config{{Eps: 30, Dim: 3}, {Eps: 30, Dim: 3, Shuffled: true}} {
		p, err := New(cfg, cache)
		if err != nil {
			t.Fatal(err)
		}
		xs := make([]float64, 1005)
		for i := range xs {
			xs[i] = -1 // the prior is e₀ again: the cached programme
		}
		res, err := p.Run(context.Background(), xs, rand.New(rand.NewPCG(3, 3)))
		if err != nil {
			t.Fatal(err)
		}
		if res.N1 != res.Kept/10 || res.N1+res.N2 != res.Kept {
			t.Errorf("dim 3, shuffled %v: kept %d, phase 1 %d, phase 2 %d; want phase 1 ⌊0.1·kept⌋ = %d", cfg.Shuffled, res.Kept, res.N1, res.N2, res.Kept/10)
		}
	}
}
