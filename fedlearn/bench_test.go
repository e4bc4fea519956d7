package fedlearn

import (
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkFedSGDUser measures one user of LDP-FedSGD (gradient, clip,
// report, aggregation) at the IPUMS stand-ins' d = 90, and reports
// ratio = that cost over a floor of the report's draws alone
// (PerturbVector on a fixed input), the house pattern of
// mechanisms/bench_test.go.
func BenchmarkFedSGDUser(b *testing.B) {
	const n, p = 4096, 89
	X, Y := synth("binary", n, p, 1)
	for _, method := range []string{"pm-sub", "hm-tp", "duchi", "laplace"} {
		b.Run(method, func(b *testing.B) {
			model := NewLogistic(p, true)
			mech, err := NewMechanism(method, model.Dim(), 4, 0)
			if err != nil {
				b.Fatal(err)
			}
			x := make([]float64, model.Dim())
			dst := make([]float64, model.Dim())
			rng := rand.New(rand.NewPCG(1, 2))
			// The floor, timed by hand (testing.Benchmark cannot be
			// called inside a benchmark): 200,000 reports of a fixed input.
			const floorN = 200_000
			start := time.Now()
			for range floorN {
				_ = mech.PerturbVector(dst, x, rng)
			}
			floor := float64(time.Since(start).Nanoseconds()) / floorN
			f := FedSGD{Model: model, Mech: mech, Eta: 0.1, Group: 1000, Lambda: DefaultLambda, Clip: 1}
			theta := make([]float64, model.Dim())
			ws := NewWorkspace(model.Dim())
			b.ResetTimer()
			for i := 0; i < b.N; i += n {
				users := min(n, b.N-i)
				_ = f.Train(theta, X[:users*p], Y[:users], ws, rng)
			}
			perUser := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(perUser, "ns/user")
			b.ReportMetric(perUser/floor, "ratio")
		})
	}
}
