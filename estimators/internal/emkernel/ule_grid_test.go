package emkernel

import (
	"fmt"
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
// lane sums, the log-likelihood's products, exponents and range flags
// included, counts of 5 bits), with the left and right accumulations
// distinct and both junk (skipped), with cA = 0 (the wide case) and cB = 0
// (n = 1020; their terms skipped), and with D from 1e-120 to 1 (the range
// the pair kernel's D can take: rows scaled to at most 1, every entry
// above 1e-40; the products then leave their range). The assembly's lanes
// hold junk sums beforehand, which a run must not go on from.
func TestGridBlocksAVX2MatchesGo(t *testing.T) {
	if !gridAVX2 {
		t.Skip("no AVX2 on this CPU: gridBlocks runs gridBlocksGo, which the route tests cover")
	}
	// With AVX-512, once with it (blocks of eight, then four) and once with
	// the AVX2 assembly alone.
	defer func(v bool) { gridAVX512 = v }(gridAVX512)
	for _, avx512 := range []bool{gridAVX512, false} {
		gridAVX512 = avx512
		t.Run(fmt.Sprintf("avx512=%v", avx512), testGridBlocksAsmMatchesGo)
		if !avx512 {
			break
		}
	}
}

func testGridBlocksAsmMatchesGo(t *testing.T) {
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
		{1021, 2, gLB * gStride, gUB * gStride, false}, // the last blocks of 5 and 1 cells
		{7, 5, gWL * gStride, gRB * gStride, false},
		{1, 9, gUA * gStride, gJunk * gStride, false},
	} {
		in, cnt := gridTestInputs(rng, tc.n, tc.wide)
		k := gridCoef{c1: rng.Float64(), c2: rng.Float64(), beta2: rng.Float64(), p2l: rng.Float64(), p2r: rng.Float64(),
			cA: 0.001 * rng.Float64(), cB: rng.Float64(), delta2: rng.Float64() - 0.5, lOff: tc.lOff, rOff: tc.rOff}
		if tc.wide {
			k.c1, k.c2, k.beta2, k.p2l, k.p2r, k.cA, k.cB = 1, 1e-300, 1e-300, 1e-300, 1e-300, 0, 1e-300
		}
		if tc.n == 1020 {
			k.cB = 0 // a run without the term at b3 (gridUseDB clear)
		}
		var acc [2][]float64
		// The products go on from earlier runs' (their exponents too);
		// the run's sums start from zero, whatever the lanes held.
		lanes := [2]gridLanes{newGridLanes(), newGridLanes()}
		for v := range lanes {
			lanes[v].p = [4]float64{1, 1.25, 1.5, 1.999}
			lanes[v].e = [4]uint64{5000, 5001, 5002, 5003}
		}
		lanes[1].sb, lanes[1].sd, lanes[1].bad = [4]float64{1, 2, 3, 4}, [4]float64{5, 6, 7, 8}, [4]uint64{1, 1, 1, 1}
		for v := range 2 {
			acc[v] = make([]float64, gAcc*gStride)
			for i := range acc[v] {
				acc[v][i] = float64(i % 7)
			}
			x, wb := in[tc.lo:], acc[v][gWB*gStride+tc.lo:]
			lt, rt := acc[v][tc.lOff+tc.lo:], acc[v][tc.rOff+tc.lo:]
			if v == 0 {
				gridBlocksGo(&k, x, wb, lt, rt, cnt, 5, &lanes[v])
			} else {
				gridBlocks(&k, x, wb, lt, rt, cnt, 5, &lanes[v])
			}
		}
		if lanes[0] != lanes[1] {
			t.Errorf("n=%d: lanes %+v (Go) and %+v (AVX2)", tc.n, lanes[0], lanes[1])
		}
		if tc.wide && lanes[0].bad == [4]uint64{} {
			t.Errorf("n=%d: D down to 1e-120 and counts to 29 left no product out of range", tc.n)
		}
		for i := range acc[0] {
			if math.Float64bits(acc[0][i]) != math.Float64bits(acc[1][i]) {
				t.Fatalf("n=%d: accumulation %d: %v (Go) and %v (AVX2)", tc.n, i, acc[0][i], acc[1][i])
			}
		}
	}
}

