//go:build !race

package estimators

import "testing"

// skipUnderRace: see race_test.go; without -race it runs every test.
func skipUnderRace(*testing.T, string) {}
