package audit_test

// Benchmarks of the Monte Carlo audit and of the exact audits.
//
// BenchmarkMonteCarlo reports, besides ns/op (one audit of N = 100,000
// reports per input after a pilot of 10,000), ns/report and x-perturb: the
// audit's time over the time of the same 220,000 Perturb calls alone, its
// floor (the reports are the audit's raw material; everything above them
// is the auditor's: finding each report's cell by binary search, sorting
// the pilot, the Clopper–Pearson quantiles). The floor is timed right
// after the loop, median of 5 rounds.
//
// Run: go test -run '^$' -bench . -benchtime 20x ./audit/

import (
	"slices"
	"testing"
	"time"

	"github.com/ldpbench/ldpbench/audit"
	"github.com/ldpbench/ldpbench/mechanisms"
)

var benchSink float64

func BenchmarkMonteCarlo(b *testing.B) {
	for _, name := range []string{"duchi", "pm", "laplace", "n-output"} {
		m, err := mechanisms.New(name, 1)
		if err != nil {
			b.Fatal(err)
		}
		cfg := audit.MCConfig{N: 100_000, Pilot: 10_000}
		reports := 2 * (cfg.N + cfg.Pilot)
		b.Run(name, func(b *testing.B) {
			rng := newRNG(1)
			for b.Loop() {
				if _, err := audit.MonteCarlo(m, 1, -1, cfg, rng); err != nil {
					b.Fatal(err)
				}
			}
			perAudit := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			var floors []float64
			for range 5 {
				t0 := time.Now()
				for i := range reports {
					benchSink += m.Perturb(float64(i&1)*2-1, rng)
				}
				floors = append(floors, float64(time.Since(t0).Nanoseconds()))
			}
			slices.Sort(floors)
			b.ReportMetric(perAudit/float64(reports), "ns/report")
			b.ReportMetric(perAudit/floors[2], "x-perturb")
		})
	}
}

// BenchmarkAuditLaw times one exact audit of a mechanism at ε = 1 at the
// default resolution.
func BenchmarkAuditLaw(b *testing.B) {
	for _, name := range []string{"duchi", "n-output", "pm", "laplace", "hm-tp"} {
		m, err := mechanisms.New(name, 1)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := audit.AuditLaw(m, audit.Resolution{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
