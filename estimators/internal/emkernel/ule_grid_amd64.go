//go:build amd64 && !purego

package emkernel

import "golang.org/x/sys/cpu"

// gridAVX2 reports whether gridBlocks runs the AVX2 assembly (which uses
// FMA3 too).
var gridAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// gridBlocksAVX2 is gridBlocksGo in AVX2 and FMA3 assembly (ule_grid_amd64.s); n
// is len(cnt), a positive multiple of 4, and every slice holds n entries
// (x: 7 arrays of them, gStride apart).
//
//go:noescape
func gridBlocksAVX2(k *gridCoef, x, wb, lt, rt *float64, cnt *float32, n, nbits int, lanes *gridLanes, flags int)

// gridAVX512 reports whether gridBlocks runs the AVX-512 assembly on
// whole blocks of eight cells (a variable: the tests switch it off to
// check the AVX2 assembly alone).
var gridAVX512 = gridAVX2 && cpu.X86.HasAVX512F

// gridBlocksAVX512 is gridBlocksAVX2 eight cells at a time
// (ule_grid_amd64.s), with the same bits; n is a positive multiple of 8.
//
//go:noescape
func gridBlocksAVX512(k *gridCoef, x, wb, lt, rt *float64, cnt *float32, n, nbits int, lanes *gridLanes, flags int)

func gridBlocks(k *gridCoef, x, wb, lt, rt []float64, cnt []float32, nbits int, lanes *gridLanes) {
	n := len(cnt)
	if !gridAVX2 {
		gridBlocksGo(k, x, wb, lt, rt, cnt, nbits, lanes)
		return
	}
	// The assembly does not check bounds: check them here.
	_ = x[gDB*gStride+n-1]
	_, _, _ = wb[n-1], lt[n-1], rt[n-1]
	f := k.flags()
	i := 0
	if n8 := n &^ 7; gridAVX512 && n8 > 0 {
		gridBlocksAVX512(k, &x[0], &wb[0], &lt[0], &rt[0], &cnt[0], n8, nbits, lanes, f)
		i = n8
	}
	if i < n {
		gridBlocksAVX2(k, &x[i], &wb[i], &lt[i], &rt[i], &cnt[i], n-i, nbits, lanes, f)
	}
}
