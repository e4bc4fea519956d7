//go:build !unix

package harness

// lockFile is the hidden lock file of an output directory (lock_unix.go).
const lockFile = ".ldpbench.lock"

// lockDir is a no-op where flock is not available: two runs into one
// directory are not detected there.
func lockDir(string) (func(), error) { return func() {}, nil }
