package estimators_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/estimators"
)

// TestGroupCountsSums: n̂_g = (C_g − n·q)/(a − q) and ŝ_g = Sum_g/(a·c) on
// tallies worked out by hand, including a negative count estimate, which
// is kept as printed.
//
// Catches: dividing by a instead of a − q, subtracting q·(n − C_g) or
// nothing, dividing the sum by a alone or by c alone, a guard on n̂.
func TestGroupCountsSums(t *testing.T) {
	for _, tc := range []struct {
		name         string
		counts, sums []float64
		n            int
		a, q, c      float64
		wantN, wantS []float64
	}{
		{
			// d = 2 at ε1 = ln 3: a = 3/4, q = 1/4; n·q = 25, a − q = 1/2.
			name: "d=2", counts: []float64{70, 30}, sums: []float64{21, -4}, n: 100,
			a: 0.75, q: 0.25, c: 0.5,
			wantN: []float64{90, 10}, wantS: []float64{56, -4 / 0.375},
		},
		{
			// d = 4 at ε1 = ln 3: a = 1/2, q = 1/6; n·q = 100/6, a − q = 1/3:
			// group 3 is estimated at −20 users.
			name: "d=4", counts: []float64{40, 30, 20, 10}, sums: []float64{12, -6, 0, 3}, n: 100,
			a: 0.5, q: 1.0 / 6, c: 1,
			wantN: []float64{70, 40, 10, -20}, wantS: []float64{24, -12, 0, 6},
		},
	} {
		nHat := make([]float64, len(tc.counts))
		sHat := make([]float64, len(tc.sums))
		estimators.GroupCounts(nHat, tc.counts, tc.n, tc.a, tc.q)
		estimators.GroupSums(sHat, tc.sums, tc.a, tc.c)
		for g := range nHat {
			if math.Abs(nHat[g]-tc.wantN[g]) > 1e-12*100 {
				t.Errorf("%s: n̂_%d = %.15g, want %v", tc.name, g, nHat[g], tc.wantN[g])
			}
			if math.Abs(sHat[g]-tc.wantS[g]) > 1e-12*100 {
				t.Errorf("%s: ŝ_%d = %.15g, want %v", tc.name, g, sHat[g], tc.wantS[g])
			}
		}
	}
}

// TestGroupMean: the two modes on hand-worked cases.
//
// Catches: a guard in the as-printed mode (a negative or tiny n̂ must give
// an out-of-range mean, n̂ = 0 an infinite one: E2.13), a robust mode that
// does not floor n̂ at 1 or does not clip, the C_g = 0 rule missing (0/0 =
// NaN instead of the midpoint), and a back-transform with hi − lo for the
// midpoint or hi for the width.
func TestGroupMean(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		name              string
		count, nHat, sHat float64
		lo, hi            float64
		asPrinted, robust float64
	}{
		{"ordinary", 10, 20, 5, 0, 100, 62.5, 62.5},                 // 50·(5/20) + 50
		{"negative n̂", 3, -4, 6, -1, 1, -1.5, 1},                   // robust: 6/1 clipped to 1
		{"n̂ below one", 1, 0.5, 0.2, 0, 10, 7, 6},                  // 5·0.4 + 5; robust 5·0.2 + 5
		{"n̂ = 0, ŝ > 0", 5, 0, 3, 0, 10, inf, 10},                  // ±Inf as printed
		{"n̂ = 0, ŝ < 0", 5, 0, -3, 0, 10, -inf, 0},                 //
		{"below the range", 4, 10, -30, 0, 1, -1, 0},                // 0.5·(−3) + 0.5
		{"no report, n̂ = 0", 0, 0, 0, 18, 100, 59, 59},             // midpoint, not NaN
		{"no report, n̂ < 0", 0, -7.3, 0, 18, 100, 59, 59},          // midpoint
		{"no report, stray sum", 0, -7.3, 2, -50, 50, 0, 0},         // the rule, not the ratio
		{"shifted range", 50, 40, 10, 1000, 1010, 1006.25, 1006.25}, // 5·0.25 + 1005
	} {
		for _, m := range []struct {
			mode estimators.GroupMode
			want float64
		}{{estimators.GroupAsPrinted, tc.asPrinted}, {estimators.GroupRobust, tc.robust}} {
			got := estimators.GroupMean(tc.count, tc.nHat, tc.sHat, tc.lo, tc.hi, m.mode)
			if !(got == m.want || math.Abs(got-m.want) <= 1e-12*math.Abs(m.want)) {
				t.Errorf("%s, %v: mean %v, want %v", tc.name, m.mode, got, m.want)
			}
		}
	}
}

