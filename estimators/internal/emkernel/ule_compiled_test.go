package emkernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ldpbench/ldpbench/estimators/internal/uletest"
)

// TestULECompiledManySlots runs the compiled kernel (merged zone programs,
// zone programs alone, and explicit programs alone) on m = 12 services ([SR, PM, SW] four times: 16
// SR combinations, each slot's vectors in a few of them) with enough
// distinct vectors for several slots, against the dense route, and with
// 1, 2 and 3 workers. It fails if a slot accumulates into or clears the
// wrong combinations' part of the zone table or of Δ_c (the slots' parts
// are disjoint windows by combination), if an entry's index into the
// combination's table [Λ_c | θ·L_c | q | U] is off (a breakpoint read as
// an explicit bin, or a zone sum of the wrong combination), if −Δ_c is
// added instead of subtracted, or if a merged program's U (q ∓ δ·Λ_c at
// the row's edge) or the fold of its weight (into the zone weights and
// ±δ·W into Δ_c at the edge) has a wrong sign, edge or term; and it checks
// the results do not depend on the number of workers (bits).
func TestULECompiledManySlots(t *testing.T) {
	// The dense route's rows are K·bins entries; 256 output buckets keep
	// the zone table (16 combinations × 8 services × 256 rows × 2) within
	// uleZoneSmall, so these 40,000 users take zone programs (56 %).
	const bins, buckets = 128, 256
	rng := rand.New(rand.NewPCG(21, 22))
	eps := slices.Repeat([]float64{0.8}, 12)
	mechs := uletest.Mechs(t, eps...)
	mats := uleMatrices(t, mechs, bins, buckets)
	reps := uletest.Reports(t, uletest.BetaInputs(40_000, 2, 5, rng), mechs, rng)
	d := uleDedup(t, mats, reps)
	e := newULEFast(d, 1, "")
	if e.zones == nil || e.prog == nil || e.prog.zoned < len(d.count)/2 || e.prog.merged < e.prog.zoned/2 || e.prog.merged == e.prog.zoned {
		t.Fatalf("zones %v prog %v: the test needs zone programs, most of them merged, and some not", e.zones != nil, e.prog != nil)
	}
	spans := 0
	for _, s := range e.slots {
		if s.c1-s.c0 > 1 {
			spans++
		}
	}
	if len(e.slots) < 4 || spans == 0 || e.slots[0].c0 == e.slots[len(e.slots)-1].c0 {
		t.Fatalf("%d slots, %d spanning several combinations: the test needs several of both", len(e.slots), spans)
	}
	t.Logf("K=%d, %d slots (%d spanning several combinations), %d zone programs, %d of them merged", len(d.count), len(e.slots), spans, e.prog.zoned, e.prog.merged)
	opt := Options{MaxIter: 25, Converged: true, LLTol: 1e-300, ThetaTol: 1e-300}
	dense, di := uleLinked(t, reps, mats, Options{MaxIter: opt.MaxIter, Converged: true, LLTol: opt.LLTol, ThetaTol: opt.ThetaTol, Dense: true})
	for _, kernel := range []string{"", "zoned", "explicit"} {
		var first []float64
		var firstLL float64
		for _, workers := range []int{1, 2, 3} {
			o := opt
			o.kernel, o.Workers = kernel, workers
			got, gi := uleLinked(t, reps, mats, o)
			if first == nil {
				first, firstLL = got, gi.LL
				if dd := maxAbsDiff(got, dense); dd > 1e-9 {
					t.Errorf("kernel %q: max |fast - dense| = %g", kernel, dd)
				}
				if math.Abs(gi.LL-di.LL) > 1e-9*math.Abs(di.LL) {
					t.Errorf("kernel %q: LL fast %v dense %v", kernel, gi.LL, di.LL)
				}
				continue
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(first[i]) {
					t.Fatalf("kernel %q bin %d: %v with 1 worker, %v with %d", kernel, i, first[i], got[i], workers)
				}
			}
			if math.Float64bits(gi.LL) != math.Float64bits(firstLL) {
				t.Errorf("kernel %q: LL %v with 1 worker, %v with %d", kernel, firstLL, gi.LL, workers)
			}
		}
	}
}
