//go:build !race

package emkernel

import "testing"

// skipUnderRace: see race_test.go; without -race it runs every test.
func skipUnderRace(*testing.T, string) {}
