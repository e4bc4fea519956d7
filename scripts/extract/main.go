// Command extract derives the plain-text extracts that ldpbench's file
// loader reads from the real datasets whose published form it cannot read
// directly. scripts/fetch_data.sh runs it after a download; it needs Go
// only (no Python).
//
//	go -C scripts/extract run . taxi   -in $PWD/data/yellow_tripdata_2018-01.parquet -out $PWD/data/yellow_tripdata_2018-01.pickup.csv
//	go -C scripts/extract run . csvcol -in $PWD/data/sf_employee_compensation.csv -col "Total Compensation" -out $PWD/data/sf_total_compensation.csv
//
// taxi reads the pick-up time (column tpep_pickup_datetime) of every trip
// of an NYC TLC yellow-taxi Parquet file, in file order, and writes a CSV
// with a header and two columns: the seconds of the day (0–86,399) and the
// same floored to the minute (60·⌊s/60⌋, the recipe of Du et al.'s Taxi
// data, docs/multiservice.md). The wall-clock time of day is taken as
// stored: TLC stores local New York time without a zone, so no time-zone
// conversion is applied. A null pick-up time is dropped and counted.
//
// csvcol reads an RFC 4180 CSV file with a header line (quoted fields may
// hold commas, as the DataSF export's job titles do), finds the column by
// its header name, and writes that column's numbers one per line after a
// header line; empty and non-numeric fields are dropped and counted.
//
// Both write to out.part and rename it when complete, so an interrupted run
// never leaves a truncated extract behind.
package main

import (
	"bufio"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "extract:", err)
		os.Exit(1)
	}
}

func run(args []string, log io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: extract taxi|csvcol -in FILE -out FILE [-col NAME]")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	in := fs.String("in", "", "input file")
	out := fs.String("out", "", "output file")
	col := fs.String("col", "", "csvcol: the column's header name")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *in == "" || *out == "" {
		return errors.New("-in and -out are required")
	}
	var write func(w io.Writer) (kept, dropped int, err error)
	switch args[0] {
	case "taxi":
		write = func(w io.Writer) (int, int, error) { return taxi(*in, w) }
	case "csvcol":
		if *col == "" {
			return errors.New("csvcol: -col is required")
		}
		write = func(w io.Writer) (int, int, error) { return csvColumn(*in, *col, w) }
	default:
		return fmt.Errorf("unknown command %q (want taxi or csvcol)", args[0])
	}
	kept, dropped, err := writeAtomic(*out, write)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "%s: %d rows written, %d dropped (null, empty or non-numeric)\n", *out, kept, dropped)
	return nil
}

// writeAtomic writes path through path.part, renamed when write succeeds.
func writeAtomic(path string, write func(io.Writer) (int, int, error)) (int, int, error) {
	tmp := path + ".part"
	f, err := os.Create(tmp)
	if err != nil {
		return 0, 0, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	kept, dropped, err := write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return 0, 0, err
	}
	return kept, dropped, nil
}

// pickupColumn is the TLC files' pick-up time.
const pickupColumn = "tpep_pickup_datetime"

// taxi writes the seconds of day of every pick-up time of a TLC file.
func taxi(path string, w io.Writer) (kept, dropped int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	leaf, ok := pf.Schema().Lookup(pickupColumn)
	if !ok {
		return 0, 0, fmt.Errorf("%s: no column %s", path, pickupColumn)
	}
	secondsOfDay, err := timeOfDay(leaf.Node.Type())
	if err != nil {
		return 0, 0, fmt.Errorf("%s: column %s: %w", path, pickupColumn, err)
	}
	if _, err := io.WriteString(w, "pickup_seconds_of_day,pickup_minute_seconds_of_day\n"); err != nil {
		return 0, 0, err
	}
	buf := make([]parquet.Value, 4096)
	line := make([]byte, 0, 32)
	for _, rg := range pf.RowGroups() {
		pages := rg.ColumnChunks()[leaf.ColumnIndex].Pages()
		for {
			page, err := pages.ReadPage()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				pages.Close()
				return kept, dropped, fmt.Errorf("%s: %w", path, err)
			}
			vr := page.Values()
			for {
				n, err := vr.ReadValues(buf)
				for _, v := range buf[:n] {
					if v.IsNull() {
						dropped++
						continue
					}
					s := secondsOfDay(v)
					line = strconv.AppendInt(line[:0], s, 10)
					line = append(line, ',')
					line = strconv.AppendInt(line, s-s%60, 10)
					line = append(line, '\n')
					if _, err := w.Write(line); err != nil {
						return kept, dropped, err
					}
					kept++
				}
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					pages.Close()
					return kept, dropped, fmt.Errorf("%s: %w", path, err)
				}
			}
			parquet.Release(page)
		}
		if err := pages.Close(); err != nil {
			return kept, dropped, err
		}
	}
	return kept, dropped, nil
}

