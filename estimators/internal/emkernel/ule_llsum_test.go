package emkernel

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exactSum returns Σ xs rounded once to float64: 4096 bits hold the sum of
// any finite float64 terms exactly (their binary exponents span less than
// 2100 bits).
func exactSum(xs []float64) float64 {
	s := new(big.Float).SetPrec(4096)
	for _, x := range xs {
		s.Add(s, big.NewFloat(x))
	}
	v, _ := s.Float64()
	return v
}

// TestLLSum compares llSum with Σ n·ln d summed term by term exactly
// (math.Log, exactSum), on counts mostly 1 and factors spread
// over many binades, including factors outside the product's range, at
// lengths around its block of 32.
func TestLLSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name     string
		k        int
		pMulti   float64
		logSpan  float64 // ln d uniform on [-logSpan, 0]
		outliers int
	}{
		{"empty", 0, 0, 1, 0},
		{"one", 1, 0, 1, 0},
		{"31", 31, 0.3, 5, 0},
		{"32", 32, 0.3, 5, 0},
		{"33", 33, 0.3, 5, 0},
		{"singles", 100_000, 0, 3, 0},
		{"mixed", 100_000, 0.25, 10, 0},
		{"mostly-multi", 10_000, 0.9, 10, 0},
		{"wide", 10_000, 0.2, 60, 0},
		{"outliers", 10_000, 0.2, 5, 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := make([]float64, tc.k)
			d := make([]float64, tc.k)
			for i := range d {
				n[i] = 1
				if rng.Float64() < tc.pMulti {
					n[i] = float64(2 + rng.IntN(20))
				}
				d[i] = math.Exp(-tc.logSpan * rng.Float64())
			}
			for range tc.outliers {
				i := rng.IntN(tc.k)
				d[i] = []float64{1e-40, 1e-31, 1e31, 1e-300}[rng.IntN(4)]
			}
			const base = 7
			var multi []int32
			for i, v := range n {
				if v != 1 {
					multi = append(multi, int32(i+base))
				}
			}
			// want: Σ n ln d, the terms summed exactly. abs = Σ|n ln d|;
			// side = Σ|t| over the terms llSum adds one by one (the logs
			// of counts above 1 and of factors outside the product's
			// range), nSide their number.
			terms := make([]float64, len(d))
			var abs, side float64
			nSide := 0
			for i := range d {
				x := n[i] * math.Log(d[i])
				terms[i] = x
				abs += math.Abs(x)
				if n[i] != 1 {
					side += math.Abs(x)
					nSide++
				}
				if !(d[i] >= llFactorMin && d[i] < llFactorMax) {
					side += math.Abs(math.Log(d[i]))
					nSide++
				}
			}
			want := exactSum(terms)
			// The error bound of llSum (u = 2^-53): K multiplications
			// leave the product within a relative K·u, i.e. ln within
			// about K·u; the terms added one by one are a naive sum
			// within (nSide+1)·u·side, each within a few ulps of itself
			// (fastLog); the handful of final additions and the reference
			// add a few u·Σ|t|. Doubled, for second-order terms.
			const u = 0x1p-53
			tol := 2*(float64(tc.k+16)*u+float64(nSide+8)*u*side+16*u*abs) + 1e-300
			if got := llSum(n, d, multi, base); math.Abs(got-want) > tol {
				t.Errorf("llSum = %.17g, want %.17g (diff %.3g > %.3g)", got, want, got-want, tol)
			}
			// llSumGroup takes a log per entry (a naive sum of K terms,
			// within K·u·Σ|t|) when most counts are above 1.
			tolGroup := tol
			if 2*len(multi) > tc.k {
				tolGroup = 2*float64(tc.k+8)*u*abs + 1e-300
			}
			if got := llSumGroup(n, d, multi, base); math.Abs(got-want) > tolGroup {
				t.Errorf("llSumGroup = %.17g, want %.17g (diff %.3g > %.3g)", got, want, got-want, tolGroup)
			}
			t.Logf("K %d, %d counts above 1: llSum tolerance %.2g", tc.k, len(multi), tol)
		})
	}
}

// BenchmarkLLSum compares llSum (a product of factors; logs only for
// counts other than 1) with a logarithm per vector (logLikSum), on a group of
// 4096 factors in (0.1, 1], with the count mixes of ULE at n = 1M, m = 3
// (a quarter of the counts 2, the rest 1) and at n = 10M (three quarters
// in 2..8).
func BenchmarkLLSum(b *testing.B) {
	for _, mix := range []struct {
		name   string
		pMulti float64
		maxN   int
	}{{"n=1M", 0.25, 2}, {"n=10M", 0.75, 8}} {
		rng := rand.New(rand.NewPCG(5, 6))
		const k = 4096
		n := make([]float64, k)
		d := make([]float64, k)
		var multi []int32
		for i := range d {
			n[i] = 1
			if rng.Float64() < mix.pMulti {
				n[i] = float64(2 + rng.IntN(mix.maxN-1))
				multi = append(multi, int32(i))
			}
			d[i] = 0.1 + 0.9*rng.Float64()
		}
		var sink float64
		b.Run(mix.name+"/product", func(b *testing.B) {
			for b.Loop() {
				sink += llSum(n, d, multi, 0)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*k), "ns/vector")
		})
		b.Run(mix.name+"/log-each", func(b *testing.B) {
			for b.Loop() {
				s0, s1 := logLikSum(n, d)
				sink += s0 + s1
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*k), "ns/vector")
		})
		_ = sink
	}
}
