//go:build amd64 && !purego

package emkernel

import "golang.org/x/sys/cpu"

// gridAVX2 reports whether gridBlocks runs the AVX2 assembly (which uses
// FMA3 too).
var gridAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// gridBlocksAVX2 is gridBlocksGo in AVX2 and FMA3 assembly (ule_grid_amd64.s); n
// is len(cnt), a positive multiple of 8, and every slice holds n entries
// (x: 7 arrays of them, gStride apart).
//
//go:noescape
func gridBlocksAVX2(k *gridCoef, x, wb, lt, rt *float64, cnt *float32, n, nbits int, lanes *gridLanes, flags int)

// gridAVX512 reports whether gridBlocks runs the AVX-512 assembly (a
// variable: the tests switch it off to check the AVX2 assembly alone).
var gridAVX512 = gridAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

// gridBlocksAVX512 is gridBlocksGo eight cells at a time
// (ule_grid_amd64.s), with the same bits; n is positive. It reads the
// coefficients from k's scalars (broadcast), not k.vec.
//
//go:noescape
func gridBlocksAVX512(k *gridCoef, x, wb, lt, rt *float64, cnt *float32, n, nbits int, lanes *gridLanes, flags int)

func gridBlocks(k *gridCoef, x, wb, lt, rt []float64, cnt []float32, nbits int, lanes *gridLanes) {
	n := len(cnt)
	if n == 0 {
		return
	}
	if !gridAVX2 {
		lanes.startRun()
		gridBlocksGo(k, x, wb, lt, rt, cnt, nbits, lanes)
		return
	}
	// The assembly does not check bounds: check them here (AVX-512 reads
	// the inputs and accumulations of up to 7 cells past n and masks
	// them out).
	n8 := (n + 7) &^ 7
	_ = x[gDB*gStride+n8-1]
	_, _, _ = wb[n8-1], lt[n8-1], rt[n8-1]
	f := k.flags()
	if gridAVX512 {
		gridBlocksAVX512(k, &x[0], &wb[0], &lt[0], &rt[0], &cnt[0], n, nbits, lanes, f)
		return
	}
	full := n &^ 7 // whole blocks of eight
	if full > 0 {
		k.fillVec()
		gridBlocksAVX2(k, &x[0], &wb[0], &lt[0], &rt[0], &cnt[0], full, nbits, lanes, f)
	} else {
		lanes.startRun()
	}
	// gridBlocksGo's lanes are i mod 4 and its blocks eight cells, so the
	// cells past full go on in them.
	gridBlocksGo(k, x[full:], wb[full:], lt[full:], rt[full:], cnt[full:], nbits, lanes)
}
