package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/datasets/datatest"
)

// sharedData is ../shared/data seen from this package's directory (tests run
// in /…/main/datasets, a developer's shared files are in /…/shared/data).
const sharedData = "../../shared/data"

// realFile returns the path of the real data file name as the loaders find
// it (Find: $LDPBENCH_DATA, data/, and ../shared/data unless
// $LDPBENCH_NO_SHARED is set), or skips the test when it is absent, naming
// the file and `make data`. Only checks of the real file's own numbers
// (row and class counts, published means) use it; the loaders themselves
// are tested on generated fixtures (package datatest) in every checkout.
func realFile(t *testing.T, name string) string {
	t.Helper()
	p, err := Find(name)
	if errors.Is(err, ErrNotFound) {
		t.Skipf("real data file %s not found: run `make data` to fetch it (this test checks the real file's own numbers)", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// exactMean returns the mean of xs correctly rounded (an exact sum in
// math/big), independent of the package's own summation.
func exactMean(xs []float64) float64 {
	sum := new(big.Float).SetPrec(2048)
	for _, x := range xs {
		sum.Add(sum, new(big.Float).SetFloat64(x))
	}
	m, _ := sum.Quo(sum, new(big.Float).SetInt64(int64(len(xs)))).Float64()
	return m
}

// fixture writes f into a fresh directory and points $LDPBENCH_DATA at it.
func fixture(t *testing.T, f *datatest.File) string {
	t.Helper()
	dir := t.TempDir()
	if err := f.Write(dir); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvData, dir)
	return filepath.Join(dir, f.Name)
}

// writeTemp writes content to a file in a fresh temporary directory.
func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadRealFiles checks the two real UCI files against numbers computed
// independently from the files (awk and Python math.fsum); skipped without
// them (TestLoadFixtureFiles checks the loader on every checkout).
func TestLoadRealFiles(t *testing.T) {
	tests := []struct {
		file     string
		column   int
		sep      string
		rows     int
		min, max float64
		mean     float64
	}{
		{"magic04.data", 0, ",", 19020, 4.2835, 334.177, 53.25015392744479}, // fLength
		{"magic04.data", 8, ",", 19020, 0, 90, 27.645706677181913},          // fAlpha
		{"shuttle.tst", 0, "", 14500, 27, 123, 48.20393103448276},
		{"shuttle.tst", 9, "whitespace", 14500, 1, 7, 1.6775172413793102}, // class
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d", tt.file, tt.column), func(t *testing.T) {
			p := realFile(t, tt.file)
			xs, err := LoadColumn(p, tt.column, tt.sep)
			if err != nil {
				t.Fatal(err)
			}
			if len(xs) != tt.rows {
				t.Errorf("%s column %d: %d rows, want %d", tt.file, tt.column, len(xs), tt.rows)
			}
			if lo, hi := slices.Min(xs), slices.Max(xs); lo != tt.min || hi != tt.max {
				t.Errorf("%s column %d: range [%v, %v], want [%v, %v]", tt.file, tt.column, lo, hi, tt.min, tt.max)
			}
			if m := mean(xs); math.Abs(m-tt.mean) > 1e-12*tt.mean {
				t.Errorf("%s column %d: mean %.17g, want %.17g", tt.file, tt.column, m, tt.mean)
			}
		})
	}
}

