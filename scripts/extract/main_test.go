package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// wall is a stored wall-clock time (TLC files carry no zone).
func wall(hh, mm, ss int) time.Time { return time.Date(2018, 1, 2, hh, mm, ss, 250e6, time.UTC) }

// The taxi extract gives the seconds of day of every stored pick-up time,
// in file order, and the same floored to the minute, for the timestamp
// units TLC files use; null pick-ups are dropped.
func TestTaxi(t *testing.T) {
	times := []time.Time{wall(0, 0, 0), wall(23, 59, 59), wall(8, 30, 17), wall(12, 0, 59)}
	want := "pickup_seconds_of_day,pickup_minute_seconds_of_day\n0,0\n86399,86340\n30617,30600\n43259,43200\n"

	dir := t.TempDir()
	type micros struct {
		Pickup int64   `parquet:"tpep_pickup_datetime,timestamp(microsecond)"`
		Fare   float64 `parquet:"fare_amount"`
	}
	type millis struct {
		Pickup int64 `parquet:"tpep_pickup_datetime,timestamp(millisecond)"`
	}
	type nanos struct {
		Other  int32  `parquet:"VendorID"`
		Pickup *int64 `parquet:"tpep_pickup_datetime,optional,timestamp(nanosecond)"`
	}
	var mu []micros
	var ml []millis
	var ns []nanos
	for i, tm := range times {
		mu = append(mu, micros{Pickup: tm.UnixMicro(), Fare: float64(i)})
		ml = append(ml, millis{Pickup: tm.UnixMilli()})
		v := tm.UnixNano()
		ns = append(ns, nanos{Pickup: &v}, nanos{Other: 7}) // a null after each
	}
	for name, write := range map[string]func(string) error{
		"micros": func(p string) error { return parquet.WriteFile(p, mu) },
		"millis": func(p string) error { return parquet.WriteFile(p, ml) },
		"nanos":  func(p string) error { return parquet.WriteFile(p, ns) },
	} {
		in := filepath.Join(dir, name+".parquet")
		if err := write(in); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, name+".csv")
		if err := run([]string{"taxi", "-in", in, "-out", out}, io.Discard); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s: extract\n%s\nwant\n%s", name, got, want)
		}
		if _, err := os.Stat(out + ".part"); err == nil {
			t.Errorf("%s: %s.part left behind", name, out)
		}
	}
}

// A file without the pick-up column, or with it as a plain integer, is an
// error that names the column, and leaves no output.
func TestTaxiErrors(t *testing.T) {
	dir := t.TempDir()
	type plain struct {
		Pickup int64 `parquet:"tpep_pickup_datetime"`
	}
	type other struct {
		X float64 `parquet:"x"`
	}
	for name, write := range map[string]func(string) error{
		"plain": func(p string) error { return parquet.WriteFile(p, []plain{{1}}) },
		"other": func(p string) error { return parquet.WriteFile(p, []other{{1}}) },
	} {
		in := filepath.Join(dir, name+".parquet")
		if err := write(in); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, name+".csv")
		err := run([]string{"taxi", "-in", in, "-out", out}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "tpep_pickup_datetime") {
			t.Errorf("%s: error %v, want one naming the column", name, err)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%s: output written despite the error", name)
		}
	}
}

// csvcol finds the column by name in a quoted CSV (commas inside quotes, a
// byte-order mark on the header) and drops empty and non-numeric fields.
func TestCSVColumn(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "sf.csv")
	data := "\ufeffYear,Job,Retirement,Total Compensation\n" +
		"2013,\"Manager, Parks\",100,52000.5\n" +
		"2014,Clerk,,\n" +
		"2014,\"Analyst \"\"II\"\"\",1,n/a\n" +
		"2015,Nurse,2,9999\n"
	if err := os.WriteFile(in, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "tc.csv")
	if err := run([]string{"csvcol", "-in", in, "-col", "Total Compensation", "-out", out}, io.Discard); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	if want := "Total Compensation\n52000.5\n9999\n"; string(got) != want {
		t.Errorf("extract %q, want %q", got, want)
	}
	err := run([]string{"csvcol", "-in", in, "-col", "Salary", "-out", out}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), `no column "Salary"`) {
		t.Errorf("missing column: error %v", err)
	}
}
