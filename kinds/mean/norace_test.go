//go:build !race

package mean

import "testing"

// skipUnderRace: see race_test.go; without -race it runs every test.
func skipUnderRace(*testing.T, string) {}
