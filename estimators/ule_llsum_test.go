package estimators

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLLSum compares llSum with Σ n·ln d summed term by term in extended
// care (math.Log, Kahan–Neumaier), on counts mostly 1 and factors spread
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
			var want, comp, abs float64
			for i := range d {
				abs += math.Abs(n[i] * math.Log(d[i]))
				x := n[i] * math.Log(d[i])
				s := want + x
				if math.Abs(want) >= math.Abs(x) {
					comp += (want - s) + x
				} else {
					comp += (x - s) + want
				}
				want = s
			}
			want += comp
			got := llSum(n, d, multi, base)
			if g := llSumGroup(n, d, multi, base); math.Abs(g-want) > 2*float64(tc.k+8)*0x1p-53*abs+1e-300 {
				t.Errorf("llSumGroup = %.17g, want %.17g", g, want)
			}
			// A sum of K terms in floating point is within (K-1)·u·Σ|t|
			// of the exact one (u = 2^-53); the terms themselves (a
			// product's rounding, fastLog's few ulps) add a few u·|t|
			// each. The bound is at most 1.2e-6 here, so a lost or
			// doubled term larger than that fails (mutation-checked:
			// skipping the last vector of multi fails 7 of the 10 cases).
			const u = 0x1p-53
			tol := 2*float64(tc.k+8)*u*abs + 1e-300
			if math.Abs(got-want) > tol {
				t.Errorf("llSum = %.17g, want %.17g (diff %.3g > %.3g)", got, want, got-want, tol)
			}
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
