package binomial

// Benchmarks of Sample and, for the before/after comparison, of gonum's
// distuv.Binomial that mechanisms.OUE used before, on the shapes the
// simulators draw: OUE's support counts at n = 200,000 users over 1024
// bins (a bin's own count, c ≈ 200 at p = 1/2, and the other users' count
// at q(ε)), both samplers of Sample, and n·p < 1.
//
// Besides ns/op (one draw) and allocs/op each reports words/draw, the
// 64-bit words the sampler takes from its source (counted by a counting
// source over 100,000 draws), and x-floor, its time against the floor of
// those draws: as many rng.Float64() calls, filling a slice small enough
// for the L1 cache, the median over 16 alternations of 20,000 draws and
// their floor, timed after the timed loop so that a change of clock speed
// between the two does not show up in the ratio.
//
// Run: go test -run '^$' -bench . -benchtime 1s ./internal/binomial/

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

var benchCases = []struct {
	name  string
	n     int
	p, pc float64
}{
	{"oue-own/n=200,p=0.5", 200, 0.5, 0.5},
	{"oue-other/n=200000,q(eps=1)", 200_000, 1 / (math.E + 1), math.E / (math.E + 1)},
	{"oue-other/n=200000,q(eps=5)", 200_000, 1 / (math.Exp(5) + 1), math.Exp(5) / (math.Exp(5) + 1)},
	{"np<1/n=25,p=0.03", 25, 0.03, 0.97},
	{"np<1/n=1000,p=0.0005", 1000, 0.0005, 0.9995},
	{"inversion/n=300,p=0.03", 300, 0.03, 0.97},
	{"btrs/n=300,p=0.25", 300, 0.25, 0.75},
	{"btrs/n=10000,p=0.5", 10000, 0.5, 0.5},
}

var benchSink int

// countingSource is a PCG that counts the words drawn from it.
type countingSource struct {
	pcg rand.PCG
	n   int
}

func (c *countingSource) Uint64() uint64 { c.n++; return c.pcg.Uint64() }

// wordsPerDraw returns the mean number of words draw takes from its
// generator, over 100,000 draws.
func wordsPerDraw(draw func(*rand.Rand) int) float64 {
	src := &countingSource{pcg: *rand.NewPCG(7, 8)}
	rng := rand.New(src)
	const draws = 100_000
	for range draws {
		benchSink += draw(rng)
	}
	return float64(src.n) / draws
}

// floorBuf is the floor's slice.
var floorBuf [4096]float64

// floorRatio returns the median over 16 alternations of the time of
// 20,000 draws over the time of words·20,000 rng.Float64() calls.
func floorRatio(draw func(*rand.Rand) int, words float64) float64 {
	const m, rounds = 20_000, 16
	rng := rand.New(rand.NewPCG(9, 10))
	nf := int(math.Round(words * m))
	ratios := make([]float64, rounds)
	for i := range ratios {
		t0 := time.Now()
		for range m {
			benchSink += draw(rng)
		}
		t1 := time.Now()
		for left := nf; left > 0; {
			b := floorBuf[:min(left, len(floorBuf))]
			for j := range b {
				b[j] = rng.Float64()
			}
			left -= len(b)
		}
		t2 := time.Now()
		ratios[i] = float64(t1.Sub(t0)) / float64(t2.Sub(t1))
	}
	slices.Sort(ratios)
	return (ratios[rounds/2-1] + ratios[rounds/2]) / 2
}

func benchDraw(b *testing.B, draw func(*rand.Rand) int) {
	b.ReportAllocs()
	rng := rand.New(rand.NewPCG(5, 6))
	s := 0
	for b.Loop() {
		s += draw(rng)
	}
	benchSink += s
	w := wordsPerDraw(draw)
	b.ReportMetric(w, "words/draw")
	b.ReportMetric(floorRatio(draw, w), "x-floor")
}

// BenchmarkSample: this package's sampler.
func BenchmarkSample(b *testing.B) {
	for _, c := range benchCases {
		b.Run(c.name, func(b *testing.B) {
			benchDraw(b, func(rng *rand.Rand) int { return Sample(rng, c.n, c.p, c.pc) })
		})
	}
}

// BenchmarkGonum: gonum's distuv.Binomial on the same shapes, the sampler
// mechanisms.OUE used before this package.
func BenchmarkGonum(b *testing.B) {
	for _, c := range benchCases {
		b.Run(c.name, func(b *testing.B) {
			benchDraw(b, func(rng *rand.Rand) int {
				return int(distuv.Binomial{N: float64(c.n), P: c.p, Src: rng}.Rand())
			})
		})
	}
}

// TestBenchCasesUnique: the benchmark cases are named uniquely (a copied
// case would silently merge two rows of a benchmark comparison) and each
// pc is 1 − p.
func TestBenchCasesUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range benchCases {
		if seen[c.name] {
			t.Errorf("benchmark case %q twice", c.name)
		}
		seen[c.name] = true
		if math.Abs(c.p+c.pc-1) > 1e-15 {
			t.Errorf("%s: p + pc = %v", c.name, c.p+c.pc)
		}
	}
}
