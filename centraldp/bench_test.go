package centraldp_test

// Benchmarks of the noise samplers and of one Estimate of every
// estimator, at ε = 1 (and ε = 4 for the staircase family, where the
// 2-D staircase's shell mixture branches differently).
//
// Besides ns/op each reports, as mechanisms/bench_test.go does:
//   - draws/op: the mean number of 64-bit words one call takes from the
//     generator's Source, counted through a wrapped source before the
//     timed loop;
//   - x-draws: the cost of a call relative to the floor, the time to draw
//     that many words as rng.Float64() values from the same kind of
//     generator (a *rand.Rand over PCG). Every draw, whatever is done
//     with its bits (a uniform, a sign word, an exponential by the
//     ziggurat), is one Source.Uint64 call, and the floor prices each at
//     one rng.Float64: the interface call, the PCG step and the
//     conversion. The ziggurat's own work and every logarithm, square root
//     or division count against the sampler. The target is x-draws ≤ 2.
//
//   - x-kinds: the cost relative to a floor made of the same kinds of
//     draws the call makes: rng.ExpFloat64 for each exponential (1.5
//     uniforms' time) and rng.Float64 for each uniform or sign word.
//     Nothing can sample these laws with fewer draws of these kinds, so
//     x-kinds − 1 is the sampler's own arithmetic.
//
// Both ratios are medians over 32 rounds of (time of 4096 calls)/(time of
// the floor for those calls), each pair measured microseconds apart.
//
// Run: go test -run '^$' -bench . -benchtime 300ms ./central/

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ldpbench/ldpbench/centraldp"
)

const (
	benchCalls  = 4096
	floorRounds = 32
)

var benchSink float64

// counting is a PCG source that counts its words.
type counting struct {
	src *rand.PCG
	n   int
}

func (c *counting) Uint64() uint64 { c.n++; return c.src.Uint64() }

// drawsPerCall returns the mean number of words one call of f takes.
func drawsPerCall(f func(rng *rand.Rand)) float64 {
	c := &counting{src: rand.NewPCG(3, 4)}
	rng := rand.New(c)
	const n = 200000
	for range n {
		f(rng)
	}
	return float64(c.n) / n
}

// floorRatio returns the median over floorRounds of the time of
// benchCalls calls of f over the time of floor().
func floorRatio(f func(rng *rand.Rand), floor func(), rng *rand.Rand) float64 {
	ratios := make([]float64, floorRounds)
	for r := range ratios {
		t0 := time.Now()
		for range benchCalls {
			f(rng)
		}
		t1 := time.Now()
		floor()
		t2 := time.Now()
		ratios[r] = float64(t1.Sub(t0)) / float64(t2.Sub(t1))
	}
	slices.Sort(ratios)
	return ratios[floorRounds/2]
}

// draws describes the random draws of one call: exps exponentials and
// words uniforms or bit words, on average.
type draws struct{ exps, words float64 }

func runBench(b *testing.B, f func(rng *rand.Rand), d draws) {
	perCall := drawsPerCall(f)
	rng := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f(rng)
	}
	b.StopTimer()
	uniforms := make([]float64, int(math.Round(benchCalls*perCall)))
	house := func() {
		for i := range uniforms {
			uniforms[i] = rng.Float64()
		}
	}
	ne, nw := int(math.Round(benchCalls*d.exps)), int(math.Round(benchCalls*d.words))
	kinds := func() {
		s := 0.0
		for range ne {
			s += rng.ExpFloat64()
		}
		for range nw {
			s += rng.Float64()
		}
		benchSink += s
	}
	b.ReportMetric(perCall, "draws/op")
	b.ReportMetric(floorRatio(f, house, rng), "x-draws")
	b.ReportMetric(floorRatio(f, kinds, rng), "x-kinds")
	benchSink += uniforms[0]
}

// stair2DExps is the mean number of exponentials of a 2-D staircase draw:
// 1, plus 1 when the shell comes from the k·r^k component, of weight
// A·r/(1−r)² against B/(1−r) (see Staircase2D.Sample).
func stair2DExps(eps float64) float64 {
	g, r := centraldp.Staircase2DGamma(eps), math.Exp(-eps)
	A, B := 4*(g+r*(1-g)), 2*(g*g+r*(1-g*g))
	w1, w2 := B/(1-r), A*r/((1-r)*(1-r))
	return 1 + w2/(w1+w2)
}

func BenchmarkSample(b *testing.B) {
	for _, eps := range []float64{1, 4} {
		st, _ := centraldp.NewStaircase(eps, centraldp.GammaStar(eps), 1)
		s2, _ := centraldp.NewStaircase2D(eps, centraldp.Staircase2DGamma(eps), 1)
		hg, _ := centraldp.NewHourglass(eps, centraldp.GammaStar(eps), 1)
		r := math.Exp(-eps)
		g2, _ := centraldp.NewGeometric2(eps)
		cases := []struct {
			name string
			f    func(rng *rand.Rand)
			d    draws
		}{
			{"laplace", func(rng *rand.Rand) { benchSink += centraldp.Laplace(1/eps, rng) }, draws{1, 1}},
			{"geometric2-r", func(rng *rand.Rand) { benchSink += float64(centraldp.TwoSidedGeometric(r, rng)) }, draws{2, 0}},
			{"geometric2", func(rng *rand.Rand) { benchSink += float64(g2.Sample(rng)) }, draws{2, 0}},
			{"staircase", func(rng *rand.Rand) { x, _, _ := st.Sample(rng); benchSink += x }, draws{1, 2}},
			{"staircase2d", func(rng *rand.Rand) { x, y := s2.Sample(rng); benchSink += x + y }, draws{stair2DExps(eps), 4}},
			{"hourglass", func(rng *rand.Rand) { x, y, _ := hg.Sample(rng); benchSink += x + y }, draws{3, 2}},
		}
		for _, c := range cases {
			b.Run(c.name+"/eps="+ftoa(eps), func(b *testing.B) { runBench(b, c.f, c.d) })
		}
	}
}

func BenchmarkEstimate(b *testing.B) {
	for _, name := range centraldp.EstimatorNames() {
		for _, eps := range []float64{1, 4} {
			e, err := centraldp.NewEstimator(name, eps, centraldp.Options{})
			if err != nil {
				b.Fatal(err)
			}
			d := draws{2, 1} // the Laplace family: two exponentials, a word for both signs
			switch name {
			case centraldp.NameAlg3TwoD:
				d = draws{stair2DExps(eps), 4}
			case centraldp.NameAlg3HG:
				d = draws{3, 2}
			case centraldp.NameSwapStair:
				d = draws{1, 2}
			}
			b.Run(name+"/eps="+ftoa(eps), func(b *testing.B) {
				runBench(b, func(rng *rand.Rand) { benchSink += e.Estimate(10000, 100, rng) }, d)
			})
		}
	}
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
