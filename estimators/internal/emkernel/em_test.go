package emkernel

import (
	"math"
	"testing"
)

// TestSmoothHandExample checks the EMS smoothing step row by row on five
// bins (E4.4): interior (θ_{i-1} + 2θ_i + θ_{i+1})/4, first (2θ_0 + θ_1)/3,
// last θ_4 unchanged.
func TestSmoothHandExample(t *testing.T) {
	theta := []float64{0.1, 0.2, 0.3, 0.15, 0.25}
	want := []float64{0.4 / 3, 0.8 / 4, 0.95 / 4, 0.85 / 4, 0.25}
	got := make([]float64, 5)
	emSmooth(got, theta)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-16 {
			t.Errorf("row %d: %v, want %v", i, got[i], want[i])
		}
	}
	// The same rows as the authors' smoothing matrix (sw.py, fusion_all.py)
	// built literally: binomial [1, 2, 1], first row from the kernel's
	// centre, last row from its start, rows normalised.
	n := 5
	S := make([][]float64, n)
	for i := range S {
		S[i] = make([]float64, n)
	}
	bin := []float64{1, 2, 1}
	S[0][0], S[0][1] = bin[1], bin[2]
	for i := 1; i < n-1; i++ {
		S[i][i-1], S[i][i], S[i][i+1] = bin[0], bin[1], bin[2]
	}
	S[n-1][n-1] = bin[0]
	for i := range S {
		var rs float64
		for _, v := range S[i] {
			rs += v
		}
		var v float64
		for j := range S[i] {
			v += S[i][j] / rs * theta[j]
		}
		if math.Abs(v-got[i]) > 1e-16 {
			t.Errorf("row %d: matrix gives %v, emSmooth %v", i, v, got[i])
		}
	}
}
