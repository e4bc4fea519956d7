// Package datatest writes small synthetic stand-ins for the real data files
// the loaders read (magic04.data, shuttle.tst), in those files' formats, so
// that the tests of the loaders and of the shipped specs that name them run
// on a user's fresh clone: no ../shared/data, no `make data`, no network.
//
// The files are generated, never copied: a PCG stream (math/rand/v2's PCG,
// a specified algorithm) through a Box–Muller transform written here, with
// class-dependent centres and spreads chosen by hand to resemble the real
// files' ranges, then rounded and written as text. A fixture is a function
// of its row count and seed only. Each [File] also holds the values exactly
// as written (parsing the text gives them back bit for bit), so a test
// checks a loader against them instead of against numbers copied from a
// file.
//
// Checks that need the real files (their row and class counts, published
// means, a classifier's accuracy) stay in tests that skip, naming the file
// and `make data`, when it is absent.
//
// Typical use in a test:
//
//	dir := datatest.Use(t) // fixtures in t.TempDir(), $LDPBENCH_DATA = that directory
package datatest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// EnvData is the variable [Use] sets: datasets.EnvData, spelt out because
// this package must not import datasets (datasets' own tests import it).
// TestDatatestEnv in package datasets checks the two agree.
const EnvData = "LDPBENCH_DATA"

// Default sizes of the fixtures [Use] and [WriteDir] write: enough for
// kind fl's task clients, which needs 500 training rows (80 % of the
// table) for its 500 clients, and small enough to write in a millisecond.
const (
	MagicRows   = 1000
	ShuttleRows = 1000
)

// Default seeds of the fixtures [Use] and [WriteDir] write.
const (
	MagicSeed   = 1
	ShuttleSeed = 2
)

// File is a generated fixture: its name as the loaders look it up, its
// text, and the values as written.
type File struct {
	// Name is the file name (magic04.data, shuttle.tst).
	Name string
	// Data is the file's content.
	Data []byte
	// X holds the features of every row, exactly as written.
	X [][]float64
	// Class holds the class field of every row, as written.
	Class []string
	// Classes lists the class labels the file may hold, in the loader's
	// index order (datasets.LoadTable).
	Classes []string
}

// Rows returns the number of rows.
func (f *File) Rows() int { return len(f.X) }

// Column returns feature column j (the class is column len(X[0])) as
// numbers; the class column only when its labels are numbers (Shuttle).
func (f *File) Column(j int) []float64 {
	out := make([]float64, len(f.X))
	for i, row := range f.X {
		if j < len(row) {
			out[i] = row[j]
			continue
		}
		v, err := strconv.ParseFloat(f.Class[i], 64)
		if err != nil {
			panic(fmt.Sprintf("datatest: %s column %d: class %q is not a number", f.Name, j, f.Class[i]))
		}
		out[i] = v
	}
	return out
}

// ClassCounts returns the number of rows of each label of Classes.
func (f *File) ClassCounts() []int {
	counts := make([]int, len(f.Classes))
	for _, c := range f.Class {
		for k, l := range f.Classes {
			if c == l {
				counts[k]++
			}
		}
	}
	return counts
}

// gen is a normal and uniform source on a PCG stream: only Uint64 of the
// PCG is used, so the values do not depend on how math/rand/v2 derives
// its other methods.
type gen struct{ src *rand.PCG }

func newGen(seed, stream uint64) *gen { return &gen{rand.NewPCG(seed, stream)} }

// unif returns a uniform value on (0, 1).
func (g *gen) unif() float64 {
	for {
		if u := float64(g.src.Uint64()>>11) / (1 << 53); u > 0 {
			return u
		}
	}
}

// norm returns a standard normal value (Box–Muller, one of the pair).
func (g *gen) norm() float64 {
	return math.Sqrt(-2*math.Log(g.unif())) * math.Cos(2*math.Pi*g.unif())
}

// intn returns a uniform integer on [0, n).
func (g *gen) intn(n int) int { return int(g.src.Uint64() % uint64(n)) }

