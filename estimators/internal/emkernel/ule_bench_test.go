package emkernel

// Benchmarks of ULE (Linked: estimators.ULE less its checks of the input)
// at the scale of the paper's Table 1 (Beta+Sin with the datasets
// package's defaults, normalised by its empirical min/max; m = 3 services
// [SR, PM, SW] at the same ε; l = 1024 bins; the authors' EMS and stopping
// rule; Workers = GOMAXPROCS):
//
//	go test -run '^$' -bench 'ULE1M|ULEDense' -benchtime 1x ./estimators/internal/emkernel/
//	LDPBENCH_BENCH_10M=1 go test -run '^$' -bench 'ULE10M' -benchtime 1x -timeout 60m ./estimators/internal/emkernel/
//	LDPBENCH_BENCH_M=1 go test -run '^$' -bench 'ULEServices1M' -benchtime 1x -timeout 60m ./estimators/internal/emkernel/
//
// Each reports, besides ns/op (the whole aggregation: bucketing,
// deduplication, preparation and EM, the region Table 1 times),
// s/op-total, iters (EM iterations), s/iter, setup-s, distinct (distinct
// bucket vectors) and peak-RSS-MiB (the process's peak resident set, VmHWM,
// which includes the simulated reports, 8 bytes per report), and against
// a floor (uleFloorPerIter: one gather, one division and one scatter per
// distinct vector, the least an exact E-step can do): floor-s/iter, x-floor
// (s/iter over it) and floor-s (the floor times the iterations, a lower
// bound for any exact route at the authors' stopping rule). Table 1 (the
// authors' GPU): ULE m = 3 at n = 1M 124.05 s, at 10M 12,620.94 s; m = 6,
// 9, 12, 15 at 1M 131.85 to 141.16 s. BenchmarkULEDensePerIter1M measures
// the dense route's time per iteration on a sample of the distinct vectors
// and extrapolates it to all of them (their rows would take 6 GiB).

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/estimators/internal/uletest"
)

// uleBenchData is the simulated collection of a benchmark, built once per
// (n, ε).
type uleBenchData struct {
	reports [][]float64
	mats    []*Matrix
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
	mechs := uletest.Mechs(b, eps, eps, eps)
	rng := rand.New(rand.NewPCG(20251122, uint64(n)^math.Float64bits(eps)))
	d := &uleBenchData{reports: uletest.Reports(b, uleBenchInputs(b, n), mechs, rng), mats: uleMatrices(b, mechs, testBins, testBins)}
	uleBenchCache[key] = d
	return d
}

// uleBenchInputs returns n Beta+Sin values (the datasets package's
// defaults) normalised to [-1, 1] by their empirical min and max
// (as the authors' code does), the same for every call with the same n.
func uleBenchInputs(b *testing.B, n int) []float64 {
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
	return u
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
	var info Info
	for b.Loop() {
		_, info = uleLinked(b, d.reports, d.mats, Options{})
	}
	b.StopTimer()
	reportULE(b, n, eps, info)
}

func reportULE(b *testing.B, n int, eps float64, info Info) {
	floor := uleFloorPerIter(info.Distinct)
	b.ReportMetric(float64(info.Iterations), "iters")
	b.ReportMetric(info.PerIter.Seconds(), "s/iter")
	b.ReportMetric(floor, "floor-s/iter")
	b.ReportMetric(info.PerIter.Seconds()/floor, "x-floor")
	b.ReportMetric(floor*float64(info.Iterations+1), "floor-s")
	b.ReportMetric(info.Setup.Seconds(), "setup-s")
	b.ReportMetric((info.Setup + info.Loop).Seconds(), "s/op-total")
	b.ReportMetric(float64(info.Distinct), "distinct")
	b.ReportMetric(peakRSSMiB(), "peak-RSS-MiB")
	b.Logf("n=%d eps=%v: %d iterations (stop %s), %.4f s/iter (floor %.4f, x%.2f), setup %.2f s, total %.2f s (floor at these iterations %.2f s), %d distinct, LL %.3f",
		n, eps, info.Iterations, info.Stop, info.PerIter.Seconds(), floor, info.PerIter.Seconds()/floor, info.Setup.Seconds(), (info.Setup + info.Loop).Seconds(),
		floor*float64(info.Iterations+1), info.Distinct, info.LL)
}

