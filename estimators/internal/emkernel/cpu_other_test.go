//go:build !unix

package emkernel

import "math"

// processCPUSeconds is NaN where getrusage is not available.
func processCPUSeconds() float64 { return math.NaN() }
