package central

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ldpbench/ldpbench/centraldp"
	"github.com/ldpbench/ldpbench/experiment"
)

// countingSource counts the 64-bit words drawn from a PCG source.
type countingSource struct {
	src   *rand.PCG
	words int
}

func (c *countingSource) Uint64() uint64 { c.words++; return c.src.Uint64() }

// BenchmarkBatch is one run of a central estimator inside a batch (ns/run)
// at the paper's |D| = 10,000 and μ = 0.01, for ε = 1 and 10. words/run is
// the 64-bit words a run takes from the generator (counted through a
// wrapped source), and x-draws the run's cost over the floor, that many
// rng.Float64 calls (each word an interface call, a PCG step and a
// conversion): the median of 16 ratios of a 65,536-run batch to its floor
// timed back to back, so that a noisy neighbour between the two does not
// show. Run: go test -run '^$' -bench . ./kinds/central/
func BenchmarkBatch(b *testing.B) {
	const runs = 1 << 16
	for _, method := range centraldp.EstimatorNames() {
		for _, eps := range []float64{1, 10} {
			b.Run(method+"/eps="+map[float64]string{1: "1", 10: "10"}[eps], func(b *testing.B) {
				r := prepare(b, method, eps, 10000, map[string]string{"mu": "0.01", "runs": "65536"})
				cs := &countingSource{src: rand.NewPCG(1, 2)}
				counted := rand.New(cs)
				for range 4096 {
					r.est.Estimate(r.data.n, r.data.sum, counted)
				}
				words := float64(cs.words) / 4096
				rng := rand.New(rand.NewPCG(3, 4))
				out := make([]experiment.Measurement, 0, 3)
				b.ResetTimer()
				for b.Loop() {
					out, _ = r.Trial(context.Background(), 0, rng, out[:0])
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/runs, "ns/run")
				b.ReportMetric(words, "words/run")
				k := int(words*runs + 0.5)
				var ratios []float64
				var sink float64
				for range 16 {
					t0 := time.Now()
					out, _ = r.Trial(context.Background(), 0, rng, out[:0])
					t1 := time.Now()
					for range k {
						sink += rng.Float64()
					}
					t2 := time.Now()
					ratios = append(ratios, float64(t1.Sub(t0))/float64(t2.Sub(t1)))
				}
				slices.Sort(ratios)
				b.ReportMetric((ratios[7]+ratios[8])/2, "x-draws")
				_ = sink
			})
		}
	}
}
