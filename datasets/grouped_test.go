package datasets

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestGroupedSizesMeans: n_g and m_g of a hand-made dataset with two empty
// groups. Catches: D taken from the groups seen instead of Labels (sizes of
// length 3), an empty group's mean 0 or a division by zero instead of NaN,
// values attributed to the wrong group.
func TestGroupedSizesMeans(t *testing.T) {
	g := &Grouped{
		Groups: []int32{0, 2, 0, 2, 2},
		Values: []float64{1, 5, 3, 7, 9},
		D:      4,
		Labels: []string{"a", "b", "c", "d"},
		Lo:     0, Hi: 10,
	}
	if got, want := g.Sizes(), []int{2, 0, 3, 0}; !slices.Equal(got, want) {
		t.Errorf("Sizes = %v, want %v", got, want)
	}
	if g.Len() != 5 {
		t.Errorf("Len = %d, want 5", g.Len())
	}
	means := g.Means()
	want := []float64{2, math.NaN(), 7, math.NaN()}
	for k := range want {
		if math.IsNaN(want[k]) != math.IsNaN(means[k]) || (!math.IsNaN(want[k]) && means[k] != want[k]) {
			t.Errorf("Means[%d] = %v, want %v", k, means[k], want[k])
		}
	}
}

// TestGroupedMeansCompensated: the truth is a compensated sum, as every
// ground truth of the package. Catches a naive running sum, which gives 0
// for group 0 here.
func TestGroupedMeansCompensated(t *testing.T) {
	g := &Grouped{
		Groups: []int32{0, 1, 0, 0, 1, 0},
		Values: []float64{1e100, 3, 1, -1e100, 5, 1},
		D:      2,
		Labels: []string{"0", "1"},
		Lo:     -1e100, Hi: 1e100,
	}
	if got := g.Means(); got[0] != 0.5 || got[1] != 4 {
		t.Errorf("Means = %v, want [0.5 4]", got)
	}
}

// TestGroupedScaled: T(x) = 2(x − lo)/(hi − lo) − 1 after clipping x to
// [lo, hi] (App. C), exactly at the points where it is exact. Catches
// forgetting the clip (values beyond ±1), the map (x − lo)/(hi − lo) onto
// [0, 1], swapping lo and hi, and writing past Len().
func TestGroupedScaled(t *testing.T) {
	tests := []struct {
		name   string
		lo, hi float64
		values []float64
		want   []float64
	}{
		{"[-1,1] is the identity", -1, 1, []float64{-1, -0.25, 0, 0.5, 1}, []float64{-1, -0.25, 0, 0.5, 1}},
		{"[0,100]", 0, 100, []float64{0, 25, 50, 100}, []float64{-1, -0.5, 0, 1}},
		{"[0,100] clips", 0, 100, []float64{-5, 150, 100.5}, []float64{-1, 1, 1}},
		{"[-50,50]", -50, 50, []float64{-50, -25, 0, 50}, []float64{-1, -0.5, 0, 1}},
		{"ages [18,100]", 18, 100, []float64{18, 59, 100, 17, 101}, []float64{-1, 0, 1, -1, 1}},
	}
	for _, tt := range tests {
		g := &Grouped{Groups: make([]int32, len(tt.values)), Values: tt.values, D: 1, Labels: []string{"x"}, Lo: tt.lo, Hi: tt.hi}
		dst := make([]float64, len(tt.values)+2)
		dst[len(dst)-2], dst[len(dst)-1] = 42, 43
		g.Scaled(dst)
		if !slices.Equal(dst[:len(tt.values)], tt.want) {
			t.Errorf("%s: Scaled = %v, want %v", tt.name, dst[:len(tt.values)], tt.want)
		}
		if dst[len(dst)-2] != 42 || dst[len(dst)-1] != 43 {
			t.Errorf("%s: Scaled wrote past Len(): %v", tt.name, dst[len(tt.values):])
		}
	}
}

// TestGroupedScaledShortDst: a dst shorter than Len() is a programming
// error, reported at once rather than a silently partial scaling.
func TestGroupedScaledShortDst(t *testing.T) {
	g := &Grouped{Groups: []int32{0, 0}, Values: []float64{0, 1}, D: 1, Labels: []string{"x"}, Lo: 0, Hi: 1}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "dst has 1 elements, need 2") {
			t.Errorf("recover() = %v, want a panic naming the lengths", r)
		}
	}()
	g.Scaled(make([]float64, 1))
}

