package estimators

import (
	"context"
	"fmt"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// BenchmarkTwoPEM: 2PEM at d = 1024 on the reports of n = 10⁶ HM-NP users
// (Beta(3,2) inputs; the matrices cached, as in an experiment), against
// the same EM with the dense matrices (dense-em: the E-step over every
// entry, the same iterations), which runs first: 2pem-counts reports its
// time as a fraction of the dense EM's (x-dense), the EM alone on the same
// counts. Target: ≤ 1 s per run.
func BenchmarkTwoPEM(b *testing.B) {
	for _, eps := range []float64{1, 3, 5} {
		hm, _ := mechanisms.NewHMNP(eps)
		pm, no := hmnpReports(b, hm, 1_000_000, 11)
		mats, err := TwoPEMCached(hm, 1024, DTildeCeil)
		if err != nil {
			b.Fatal(err)
		}
		cP, cN := mats.PM.Counts(pm, nil), mats.NO.Counts(no, nil)
		var denseNs float64
		b.Run(fmt.Sprintf("eps=%v/dense-em", eps), func(b *testing.B) {
			TP, TN := mats.PM.Dense(), mats.NO.Dense()
			var it int
			for b.Loop() {
				mu, i1 := denseEM(TP, mats.PM.Rows, 1024, cP, nil, 0, 1e-5, 10000)
				_, i2 := denseEM(TN, mats.NO.Rows, 1024, cN, mu, 1, 1e-5, 10000)
				it = i1 + i2
			}
			denseNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(float64(it), "iters")
		})
		b.Run(fmt.Sprintf("eps=%v/2pem", eps), func(b *testing.B) {
			var it int
			for b.Loop() {
				res, err := TwoPEM(context.Background(), pm, no, eps, hm, TwoPEMConfig{D: 1024})
				if err != nil {
					b.Fatal(err)
				}
				it = res.Iter1 + res.Iter2
			}
			b.ReportMetric(float64(it), "iters")
		})
		b.Run(fmt.Sprintf("eps=%v/2pem-counts", eps), func(b *testing.B) {
			for b.Loop() {
				if _, err := TwoPEMCounts(context.Background(), cP, cN, mats, TwoPEMConfig{}); err != nil {
					b.Fatal(err)
				}
			}
			if denseNs > 0 {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/denseNs, "x-dense")
			}
		})
	}
}
