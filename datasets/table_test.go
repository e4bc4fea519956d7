package datasets

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/datasets/datatest"
)

// TestBinarise: k − 1 coordinates, +1 on the level's own, the last level
// all −1 (Zhao et al. Section VII-B). Catches k coordinates instead of k − 1
// and the last level given a +1.
func TestBinarise(t *testing.T) {
	for _, tc := range []struct {
		l, k int
		want []float64
	}{
		{0, 3, []float64{1, -1}}, {1, 3, []float64{-1, 1}}, {2, 3, []float64{-1, -1}},
		{0, 2, []float64{1}}, {1, 2, []float64{-1}},
	} {
		got := make([]float64, tc.k-1)
		Binarise(got, tc.l, tc.k)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Binarise(%d of %d) = %v, want %v", tc.l, tc.k, got, tc.want)
		}
	}
}

// TestLoadTableUCI reads the two real UCI files (each skipped without it;
// TestLoadTableFixture runs on every checkout): row counts, feature counts
// and class counts as published (by the UCI repository's descriptions; Shuttle's test split by
// class as counted by the catalogue). Catches an off-by-one column, a
// header line swallowed, a class map shifted by one.
func TestLoadTableUCI(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rows   int
		p      int
		counts []int
	}{
		{"gamma", 19020, 10, []int{12332, 6688}},
		{"shuttle", 14500, 9, []int{11478, 13, 39, 2155, 809, 4, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab, err := LoadTable(tc.name)
			if errors.Is(err, ErrNotFound) {
				t.Skipf("real data file %s not found: run `make data` to fetch it (this test checks the real file's own numbers)", TableFiles(tc.name)[0])
			}
			if err != nil {
				t.Fatal(err)
			}
			if tab.Rows() != tc.rows || tab.P != tc.p || len(tab.Y) != tc.rows {
				t.Fatalf("%s: %d rows × %d, want %d × %d", tc.name, tab.Rows(), tab.P, tc.rows, tc.p)
			}
			counts := make([]int, len(tab.Classes))
			for _, y := range tab.Y {
				counts[int(y)]++
			}
			if !slices.Equal(counts, tc.counts) {
				t.Errorf("%s: class counts %v, want %v", tc.name, counts, tc.counts)
			}
		})
	}
}

