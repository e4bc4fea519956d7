package emkernel

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/ldpbench/ldpbench/estimators/internal/uletest"
)

// BenchmarkTable1ULE runs the ULE cells of Du et al.'s Table 1 (Beta+Sin,
// services cycling [SR, PM, SW] at ε = 0.1, l = 1024, the authors' EMS
// and stopping rule, as runs/multiservice-table1-ule.toml) and reports,
// per cell, the time per iteration beside the floor measured in the same
// run (uleFloorPerIter: one gather, division and scatter per distinct
// vector, the least an exact E-step can do) and the whole aggregation
// beside the paper's time (RTX 3090):
//
//	s/iter, floor-s/iter, x-floor   ours per E-step pass, the floor, ratio
//	floorS-s/iter, x-floorS         m ≥ 6: the floor with one lookup and
//	                                one scatter per PM/SW row of a vector
//	                                (uleFloorPerIterS, S = 2m/3), and ours
//	                                over it
//	s-total, paper-s, x-paper       our aggregation (setup + EM), the
//	                                paper's Table 1 time, ours ÷ paper
//	paper-s/iter                    the paper's time over our iteration
//	                                count (same rule, so the same count
//	                                up to the draws; the paper gives none)
//	cpu-s                           the process's CPU time (user + system)
//	                                over the aggregation: on a shared
//	                                machine, wall time over it shows the
//	                                share of the cores the run had
//	iters, distinct
//
// Ratios are robust to a shared machine, absolute times are not. By
// default the m = 3 cells at n = 0.5M and 1M; LDPBENCH_BENCH_10M=1 adds
// n = 5M and 10M, LDPBENCH_BENCH_M=1 the n = 1M cells at m = 6, 9, 12, 15:
//
//	go test -run '^$' -bench Table1ULE -benchtime 1x ./estimators/internal/emkernel/
func BenchmarkTable1ULE(b *testing.B) {
	type cell struct {
		m, n  int
		paper float64 // seconds, Table 1
	}
	cells := []cell{{3, 500_000, 69.79}, {3, 1_000_000, 124.05}}
	if os.Getenv("LDPBENCH_BENCH_10M") != "" {
		cells = append(cells, cell{3, 5_000_000, 9461.53}, cell{3, 10_000_000, 12620.94})
	}
	if os.Getenv("LDPBENCH_BENCH_M") != "" {
		cells = append(cells, cell{6, 1_000_000, 131.85}, cell{9, 1_000_000, 135.72}, cell{12, 1_000_000, 138.91}, cell{15, 1_000_000, 141.16})
	}
	for _, c := range cells {
		b.Run(fmt.Sprintf("m=%d/n=%d", c.m, c.n), func(b *testing.B) {
			var reports [][]float64
			var mats []*Matrix
			if c.m == 3 {
				d := uleBenchSetup(b, c.n, 0.1)
				reports, mats = d.reports, d.mats
			} else {
				eps := make([]float64, c.m)
				for i := range eps {
					eps[i] = 0.1
				}
				ms := uletest.Mechs(b, eps...)
				rng := rand.New(rand.NewPCG(7, uint64(c.m)))
				reports = uletest.Reports(b, uleBenchInputs(b, c.n), ms, rng)
				mats = uleMatrices(b, ms, testBins, testBins)
			}
			b.ResetTimer()
			var info Info
			var cpu float64
			for b.Loop() {
				c0 := processCPUSeconds()
				_, info = uleLinked(b, reports, mats, Options{})
				cpu = processCPUSeconds() - c0
			}
			b.StopTimer()
			floor := uleFloorPerIter(info.Distinct)
			total := (info.Setup + info.Loop).Seconds()
			perIter := info.PerIter.Seconds()
			b.ReportMetric(perIter, "s/iter")
			b.ReportMetric(floor, "floor-s/iter")
			b.ReportMetric(perIter/floor, "x-floor")
			floorS, S := floor, 1
			if c.m > 3 {
				S = 2 * c.m / 3 // the PM and SW services
				floorS = uleFloorPerIterS(info.Distinct, S)
				b.ReportMetric(floorS, "floorS-s/iter")
				b.ReportMetric(perIter/floorS, "x-floorS")
			}
			b.ReportMetric(total, "s-total")
			b.ReportMetric(cpu, "cpu-s")
			b.ReportMetric(c.paper, "paper-s")
			b.ReportMetric(total/c.paper, "x-paper")
			b.ReportMetric(c.paper/float64(info.ESteps), "paper-s/iter")
			b.ReportMetric(float64(info.Iterations), "iters")
			b.ReportMetric(float64(info.Distinct), "distinct")
			withS := ""
			if S > 1 {
				withS = fmt.Sprintf(", with a lookup per PM/SW row (S=%d) %.2f ms/iter (x%.2f)", S, 1e3*floorS, perIter/floorS)
			}
			b.Logf("Table 1, ULE m=%d n=%d: %d iterations; %.2f ms/iter, floor %.2f ms/iter (x%.2f)%s; aggregation %.2f s (%.1f CPU-s), paper %.2f s (ours x%.3f of it; the paper per iteration at our count %.2f ms)",
				c.m, c.n, info.Iterations, 1e3*perIter, 1e3*floor, perIter/floor, withS, total, cpu, c.paper, total/c.paper, 1e3*c.paper/float64(info.ESteps))
		})
	}
}
