package mechanisms

import (
	"math"
	"testing"
)

// TestRound: eq. (35) at the edges: y = ±C_b and grid values are kept
// whatever the uniform, y is clamped, and other y go to a neighbour.
func TestRound(t *testing.T) {
	pm, _ := NewPM(2)
	z, err := NewDiscretized(pm, 7)
	if err != nil {
		t.Fatal(err)
	}
	us := []float64{0, 0.25, 0.5, 0.999999, math.Nextafter(1, 0)}
	for _, u := range us {
		if got := z.round(z.cb, u); got != z.outs[14] {
			t.Errorf("round(C_b, %v) = %v, want %v", u, got, z.outs[14])
		}
		if got := z.round(-z.cb, u); got != z.outs[0] {
			t.Errorf("round(-C_b, %v) = %v, want %v", u, got, z.outs[0])
		}
		if got := z.round(2*z.cb, u); got != z.outs[14] {
			t.Errorf("round(2C_b, %v) = %v, want the clamp %v", u, got, z.outs[14])
		}
		for i, g := range z.outs {
			if got := z.round(g, u); got != g {
				t.Errorf("round(grid[%d] = %v, %v) = %v", i, g, u, got)
			}
		}
		y := 0.3 * z.h
		if got := z.round(y, u); got != 0 && got != z.h {
			t.Errorf("round(%v, %v) = %v, not a neighbour", y, u, got)
		}
	}
	// P[up] = y/h - ⌊y/h⌋: u below it rounds up.
	if z.round(0.3*z.h, 0.29) != z.gridValue(1) || z.round(0.3*z.h, 0.31) != 0 {
		t.Error("round does not use the linear weights")
	}
}
