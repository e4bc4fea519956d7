package mechanisms_test

// Benchmarks of every registered mechanism (new ones are picked up from
// mechanisms.Names()), at ε = 1 over a grid of 256 inputs spanning the
// domain.
//
// Besides ns/op each benchmark reports
//   - ns/report: time per report (equal to ns/op for Perturb, ns/op/4096
//     for PerturbBatch);
//   - draws/report: the mean number of 64-bit generator draws one report
//     consumes, measured by counting the draws of a wrapped source before
//     the timed loop (so no table or extra interface to keep up to date,
//     and a rejection sampler gets its true mean);
//   - x-draws: ns/report divided by the time of drawing that many
//     uniforms with rng.Float64() from the same generator type, timed in
//     the same benchmark right after the timed loop: the cost of a report
//     relative to the floor set by its randomness (1 would be a mechanism
//     that costs nothing beyond its uniforms).
//
// Run: go test -run xxx -bench . -benchtime 200ms ./mechanisms/

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/mechtest"
)

const benchBatch = 4096

var benchSink float64

func benchInputs(m mechanisms.Mechanism, n int) []float64 {
	lo, hi := m.Domain()
	xs := mechtest.Grid(lo, hi, n-1)
	// Interleave, so that a branch on x is not perfectly predictable.
	r := rand.New(rand.NewPCG(7, 7))
	r.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
	return xs
}

// uniformFloor returns the time of n calls of rng.Float64().
func uniformFloor(rng *rand.Rand, n int) time.Duration {
	s := 0.0
	start := time.Now()
	for range n {
		s += rng.Float64()
	}
	d := time.Since(start)
	benchSink += s
	return d
}

// reportMetrics reports ns/report, draws/report and x-draws for reports
// reports timed at elapsed.
func reportMetrics(b *testing.B, rng *rand.Rand, elapsed time.Duration, reports int, draws float64) {
	nsPerReport := float64(elapsed.Nanoseconds()) / float64(reports)
	b.ReportMetric(nsPerReport, "ns/report")
	b.ReportMetric(draws, "draws/report")
	nDraws := int(float64(reports)*draws + 0.5)
	if nDraws > 0 {
		floor := float64(uniformFloor(rng, nDraws).Nanoseconds()) / float64(reports)
		b.ReportMetric(nsPerReport/floor, "x-draws")
	}
}

func BenchmarkPerturb(b *testing.B) {
	for _, name := range mechanisms.Names() {
		b.Run(name, func(b *testing.B) {
			m := mustNew(b, name, 1)
			draws := drawsPerReport(m)
			xs := benchInputs(m, 256)
			rng := newRNG(1)
			s := 0.0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s += m.Perturb(xs[i&255], rng)
			}
			b.StopTimer()
			benchSink += s
			reportMetrics(b, rng, b.Elapsed(), b.N, draws)
		})
	}
}

func BenchmarkPerturbBatch(b *testing.B) {
	for _, name := range mechanisms.Names() {
		b.Run(name, func(b *testing.B) {
			m := mustNew(b, name, 1)
			draws := drawsPerReport(m)
			xs := benchInputs(m, benchBatch)
			dst := make([]float64, benchBatch)
			rng := newRNG(1)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := m.PerturbBatch(dst, xs, rng); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			benchSink += dst[0]
			reportMetrics(b, rng, b.Elapsed(), b.N*benchBatch, draws)
		})
	}
}
