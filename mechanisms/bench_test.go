package mechanisms_test

// Benchmarks of every registered mechanism (new ones are picked up from
// mechanisms.Names()), at ε = 1 over a grid of inputs spanning the domain,
// shuffled.
//
// Besides ns/op each benchmark reports
//   - ns/report: time per report (equal to ns/op for Perturb, ns/op/4096
//     for PerturbBatch);
//   - draws/report: the mean number of 64-bit words one report takes from
//     the generator's Source, measured by counting the Uint64 calls of a
//     wrapped source before the timed loop (so no table or extra interface
//     to keep up to date, and a rejection sampler gets its true mean),
//     through the path benchmarked: Perturb calls for BenchmarkPerturb, a
//     PerturbBatch of the benchmark's inputs for BenchmarkPerturbBatch
//     (the two differ where a batch spends the generator differently, as
//     Laplace's does: one word for the signs of 64 reports);
//   - x-draws: the cost of a report relative to the floor, the cost of the
//     randomness it consumes (1 would be a mechanism that costs nothing
//     beyond its random draws).
//
// The floor, exactly: the time to fill a slice with k = round(4096 ×
// draws/report) values of rng.Float64(), where rng is a *rand.Rand over a
// PCG source, the same generator the mechanism draws from. Every draw a
// mechanism makes, whatever it does with the 64 bits (a uniform by
// rng.Float64, bits by rng.Uint64, an exponential by rng.ExpFloat64, which
// takes one word and on about 3% of calls more), is one Source.Uint64 call
// behind the Source interface, and the floor prices each such word at one
// rng.Float64(): the interface call, the PCG step and the conversion to a
// uniform. Anything a mechanism computes from its words (a logarithm, the
// rejection step of a ziggurat, a case split) is the mechanism's own cost
// and counts against it. (For a mechanism that uses a word's bits
// directly, by rng.Uint64, the floor is a little generous: it includes the
// conversion to a uniform, about a tenth of a draw.)
//
// x-draws is measured after the timed loop, by timing 4096 reports (one
// PerturbBatch of 4096 inputs, or 4096 Perturb calls through the Mechanism
// interface) and then the floor for those reports, 32 times in alternation,
// and taking the median of the 32 ratios: each ratio compares two
// measurements taken microseconds apart, so a change of clock speed or a
// noisy neighbour between the timed loop and the floor does not show up
// in it. ns/report is the timed loop's own figure.
//
// Run: go test -run '^$' -bench . -benchtime 300ms ./mechanisms/

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/mechtest"
)

// benchBatch is the batch length, and the number of reports per x-draws
// round.
const benchBatch = 4096

// floorRounds is the number of (reports, floor) pairs x-draws is the median
// of.
const floorRounds = 32

var benchSink float64

func benchInputs(m mechanisms.Mechanism, n int) []float64 {
	lo, hi := m.Domain()
	xs := mechtest.Grid(lo, hi, n-1)
	// Interleave, so that a branch on x is not perfectly predictable.
	r := rand.New(rand.NewPCG(7, 7))
	r.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
	return xs
}

// fillUniforms is the floor: buf filled with rng.Float64().
func fillUniforms(buf []float64, rng *rand.Rand) {
	for i := range buf {
		buf[i] = rng.Float64()
	}
}

// xDraws returns the median over floorRounds rounds of the time of run,
// which makes benchBatch reports, divided by the time of the floor for
// those reports: benchBatch·draws uniforms.
func xDraws(run func(), draws float64, rng *rand.Rand) float64 {
	n := int(math.Round(benchBatch * draws))
	if n == 0 {
		return 0
	}
	buf := make([]float64, n)
	ratios := make([]float64, floorRounds)
	for r := range ratios {
		t0 := time.Now()
		run()
		t1 := time.Now()
		fillUniforms(buf, rng)
		t2 := time.Now()
		ratios[r] = float64(t1.Sub(t0)) / float64(t2.Sub(t1))
	}
	benchSink += buf[0]
	slices.Sort(ratios)
	return ratios[floorRounds/2]
}

// reportMetrics reports ns/report, draws/report and x-draws.
func reportMetrics(b *testing.B, reports int, draws, xd float64) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(reports), "ns/report")
	b.ReportMetric(draws, "draws/report")
	if xd > 0 {
		b.ReportMetric(xd, "x-draws")
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
			xd := xDraws(func() {
				for i := range benchBatch {
					s += m.Perturb(xs[i&255], rng)
				}
			}, draws, rng)
			benchSink += s
			reportMetrics(b, b.N, draws, xd)
		})
	}
}

func BenchmarkPerturbBatch(b *testing.B) {
	for _, name := range mechanisms.Names() {
		b.Run(name, func(b *testing.B) {
			m := mustNew(b, name, 1)
			xs := benchInputs(m, benchBatch)
			draws := batchDrawsPerReport(m, xs)
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
			xd := xDraws(func() {
				if err := m.PerturbBatch(dst, xs, rng); err != nil {
					b.Fatal(err)
				}
			}, draws, rng)
			benchSink += dst[0]
			reportMetrics(b, b.N*benchBatch, draws, xd)
		})
	}
}