// round rounds x to d decimals and clamps it to [lo, hi] (both already
// representable at d decimals).
func round(x float64, d int, lo, hi float64) float64 {
	p := math.Pow(10, float64(d))
	x = math.Round(x*p) / p
	// Re-parse the shortest text so that the stored value is the one the
	// loader will read.
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', -1, 64), 64)
	v = min(max(v, lo), hi)
	if v == 0 {
		v = 0 // not −0, which would be written "-0"
	}
	return v
}

// magicFeature is a MAGIC Gamma feature: its range and a normal law per
// class (g: gamma signal, h: hadron background). fold takes |x − lo| + lo
// (fAlpha, an angle piled up near 0 for the signal).
type magicFeature struct {
	lo, hi         float64
	gMean, gSD     float64
	hMean, hSD     float64
	fold, hUniform bool
}

// magicFeatures: fLength, fWidth, fSize, fConc, fConc1, fAsym, fM3Long,
// fM3Trans, fAlpha, fDist; ranges and spreads of the real file's order of
// magnitude, chosen by hand.
var magicFeatures = [10]magicFeature{
	{lo: 4.2835, hi: 334.177, gMean: 43, gSD: 25, hMean: 71, hSD: 55},
	{lo: 0, hi: 256.382, gMean: 18, gSD: 10, hMean: 29, hSD: 25},
	{lo: 1.9413, hi: 5.3233, gMean: 2.7, gSD: 0.4, hMean: 2.9, hSD: 0.5},
	{lo: 0.0131, hi: 0.893, gMean: 0.39, gSD: 0.17, hMean: 0.35, hSD: 0.19},
	{lo: 0.0003, hi: 0.6752, gMean: 0.22, gSD: 0.1, hMean: 0.2, hSD: 0.12},
	{lo: -457.9161, hi: 575.2407, gMean: 1, gSD: 50, hMean: -18, hSD: 90},
	{lo: -331.78, hi: 238.321, gMean: 15, gSD: 40, hMean: -1, hSD: 70},
	{lo: -205.8947, hi: 179.851, gMean: 0.5, gSD: 18, hMean: 0, hSD: 24},
	{lo: 0, hi: 90, gMean: 0, gSD: 20, fold: true, hUniform: true},
	{lo: 1.2826, hi: 495.561, gMean: 172, gSD: 60, hMean: 194, hSD: 90},
}

// Magic04 generates a stand-in for UCI MAGIC Gamma's magic04.data with the
// given number of rows (at least 2): ten comma-separated features with at
// most four decimals, then the class g or h. As in the real file, the g
// rows come first, in the real file's proportion (12,332 of 19,020,
// rounded, at least one of each class).
func Magic04(rows int, seed uint64) *File {
	if rows < 2 {
		panic("datatest: Magic04 needs at least 2 rows")
	}
	nG := min(max(int(math.Round(float64(rows)*12332/19020)), 1), rows-1)
	g := newGen(seed, 0x6d61676963)
	f := &File{Name: "magic04.data", Classes: []string{"g", "h"}}
	var b strings.Builder
	for i := range rows {
		class := "g"
		if i >= nG {
			class = "h"
		}
		row := make([]float64, len(magicFeatures))
		for j, ft := range magicFeatures {
			var x float64
			switch {
			case class == "h" && ft.hUniform:
				x = ft.lo + (ft.hi-ft.lo)*g.unif()
			case class == "g":
				x = ft.gMean + ft.gSD*g.norm()
			default:
				x = ft.hMean + ft.hSD*g.norm()
			}
			if ft.fold {
				x = ft.lo + math.Abs(x-ft.lo)
			}
			row[j] = round(x, 4, ft.lo, ft.hi)
			b.WriteString(strconv.FormatFloat(row[j], 'f', -1, 64))
			b.WriteByte(',')
		}
		b.WriteString(class)
		b.WriteByte('\n')
		f.X = append(f.X, row)
		f.Class = append(f.Class, class)
	}
	f.Data = []byte(b.String())
	return f
}

// shuttleFeature is a Statlog Shuttle feature: an integer range, a centre
// per class (classes 1…7) and a spread.
type shuttleFeature struct {
	lo, hi float64
	centre [7]float64
	sd     float64
}

