package figures

import (
	"math"
	"testing"
)

func TestNewBand(t *testing.T) {
	for _, tc := range []struct {
		name      string
		x, lo, hi []float64
	}{
		{"short lo", []float64{1, 2}, []float64{0}, []float64{1, 2}},
		{"short hi", []float64{1, 2}, []float64{0, 1}, []float64{1}},
		{"unsorted x", []float64{2, 1}, []float64{0, 1}, []float64{1, 2}},
		{"NaN x", []float64{1, math.NaN()}, []float64{0, 1}, []float64{1, 2}},
	} {
		if _, err := NewBand(tc.x, tc.lo, tc.hi); err == nil {
			t.Errorf("%s: NewBand succeeded", tc.name)
		}
	}
}

func TestBandDataRange(t *testing.T) {
	b, err := NewBand([]float64{1, 2, 3, 4}, []float64{0.5, math.NaN(), -1, 2}, []float64{1.5, 9, 5, math.Inf(1)})
	if err != nil {
		t.Fatal(err)
	}
	// x=2 and x=4 have an unknown bound and do not count.
	xmin, xmax, ymin, ymax := b.DataRange()
	if xmin != 1 || xmax != 3 || ymin != -1 || ymax != 5 {
		t.Errorf("DataRange = %v %v %v %v, want 1 3 -1 5", xmin, xmax, ymin, ymax)
	}
}
