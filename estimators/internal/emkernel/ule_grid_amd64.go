//go:build amd64 && !purego

package emkernel

import "golang.org/x/sys/cpu"

// gridAVX2 reports whether gridBlocks runs the AVX2 assembly.
var gridAVX2 = cpu.X86.HasAVX2

// gridBlocksAVX2 is gridBlocksGo in AVX2 assembly (ule_grid_amd64.s); n
// is len(cnt), a positive multiple of 4, and every slice holds n entries
// (x: 7 arrays of them, gStride apart).
//
//go:noescape
func gridBlocksAVX2(k *gridCoef, x, wb, lt, rt *float64, cnt *float32, n int, lanes *[16]float64)

func gridBlocks(k *gridCoef, x, wb, lt, rt []float64, cnt []float32, lanes *[16]float64) {
	n := len(cnt)
	if !gridAVX2 {
		gridBlocksGo(k, x, wb, lt, rt, cnt, lanes)
		return
	}
	// The assembly does not check bounds: check them here.
	_ = x[gDB*gStride+n-1]
	_, _, _ = wb[n-1], lt[n-1], rt[n-1]
	gridBlocksAVX2(k, &x[0], &wb[0], &lt[0], &rt[0], &cnt[0], n, lanes)
}
