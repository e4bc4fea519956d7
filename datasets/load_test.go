package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sharedData is ../shared/data seen from this package's directory (tests run
// in /…/main/datasets, the shared files are in /…/shared/data).
const sharedData = "../../shared/data"

// sharedFile returns the path of a file in ../shared/data, or skips the test
// when it is absent (it is present on CI).
func sharedFile(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(sharedData, name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared data file %s absent (%v); it lives beside the checkout, see datasets spec §2", p, err)
	}
	return p
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

// TestLoadSharedFiles checks the two UCI files against numbers computed
// independently from the files (awk and Python math.fsum).
func TestLoadSharedFiles(t *testing.T) {
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
		p := sharedFile(t, tt.file)
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
	}
}

func TestBuildMagicFLength(t *testing.T) {
	sharedFile(t, "magic04.data")
	s, ok := Lookup("magic-fLength")
	if !ok {
		t.Fatal("magic-fLength not in the catalogue")
	}
	d, err := s.Build(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 19020 {
		t.Errorf("Len = %d, want 19020", d.Len())
	}
	if got, want := d.Normalisation.String(), "minmax[lo=4.2835,hi=334.177]"; got != want {
		t.Errorf("Normalisation = %s, want %s", got, want)
	}
	if lo, hi := slices.Min(d.Values), slices.Max(d.Values); lo != -1 || hi != 1 {
		t.Errorf("range [%v, %v], want exactly [-1, 1]", lo, hi)
	}
	// The mean commutes with the affine map.
	want := 2*(53.25015392744479-4.2835)/(334.177-4.2835) - 1
	if m := d.Mean(); math.Abs(m-want) > 1e-13 {
		t.Errorf("Mean = %.17g, want %.17g", m, want)
	}
	if got := d.Normalisation.Invert(d.Mean()); math.Abs(got-53.25015392744479) > 1e-10 {
		t.Errorf("Invert(Mean) = %.17g, want the raw mean 53.25015392744479", got)
	}
	if !strings.Contains(d.Source, "magic04.data column 0") || !strings.Contains(d.Source, "rows 1-19020") {
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
	// Rows 1-3 of magic04.data: fLength 28.7967, 31.6036, 162.052.
	if got, want := first.Normalisation.String(), "minmax[lo=28.7967,hi=162.052]"; got != want {
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
	if all.Len() != 19020 {
		t.Errorf("n > rows: Len = %d, want 19020", all.Len())
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
