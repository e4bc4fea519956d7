package aaa

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkRun is one run of each protocol at the paper's scale (n = 10⁶
// records, dim = 10: ~10⁵ reports, 10⁴ in phase 1), the noise programme
// solved anew each run (no cache hit: each run's phase-1 estimate is
// different). floor-ratio is the run's time over the floor's, the cost of
// the run's random draws alone (one uniform per record for the sampling,
// two per report).
func BenchmarkRun(b *testing.B) {
	xs := testData(1000000)
	for _, v := range []Variant{AAA, NPAAA} {
		b.Run(v.String(), func(b *testing.B) {
			p, err := New(Config{Variant: v, Eps: 2, Dim: 10}, NewCache(1))
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			floor := floorDraws(b, len(xs), len(xs)/10*2)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := p.Run(context.Background(), xs, rng); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/floor, "floor-ratio")
		})
	}
}

// BenchmarkSolveNoise is the programme alone (M = 17, ε = 2).
func BenchmarkSolveNoise(b *testing.B) {
	for i := 0; i < b.N; i++ {
		prior := betaPrior(17)
		prior[i%17] += 1e-3 * float64(i%7) // defeat nothing: SolveNoise has no cache
		if _, err := SolveNoise(NoiseConfig{Eps: 2, Prior: prior}); err != nil {
			b.Fatal(err)
		}
	}
}

var sink float64

// floorDraws returns the ns of n1 + n2 uniform draws (best of 5).
func floorDraws(b *testing.B, n1, n2 int) float64 {
	rng := rand.New(rand.NewPCG(3, 4))
	best := math.Inf(1)
	for rep := 0; rep < 5; rep++ {
		t0 := time.Now()
		s := 0.0
		for k := 0; k < n1+n2; k++ {
			s += rng.Float64()
		}
		sink += s
		best = math.Min(best, float64(time.Since(t0).Nanoseconds()))
	}
	return best
}
