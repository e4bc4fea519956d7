//go:build !unix

package harness

import "time"

var processStart = time.Now()

// cpuTime falls back to wall time where getrusage is not available.
func cpuTime() float64 { return time.Since(processStart).Seconds() }
