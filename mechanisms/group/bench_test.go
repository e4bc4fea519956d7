package group_test

// Benchmarks of Simulate, per user, for every method at d = 8 and
// n = 80,000 (10,000 per group, the paper's E1/E3 scale), at ε = 1, on
// values spread over [-1, 1] in a random order of groups.
//
// Besides ns/op each benchmark reports ns/user and two ratios, each the
// median over 16 alternations of one Simulate and one floor pass, taken
// after the timed loop, so that a change of clock speed between the two
// does not show up in it:
//
//   - x-report-draws, the target measure (a group report ≤ 2× the cost of
//     its random draws): against the random draws of the group reports,
//     the 64-bit words that one Perturb per user draws (counted by a
//     counting source, reported as report-words/user), timed as that many
//     rng.Uint64() calls;
//   - x-floor, a stricter floor: one rng.Float64() per user, filling a
//     4096-element slice (from the same PCG source) as many times as there
//     are users, so the floor is the generator's cost alone, with no data
//     to read. Simulate's samplers need less than a report's draws:
//     Bernoulli, NPRR and Laplace take half a word per user (two coins a
//     word, coin.go), Piecewise one word, and the value method half a word
//     plus the value mechanism's draws for one report per user.
//
// Run: go test -run '^$' -bench Simulate -benchtime 2s ./mechanisms/group/

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ldpbench/ldpbench/mechanisms/group"
)

const (
	benchD      = 8
	benchN      = 80_000
	floorRounds = 16
)

var benchSink float64

// benchPopulation returns benchN users: groups equal in size and shuffled,
// values uniform on [-1, 1].
func benchPopulation() ([]int32, []float64) {
	r := rand.New(rand.NewPCG(3, 4))
	groups := make([]int32, benchN)
	values := make([]float64, benchN)
	for i := range groups {
		groups[i] = int32(i % benchD)
		values[i] = 2*r.Float64() - 1
	}
	r.Shuffle(benchN, func(i, j int) {
		groups[i], groups[j] = groups[j], groups[i]
		values[i], values[j] = values[j], values[i]
	})
	return groups, values
}

// floorBuf is the floor's slice, small enough to stay in the L1 cache.
var floorBuf [4096]float64

// floor fills floorBuf with rng.Float64(), n values in all.
func floor(n int, rng *rand.Rand) float64 {
	for n > 0 {
		b := floorBuf[:min(n, len(floorBuf))]
		for i := range b {
			b[i] = rng.Float64()
		}
		n -= len(b)
	}
	return floorBuf[0]
}

var benchConfigs = []group.Config{
	{Method: "bernoulli"},
	{Method: "nprr"},
	{Method: "nprr", K: 32},
	{Method: "nprr", Neutral: group.NeutralUniformGrid},
	{Method: "laplace"},
	{Method: "pw"},
	{Method: "value", Value: "pm-sub"},
}

func BenchmarkSimulateFloor(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for b.Loop() {
		benchSink += floor(benchN, rng)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchN), "ns/user")
}

// countingSource counts the words drawn from src.
type countingSource struct {
	src   rand.Source
	words int
}

func (c *countingSource) Uint64() uint64 { c.words++; return c.src.Uint64() }

// reportWords returns the words one Perturb per user of the population
// draws, per user.
func reportWords(m *group.Mechanism, groups []int32, values []float64) float64 {
	c := &countingSource{src: rand.NewPCG(5, 6)}
	rng := rand.New(c)
	for i, g := range groups {
		m.Perturb(int(g), values[i], rng)
	}
	return float64(c.words) / float64(len(groups))
}

// floorWords draws n words with rng.Uint64().
func floorWords(n int, rng *rand.Rand) float64 {
	var x uint64
	for range n {
		x ^= rng.Uint64()
	}
	return float64(x)
}

func BenchmarkSimulate(b *testing.B) {
	groups, values := benchPopulation()
	for _, cfg := range benchConfigs {
		cfg.Eps, cfg.D = 1, benchD
		m, err := group.New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(m.Name(), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			var t group.Tally
			b.ReportAllocs()
			for b.Loop() {
				if err := m.Simulate(&t, groups, values, rng); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			words := reportWords(m, groups, values)
			nWords := int(words * benchN)
			ratios := make([]float64, floorRounds)
			reportRatios := make([]float64, floorRounds)
			for r := range ratios {
				t0 := time.Now()
				_ = m.Simulate(&t, groups, values, rng)
				t1 := time.Now()
				benchSink += floor(benchN, rng)
				t2 := time.Now()
				benchSink += floorWords(nWords, rng)
				t3 := time.Now()
				ratios[r] = float64(t1.Sub(t0)) / float64(t2.Sub(t1))
				reportRatios[r] = float64(t1.Sub(t0)) / float64(t3.Sub(t2))
			}
			slices.Sort(ratios)
			slices.Sort(reportRatios)
			benchSink += t.Sum[0]
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchN), "ns/user")
			b.ReportMetric(ratios[floorRounds/2], "x-floor")
			b.ReportMetric(words, "report-words/user")
			b.ReportMetric(reportRatios[floorRounds/2], "x-report-draws")
		})
	}
}
