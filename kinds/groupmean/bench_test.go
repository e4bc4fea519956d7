package groupmean

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/ldpbench/ldpbench/experiment"
)

// BenchmarkTrial is one run of the kind at the paper's scale (d = 8 groups
// of 10,000 users): ns/user is the cost of one user's report and its share
// of the aggregation; floor-ns/user is one rng.Float64 per user.
func BenchmarkTrial(b *testing.B) {
	ds := placeholder(b)
	for _, method := range []string{"bernoulli", "nprr(k=8)", "laplace", "pw", "value:pm-sub"} {
		b.Run(method, func(b *testing.B) {
			r := prepare(b, ds, method, 2, 10000, map[string]string{"shape": "normal", "groups": "8"}, "scaled_abs_error", "scaled_abs_error_sq", "group_error_ratio")
			rng := rand.New(rand.NewPCG(1, 2))
			var out []experiment.Measurement
			n := len(r.data.unit)
			b.ResetTimer()
			for b.Loop() {
				var err error
				out, err = r.Trial(context.Background(), 0, rng, out[:0])
				if err != nil {
					b.Fatal(err)
				}
			}
			perUser := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(n)
			b.ReportMetric(perUser, "ns/user")
		})
	}
	b.Run("floor", func(b *testing.B) {
		rng := rand.New(rand.NewPCG(1, 2))
		var s float64
		for b.Loop() {
			for range 80000 {
				s += rng.Float64()
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/80000, "ns/user")
		_ = s
	})
}