// shuttleFeatures: nine integer features with ranges of the real file's
// order of magnitude; the centres, chosen by hand, separate the classes.
var shuttleFeatures = [9]shuttleFeature{
	{27, 123, [7]float64{44, 49, 57, 55, 87, 79, 37}, 8},
	{-4821, 5075, [7]float64{0, 0, 0, 0, 0, 0, 0}, 20},
	{21, 149, [7]float64{86, 80, 78, 77, 82, 80, 100}, 6},
	{-3939, 3830, [7]float64{0, 2, -1, 0, 0, 1, 0}, 15},
	{-188, 436, [7]float64{39, 26, 20, 28, 0, 30, 40}, 10},
	{-13839, 13148, [7]float64{0, 0, 0, 0, 1, -2, 0}, 30},
	{-48, 105, [7]float64{42, 30, 20, 20, -5, 1, 60}, 8},
	{-353, 270, [7]float64{47, 50, 58, 56, 82, 79, 40}, 8},
	{-356, 266, [7]float64{5, 40, 54, 40, 85, 79, 4}, 10},
}

// shuttleShare is the real test split's class counts (14,500 rows), the
// proportions the fixture follows.
var shuttleShare = [7]int{11478, 13, 39, 2155, 809, 4, 2}

// Shuttle generates a stand-in for UCI Statlog Shuttle's test split
// shuttle.tst with the given number of rows (at least 14): nine integer
// features then the class 1…7, separated by single spaces. Classes 2…7
// have the real split's proportion of the rows, rounded, and at least 2
// rows each; class 1 has the rest. The rows are in a random order.
func Shuttle(rows int, seed uint64) *File {
	if rows < 14 {
		panic("datatest: Shuttle needs at least 14 rows")
	}
	var counts [7]int
	rest := rows
	for c := 1; c < 7; c++ {
		counts[c] = max(int(math.Round(float64(rows)*float64(shuttleShare[c])/14500)), 2)
		rest -= counts[c]
	}
	if rest < 2 {
		panic("datatest: Shuttle: too few rows for class 1")
	}
	counts[0] = rest
	classes := make([]int, 0, rows)
	for c, n := range counts {
		for range n {
			classes = append(classes, c)
		}
	}
	g := newGen(seed, 0x73687574)
	for i := len(classes) - 1; i > 0; i-- {
		j := g.intn(i + 1)
		classes[i], classes[j] = classes[j], classes[i]
	}
	f := &File{Name: "shuttle.tst", Classes: []string{"1", "2", "3", "4", "5", "6", "7"}}
	var b strings.Builder
	for _, c := range classes {
		row := make([]float64, len(shuttleFeatures))
		for j, ft := range shuttleFeatures {
			row[j] = round(ft.centre[c]+ft.sd*g.norm(), 0, ft.lo, ft.hi)
			b.WriteString(strconv.FormatFloat(row[j], 'f', -1, 64))
			b.WriteByte(' ')
		}
		label := strconv.Itoa(c + 1)
		b.WriteString(label)
		b.WriteByte('\n')
		f.X = append(f.X, row)
		f.Class = append(f.Class, label)
	}
	f.Data = []byte(b.String())
	return f
}

// Files returns the default fixtures: Magic04(MagicRows, MagicSeed) and
// Shuttle(ShuttleRows, ShuttleSeed).
func Files() []*File {
	return []*File{Magic04(MagicRows, MagicSeed), Shuttle(ShuttleRows, ShuttleSeed)}
}

// Write writes f into dir under its name.
func (f *File) Write(dir string) error {
	return os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644)
}

// WriteDir writes the default fixtures ([Files]) into dir.
func WriteDir(dir string) error {
	for _, f := range Files() {
		if err := f.Write(dir); err != nil {
			return err
		}
	}
	return nil
}

// Use writes the default fixtures into a fresh t.TempDir(), points
// $LDPBENCH_DATA at it for the rest of the test (t.Setenv, so not in
// parallel tests) and returns the directory. The loaders search
// $LDPBENCH_DATA first, so the fixtures win over data/ and ../shared/data.
func Use(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvData, dir)
	return dir
}
