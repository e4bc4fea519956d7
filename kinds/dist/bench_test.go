package dist

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ldpbench/ldpbench/experiment"
)

// countingSource counts the 64-bit words drawn from a PCG source.
type countingSource struct {
	src   *rand.PCG
	words int
}

func (c *countingSource) Uint64() uint64 { c.words++; return c.src.Uint64() }

// BenchmarkTrial is one trial of Fig. 4 at the paper's scale for Beta
// (n = 10⁶ records, dim = 10, 1,024 bins) per method at ε = 1 and 4:
// ns/op the whole trial (selection, reports, estimator, metrics), words the
// 64-bit words it draws, and x-draws its cost over the floor of that many
// rng.Float64 calls (median of 5 back-to-back ratios). The estimator's
// share is what lies above the floor: 2PEM's and EM's iterations; DE and
// OUE are close to it. Run: go test -run '^$' -bench Trial ./kinds/dist/
func BenchmarkTrial(b *testing.B) {
	for _, method := range []string{"hm-np", "sw", "de", "oue"} {
		for _, eps := range []float64{1, 4} {
			b.Run(method+"/eps="+map[float64]string{1: "1", 4: "4"}[eps], func(b *testing.B) {
				c := betaCell(b, method, eps, 1_000_000, map[string]string{"dim": "10"})
				run, err := Kind{}.Prepare(context.Background(), c)
				if err != nil {
					b.Fatal(err)
				}
				cs := &countingSource{src: rand.NewPCG(1, 2)}
				out := make([]experiment.Measurement, 0, 8)
				out, _ = run.Trial(context.Background(), 0, rand.New(cs), out[:0])
				words := cs.words
				rng := rand.New(rand.NewPCG(3, 4))
				for b.Loop() {
					out, _ = run.Trial(context.Background(), 0, rng, out[:0])
				}
				b.ReportMetric(float64(words), "words")
				var ratios []float64
				var sink float64
				for range 5 {
					t0 := time.Now()
					out, _ = run.Trial(context.Background(), 0, rng, out[:0])
					t1 := time.Now()
					for range words {
						sink += rng.Float64()
					}
					t2 := time.Now()
					ratios = append(ratios, float64(t1.Sub(t0))/float64(t2.Sub(t1)))
				}
				slices.Sort(ratios)
				b.ReportMetric(ratios[2], "x-draws")
				_ = sink
			})
		}
	}
}
