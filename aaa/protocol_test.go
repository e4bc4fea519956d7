package aaa

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestGRRPriorExactCounts: fed the expected GRR counts n·(q + (p - q)·f)
// of a prior f, the phase-1 aggregator returns f to 1e-12 (M = 17, a
// length that is not a power of two; p and q from the GRR mechanism). A
// swapped p and q, a missing normalisation or an off-by-one index would
// not.
func TestGRRPriorExactCounts(t *testing.T) {
	for _, eps := range []float64{0.5, 1, 3, 5} {
		p, err := New(Config{Eps: eps}, nil)
		if err != nil {
			t.Fatal(err)
		}
		f := betaPrior(17)
		s := 0.0
		for _, v := range f {
			s += v
		}
		counts := make([]float64, 17)
		for j := range f {
			f[j] /= s
			counts[j] = 1e5 * (p.grr.Q() + (p.grr.P()-p.grr.Q())*f[j])
		}
		got := GRRPrior(counts, p.grr.P(), p.grr.Q())
		for j := range f {
			if math.Abs(got[j]-f[j]) > 1e-12 {
				t.Errorf("ε = %g: prior[%d] = %.15g, want %.15g", eps, j, got[j], f[j])
			}
		}
	}
}

// TestPhase2Unbiased: the released randomiser's exact mean E[Y | x] =
// Σ_q y_q·Pr[q | x] equals x to 1e-9 at 201 inputs including -1, 0, 1 and
// every grid point, and its exact variance equals Variance(x) to 1e-9;
// the probabilities sum to 1. Rounding to the nearest grid point instead
// of stochastically, or a noise law with mean ≠ 0, would fail.
func TestPhase2Unbiased(t *testing.T) {
	for _, eps := range []float64{1, 3} {
		nz, err := SolveNoise(NoiseConfig{Eps: eps, Prior: betaPrior(17)})
		if err != nil {
			t.Fatal(err)
		}
		m := NewPhase2(nz)
		pr := make([]float64, len(m.Outputs()))
		for k := 0; k <= 200; k++ {
			x := -1 + float64(k)/100
			m.Probabilities(x, pr)
			var s, m1, m2 float64
			for q, v := range pr {
				y := m.Outputs()[q]
				s += v
				m1 += v * y
				m2 += v * y * y
			}
			if math.Abs(s-1) > 1e-12 || math.Abs(m1-x) > 1e-9 || math.Abs(m2-m1*m1-m.Variance(x)) > 1e-9 {
				t.Errorf("ε = %g, x = %g: Σ = %v, mean %v, var %v (Variance %v)", eps, x, s, m1, m2-m1*m1, m.Variance(x))
			}
		}
		// WorstCaseVariance is the maximum over a fine grid (and not below).
		w := 0.0
		for k := 0; k <= 16000; k++ {
			w = math.Max(w, m.Variance(-1+float64(k)/8000))
		}
		if wc := m.WorstCaseVariance(); wc < w-1e-12 || wc > w+1e-6 {
			t.Errorf("ε = %g: WorstCaseVariance %v, grid max %v", eps, wc, w)
		}
	}
}

// testData is a fixed skewed dataset on [-1, 1].
func testData(n int) []float64 {
	rng := rand.New(rand.NewPCG(7, 8))
	xs := make([]float64, n)
	for i := range xs {
		u := math.Max(rng.Float64(), math.Max(rng.Float64(), rng.Float64()))
		xs[i] = 2*u - 1
	}
	return xs
}

// TestProtocolUnbiased: over R runs of AAA and NP-AAA (dim 1, so every
// record reports and the dataset-order split fixes the phases), the
// standardised error Σ_r (μ̂_r - μ_r)/√(Σ_r V_r) is within 5 (false
// failure 6e-7 for a normal sum), where μ_r is the mean of the records the
// estimate averages (phase 2 for AAA, all for NP-AAA) and V_r the
// estimate's analytic variance given the run's noise law: Σ over phase-2
// records of Phase2.Variance(x), plus for NP-AAA Σ over phase-1 records
// of HM-NP's variance (its reports are independent of phase 2's given
// the law, whose noise has mean 0), over the number of reports squared.
// A 2 % bias (0.01 on μ ≈ 0.5: NP-AAA dividing by n2 instead of all
// reports, AAA rounding down) moves it by ≥ 4.8 at ε = 1 (per-run sd
// 0.0093) and by about 30 at ε = 4.
//
// Under -short only ε = 4 runs (about 3 s); ε = 1 (about 5.5 s) is left
// to make test.
func TestProtocolUnbiased(t *testing.T) {
	xs := testData(50000)
	const runs = 20
	for _, v := range []Variant{AAA, NPAAA} {
		for _, eps := range []float64{1, 4} {
			if testing.Short() && eps != 4 {
				t.Logf("%v ε = %g: skipped under -short (make test runs it)", v, eps)
				continue
			}
			p, err := New(Config{Variant: v, Eps: eps}, nil)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(eps), uint64(v)))
			var zsum, vsum float64
			for r := 0; r < runs; r++ {
				res, err := p.Run(context.Background(), xs, rng)
				if err != nil {
					t.Fatal(err)
				}
				_, mech, _ := p.Noise(res.Prior)
				var mu, vr float64
				for k, x := range xs {
					switch {
					case k >= res.N1:
						mu += x
						vr += mech.Variance(x)
					case v == NPAAA:
						mu += x
						vr += p.hm.Variance(x)
					}
				}
				cnt := float64(res.N2)
				if v == NPAAA {
					cnt = float64(res.Kept)
				}
				zsum += res.Estimate - mu/cnt
				vsum += vr / (cnt * cnt)
			}
			if z := zsum / math.Sqrt(vsum); math.Abs(z) > 5 {
				t.Errorf("%v ε = %g: standardised error %.2f over %d runs", v, eps, z, runs)
			} else {
				t.Logf("%v ε = %g: standardised error %.2f, per-run sd %.3g", v, eps, z, math.Sqrt(vsum/runs))
			}
		}
	}
}

// TestConfigErrors: bad parameters are refused by name.
func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{{Eps: 0}, {Eps: 1, Dim: -1}, {Eps: 1, Split: 1}, {Eps: 1, Bins: 1}} {
		if _, err := New(c, nil); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if _, err := SolveNoise(NoiseConfig{Eps: 1, Prior: []float64{0, 0}}); err == nil {
		t.Error("zero prior accepted")
	}
}
