package results

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Float is a float64 that writes itself to CSV losslessly and byte-stably.
// NaN is written as an empty cell ("not known") and read back as NaN.
type Float float64

// MarshalCSV implements gocsv's TypeMarshaller.
func (f Float) MarshalCSV() (string, error) {
	if math.IsNaN(float64(f)) {
		return "", nil
	}
	return strconv.FormatFloat(float64(f), 'g', -1, 64), nil
}

// UnmarshalCSV implements gocsv's TypeUnmarshaller.
func (f *Float) UnmarshalCSV(s string) error {
	if s == "" {
		*f = Float(math.NaN())
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return err
	}
	*f = Float(v)
	return nil
}

// Known reports whether the value is not NaN.
func (f Float) Known() bool { return !math.IsNaN(float64(f)) }

// Floats is a list of numbers in one CSV cell: each written as Float
// writes it (shortest, lossless), joined by ';'; no numbers is an empty
// cell. A NaN has no place in it: the reader refuses one.
type Floats []float64

// MarshalCSV implements gocsv's TypeMarshaller.
func (l Floats) MarshalCSV() (string, error) {
	parts := make([]string, len(l))
	for i, v := range l {
		if math.IsNaN(v) {
			return "", errors.New("a list of numbers holds a NaN")
		}
		parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(parts, ";"), nil
}

// UnmarshalCSV implements gocsv's TypeUnmarshaller.
func (l *Floats) UnmarshalCSV(s string) error {
	*l = nil
	if s == "" {
		return nil
	}
	for _, part := range strings.Split(s, ";") {
		v, err := strconv.ParseFloat(part, 64)
		if err != nil {
			return err
		}
		if math.IsNaN(v) {
			return fmt.Errorf("%q: a NaN in a list of numbers", s)
		}
		*l = append(*l, v)
	}
	return nil
}
