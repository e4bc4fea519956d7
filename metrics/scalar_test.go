package metrics

import (
	"math"
	"testing"
)

var (
	nan  = math.NaN()
	inf  = math.Inf(1)
	ninf = math.Inf(-1)
)

// same reports whether got equals want within a relative-or-absolute
// tolerance tol, treating NaN as equal to NaN and infinities as exact.
func same(got, want, tol float64) bool {
	switch {
	case math.IsNaN(want):
		return math.IsNaN(got)
	case math.IsInf(want, 0):
		return got == want
	}
	return math.Abs(got-want) <= tol*max(1, math.Abs(want))
}

func TestSquaredError(t *testing.T) {
	for _, c := range []struct{ est, truth, want float64 }{
		{0.75, 0.25, 0.25},
		{0.25, 0.75, 0.25},
		{-1, 1, 4},
		{0.3, 0.3, 0},
		{0.5, -0.25, 0.5625},
		{nan, 0, nan},
		{inf, 0, inf},
	} {
		if got := SquaredError(c.est, c.truth); !same(got, c.want, 0) {
			t.Errorf("SquaredError(%v, %v) = %v, want %v", c.est, c.truth, got, c.want)
		}
	}
}

func TestAbsError(t *testing.T) {
	for _, c := range []struct{ est, truth, want float64 }{
		{0.75, 0.25, 0.5},
		{0.25, 0.75, 0.5},
		{-1, 1, 2},
		{0, 0, 0},
		{nan, 1, nan},
		{ninf, 0, inf},
	} {
		if got := AbsError(c.est, c.truth); !same(got, c.want, 0) {
			t.Errorf("AbsError(%v, %v) = %v, want %v", c.est, c.truth, got, c.want)
		}
	}
}

func TestScaledAbsError(t *testing.T) {
	for _, c := range []struct{ est, truth, scale, want float64 }{
		{0.75, 0.25, 2, 0.25},  // domain width of [−1, 1]
		{0.3, 0.25, 0.25, 0.2}, // relative error, scale |truth|
		{-1, 1, 0.5, 4},
		{1, 1, 2, 0},
		{1, 0, 0, nan}, // |truth| = 0: relative error undefined
		{1, 0, -2, nan},
		{1, 0, nan, nan},
		{1, 0, inf, nan},
		{nan, 0, 2, nan},
	} {
		if got := ScaledAbsError(c.est, c.truth, c.scale); !same(got, c.want, 1e-15) {
			t.Errorf("ScaledAbsError(%v, %v, %v) = %v, want %v", c.est, c.truth, c.scale, got, c.want)
		}
	}
}

func TestAccuracy(t *testing.T) {
	for _, c := range []struct {
		correct, total int
		want           float64
	}{
		{3, 4, 0.75},
		{0, 5, 0},
		{7, 7, 1},
		{0, 0, nan},
		{1, -1, nan},
		{-1, 4, nan},
		{5, 4, nan},
	} {
		if got := Accuracy(c.correct, c.total); !same(got, c.want, 0) {
			t.Errorf("Accuracy(%d, %d) = %v, want %v", c.correct, c.total, got, c.want)
		}
	}
}

func TestRMSE(t *testing.T) {
	for _, c := range []struct {
		sq   []float64
		want float64
	}{
		{[]float64{4}, 2},
		{[]float64{1, 9, 0, 6}, 2}, // mean 4
		// Per-trial absolute errors 1 and 3 average to 2; the RMSE is √5.
		{[]float64{1, 9}, 2.23606797749979},
		{nil, nan},
		{[]float64{1, nan}, nan},
	} {
		if got := RMSE(c.sq); !same(got, c.want, 1e-15) {
			t.Errorf("RMSE(%v) = %v, want %v", c.sq, got, c.want)
		}
	}
}