// TestGridKernelLogLik checks the log-likelihood of gridKernel (the
// products of gridBlocks, the tail and the fallback) against Σ n·ln D with
// math.Log per cell, D from gridD. Each product's multiplication and each
// squaring rounds by at most 2^-53 relative, (2·nbits+1) of them per cell,
// each math.Log by half an ulp of |ln D|, and each addition to a running
// sum (the reference's, and the kernel's, whose sum is within the same
// bound) by half an ulp of it; the bound below is their sum,
// so no rounding fails the test, while any slip in the bookkeeping does: a
// block too many or few in the exponents' bias moves the sum by 1023·ln 2,
// a count's bit dropped by ln D ≤ −0.01, a lost tail cell likewise.
// Lengths 4k + 0…3 exercise the tail; the wide inputs (D down to 1e-120)
// force the fallback, which must give the same sum.
func TestGridKernelLogLik(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, tc := range []struct {
		n, lo int
		wide  bool
	}{{4, 0, false}, {1025, 3, false}, {2050, 7, false}, {3, 0, false}, {1027, 1, true}} {
		in, cnt := gridTestInputs(rng, tc.n, tc.wide)
		k := gridCoef{c1: rng.Float64(), c2: rng.Float64(), beta2: rng.Float64(), p2l: rng.Float64(), p2r: rng.Float64(),
			cA: 0.001 * rng.Float64(), cB: rng.Float64(), delta2: rng.Float64() - 0.5, lOff: gWL * gStride, rOff: gWR * gStride}
		if tc.wide {
			k.c1, k.c2, k.beta2, k.p2l, k.p2r, k.cA, k.cB = 1, 1e-300, 1e-300, 1e-300, 1e-300, 0, 1e-300
		}
		// Scale D below 1, as the pair kernel's is (rows scaled to at most 1).
		for i := range gStride * gIn {
			in[i] *= 0.1
		}
		ac := make([]float64, gAcc*gStride)
		lanes := newGridLanes()
		_, _, slow := gridKernel(&k, in, ac, cnt, tc.lo, 5, &lanes)
		got := slow + lanes.logSum()
		var want, bound float64
		for i, c := range cnt {
			if c == 0 {
				continue
			}
			D, _, _ := gridD(&k, in, tc.lo+i)
			v := float64(c) * math.Log(D)
			want += v
			bound += 11*0x1p-53 + math.Abs(v)*0x1p-52 + 2*math.Abs(want)*0x1p-53
		}
		if math.Abs(got-want) > bound {
			t.Errorf("n=%d wide=%v: LL %v, Σ n·ln D %v (differ by %g, bound %g)", tc.n, tc.wide, got, want, got-want, bound)
		}
	}

	// A block whose first factor falls below the normal range (D³ ≈
	// 2^-1049, losing 27 of its 53 bits) and whose second lifts the
	// product back into range (D³ ≈ 2^94.2): only the check of the second
	// factor (gridFHi) sends it to the fallback, without which the sum is
	// off by 7e-9.
	in := make([]float64, gIn*gStride)
	cnt := []float32{3, 0, 0, 0, 3, 0, 0, 0}
	in[0], in[4] = math.Ldexp(4.0/3, -350), math.Ldexp(4.0/3, 31)
	for i := 1; i < 4; i++ {
		in[i], in[i+4] = 0.5, 0.5
	}
	k := gridCoef{c1: 1, lOff: gJunk * gStride, rOff: gJunk * gStride}
	lanes := newGridLanes()
	_, _, slow := gridKernel(&k, in, make([]float64, gAcc*gStride), cnt, 0, 2, &lanes)
	got := slow + lanes.logSum()
	want := 3*math.Log(in[0]) + 3*math.Log(in[4])
	if math.Abs(got-want) > 1e-12 || slow == 0 {
		t.Errorf("hidden underflow: LL %v (fallback %v), Σ n·ln D %v (differ by %g)", got, slow, want, got-want)
	}
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
