package group

import (
	"math"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// TestCoinParts: half picks the high half for even users and the low half
// for odd ones; threshold splits θ·2^32 exactly; heads is r < t.
func TestCoinParts(t *testing.T) {
	ws := []uint64{0x0123456789abcdef, 0xfedcba9876543210}
	for i, want := range []uint64{0x01234567, 0x89abcdef, 0xfedcba98, 0x76543210} {
		if got := half(ws, i); got != want {
			t.Errorf("half(%d) = %#x, want %#x", i, got, want)
		}
	}
	for _, c := range []struct {
		theta float64
		t     uint64
		rem   float64
	}{
		{0, 0, 0}, {0.5, 1 << 31, 0}, {(1<<31 + 0.25) / (1 << 32), 1 << 31, 0.25},
		{math.Nextafter(1, 0), 1<<32 - 1, 1 - 0x1p-21}, {0x1p-40, 0, 0x1p-8},
	} {
		if tt, rem := threshold(c.theta); tt != c.t || rem != c.rem {
			t.Errorf("threshold(%v) = %d, %v; want %d, %v", c.theta, tt, rem, c.t, c.rem)
		}
	}
	for _, c := range []struct {
		r, t uint64
		want int
	}{{0, 0, 0}, {0, 1, 1}, {5, 5, 0}, {4, 5, 1}, {1<<32 - 1, 1<<32 - 1, 0}, {1<<32 - 2, 1<<32 - 1, 1}, {1<<32 - 1, 0, 0}} {
		if got := heads(c.r, c.t); got != c.want {
			t.Errorf("heads(%d, %d) = %d, want %d", c.r, c.t, got, c.want)
		}
	}
	if wordsFor(0) != 0 || wordsFor(1) != 1 || wordsFor(2) != 1 || wordsFor(63) != 32 || wordsFor(block) != block/2 {
		t.Error("wordsFor")
	}
}

// TestRoundTies: with words that make every coin a tie, the block counts
// every user at ⌊s⌋ and reports the tie; resolveRoundTies then moves each
// up with probability rem, which the fraction moved over 200,000 ties
// matches within z·SE (alpha 1e-6). A half one below the threshold is
// heads and one above is tails, with no tie. Catches a tie counted as
// heads, a resolution with θ instead of rem, and the wrong half read.
func TestRoundTies(t *testing.T) {
	nprr, _ := mechanisms.NewNPRR(1, 2)
	// v = -0.5 + δ: s = 0.5 + δ, θ·2^32 = 2^31 + δ·2^32.
	v := -0.5 + 0.3*0x1p-32
	f, theta := nprr.Cell(v)
	tt, rem := threshold(theta)
	if f != 0 || tt != 1<<31 || math.Abs(rem-0.3) > 1e-5 {
		t.Fatalf("cell %d, threshold %d, rem %v", f, tt, rem)
	}
	g := []int32{0, 1}
	vs := []float64{v, v}
	tieWord := []uint64{tt<<32 | tt}
	rng := newRNG(7)
	const trials = 100_000
	up := 0
	for range trials {
		hist := make([]int, 2*3)
		if !roundBlock(hist, g, vs, tieWord, 3, nprr) {
			t.Fatal("a tie not reported")
		}
		if hist[0] != 1 || hist[3] != 1 {
			t.Fatalf("ties not counted as tails: %v", hist)
		}
		resolveRoundTies(hist, g, vs, tieWord, 3, nprr, rng)
		if hist[0]+hist[1] != 1 || hist[3]+hist[4] != 1 || hist[2] != 0 || hist[5] != 0 {
			t.Fatalf("resolution lost a user: %v", hist)
		}
		up += hist[1] + hist[4]
	}
	n := 2.0 * trials
	if se := math.Sqrt(rem * (1 - rem) / n); math.Abs(float64(up)/n-rem) > zAlpha*se {
		t.Errorf("ties resolved up in %v of cases, want rem = %v (se %.3g)", float64(up)/n, rem, se)
	}
	hist := make([]int, 6)
	if roundBlock(hist, g, vs, []uint64{(tt-1)<<32 | (tt + 1)}, 3, nprr) || hist[1] != 1 || hist[3] != 1 {
		t.Errorf("r = T-1 must be heads and r = T+1 tails, no tie: %v", hist)
	}
}

// TestKeepTies: the same for Laplace's keep coin: a tie is first counted
// as not kept, and resolveKeepTies keeps it with probability rem, adding
// its value to the kept sum.
func TestKeepTies(t *testing.T) {
	a := 0.75 + 0.6*0x1p-32
	tt, rem := threshold(a)
	g := []int32{1, 0}
	v := []float64{0.5, -0.25}
	w := []uint64{tt<<32 | tt}
	rng := newRNG(8)
	const trials = 100_000
	keptN := 0
	for range trials {
		size, kept, sums := make([]int, 2), make([]int, 2), make([]float64, 2)
		if !keepBlock(size, kept, sums, g, v, w, tt) || kept[0]+kept[1] != 0 || size[0] != 1 || size[1] != 1 {
			t.Fatalf("tie: size %v kept %v", size, kept)
		}
		resolveKeepTies(kept, sums, g, v, w, tt, rem, rng)
		if sums[1] != 0.5*float64(kept[1]) || sums[0] != -0.25*float64(kept[0]) {
			t.Fatalf("kept %v, sums %v", kept, sums)
		}
		keptN += kept[0] + kept[1]
	}
	n := 2.0 * trials
	if se := math.Sqrt(rem * (1 - rem) / n); math.Abs(float64(keptN)/n-rem) > zAlpha*se {
		t.Errorf("ties kept in %v of cases, want rem = %v", float64(keptN)/n, rem)
	}
}
