//go:build unix

package harness

import "syscall"

// cpuTime is the process's user and system CPU time in seconds: the
// calibration's clock, which another process's load does not inflate.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