// TestLoadFixtureFiles reads every column of the generated stand-ins of
// the two UCI files (datatest: magic04.data comma-separated, shuttle.tst
// whitespace-separated, the class column included where it is a number),
// found through $LDPBENCH_DATA, and compares them with the values the
// generator wrote, bit for bit. Catches a column off by one, a row dropped
// or a separator misread, without the real files.
func TestLoadFixtureFiles(t *testing.T) {
	dir := datatest.Use(t)
	for _, tt := range []struct {
		f    *datatest.File
		sep  string
		cols int
	}{
		{datatest.Magic04(datatest.MagicRows, datatest.MagicSeed), ",", 10},
		{datatest.Shuttle(datatest.ShuttleRows, datatest.ShuttleSeed), "", 10},
		{datatest.Shuttle(datatest.ShuttleRows, datatest.ShuttleSeed), SepWhitespace, 10},
	} {
		p, err := Find(tt.f.Name)
		if err != nil {
			t.Fatal(err)
		}
		if !sameFile(t, p, filepath.Join(dir, tt.f.Name)) {
			t.Fatalf("Find(%s) = %s, not the fixture in %s", tt.f.Name, p, dir)
		}
		for j := range tt.cols {
			xs, err := LoadColumn(p, j, tt.sep)
			if err != nil {
				t.Fatalf("%s column %d: %v", tt.f.Name, j, err)
			}
			if want := tt.f.Column(j); !slices.Equal(xs, want) {
				t.Errorf("%s column %d (sep %q): %d values, not the generator's %d", tt.f.Name, j, tt.sep, len(xs), len(want))
			}
		}
	}
	// magic04.data's class column is a letter: an error naming the line.
	if _, err := LoadColumn(filepath.Join(dir, "magic04.data"), 10, ","); err == nil || !strings.Contains(err.Error(), "magic04.data:1: column 10") {
		t.Errorf("magic04.data column 10: %v, want an error on line 1", err)
	}
}

// fLengthWant is what TestBuildMagicFLength expects of magic-fLength built
// from a file: its rows, the column's min, max and mean, and the min and
// max of its first three rows.
type fLengthWant struct {
	rows         int
	lo, hi, mean float64
	lo3, hi3     float64
}

// TestBuildMagicFLength builds the catalogue's magic-fLength from the real
// magic04.data (skipped without it) against numbers computed independently
// from the file.
func TestBuildMagicFLength(t *testing.T) {
	realFile(t, "magic04.data")
	// Rows 1-3 of magic04.data: fLength 28.7967, 31.6036, 162.052.
	checkMagicFLength(t, fLengthWant{rows: 19020, lo: 4.2835, hi: 334.177, mean: 53.25015392744479, lo3: 28.7967, hi3: 162.052})
}

// TestBuildMagicFLengthFixture builds magic-fLength from the generated
// magic04.data (datatest), against the generator's own values.
func TestBuildMagicFLengthFixture(t *testing.T) {
	datatest.Use(t)
	f := datatest.Magic04(datatest.MagicRows, datatest.MagicSeed)
	col := f.Column(0)
	checkMagicFLength(t, fLengthWant{rows: f.Rows(), lo: slices.Min(col), hi: slices.Max(col), mean: exactMean(col),
		lo3: slices.Min(col[:3]), hi3: slices.Max(col[:3])})
}