// TestGroupMeans: the batch form equals GroupMean group by group and
// allocates nothing; the three functions together allocate nothing.
//
// Catches: an index mix-up between the slices, a per-call allocation.
func TestGroupMeans(t *testing.T) {
	counts := []float64{0, 12, 30, 58}
	nHat := []float64{-3, 0.4, 25, 61}
	sHat := []float64{0, -2, 10, -70}
	dst := make([]float64, 4)
	for _, mode := range []estimators.GroupMode{estimators.GroupAsPrinted, estimators.GroupRobust} {
		estimators.GroupMeans(dst, counts, nHat, sHat, 0, 100, mode)
		for g := range dst {
			if want := estimators.GroupMean(counts[g], nHat[g], sHat[g], 0, 100, mode); dst[g] != want {
				t.Errorf("%v group %d: %v, GroupMean %v", mode, g, dst[g], want)
			}
		}
	}
	sums := []float64{0, -1, 8, -40}
	allocs := testing.AllocsPerRun(100, func() {
		estimators.GroupCounts(nHat, counts, 100, 0.6, 0.2)
		estimators.GroupSums(sHat, sums, 0.6, 0.8)
		estimators.GroupMeans(dst, counts, nHat, sHat, 0, 100, estimators.GroupRobust)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per aggregation, want 0", allocs)
	}
}

// TestGroupPanics: misuse panics with a message that names the argument.
//
// Catches: a silent zip of slices of different lengths (wrong group count
// from the tally), GRR constants swapped (q > a) or a range given upside
// down.
func TestGroupPanics(t *testing.T) {
	two, three := make([]float64, 2), make([]float64, 3)
	for _, tc := range []struct {
		name, want string
		f          func()
	}{
		{"counts length", "len(counts) = 3, len(dst) = 2", func() { estimators.GroupCounts(two, three, 10, 0.7, 0.3) }},
		{"a, q swapped", "a = 0.3, q = 0.7", func() { estimators.GroupCounts(two, two, 10, 0.3, 0.7) }},
		{"a = q", "need 0 ≤ q < a ≤ 1", func() { estimators.GroupCounts(two, two, 10, 0.5, 0.5) }},
		{"sums length", "len(sums) = 3", func() { estimators.GroupSums(two, three, 0.7, 1) }},
		{"c = 0", "c = 0", func() { estimators.GroupSums(two, two, 0.7, 0) }},
		{"a = 0", "a = 0", func() { estimators.GroupSums(two, two, 0, 1) }},
		{"nHat length", "len(nHat) = 3", func() { estimators.GroupMeans(two, two, three, two, 0, 1, estimators.GroupRobust) }},
		{"sHat length", "len(sHat) = 3", func() { estimators.GroupMeans(two, two, two, three, 0, 1, estimators.GroupRobust) }},
		{"range", "lo = 1, hi = 0", func() { estimators.GroupMeans(two, two, two, two, 1, 0, estimators.GroupRobust) }},
		{"infinite range", "lo = -Inf", func() { estimators.GroupMeans(two, two, two, two, math.Inf(-1), 0, estimators.GroupRobust) }},
		{"mode", "mode = GroupMode(7)", func() { estimators.GroupMeans(two, two, two, two, 0, 1, 7) }},
	} {
		msg := func() (msg string) {
			defer func() { msg = fmt.Sprint(recover()) }()
			tc.f()
			return "no panic"
		}()
		if !strings.Contains(msg, tc.want) {
			t.Errorf("%s: panic %q, want it to contain %q", tc.name, msg, tc.want)
		}
	}
}

// TestGroupModeNames: String and ParseGroupMode are inverse; an unknown
// name is an error naming it.
func TestGroupModeNames(t *testing.T) {
	for _, m := range []estimators.GroupMode{estimators.GroupAsPrinted, estimators.GroupRobust} {
		if got, err := estimators.ParseGroupMode(m.String()); err != nil || got != m {
			t.Errorf("ParseGroupMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := estimators.ParseGroupMode("clipped"); err == nil || !strings.Contains(err.Error(), `"clipped"`) {
		t.Errorf("unknown mode: error %v", err)
	}
}

// TestGroupTransforms: T maps [lo, hi] onto [−1, 1] with clipping (App. C),
// bit for bit as datasets.Fixed(lo, hi, true).Apply; the mean and sum
// back-transforms invert it.
//
// Catches: a missing clip (an out-of-range raw value would give a
// mechanism input outside [−1, 1]), a back-transform with the wrong
// midpoint or width, a sum back-transform without the n̂·(hi + lo)/2 term.
func TestGroupTransforms(t *testing.T) {
	for _, r := range [][2]float64{{0, 100}, {-50, 50}, {18, 100}, {1, 2.3}} {
		lo, hi := r[0], r[1]
		norm, err := datasets.Fixed(lo, hi, true)
		if err != nil {
			t.Fatal(err)
		}
		var raw, unit float64
		xs := []float64{lo - 7, lo, lo + 0.3*(hi-lo), (lo + hi) / 2, hi - 1e-9, hi, hi + 1}
		for _, x := range xs {
			u := estimators.GroupToUnit(x, lo, hi)
			if u != norm.Apply(x) {
				t.Errorf("[%v, %v]: T(%v) = %v, datasets %v", lo, hi, x, u, norm.Apply(x))
			}
			if u < -1 || u > 1 {
				t.Errorf("[%v, %v]: T(%v) = %v outside [−1, 1]", lo, hi, x, u)
			}
			xc := min(max(x, lo), hi)
			if back := estimators.GroupMeanFromUnit(u, lo, hi); math.Abs(back-xc) > 1e-12*(hi-lo) {
				t.Errorf("[%v, %v]: inverse of T(%v) = %v", lo, hi, xc, back)
			}
			raw += xc
			unit += u
		}
		if got := estimators.GroupSumFromUnit(unit, float64(len(xs)), lo, hi); math.Abs(got-raw) > 1e-12*float64(len(xs))*(hi-lo) {
			t.Errorf("[%v, %v]: sum back-transform %v, raw sum %v", lo, hi, got, raw)
		}
		for _, c := range []struct{ x, want float64 }{{lo, -1}, {hi, 1}, {(lo + hi) / 2, 0}, {lo - 1, -1}, {hi + 1, 1}} {
			if u := estimators.GroupToUnit(c.x, lo, hi); math.Abs(u-c.want) > 1e-15 {
				t.Errorf("[%v, %v]: T(%v) = %v, want %v", lo, hi, c.x, u, c.want)
			}
		}
	}
}

// TestGroupRangeInvariance (experiment E3, Section 5.2.3): the same data
// shape on [−1, 1], [0, 100] and [−50, 50], the same seed, gives the same
// scaled errors |m̂_g − m_g|/(hi − lo), with the truth on the raw data:
// each range's data are an affine image of the [−1, 1] data.
//
// Catches: a back-transform of the mean that is not the inverse of T (a
// width of hi instead of (hi − lo)/2, a midpoint of (hi − lo)/2), which
// shifts or scales the errors of one range only.
func TestGroupRangeInvariance(t *testing.T) {
	base := grpMakePopulation([]int{120, 80, 100}, []float64{-1, 0.2, -0.5}, []float64{0.5, 1, 0.1}, 11)
	value := grpLaplace(1.5)
	a, q := grpGRR(base.d, 1)
	var ref [][]float64
	for _, r := range [][2]float64{{-1, 1}, {0, 100}, {-50, 50}} {
		lo, hi := r[0], r[1]
		pop := grpPopulation{d: base.d, groups: base.groups, values: make([]float64, len(base.values))}
		truth := make([]float64, base.d)
		size := make([]float64, base.d)
		for i, v := range base.values {
			x := lo + (v+1)*(hi-lo)/2 // the raw value on [lo, hi]
			pop.values[i] = estimators.GroupToUnit(x, lo, hi)
			truth[base.groups[i]] += x
			size[base.groups[i]]++
		}
		runs := pop.simulateRange(a, q, value, 200, 12, lo, hi)
		errs := make([][]float64, base.d)
		for g := range base.d {
			for _, m := range runs.mean[g] {
				errs[g] = append(errs[g], math.Abs(m-truth[g]/size[g])/(hi-lo))
			}
		}
		if ref == nil {
			ref = errs
			continue
		}
		for g := range errs {
			for k := range errs[g] {
				if math.Abs(errs[g][k]-ref[g][k]) > 1e-12 {
					t.Fatalf("[%v, %v] group %d run %d: scaled error %.17g, on [−1, 1] %.17g", lo, hi, g, k, errs[g][k], ref[g][k])
				}
			}
		}
	}
}
