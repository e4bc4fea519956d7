//go:build unix

package emkernel

import (
	"math"
	"syscall"
)

// processCPUSeconds returns the process's user and system CPU time (the
// benchmarks report it beside wall time, which a shared machine inflates).
func processCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