// uleFloorPerIter returns the time of one pass of the least work any exact
// E-step must do per distinct vector, on K vectors with GOMAXPROCS workers
// over the same slots as the fast route: read the vector's inner row and
// count, gather a prefix-sum difference of θ for its D, divide the count by
// D (w = n/D, the nonlinear step that prevents merging vectors), and scatter
// w into an accumulator indexed by the row. The inner rows are random over
// 1024, so the gathers and scatters stay in L1 as in the kernel; the ratio
// s/iter ÷ this (x-floor) is how far the kernel is from that floor, and the
// floor times the iteration count is a lower bound on any exact route's
// time at that count on this machine.
func uleFloorPerIter(K int) float64 {
	rng := rand.New(rand.NewPCG(1, uint64(K)))
	inner := make([]uint16, K)
	cnt := make([]float64, K)
	for i := range inner {
		inner[i] = uint16(rng.IntN(1024))
		cnt[i] = float64(1 + rng.IntN(2))
	}
	th := make([]float64, 1025)
	for i := range th {
		th[i] = 1 + float64(i)
	}
	ns := uleSlotsFor(K)
	accs := make([][]float64, ns)
	sums := make([]float64, ns)
	for s := range accs {
		accs[s] = make([]float64, 1024)
	}
	pass := func(s int) {
		acc := (*[1024]float64)(accs[s])
		var sum float64
		lo, hi := K*s/ns, K*(s+1)/ns
		for i, r := range inner[lo:hi] {
			r &= 1023
			w := cnt[lo+i] / (th[r+1] - th[r] + 0.5)
			acc[r] += w
			sum += w
		}
		sums[s] += sum
	}
	return floorPassSeconds(ns, pass)
}

// floorPassSeconds returns the mean wall time of a pass of pass over ns
// slots on GOMAXPROCS workers (20 passes after one to warm up): the
// floors' timing.
func floorPassSeconds(ns int, pass func(slot int)) float64 {
	const passes = 20
	emForSlots(ns, runtime.GOMAXPROCS(0), pass) // warm up
	start := time.Now()
	for range passes {
		emForSlots(ns, runtime.GOMAXPROCS(0), pass)
	}
	return time.Since(start).Seconds() / passes
}

// uleFloorPerIterS is uleFloorPerIter for vectors of S ≥ 2 segment rows
// (S PM/SW services: S = 2m/3 in Table 1's cells), each of which D_k
// depends on: no exact E-step can take D_k from fewer lookups of
// per-iteration quantities than one per row (a table indexed by two rows
// or more would outgrow the vectors, 1024² entries per pair at most 10⁶
// vectors), so per vector it reads the S rows and the count, gathers a
// prefix-sum difference of θ from each row's service's table, divides the
// count by their sum, and scatters w into each row's service's
// accumulator. With S services' tables (16 KiB each, tables and
// accumulators) it is the memory the kernel's tables take (S ≤ 16). uleFloorPerIter is kept apart, the loop at S = 1 as it
// was; this one is the floor of the m ≥ 6 cells (floorS in
// BenchmarkTable1ULE).
func uleFloorPerIterS(K, S int) float64 {
	const maxS = 16
	if S > maxS {
		panic("uleFloorPerIterS: more than 16 rows")
	}
	rng := rand.New(rand.NewPCG(2, uint64(K*S)))
	rows := make([]uint16, K*S)
	cnt := make([]float64, K)
	for i := range rows {
		rows[i] = uint16(rng.IntN(1024))
	}
	for i := range cnt {
		cnt[i] = float64(1 + rng.IntN(2))
	}
	// Service j's table at j·1025, its accumulator at j·1024 (arrays of
	// maxS services, the indices masked: no bounds checks).
	th := new([maxS * 1025]float64)
	for i := range th {
		th[i] = 1 + float64(i)
	}
	ns := uleSlotsFor(K)
	accs := make([]*[maxS * 1024]float64, ns)
	sums := make([]float64, ns)
	for s := range accs {
		accs[s] = new([maxS * 1024]float64)
	}
	pass := func(s int) {
		acc := accs[s]
		var sum float64
		lo, hi := K*s/ns, K*(s+1)/ns
		for i := lo; i < hi; i++ {
			r := rows[i*S : i*S+S]
			D := 0.5
			for j, v := range r {
				o := (j&(maxS-1))*1025 + int(v&1023)
				D += th[o+1] - th[o]
			}
			w := cnt[i] / D
			for j, v := range r {
				acc[(j&(maxS-1))*1024+int(v&1023)] += w
			}
			sum += w
		}
		sums[s] += sum
	}
	return floorPassSeconds(ns, pass)
}

// BenchmarkULE1M is ULE at n = 1M, m = 3, for ε = 0.1, ..., 0.6 (the
// budgets of Fig. 4; Table 1 uses 0.1).
func BenchmarkULE1M(b *testing.B) {
	for _, eps := range []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6} {
		b.Run(fmt.Sprintf("eps=%v", eps), func(b *testing.B) { benchULE(b, 1_000_000, eps) })
	}
}

// BenchmarkULE10M is ULE at n = 10M, m = 3, for ε = 0.1, ..., 0.6; it runs
// only with LDPBENCH_BENCH_10M=1 (ε = 0.1 alone took 54 s on 2 cores).
func BenchmarkULE10M(b *testing.B) {
	if os.Getenv("LDPBENCH_BENCH_10M") == "" {
		b.Skip("set LDPBENCH_BENCH_10M=1 to run")
	}
	for _, eps := range []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6} {
		b.Run(fmt.Sprintf("eps=%v", eps), func(b *testing.B) { benchULE(b, 10_000_000, eps) })
	}
}

