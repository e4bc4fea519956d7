package results

import (
	"math"
	"strconv"
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
