package emkernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ldpbench/ldpbench/estimators/internal/uletest"
)

// gridTestInputs returns the grid form's per-inner-row arrays with random
// positive entries (so that every D is positive), β3 from 1e-120 to 1 and
// around powers of √2 when wide (the other coefficients then tiny, so D
// ranges as widely), and n counts of 0 to 29.
func gridTestInputs(rng *rand.Rand, n int, wide bool) (in []float64, cnt []float32) {
	in = make([]float64, gIn*gStride)
	for i := range in {
		in[i] = 0.01 + rng.Float64()
	}
	if wide {
		for i := range gStride {
			if i%2 == 0 {
				in[i] = math.Pow(10, -120*rng.Float64())
			} else {
				in[i] = math.Ldexp(math.Sqrt2*(1+(rng.Float64()-0.5)*1e-15), -rng.IntN(390))
			}
		}
	}
	cnt = make([]float32, n)
	for i := range cnt {
		cnt[i] = float32(rng.IntN(30))
	}
	return in, cnt
}

// TestGridBlocksAVX2MatchesGo checks the assembly of the grid kernel
// against gridBlocksGo bit for bit (the three accumulations and the
// sixteen lane sums, the log-likelihood's included), with the left and
// right accumulations distinct and the same array (the junk case, where
// the assembly must add twice as Go does), and with D from 1e-120 to 1
// (the range the pair kernel's D can take: rows scaled to at most 1, every
// entry above 1e-40) and around the logarithm's reduction edge √2.
func TestGridBlocksAVX2MatchesGo(t *testing.T) {
	if !gridAVX2 {
		t.Skip("no AVX2 on this CPU: gridBlocks runs gridBlocksGo, which the route tests cover")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		n, lo      int
		lOff, rOff int
		wide       bool
	}{
		{4, 0, gWL * gStride, gUB * gStride, false},
		{1024, 1, gLB * gStride, gRB * gStride, false},
		{404, 617, gJunk * gStride, gJunk * gStride, false},
		{1020, 3, gUA * gStride, gWR * gStride, false},
		{4096, 0, gWL * gStride, gWR * gStride, true},
	} {
		in, cnt := gridTestInputs(rng, tc.n, tc.wide)
		k := gridCoef{c1: rng.Float64(), c2: rng.Float64(), beta2: rng.Float64(), p2l: rng.Float64(), p2r: rng.Float64(),
			cA: 0.001 * rng.Float64(), cB: rng.Float64(), delta2: rng.Float64() - 0.5, lOff: tc.lOff, rOff: tc.rOff}
		if tc.wide {
			k.c1, k.c2, k.beta2, k.p2l, k.p2r, k.cA, k.cB = 1, 1e-300, 1e-300, 1e-300, 1e-300, 0, 1e-300
		}
		for i, c := range [8]float64{k.c1, k.c2, k.beta2, k.p2l, k.p2r, k.cA, k.cB, k.delta2} {
			k.vec[i] = [4]float64{c, c, c, c}
		}
		var acc [2][]float64
		var lanes [2][16]float64
		for v := range 2 {
			acc[v] = make([]float64, gAcc*gStride)
			for i := range acc[v] {
				acc[v][i] = float64(i % 7)
			}
			x, wb := in[tc.lo:], acc[v][gWB*gStride+tc.lo:]
			lt, rt := acc[v][tc.lOff+tc.lo:], acc[v][tc.rOff+tc.lo:]
			if v == 0 {
				gridBlocksGo(&k, x, wb, lt, rt, cnt, &lanes[v])
			} else {
				gridBlocks(&k, x, wb, lt, rt, cnt, &lanes[v])
			}
		}
		if lanes[0] != lanes[1] {
			t.Errorf("n=%d: lanes %v (Go) and %v (AVX2)", tc.n, lanes[0], lanes[1])
		}
		for i := range acc[0] {
			if math.Float64bits(acc[0][i]) != math.Float64bits(acc[1][i]) {
				t.Fatalf("n=%d: accumulation %d: %v (Go) and %v (AVX2)", tc.n, i, acc[0][i], acc[1][i])
			}
		}
	}
}