// timeOfDay returns the function that maps a stored timestamp of type t to
// its seconds of day (0–86,399) as stored, i.e. of the wall clock the
// writer recorded: INT64 with a TIMESTAMP logical type (any unit) or the
// older TIMESTAMP_MILLIS/MICROS converted types, or legacy INT96
// (nanoseconds of day and a Julian day).
func timeOfDay(t parquet.Type) (func(parquet.Value) int64, error) {
	switch t.Kind() {
	case parquet.Int96:
		return func(v parquet.Value) int64 {
			i := v.Int96()
			nanos := int64(uint64(i[0]) | uint64(i[1])<<32)
			return nanos / int64(time.Second)
		}, nil
	case parquet.Int64:
		var step time.Duration
		if lt := t.LogicalType(); lt != nil {
			if ts, ok := lt.Value.(*format.TimestampType); ok && ts.Unit.Value != nil {
				step = ts.Unit.Value.Duration()
			}
		}
		if ct := t.ConvertedType(); step == 0 && ct != nil {
			switch *ct {
			case deprecated.TimestampMillis:
				step = time.Millisecond
			case deprecated.TimestampMicros:
				step = time.Microsecond
			}
		}
		if step == 0 {
			return nil, errors.New("INT64 without a timestamp type")
		}
		perSecond := int64(time.Second / step)
		return func(v parquet.Value) int64 {
			s := v.Int64() / perSecond
			if v.Int64()%perSecond < 0 {
				s-- // floor for times before 1970
			}
			return ((s % 86400) + 86400) % 86400
		}, nil
	}
	return nil, fmt.Errorf("physical type %v is not a timestamp", t.Kind())
}

// csvColumn writes the numbers of the named column of an RFC 4180 CSV file.
func csvColumn(path, name string, w io.Writer) (kept, dropped int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReaderSize(f, 1<<20))
	r.ReuseRecord = true
	r.FieldsPerRecord = -1 // the column is found by name; short rows are reported
	header, err := r.Read()
	if err != nil {
		return 0, 0, fmt.Errorf("%s: header: %w", path, err)
	}
	col := -1
	for i, h := range header {
		if strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")) == name {
			col = i
			break
		}
	}
	if col < 0 {
		return 0, 0, fmt.Errorf("%s: no column %q in the header (%s)", path, name, strings.Join(header, ", "))
	}
	if _, err := fmt.Fprintf(w, "%s\n", name); err != nil {
		return 0, 0, err
	}
	line := make([]byte, 0, 32)
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return kept, dropped, nil
		}
		if err != nil {
			return kept, dropped, fmt.Errorf("%s: %w", path, err)
		}
		if col >= len(rec) {
			l, _ := r.FieldPos(0)
			return kept, dropped, fmt.Errorf("%s:%d: %d fields, no column %d (%s)", path, l, len(rec), col, name)
		}
		x, perr := strconv.ParseFloat(strings.TrimSpace(rec[col]), 64)
		if perr != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			dropped++
			continue
		}
		line = strconv.AppendFloat(line[:0], x, 'g', -1, 64)
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			return kept, dropped, err
		}
		kept++
	}
}
