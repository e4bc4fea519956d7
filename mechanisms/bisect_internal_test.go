package mechanisms

import (
	"math"
	"math/rand/v2"
	"testing"
)

func prevFloat(x float64) float64 { return math.Nextafter(x, math.Inf(-1)) }
func nextFloat(x float64) float64 { return math.Nextafter(x, math.Inf(1)) }

// TestBisectAdjacent checks the ends bisectAdjacent returns to the bit, so
// that an end one ulp off (a "<" read as "≤") or the predicate's
// orientation reversed (the ends then run to the far side of the bracket)
// fails; that below is called only strictly inside the bracket; and that
// the loop is short.
func TestBisectAdjacent(t *testing.T) {
	less := func(c float64) func(float64) bool { return func(x float64) bool { return x < c } }
	lessEq := func(c float64) func(float64) bool { return func(x float64) bool { return x <= c } }
	cases := []struct {
		name           string
		lo, hi         float64
		below          func(float64) bool
		wantLo, wantHi float64
	}{
		{"x < 1.5 on [1, 2]", 1, 2, less(1.5), prevFloat(1.5), 1.5},
		{"x ≤ 1.5 on [1, 2]", 1, 2, lessEq(1.5), 1.5, nextFloat(1.5)},
		{"x < 1.25 off the first midpoint", 1, 2, less(1.25), prevFloat(1.25), 1.25},
		{"decreasing g = 1.5 - x, below = g > 0", 1, 2, func(x float64) bool { return 1.5-x > 0 }, prevFloat(1.5), 1.5},
		{"reversed: true on hi's side runs to lo", 1, 2, func(x float64) bool { return x > 1.5 }, 1, nextFloat(1)},
		{"x² < 2: √2 rounded up", 1, 2, func(x float64) bool { return x*x < 2 }, prevFloat(math.Sqrt2), math.Sqrt2},
		{"always below", 1, 2, func(float64) bool { return true }, prevFloat(2), 2},
		{"never below", 1, 2, func(float64) bool { return false }, 1, nextFloat(1)},
		{"across a binade: x < 1", 0.75, 1.5, less(1), 1 - 0x1p-53, 1},
		{"across a binade: x ≤ 1", 0.75, 1.5, lessEq(1), 1, 1 + 0x1p-52},
		{"negative: x < -3", -8, -2, less(-3), prevFloat(-3), -3},
		{"across 0: x < 0", -1, 1, less(0), -0x1p-1074, 0},
		{"across 0: x ≤ 0", -1, 1, lessEq(0), 0, 0x1p-1074},
		{"down to the subnormals: never below", 0, 1, func(float64) bool { return false }, 0, 0x1p-1074},
		{"subnormal point", 0, 1e-310, less(5e-320), prevFloat(5e-320), 5e-320},
		{"large magnitudes", 1e300, 1e308, less(1e305), prevFloat(1e305), 1e305},
		{"already adjacent", 1, nextFloat(1), func(float64) bool { panic("called") }, 1, nextFloat(1)},
	}
	for _, c := range cases {
		calls := 0
		lo, hi := bisectAdjacent(c.lo, c.hi, func(x float64) bool {
			calls++
			if !(x > c.lo && x < c.hi) {
				t.Errorf("%s: below called at %v, outside (%v, %v)", c.name, x, c.lo, c.hi)
			}
			return c.below(x)
		})
		if math.Float64bits(lo) != math.Float64bits(c.wantLo) || math.Float64bits(hi) != math.Float64bits(c.wantHi) {
			t.Errorf("%s: got [%v, %v], want [%v, %v]", c.name, lo, hi, c.wantLo, c.wantHi)
		}
		if calls > 1080 {
			t.Errorf("%s: %d calls of below", c.name, calls)
		}
	}
}

// TestBisectAdjacentRandom: on random brackets of every magnitude and sign
// and a random point c inside, the ends are the floats on either side of
// c, in particular adjacent (the midpoint never leaves the bracket early).
func TestBisectAdjacentRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 10))
	for i := range 20000 {
		// Ends as random bit patterns of finite floats (half of them
		// negative), so that binades and subnormals are all represented,
		// with hi - lo finite.
		a := math.Float64frombits(rng.Uint64() & (1<<63 - 1) % 0x7fe0000000000000)
		b := math.Float64frombits(rng.Uint64() & (1<<63 - 1) % 0x7fe0000000000000)
		if i%2 == 0 {
			a = -a
		}
		if i%3 == 0 {
			b = -b
		}
		lo, hi := min(a, b), max(a, b)
		if !(nextFloat(lo) < hi) {
			continue
		}
		// c strictly inside: a random float between lo and hi by bits.
		c := lo
		for !(c > lo && c < hi) {
			c = lo + (hi-lo)*rng.Float64()
		}
		gotLo, gotHi := bisectAdjacent(lo, hi, func(x float64) bool { return x < c })
		if gotLo != prevFloat(c) || gotHi != c {
			t.Fatalf("[%v, %v], x < %v: got [%v, %v]", lo, hi, c, gotLo, gotHi)
		}
	}
}