// BenchmarkULEServices1M is ULE at n = 1M over m = 6, 9, 12, 15 services
// cycling [SR, PM, SW] at ε = 0.1 (Table 1's second row, Fig. 7b); it runs
// only with LDPBENCH_BENCH_M=1.
func BenchmarkULEServices1M(b *testing.B) {
	if os.Getenv("LDPBENCH_BENCH_M") == "" {
		b.Skip("set LDPBENCH_BENCH_M=1 to run")
	}
	for _, m := range []int{6, 9, 12, 15} {
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			eps := make([]float64, m)
			for i := range eps {
				eps[i] = 0.1
			}
			ms := uletest.Mechs(b, eps...)
			rng := rand.New(rand.NewPCG(7, uint64(m)))
			reports := uletest.Reports(b, uleBenchInputs(b, 1_000_000), ms, rng)
			mats := uleMatrices(b, ms, testBins, testBins)
			b.ResetTimer()
			var info Info
			for b.Loop() {
				_, info = uleLinked(b, reports, mats, Options{})
			}
			b.StopTimer()
			reportULE(b, 1_000_000, 0.1, info)
		})
	}
}

// BenchmarkULEDensePerIter1M measures the dense route's time per
// iteration (a fused pass over every distinct vector's stored row of l
// entries) on the first 110,000 users of the n = 1M data (about 10⁵
// distinct vectors, 0.9 GB of rows), and extrapolates it linearly in the
// number of distinct vectors to all 1M users (s/iter-1M). The fast route's
// time per iteration on the same users is reported beside it.
func BenchmarkULEDensePerIter1M(b *testing.B) {
	d := uleBenchSetup(b, 1_000_000, 0.1)
	const nSub = 110_000
	sub := make([][]float64, len(d.reports))
	for j, r := range d.reports {
		sub[j] = r[:nSub]
	}
	_, full := uleLinked(b, d.reports, d.mats, Options{MaxIter: 1})
	b.ResetTimer()
	var info Info
	for b.Loop() {
		_, info = uleLinked(b, sub, d.mats, Options{MaxIter: 4, Dense: true})
	}
	b.StopTimer()
	_, fast := uleLinked(b, sub, d.mats, Options{MaxIter: 50})
	perIter := info.PerIter.Seconds()
	b.ReportMetric(perIter, "s/iter")
	b.ReportMetric(float64(info.Distinct), "distinct")
	b.ReportMetric(perIter*float64(full.Distinct)/float64(info.Distinct), "s/iter-1M")
	b.ReportMetric(fast.PerIter.Seconds(), "fast-s/iter")
	b.ReportMetric(peakRSSMiB(), "peak-RSS-MiB")
	b.Logf("dense: %.4f s/iter on %d distinct vectors -> %.3f s/iter at %d (1M users); fast on the same users: %.5f s/iter",
		perIter, info.Distinct, perIter*float64(full.Distinct)/float64(info.Distinct), full.Distinct, fast.PerIter.Seconds())
}

// BenchmarkPairGridVsSparse times 200 iterations of the pair kernel's two
// forms, sparse (a gather per vector) and grid (every cell of each group's
// span, ule_grid.go), on the n = 1M data of BenchmarkULE1M at ε = 0.1 and
// 0.6 and on n = 0.5M at ε = 0.1 (with LDPBENCH_BENCH_10M=1 also n = 10M),
// and reports each one's s/iter, sparse ÷ grid and the share of the grid's
// cells that hold a vector; the route takes the grid form above
// pairGridOccupancy.
func BenchmarkPairGridVsSparse(b *testing.B) {
	type cfg struct {
		n   int
		eps float64
	}
	cfgs := []cfg{{500_000, 0.1}, {1_000_000, 0.1}, {1_000_000, 0.6}}
	if os.Getenv("LDPBENCH_BENCH_10M") != "" {
		cfgs = append(cfgs, cfg{10_000_000, 0.1})
	}
	for _, c := range cfgs {
		b.Run(fmt.Sprintf("n=%d/eps=%v", c.n, c.eps), func(b *testing.B) {
			d := uleBenchSetup(b, c.n, c.eps)
			run := func(kernel string) Info {
				_, info := uleLinked(b, d.reports, d.mats, Options{MaxIter: 200, Converged: true, LLTol: 1e-300, ThetaTol: 1e-300, kernel: kernel})
				return info
			}
			var sparse, grid Info
			for b.Loop() {
				sparse = run("pair")
				grid = run("pairgrid")
			}
			b.ReportMetric(sparse.PerIter.Seconds(), "sparse-s/iter")
			b.ReportMetric(grid.PerIter.Seconds(), "grid-s/iter")
			b.ReportMetric(sparse.PerIter.Seconds()/grid.PerIter.Seconds(), "sparse/grid")
			b.ReportMetric(float64(grid.Distinct), "distinct")
			dd := uleDedup(b, d.mats, d.reports)
			b.ReportMetric(float64(len(dd.count))/float64(newULEFast(dd, 1, "pairgrid").gridCells()), "occupancy")
		})
	}
}
