package estimators

// Benchmarks of ULE at the scale of the paper's Table 1 (Beta+Sin, m = 3
// services [SR, PM, SW], ε = 0.1 each, l = 1024 bins, the authors' EMS and
// stopping rule):
//
//	go test -run '^$' -bench 'ULE1M' -benchtime 1x ./estimators/
//	LDPBENCH_BENCH_10M=1 go test -run '^$' -bench 'ULE10M' -benchtime 1x -timeout 30m ./estimators/
//
// Each reports, besides ns/op (the whole aggregation: bucketing,
// deduplication, preparation and EM), s/op-total, iters (EM iterations),
// s/iter, setup-s, distinct (distinct bucket vectors) and peak-RSS-MiB (the
// process's peak resident set, VmHWM, which includes the simulated
// reports). BenchmarkULEDensePerIter1M measures the dense route's time per
// iteration on a sample of the distinct vectors and extrapolates it to all
// of them (its rows for 1M users would take 6 GiB).

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ldpbench/ldpbench/datasets"
)

// uleBenchData is the simulated collection of a benchmark, built once per
// (n, ε).
type uleBenchData struct {
	reports [][]float64
	svcs    []*Service
}

var (
	uleBenchMu    sync.Mutex
	uleBenchCache = map[string]*uleBenchData{}
)

func uleBenchSetup(b *testing.B, n int, eps float64) *uleBenchData {
	b.Helper()
	key := fmt.Sprint(n, eps)
	uleBenchMu.Lock()
	defer uleBenchMu.Unlock()
	if d, ok := uleBenchCache[key]; ok {
		return d
	}
	clear(uleBenchCache) // keep one data set in memory
	rng := rand.New(rand.NewPCG(20251122, uint64(n)))
	u, err := datasets.BetaSin(n, datasets.BetaSinA, datasets.BetaSinB, datasets.BetaSinAmplitude, datasets.BetaSinFrequency, rng)
	if err != nil {
		b.Fatal(err)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range u {
		lo, hi = min(lo, x), max(hi, x)
	}
	for i, x := range u {
		u[i] = 2*(x-lo)/(hi-lo) - 1
	}
	mechs := uleMechs(b, eps, eps, eps)
	d := &uleBenchData{reports: uleReports(b, u, mechs, rng), svcs: uleServices(b, mechs, DefaultBins)}
	uleBenchCache[key] = d
	return d
}

// peakRSSMiB returns the process's peak resident set size (VmHWM) in MiB,
// or NaN where /proc is not available.
func peakRSSMiB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return math.NaN()
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			if err == nil {
				return kb / 1024
			}
		}
	}
	return math.NaN()
}

func benchULE(b *testing.B, n int, eps float64) {
	d := uleBenchSetup(b, n, eps)
	b.ResetTimer()
	var info EMInfo
	for b.Loop() {
		var err error
		_, info, err = ULE(d.reports, d.svcs, EMOptions{})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(info.Iterations), "iters")
	b.ReportMetric(info.PerIter.Seconds(), "s/iter")
	b.ReportMetric(info.Setup.Seconds(), "setup-s")
	b.ReportMetric((info.Setup + info.Loop).Seconds(), "s/op-total")
	b.ReportMetric(float64(info.Distinct), "distinct")
	b.ReportMetric(peakRSSMiB(), "peak-RSS-MiB")
	b.Logf("n=%d eps=%v: %d iterations (stop %s), %.4f s/iter, setup %.2f s, total %.2f s, %d distinct, LL %.3f",
		n, eps, info.Iterations, info.Stop, info.PerIter.Seconds(), info.Setup.Seconds(), (info.Setup + info.Loop).Seconds(), info.Distinct, info.LL)
}

// BenchmarkULE1M is ULE at n = 1M, m = 3 (Table 1: 124.05 s on the
// authors' GPU).
func BenchmarkULE1M(b *testing.B) {
	for _, eps := range []float64{0.1, 0.6} {
		b.Run(fmt.Sprintf("eps=%v", eps), func(b *testing.B) { benchULE(b, 1_000_000, eps) })
	}
}

// BenchmarkULE10M is ULE at n = 10M, m = 3 (Table 1: 12,620.94 s); it runs
// only with LDPBENCH_BENCH_10M=1.
func BenchmarkULE10M(b *testing.B) {
	if os.Getenv("LDPBENCH_BENCH_10M") == "" {
		b.Skip("set LDPBENCH_BENCH_10M=1 to run")
	}
	for _, eps := range []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6} {
		b.Run(fmt.Sprintf("eps=%v", eps), func(b *testing.B) { benchULE(b, 10_000_000, eps) })
	}
}
