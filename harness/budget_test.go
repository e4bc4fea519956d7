package harness

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ldpbench/ldpbench/experiment"
)

// Budget on the toy spec: the counts are the plan's, a cell's estimate
// scales with its cost (n) within its group, the wall time on one machine
// is the CPU time over its cores, shards fall between a perfect split and
// one machine, and the
// shard count for a deadline is the smallest that meets it. Catches an
// estimate that ignores n (the n = 4000 cells would cost what the n = 500
// ones do), a wall time that forgets the cores, and a ShardsFor off by one.
func TestBudget(t *testing.T) {
	s := writeShardSpec(t, shardSpecTOML)
	r, err := Budget(context.Background(), testKinds, s, BudgetOptions{Quick: true, CalibrationTime: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Cells != 24 || r.Trials != 3 || len(r.PerCell) != 24 || r.Groups != 8 || r.Calibrated != 8 {
		t.Fatalf("quick budget: %d cells × %d trials, %d groups (%d calibrated); want 24 × 3, 8 of 8", r.Cells, r.Trials, r.Groups, r.Calibrated)
	}
	r, err = Budget(context.Background(), testKinds, s, BudgetOptions{CalibrationTime: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Cells != 48 || r.Trials != 5 || r.Groups != 16 {
		t.Fatalf("full budget: %d cells × %d trials in %d groups, want 48 × 5 in 16 (n = 500 and 4000 timed apart)", r.Cells, r.Trials, r.Groups)
	}
	// Calibrated at n ≤ 500 without a cost model: the n = 4000 cells are
	// scaled from their n = 500 twins by 8^b, b measured within [0, 2].
	r, err = Budget(context.Background(), testKinds, s, BudgetOptions{CalibrationTime: 5 * time.Second, CalibrationN: 500})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range r.PerCell {
		if strings.Contains(c.Key, "n=500;") {
			if q := r.PerCell[i+12].CPUSeconds / c.CPUSeconds; !(q >= 1-1e-9 && q <= 64*(1+1e-9)) {
				t.Fatalf("%s: its n = 4000 twin costs %g times as much; want 8^b, b in [0, 2]", c.Key, q)
			}
		}
	}
	// With the kind's cost model (costKind: n, × 1000 for uniform): the
	// n = 4000 cells are scaled from their n = 500 twins by exactly 8.
	r, err = Budget(context.Background(), experiment.Registry{costKind{}}, s, BudgetOptions{CalibrationTime: 5 * time.Second, CalibrationN: 500})
	if err != nil {
		t.Fatal(err)
	}
	// Plan order: dataset, n, method, eps, scale; the n = 4000 twin of a
	// cell is 12 cells after it.
	var sum float64
	for i, c := range r.PerCell {
		sum += c.CPUSeconds
		if strings.Contains(c.Key, "n=500;") {
			twin := r.PerCell[i+12]
			if !strings.Contains(twin.Key, "n=4000;") || math.Abs(twin.CPUSeconds/c.CPUSeconds-8) > 1e-9 {
				t.Fatalf("%s: %g CPU-s, its n = 4000 twin %s: %g; want 8 times", c.Key, c.CPUSeconds, twin.Key, twin.CPUSeconds)
			}
		}
	}
	if math.Abs(sum-r.CPUSeconds) > 1e-9*sum || r.CPUSeconds <= 0 {
		t.Fatalf("total %g, sum of cells %g", r.CPUSeconds, sum)
	}
	if w := r.Wall(1); w < r.CPUSeconds/2*(1-1e-12) {
		t.Errorf("wall on one 2-core machine %g < CPU/2 = %g", w, r.CPUSeconds/2)
	}
	// LPT's makespan is not monotone in the shard count (Graham's
	// anomalies), but it never beats a perfect split nor loses to one
	// machine.
	for n := 2; n <= 10; n++ {
		if w := r.Wall(n); w > r.Wall(1)*(1+1e-12) || w < r.CPUSeconds/float64(2*n)*(1-1e-12) {
			t.Errorf("%d shards: %g, outside [CPU/(2·%d), Wall(1)] = [%g, %g]", n, w, n, r.CPUSeconds/float64(2*n), r.Wall(1))
		}
	}
	target := r.Wall(3) * (1 + 1e-9)
	if n := r.ShardsFor(target, 64); n > 3 || r.Wall(n) > target || (n > 1 && r.Wall(n-1) <= target) {
		t.Errorf("ShardsFor(Wall(3)) = %d", n)
	}
}