// TestLoadTableFixture: LoadTable on the generated stand-ins of the two UCI
// files (datatest, through $LDPBENCH_DATA) gives the generator's rows:
// every feature bit for bit, the classes mapped to their indices (g → 0,
// h → 1; 1…7 → 0…6), the class names, and a source naming the file. Catches
// what TestLoadTableUCI catches, and a feature column shifted, without the
// real files.
func TestLoadTableFixture(t *testing.T) {
	dir := datatest.Use(t)
	for _, tc := range []struct {
		name string
		f    *datatest.File
		p    int
	}{
		{"gamma", datatest.Magic04(datatest.MagicRows, datatest.MagicSeed), 10},
		{"shuttle", datatest.Shuttle(datatest.ShuttleRows, datatest.ShuttleSeed), 9},
	} {
		if got := TableFiles(tc.name); !slices.Equal(got, []string{tc.f.Name}) {
			t.Fatalf("TableFiles(%s) = %v, want [%s]", tc.name, got, tc.f.Name)
		}
		tab, err := LoadTable(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if tab.Rows() != tc.f.Rows() || tab.P != tc.p || tab.Numeric != tc.p || len(tab.Y) != tc.f.Rows() {
			t.Fatalf("%s: %d rows × %d (%d numeric), want %d × %d", tc.name, tab.Rows(), tab.P, tab.Numeric, tc.f.Rows(), tc.p)
		}
		if !slices.Equal(tab.Classes, tc.f.Classes) {
			t.Errorf("%s: classes %q, want %q", tc.name, tab.Classes, tc.f.Classes)
		}
		for i, row := range tc.f.X {
			if !slices.Equal(tab.Row(i), row) {
				t.Fatalf("%s: row %d = %v, want %v", tc.name, i, tab.Row(i), row)
			}
			if want := slices.Index(tc.f.Classes, tc.f.Class[i]); tab.Y[i] != float64(want) {
				t.Fatalf("%s: row %d: class %v, want %d (%s)", tc.name, i, tab.Y[i], want, tc.f.Class[i])
			}
		}
		if !strings.Contains(tab.Source, filepath.Join(dir, tc.f.Name)) || tab.Substitute {
			t.Errorf("%s: source %q, substitute %v", tc.name, tab.Source, tab.Substitute)
		}
	}
}

// TestMissingTableFile: a fetchable table whose file is absent is an
// error wrapping ErrNotFound that names the file and `make data`.
func TestMissingTableFile(t *testing.T) {
	t.Setenv(EnvData, t.TempDir())
	t.Chdir(t.TempDir())
	for _, name := range []string{"vehicle", "wisdm"} {
		_, err := LoadTable(name)
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), TableFiles(name)[0]) || !strings.Contains(err.Error(), "make data") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestReadLIBSVM: sparse rows with absent features as 0 and 1-based
// indices; a malformed feature is an error naming the line. Catches
// 0-based indexing.
func TestReadLIBSVM(t *testing.T) {
	in := "3 1:0.5 3:-1\n1 2:0.25\n\n2 1:1 2:1 3:1\n"
	tab := &Table{P: 3}
	if err := ReadLIBSVM(strings.NewReader(in), 3, tab, "fixture"); err != nil {
		t.Fatal(err)
	}
	if want := []float64{0.5, 0, -1, 0, 0.25, 0, 1, 1, 1}; !slices.Equal(tab.X, want) {
		t.Errorf("X = %v, want %v", tab.X, want)
	}
	if !slices.Equal(tab.Y, []float64{3, 1, 2}) {
		t.Errorf("Y = %v", tab.Y)
	}
	for _, bad := range []string{"1 0:1\n", "1 4:1\n", "1 1=2\n", "x 1:1\n"} {
		if err := ReadLIBSVM(strings.NewReader(bad), 3, &Table{P: 3}, "bad"); err == nil || !strings.Contains(err.Error(), "bad:1") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestReadWISDM: records split on ';' and newlines, several per line,
// malformed ones counted and skipped; 43 columns with user and activity
// binarised. Catches a strict parser (the real file has malformed lines),
// rejects not counted, and 36 user coordinates instead of 35.
func TestReadWISDM(t *testing.T) {
	raw := "33,Jogging,49105962326000,-0.6946377,12.680544,0.50395286;\n" +
		"36,Standing,1,1.0,2.0,3.0;5,Walking,2,0.1,0.2,0.3;\n" +
		"7,Sitting,3,1.0,2.0,\n" + // five fields: rejected
		"40,Walking,4,1,1,1;\n" + // user 40: rejected
		"8,Dancing,5,1,1,1;\n" + // unknown activity: rejected
		"9,Upstairs,6,NaN,1,1;\n" // NaN: rejected
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "WISDM_ar_v1.1/WISDM_ar_v1.1_raw.txt", Mode: 0o644, Size: int64(len(raw))})
	tw.Write([]byte(raw))
	tw.Close()
	gz.Close()
	tab, err := ReadWISDMArchive(&buf, "fixture")
	if err != nil {
		t.Fatal(err)
	}
	if tab.P != 43 || tab.Rows() != 3 || tab.Rejected != 4 {
		t.Fatalf("%d columns, %d rows, %d rejected; want 43, 3, 4", tab.P, tab.Rows(), tab.Rejected)
	}
	r := tab.Row(0) // user 33, Jogging
	if r[0] != -0.6946377 || r[3+32] != 1 || r[3+35+1] != 1 {
		t.Errorf("row 0 = %v", r)
	}
	r = tab.Row(1) // user 36 (last level), Standing (last level): all −1
	for j := 3; j < 43; j++ {
		if r[j] != -1 {
			t.Fatalf("row 1 coordinate %d = %v, want −1 (last levels)", j, r[j])
		}
	}
}

// TestIPUMSStandin: the stand-ins have the paper's dimensions (90 and 94
// with income), are deterministic, marked as substitutes, with a skewed
// income that depends on the regressors (positive correlation with the
// first numeric one). Catches a wrong level count and an income
// independent of X.
func TestIPUMSStandin(t *testing.T) {
	for _, tc := range []struct {
		c   string
		dim int
	}{{"br", 90}, {"mx", 94}} {
		a, err := IPUMSStandin(tc.c, 5000, 1)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := IPUMSStandin(tc.c, 5000, 1)
		if a.P+1 != tc.dim || !a.Substitute || !slices.Equal(a.X, b.X) || !slices.Equal(a.Y, b.Y) {
			t.Fatalf("%s: %d dimensions (want %d), substitute %v, deterministic %v", tc.c, a.P+1, tc.dim, a.Substitute, slices.Equal(a.X, b.X))
		}
		var sx, sy, sxy, syy, sxx float64
		n := float64(a.Rows())
		for i := range a.Rows() {
			x, y := a.Row(i)[0], math.Log(a.Y[i])
			sx, sy, sxy, sxx, syy = sx+x, sy+y, sxy+x*y, sxx+x*x, syy+y*y
		}
		r := (sxy/n - sx*sy/n/n) / math.Sqrt((sxx/n-sx*sx/n/n)*(syy/n-sy*sy/n/n))
		if r < 0.3 {
			t.Errorf("%s: corr(z_0, log income) = %v, want a clear dependence", tc.c, r)
		}
		for _, v := range a.X[a.Numeric:a.P] {
			if v != 1 && v != -1 {
				t.Fatalf("%s: binarised coordinate %v", tc.c, v)
			}
		}
	}
}