// TestGroupedScaledAllocs: Scaled is a batch API on the hot path of every
// trial; it writes into the caller's slice. Catches a scratch allocation.
func TestGroupedScaledAllocs(t *testing.T) {
	g := &Grouped{Groups: make([]int32, 1000), Values: make([]float64, 1000), D: 1, Labels: []string{"x"}, Lo: -3, Hi: 7}
	dst := make([]float64, 1000)
	if a := testing.AllocsPerRun(10, func() { g.Scaled(dst) }); a != 0 {
		t.Errorf("Scaled allocates %v times per call", a)
	}
}

// TestDatasetGrouped: the view shares the dataset's slices and refuses what
// would make the scaling disagree with the recorded normalisation or index
// out of range. Each case names the bug it catches.
func TestDatasetGrouped(t *testing.T) {
	fixed, _ := Fixed(0, 10, false)
	good := func() *Dataset {
		return &Dataset{Name: "d", Values: []float64{1, 2, 3}, Groups: []int32{0, 1, 1}, GroupLabels: []string{"a", "b"},
			Normalisation: fixed, Source: "src", Substitute: true}
	}
	d := good()
	g, err := d.Grouped(0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if g.D != 2 || g.Lo != 0 || g.Hi != 10 || g.Name != "d" || g.Source != "src" || !g.Substitute ||
		&g.Values[0] != &d.Values[0] || &g.Groups[0] != &d.Groups[0] || !slices.Equal(g.Labels, d.GroupLabels) {
		t.Errorf("view %+v does not carry the dataset", g)
	}

	tests := []struct {
		name   string
		edit   func(d *Dataset)
		lo, hi float64
		want   string
	}{
		// An ungrouped dataset has normalised values: a grouped view of
		// them would scale twice.
		{"no groups", func(d *Dataset) { d.Groups, d.GroupLabels = nil, nil }, 0, 10, `dataset "d" has no groups`},
		// The rows would record fixed[0,10] while the mechanisms saw
		// another scaling.
		{"other range", func(*Dataset) {}, 0, 100, "Grouped(lo=0, hi=100), but the dataset declares the fixed range [0, 10]"},
		{"empty range", func(d *Dataset) { d.Normalisation = Normalisation{} }, 5, 5, "range: need finite lo < hi"},
		{"group out of range", func(d *Dataset) { d.Groups[2] = 2 }, 0, 10, "user 2 has group 2, outside [0, 2)"},
		{"negative group", func(d *Dataset) { d.Groups[0] = -1 }, 0, 10, "user 0 has group -1"},
		{"lengths differ", func(d *Dataset) { d.Groups = d.Groups[:2] }, 0, 10, "2 groups for 3 values"},
		{"dims", func(d *Dataset) { d.Dims = 3 }, 0, 10, "one attribute, got dims = 3"},
	}
	for _, tt := range tests {
		d := good()
		tt.edit(d)
		if _, err := d.Grouped(tt.lo, tt.hi); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
}

// BenchmarkGroupedScaled scales 640,000 users (E1's d = 64); x-copy is the
// ratio to the floor, a plain copy of the values into dst (Scaled has no
// random draws: its floor is moving the data).
func BenchmarkGroupedScaled(b *testing.B) {
	g, err := SyntheticGrouped(ShapeNormal, EqualSizes(640000, 64), 0, 100, newRand(14))
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]float64, g.Len())
	for b.Loop() {
		g.Scaled(dst)
	}
	per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	var floors []float64
	for range 15 {
		start := time.Now()
		copy(dst, g.Values)
		floors = append(floors, float64(time.Since(start).Nanoseconds()))
	}
	slices.Sort(floors)
	b.ReportMetric(per/float64(g.Len()), "ns/user")
	b.ReportMetric(per/floors[len(floors)/2], "x-copy")
}

// TestUngrouped: a grouped dataset is refused by name by the kinds that
// read Values on [−1, 1] (their raw values would be taken as inputs: a
// MAGIC angle of 45 as a report input far outside [−1, 1]).
func TestUngrouped(t *testing.T) {
	if err := (&Dataset{Name: "plain"}).Ungrouped("mean"); err != nil {
		t.Errorf("ungrouped dataset refused: %v", err)
	}
	err := (&Dataset{Name: "magic", Groups: []int32{0, 1}, GroupLabels: []string{"g", "h"}}).Ungrouped("mean")
	if err == nil || !strings.Contains(err.Error(), "magic") || !strings.Contains(err.Error(), "kind mean") {
		t.Errorf("grouped dataset: error %v", err)
	}
}
