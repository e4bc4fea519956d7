//go:build race

package emkernel

import "testing"

// skipUnderRace skips t under make race (go test -race -short): t is a
// numerical check whose work the race detector slows 10 to 30 times (cost:
// t's time there), and the concurrent paths it runs are raced by
// TestULECompiledManySlots and TestULEPairGridWorkers. make check and make
// test run it.
func skipUnderRace(t *testing.T, cost string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("numerical check, %s under -race: make race skips it (make check and make test run it)", cost)
	}
}