// TestGridLogCell checks gridLogCell's ln x = u + e·ln 2 against math.Log
// at 10⁵ points from 1e-300 to 1e300, at powers of two and at √2 and its
// neighbours (the reduction's edge). Both are within about an ulp of ln x,
// so they may differ by 4 ulp of max(|ln x|, ln 2), the sum's rounding
// included; the largest difference seen is 2 ulp. The series' remainder
// is 2e-19 against an ulp of 5.6e-17 at the edge; two terms short (q from
// 2/17) it is 3e-16, which fails here (checked by editing the series), while
// one term short (8e-18, 0.15 ulp) cannot be told from rounding.
func TestGridLogCell(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	xs := []float64{1, 2, 0.5, math.Sqrt2, math.Nextafter(math.Sqrt2, 2), math.Nextafter(math.Sqrt2, 0), math.Sqrt2 / 2, 1e-300, 0x1p-1000, 0x1p1000}
	for range 100_000 {
		xs = append(xs, math.Pow(10, 600*rng.Float64()-300))
	}
	worst := 0.0
	for _, x := range xs {
		u, e := gridLogCell(x)
		got := u + e*math.Ln2
		want := math.Log(x)
		ulp := math.Nextafter(max(math.Abs(want), math.Ln2), math.Inf(1)) - max(math.Abs(want), math.Ln2)
		if r := math.Abs(got-want) / ulp; r > worst {
			worst = r
		}
		if math.Abs(got-want) > 4*ulp {
			t.Errorf("ln %v: %v, math.Log %v", x, got, want)
		}
		// u alone is ln m, m = x/2^e in [√2/2, √2).
		if lm := math.Log(math.Ldexp(x, -int(e))); math.Abs(u-lm) > 2*math.Abs(lm)*0x1p-52+0x1p-60 {
			t.Errorf("ln m at %v: %v, math.Log %v", x, u, lm)
		}
	}
	t.Logf("largest difference from math.Log: %.2f ulp", worst)
}

// TestULEPairGridChosen checks that the route takes the grid form when
// most cells are occupied and the sparse one otherwise, that the two give
// the same iterates to rounding over 40 iterations.
func TestULEPairGridChosen(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	mechs := uletest.Mechs(t, 0.5, 0.5, 0.5)
	mats := uleMatrices(t, mechs, 128, 64)
	for _, tc := range []struct {
		n    int
		grid bool
	}{{200, false}, {30000, true}} {
		v := uletest.BetaInputs(tc.n, 2, 5, rng)
		reps := uletest.Reports(t, v, mechs, rng)
		d := uleDedup(t, mats, reps)
		e := newULEFast(d, 2, "")
		if !e.pairMode || (e.grid != nil) != tc.grid {
			t.Fatalf("n=%d: pair %v, grid %v, want grid %v", tc.n, e.pairMode, e.grid != nil, tc.grid)
		}
		if e.grid != nil {
			for si := range e.slots {
				if b := e.bounds[si]; sortSearch32(d.groups, int32(b)) == len(d.groups) || int(d.groups[sortSearch32(d.groups, int32(b))]) != b {
					t.Fatalf("slot %d starts at %d, inside a group", si, b)
				}
			}
		}
		opt := Options{MaxIter: 40, Converged: true, LLTol: 1e-300, ThetaTol: 1e-300}
		opt.kernel = "pair"
		sp, si := uleLinked(t, reps, mats, opt)
		opt.kernel = "pairgrid"
		gr, gi := uleLinked(t, reps, mats, opt)
		if d := maxAbsDiff(sp, gr); d > 1e-12 {
			t.Errorf("n=%d: max |sparse − grid| = %g", tc.n, d)
		}
		if math.Abs(si.LL-gi.LL) > 1e-12*math.Abs(si.LL) {
			t.Errorf("n=%d: LL sparse %v grid %v", tc.n, si.LL, gi.LL)
		}
	}
}

// TestULEPairGridWorkers checks that the grid form gives the same bits with
// 1, 2 and 5 workers: its slots (at least 8 here, checked) are fixed by
// the data.
func TestULEPairGridWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	mechs := uletest.Mechs(t, 0.1, 0.1, 0.1)
	mats := uleMatrices(t, mechs, testBins, testBins)
	reps := uletest.Reports(t, uletest.BetaInputs(200_000, 2, 5, rng), mechs, rng)
	if ns := uleSlotsFor(len(uleDedup(t, mats, reps).count)); ns < 8 {
		t.Fatalf("%d slots: the test needs several", ns)
	}
	var first []float64
	for _, workers := range []int{1, 2, 5} {
		opt := Options{MaxIter: 20, Converged: true, LLTol: 1e-300, ThetaTol: 1e-300, Workers: workers, kernel: "pairgrid"}
		got, _ := uleLinked(t, reps, mats, opt)
		if first == nil {
			first = got
			continue
		}
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(first[i]) {
				t.Fatalf("bin %d: %v with 1 worker, %v with %d", i, first[i], got[i], workers)
			}
		}
	}
}
