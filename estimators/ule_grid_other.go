//go:build !amd64 || purego

package estimators

// gridAVX2 reports whether gridBlocks runs the AVX2 assembly (never here).
const gridAVX2 = false

func gridBlocks(k *gridCoef, x, wb, lt, rt, dr, cnt []float64, lanes *[8]float64) {
	gridBlocksGo(k, x, wb, lt, rt, dr, cnt, lanes)
}

func gridLLBlocks(d, n []float64, lanes *[8]float64) {
	gridLLBlocksGo(d, n, lanes)
}
