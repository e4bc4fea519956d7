package datasets

import (
	"math"
	"testing"
)

func TestMeanCompensated(t *testing.T) {
	// 1 followed by 10^6 − 1 values of 1e-17: every naive addition of 1e-17
	// to a running sum near 1 is lost, the compensated sum keeps them all.
	const n = 1_000_000
	xs := make([]float64, n)
	xs[0] = 1
	for i := 1; i < n; i++ {
		xs[i] = 1e-17
	}
	d := Dataset{Values: xs}
	want := (1 + (n-1)*1e-17) / n
	if got := d.Mean(); math.Abs(got-want) > 2e-16*want {
		t.Errorf("Mean = %.17g, want %.17g", got, want)
	}
	naive := 0.0
	for _, x := range xs {
		naive += x
	}
	if naive/n == want {
		t.Fatal("test data do not defeat naive summation")
	}
}

func TestMeanVarianceTable(t *testing.T) {
	tests := []struct {
		name     string
		xs       []float64
		mean     float64
		variance float64
	}{
		{"single", []float64{0.5}, 0.5, 0},
		{"symmetric", []float64{-1, 1}, 0, 1},
		{"three", []float64{-1, 0, 0.5}, -1.0 / 6, (25.0/36 + 1.0/36 + 16.0/36) / 3},
		{"cancellation", []float64{1e100, 1, -1e100, 1}, 0.5, math.NaN()}, // variance not representable here
	}
	for _, tt := range tests {
		d := Dataset{Values: tt.xs}
		if d.Len() != len(tt.xs) {
			t.Errorf("%s: Len = %d", tt.name, d.Len())
		}
		if got := d.Mean(); math.Abs(got-tt.mean) > 1e-15 {
			t.Errorf("%s: Mean = %.17g, want %.17g", tt.name, got, tt.mean)
		}
		if !math.IsNaN(tt.variance) {
			if got := d.Variance(); math.Abs(got-tt.variance) > 1e-15 {
				t.Errorf("%s: Variance = %.17g, want %.17g", tt.name, got, tt.variance)
			}
		}
	}
	var empty Dataset
	if !math.IsNaN(empty.Mean()) || !math.IsNaN(empty.Variance()) || empty.Len() != 0 {
		t.Error("empty dataset: want Mean and Variance NaN, Len 0")
	}
}

// TestMeanLarge: the mean of 10^7 copies of 0.1 is 0.1 to within an ulp,
// where a naive running sum drifts by about 1e-10 relative.
func TestMeanLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("10^7 values")
	}
	const n = 10_000_000
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = 0.1
	}
	d := Dataset{Values: xs}
	// The sum of n copies of fl(0.1) is n·fl(0.1) exactly; divided by n it
	// is fl(0.1) up to the final rounding.
	if got := d.Mean(); math.Abs(got-0.1) > 0x1p-56 {
		t.Errorf("Mean of 10^7 × 0.1 = %.17g", got)
	}
}
