//go:build !amd64 || purego

package emkernel

// gridAVX2 reports whether gridBlocks runs the AVX2 assembly (never here).
const gridAVX2 = false

// gridAVX512 reports whether gridBlocks runs the AVX-512 assembly (never
// here; a variable, as the tests set it).
var gridAVX512 = false

func gridBlocks(k *gridCoef, x, wb, lt, rt []float64, cnt []float32, nbits int, lanes *gridLanes) {
	lanes.startRun()
	gridBlocksGo(k, x, wb, lt, rt, cnt, nbits, lanes)
}
