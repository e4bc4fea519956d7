package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The Taxi and Retirement recipes of Du et al. (docs/multiservice.md,
// "Data") on tiny extracts in the format scripts/extract writes: Taxi reads
// the minute-floored column of the first Rows trips; Retirement keeps the
// values in [10,000, 60,000]; both normalise by the kept values' min and
// max. Absent files are ErrNotFound (the harness skips the dataset).
func TestPaper004Recipes(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvData, dir)
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	taxi := taxiPickup2018
	taxi.Rows = 4 // the recipe's 1,048,575, scaled to the fixture
	if _, err := taxi.Build(0, nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("absent taxi extract: error %v, want ErrNotFound", err)
	}
	write(taxi.Path, "pickup_seconds_of_day,pickup_minute_seconds_of_day\n"+
		"59,0\n86399,86340\n43230,43200\n600,600\n"+
		"100,60\n") // row 5: beyond Rows
	ds, err := taxi.Build(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	// min 0, max 86,340: 2x/86340 - 1.
	want := []float64{-1, 1, 2*43200.0/86340 - 1, 2*600.0/86340 - 1}
	checkValues(t, "taxi", ds.Values, want)

	ret := sfTotalCompensation
	write(ret.Path, "Total Compensation\n9999.99\n10000\n35000.5\n60000\n60000.01\n20000\n")
	ds, err = ret.Build(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkValues(t, "retirement", ds.Values, []float64{-1, 2*25000.5/50000 - 1, 1, 2*10000.0/50000 - 1})
	if k := ret.Key(); !strings.Contains(k, "keep=[10000,60000]") {
		t.Errorf("key %q does not record the range", k)
	}
	// n limits the kept values, not the lines read.
	if ds, err = ret.Build(2, nil); err != nil || len(ds.Values) != 2 {
		t.Errorf("n = 2: %v values, error %v", len(ds.Values), err)
	}
}

func checkValues(t *testing.T, name string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values %v, want %v", name, len(got), got, want)
	}
	for i := range got {
		if d := got[i] - want[i]; d > 1e-12 || d < -1e-12 {
			t.Errorf("%s: value %d = %v, want %v", name, i, got[i], want[i])
		}
	}
}

// keep_lo and keep_hi are file keys with keep_lo <= keep_hi; a spec without
// them keeps the key (and so the data and the spec hash) it had before.
func TestKeepValidation(t *testing.T) {
	for _, c := range []struct {
		s    Spec
		want string
	}{
		{Spec{Name: "x", Source: SourceFile, Path: "f", KeepLo: 2, KeepHi: 1}, `key "keep_hi"`},
		{Spec{Name: "x", Source: SourceFile, Path: "f", KeepLo: 2}, `key "keep_hi"`},
		{Spec{Name: "x", Source: SourceBeta, A: 1, B: 1, KeepHi: 1}, `key "keep_hi": not used`},
	} {
		if err := c.s.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one with %q", c.s, err, c.want)
		}
	}
	ok := Spec{Name: "x", Source: SourceFile, Path: "f", KeepLo: -5, KeepHi: 0}
	if err := ok.Validate(); err != nil {
		t.Errorf("keep [-5, 0]: %v", err)
	}
	plain := Spec{Name: "m", Source: SourceFile, Path: "magic04.data", Sep: ","}
	if k := plain.Key(); k != `file(path=magic04.data,column=0,sep=",") normalise=minmax` {
		t.Errorf("key without keep changed: %q", k)
	}
}