func checkMagicFLength(t *testing.T, w fLengthWant) {
	t.Helper()
	s, ok := Lookup("magic-fLength")
	if !ok {
		t.Fatal("magic-fLength not in the catalogue")
	}
	d, err := s.Build(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != w.rows {
		t.Errorf("Len = %d, want %d", d.Len(), w.rows)
	}
	if got, want := d.Normalisation.String(), "minmax[lo="+fmtFloat(w.lo)+",hi="+fmtFloat(w.hi)+"]"; got != want {
		t.Errorf("Normalisation = %s, want %s", got, want)
	}
	if lo, hi := slices.Min(d.Values), slices.Max(d.Values); lo != -1 || hi != 1 {
		t.Errorf("range [%v, %v], want exactly [-1, 1]", lo, hi)
	}
	// The mean commutes with the affine map.
	want := 2*(w.mean-w.lo)/(w.hi-w.lo) - 1
	if m := d.Mean(); math.Abs(m-want) > 1e-13 {
		t.Errorf("Mean = %.17g, want %.17g", m, want)
	}
	if got := d.Normalisation.Invert(d.Mean()); math.Abs(got-w.mean) > 1e-10 {
		t.Errorf("Invert(Mean) = %.17g, want the raw mean %.17g", got, w.mean)
	}
	if rows := fmt.Sprintf("rows 1-%d", w.rows); !strings.Contains(d.Source, "magic04.data column 0") || !strings.Contains(d.Source, rows) {
		t.Errorf("Source = %q", d.Source)
	}
	if d.Substitute {
		t.Error("magic-fLength marked as a substitute")
	}

	// n < rows: the first n rows, and minmax over those rows only.
	first, err := s.Build(3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := first.Normalisation.String(), "minmax[lo="+fmtFloat(w.lo3)+",hi="+fmtFloat(w.hi3)+"]"; got != want {
		t.Errorf("first 3 rows: Normalisation = %s, want %s", got, want)
	}
	if first.Len() != 3 || !strings.Contains(first.Source, "rows 1-3") {
		t.Errorf("first 3 rows: Len %d, Source %q", first.Len(), first.Source)
	}
	// n >= rows: everything.
	all, err := s.Build(1_000_000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if all.Len() != w.rows {
		t.Errorf("n > rows: Len = %d, want %d", all.Len(), w.rows)
	}
}

func TestLoadColumnParsing(t *testing.T) {
	tests := []struct {
		name, content, sep string
		column             int
		want               []float64
	}{
		{"csv", "1,2,3\n4,5,6\n", ",", 2, []float64{3, 6}},
		{"csv spaces and comments", "# a comment\n\n 1 , 2.5 \n   # indented comment\n-3,4e-2\n", ",", 1, []float64{2.5, 0.04}},
		{"csv no final newline", "1,2\n3,4", ",", 0, []float64{1, 3}},
		{"crlf", "1,2\r\n3,4\r\n", ",", 1, []float64{2, 4}},
		{"whitespace", "1 2\r\n\t3   4 \r\n\n# c\n5\t6\r\n", "", 1, []float64{2, 4, 6}},
		{"whitespace named", "  7  8\n9 10\n", SepWhitespace, 0, []float64{7, 9}},
		{"semicolon", "a;1.5\nb;2.5\n", ";", 1, []float64{1.5, 2.5}},
		{"tab", "1\t2\n3\t4\n", "\t", 1, []float64{2, 4}},
		{"extra fields ignored", "1,2,x,y\n3,4,z\n", ",", 1, []float64{2, 4}},
	}
	for _, tt := range tests {
		p := writeTemp(t, "x.csv", tt.content)
		got, err := LoadColumn(p, tt.column, tt.sep)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestLoadColumnErrors(t *testing.T) {
	tests := []struct {
		name, content, sep string
		column             int
		want               []string // substrings after the file path
	}{
		{"non-numeric", "# header\n1.0,2.0\n3.0,abc\n", ",", 1,
			[]string{":3: column 1 (field 2): cannot parse \"abc\" as a number"}},
		{"missing column", "1,2\n3\n", ",", 1,
			[]string{":2: column 1 missing: line has 1 field (columns 0-0)"}},
		{"missing column whitespace", "1 2 3\n4 5\n", "", 2,
			[]string{":2: column 2 missing: line has 2 fields (columns 0-1)"}},
		{"empty field", "1,2\n3,\n", ",", 1, []string{":2: column 1 (field 2): cannot parse \"\" as a number"}},
		{"nan", "1\nNaN\n", ",", 0, []string{":2:", "\"NaN\" is not a finite number"}},
		{"inf", "1\n-Inf\n", ",", 0, []string{":2:", "not a finite number"}},
		{"overflow", "1\n1e999\n", ",", 0, []string{":2:", "out of the float64 range"}},
		{"empty file", "", ",", 0, []string{": no data rows"}},
		{"only comments", "# a\n\n  \n# b\n", ",", 0, []string{": no data rows"}},
		{"bad separator", "1\n", "ab", 0, []string{"separator \"ab\""}},
		{"negative column", "1\n", ",", -1, []string{"column must be >= 0"}},
	}
	for _, tt := range tests {
		p := writeTemp(t, "bad-input.csv", tt.content)
		_, err := LoadColumn(p, tt.column, tt.sep)
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, p) {
			t.Errorf("%s: error %q does not start with the file name %s", tt.name, msg, p)
		}
		for _, w := range tt.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error %q does not contain %q", tt.name, msg, w)
			}
		}
	}
}

func TestLoadColumnMissingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "no-such-file.csv")
	_, err := LoadColumn(p, 0, ",")
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), p+": cannot open") {
		t.Errorf("err = %v, want %s: cannot open: ... wrapping fs.ErrNotExist", err, p)
	}
	// A directory is not readable as a data file.
	if _, err := LoadColumn(t.TempDir(), 0, ","); err == nil {
		t.Error("LoadColumn on a directory: no error")
	}
}

