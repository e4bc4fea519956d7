package results

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// rows.csv and summary.csv are read back from disk (resume, re-summarise,
// plot, compare), so their readers parse outside input. FuzzReadRows and
// FuzzReadSummaries check, on any bytes:
//
//   - the reader never panics, and an error is not empty;
//   - what it accepts, written back with the package's own writer (WriteRows
//     with its header, or WriteRowsHeader alone for no rows; WriteSummaries)
//     and read again, gives the same records (floats bit for bit, NaN equal
//     to NaN), whatever the writer adds around them (the '#' lines), except
//     (the writers refuse a carriage return in a field);
//   - the file reader (ReadRowsFile, ReadSummaryFile), which may ask for
//     more (an end line), accepts nothing the stream reader rejects and
//     reads the same records.
//
// The seeds are small real samples of two shipped specs' outputs
// (testdata/seeds, cut from quick runs of mean-synthetic and
// multiservice-fig4) and records built here with the writers, with the
// values and strings a CSV round trip can get wrong.

// seedRecords are rows and summaries whose fields test the writer: NaN (an
// empty cell), ±Inf, -0, the extremes, and strings holding the separator,
// quotes, newlines, spaces and a leading '#'.
func seedRecords() ([]Row, []Summary) {
	nan := Float(math.NaN())
	rows := []Row{
		{"e", "d", "pm", 0.5, 10, "", "fixed[lo=0,hi=1]", 0, "mse", 1.5e-5, nan},
		{"e", "beta(3,2)", "duchi", 1e-300, 1, "k=2;services=sr,lap", "minmax[lo=-1,hi=1]", 7, "abs", Float(math.Copysign(0, -1)), 0.25},
		{"e", `a "quoted", name`, "m", Float(math.MaxFloat64), math.MaxInt64, "x=1\ny=2", " lead", -1, "js-div", Float(math.Inf(1)), Float(math.Inf(-1))},
		{"#hash", "d", "m", 5e-324, 0, "", "", 0, "mse", 1, 1},
	}
	sums := []Summary{
		{"e", "d", "pm", 0.5, 10, "", "fixed[lo=0,hi=1]", "mse", 1, 0.1, nan, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, nan, nan, nan, nan, "", false, nil},
		{"e", "d,e", "m\n#x", 2, 3, "v=-0.1", " ", "rmse", 20, 0.03, 0.02, nan, nan, nan, nan, nan, nan, nan, 0.005, 0, 0.04, 0.04, "chi2", true, nil},
		{"#e", "d", "m", 1, 1, "", "", "abs", -3, Float(math.Inf(1)), 0, Float(math.Inf(-1)), Float(math.Copysign(0, -1)), 5e-324, Float(math.MaxFloat64), Float(math.Inf(1)),
			Float(math.Copysign(0, -1)), Float(math.MaxFloat64), 0, 0, 0, Float(math.Copysign(0, -1)), "t,\"x\"\n#", false,
			Floats{math.Inf(-1), -1e300, math.Copysign(0, -1), 5e-324, math.Inf(1)}},
	}
	return rows, sums
}

func addSeedFiles(f *testing.F, suffix string) {
	files, err := filepath.Glob(filepath.Join("testdata", "seeds", "*"+suffix))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed files testdata/seeds/*%s (%v)", suffix, err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func FuzzReadRows(f *testing.F) {
	addSeedFiles(f, ".rows.csv")
	rows, _ := seedRecords()
	for i := range rows {
		var b bytes.Buffer
		if err := WriteRows(&b, rows[:i+1], true); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Add([]byte(RowsHeader() + "\n"))
	f.Add([]byte("eps,value\n1,2\n"))
	f.Add([]byte("# end records=0\n"))
	path := filepath.Join(f.TempDir(), "rows.csv")
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := ReadRows(bytes.NewReader(data))
		checkFileReader(t, path, data, err, rows, ReadRowsFile)
		if err != nil {
			return
		}
		var out bytes.Buffer
		if len(rows) == 0 {
			err = WriteRowsHeader(&out)
		} else {
			err = WriteRows(&out, rows, true)
		}
		if err != nil {
			if holdsCR(rows) {
				return // refused by design
			}
			t.Fatalf("ReadRows(%q) accepted %d rows that WriteRows refuses: %v", data, len(rows), err)
		}
		back, err := ReadRows(bytes.NewReader(out.Bytes()))
		if err != nil {
			t.Fatalf("ReadRows(%q): accepted; written back as %q it is refused: %v", data, out.Bytes(), err)
		}
		if !sameRecords(rows, back) {
			t.Fatalf("ReadRows(%q) = %+v\nwritten back as %q\nread again as %+v", data, rows, out.Bytes(), back)
		}
	})
}

func FuzzReadSummaries(f *testing.F) {
	addSeedFiles(f, ".summary.csv")
	_, sums := seedRecords()
	for i := range sums {
		var b bytes.Buffer
		if err := WriteSummaries(&b, sums[:i+1]); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Add([]byte("metric,mean\nmse,NaN\n"))
	path := filepath.Join(f.TempDir(), "summary.csv")
	f.Fuzz(func(t *testing.T, data []byte) {
		sums, err := ReadSummaries(bytes.NewReader(data))
		checkFileReader(t, path, data, err, sums, ReadSummaryFile)
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := WriteSummaries(&out, sums); err != nil {
			if holdsCR(sums) {
				return // refused by design
			}
			t.Fatalf("ReadSummaries(%q) accepted %d summaries that WriteSummaries refuses: %v", data, len(sums), err)
		}
		back, err := ReadSummaries(bytes.NewReader(out.Bytes()))
		if err != nil {
			t.Fatalf("ReadSummaries(%q): accepted; written back as %q it is refused: %v", data, out.Bytes(), err)
		}
		if !sameRecords(sums, back) {
			t.Fatalf("ReadSummaries(%q) = %+v\nwritten back as %q\nread again as %+v", data, sums, out.Bytes(), back)
		}
	})
}

// checkFileReader checks the stream reader's error and the file reader
// against it: the file reader accepts only what the stream reader accepts,
// and reads the same records.
func checkFileReader[T any](t *testing.T, path string, data []byte, err error, recs []T, readFile func(string) ([]T, error)) {
	t.Helper()
	if err != nil && err.Error() == "" {
		t.Fatalf("%q: empty error", data)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile, ferr := readFile(path)
	switch {
	case ferr != nil:
		if ferr.Error() == "" || !strings.Contains(ferr.Error(), path) {
			t.Fatalf("%q: the file reader's error %q does not name the file", data, ferr)
		}
	case err != nil:
		t.Fatalf("%q: the file reader accepts %d records, the stream reader refuses: %v", data, len(fromFile), err)
	case !sameRecords(recs, fromFile):
		t.Fatalf("%q: the stream reader reads %+v, the file reader %+v", data, recs, fromFile)
	}
}

// holdsCR reports whether a record has a carriage return in a text field:
// the writers refuse those (encoding/csv would read "\r\n" back as "\n").
func holdsCR[T any](recs []T) bool {
	for i := range recs {
		v := reflect.ValueOf(recs[i])
		for j := range v.NumField() {
			if f := v.Field(j); f.Kind() == reflect.String && strings.ContainsRune(f.String(), '\r') {
				return true
			}
		}
	}
	return false
}

// sameRecords compares records field by field, Floats by their bits (NaN
// equal to NaN, -0 not equal to 0: Float writes "-0"), lists of numbers
// item by item alike.
func sameRecords[T any](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := reflect.ValueOf(a[i]), reflect.ValueOf(b[i])
		for j := range x.NumField() {
			u, v := x.Field(j), y.Field(j)
			if u.Type() == reflect.TypeFor[Float]() {
				p, q := u.Float(), v.Float()
				if math.Float64bits(p) != math.Float64bits(q) && !(math.IsNaN(p) && math.IsNaN(q)) {
					return false
				}
				continue
			}
			if u.Type() == reflect.TypeFor[Floats]() {
				// A list holds no NaN (its reader refuses one).
				p, q := u.Interface().(Floats), v.Interface().(Floats)
				if !slices.EqualFunc(p, q, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
					return false
				}
				continue
			}
			if !u.Equal(v) {
				return false
			}
		}
	}
	return true
}