func TestLoadColumnLongLine(t *testing.T) {
	p := writeTemp(t, "long.csv", "1\n"+strings.Repeat("9", maxLine+1)+"\n")
	_, err := LoadColumn(p, 0, ",")
	if err == nil || !strings.Contains(err.Error(), p+":2: line longer than") {
		t.Errorf("err = %v, want a line-too-long error at line 2", err)
	}
}

// TestBuildFileNormalisation covers the file-specific normalisation paths:
// fixed with and without clipping, none, and a constant column under minmax.
func TestBuildFileNormalisation(t *testing.T) {
	p := writeTemp(t, "values.csv", "# id,value\n1,0\n2,5\n3,10\n4,11\n5,-2\n")
	base := Spec{Name: "file", Source: SourceFile, Path: p, Column: 1, Sep: ","}

	minmax, err := base.Build(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := minmax.Normalisation.String(); got != "minmax[lo=-2,hi=11]" {
		t.Errorf("default normalisation %s, want minmax[lo=-2,hi=11]", got)
	}

	fixed := base
	fixed.Normalise, fixed.Lo, fixed.Hi = RuleFixed, 0, 10
	_, err = fixed.Build(0, nil)
	if err == nil || !strings.Contains(err.Error(), p+":5: column 1 (field 2): value 11 is outside the fixed range [0, 10]") {
		t.Errorf("fixed without clip: err = %v, want it to name %s:5", err, p)
	}
	// The first three rows are in range.
	d, err := fixed.Build(3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Values, []float64{-1, 0, 1}) || d.Normalisation.String() != "fixed[lo=0,hi=10]" {
		t.Errorf("fixed, 3 rows: %v %s", d.Values, d.Normalisation)
	}

	fixed.Clip = true
	d, err = fixed.Build(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Values, []float64{-1, 0, 1, 1, -1}) {
		t.Errorf("clipped values %v", d.Values)
	}
	if got := d.Normalisation.String(); got != "fixed[lo=0,hi=10,clipped=2]" {
		t.Errorf("clipped normalisation %s", got)
	}

	none := base
	none.Normalise = RuleNone
	_, err = none.Build(0, nil)
	if err == nil || !strings.Contains(err.Error(), p+":3: column 1 (field 2): value 5 is outside the none range [-1, 1]") {
		t.Errorf("none: err = %v", err)
	}

	constant := Spec{Name: "const", Source: SourceFile, Path: writeTemp(t, "c.txt", "3 1\n3 2\n3 3\n")}
	_, err = constant.Build(0, nil)
	if err == nil || !strings.Contains(err.Error(), "column 0: minmax: all values equal 3 (max == min)") {
		t.Errorf("constant column: err = %v", err)
	}
}

func TestBuildFileNotFound(t *testing.T) {
	t.Setenv(EnvData, "")
	s := Spec{Name: "ghost", Source: SourceFile, Path: "no-such-dataset-file.csv"}
	_, err := s.Build(0, nil)
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	if !strings.HasPrefix(err.Error(), `dataset "ghost": data file not found: "no-such-dataset-file.csv"`) {
		t.Errorf("err = %v", err)
	}
}

// BenchmarkLoadColumn streams a 100,000-row, 11-column CSV shaped like
// magic04.data; ns/op scales linearly to the 10^7-row files.
func BenchmarkLoadColumn(b *testing.B) {
	var sb strings.Builder
	for i := range 100_000 {
		for j := range 10 {
			fmt.Fprintf(&sb, "%.4f,", float64(i*j)/7)
		}
		sb.WriteString("g\n")
	}
	p := filepath.Join(b.TempDir(), "bench.csv")
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(sb.Len()))
	for b.Loop() {
		if _, err := LoadColumn(p, 8, ","); err != nil {
			b.Fatal(err)
		}
	}
}
