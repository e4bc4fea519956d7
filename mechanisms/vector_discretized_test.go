package mechanisms

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestNewVectorDiscretized checks that every reported coordinate lies on
// the grid (d/k)·i·C_b/m of the inner mechanism (a discretisation after the
// d/k scaling, or none at all, puts reports off it), that the variance is
// eq. (162) of the discretised inner mechanism (not the continuous one),
// and that Duchi and Laplace are refused.
func TestNewVectorDiscretized(t *testing.T) {
	const d, m = 6, 3
	v, err := NewVectorDiscretized("pm-sub", d, 4, m)
	if err != nil {
		t.Fatal(err)
	}
	kd := v.(*SampleKofD)
	z, ok := kd.Inner().(*Discretized)
	if !ok {
		t.Fatalf("inner %T, want *Discretized", kd.Inner())
	}
	step := float64(d) / float64(kd.K()) * z.Bound() / m
	x := []float64{-1, -0.4, 0, 0.3, 0.7, 1}
	dst := make([]float64, d)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		if err := v.PerturbVector(dst, x, rng); err != nil {
			t.Fatal(err)
		}
		for _, y := range dst {
			if r := y / step; math.Abs(r-math.Round(r)) > 1e-9 || math.Abs(r) > m+1e-9 {
				t.Fatalf("report %v is not on the grid of step %v", y, step)
			}
		}
	}
	want := float64(d)/float64(kd.K())*(z.Variance(0.3)+0.09) - 0.09
	if got := v.CoordinateVariance(0.3); math.Abs(got-want) > 1e-12*want {
		t.Errorf("variance %v, want %v", got, want)
	}
	for _, meth := range []string{"duchi", "laplace", "nope"} {
		if _, err := NewVectorDiscretized(meth, d, 4, m); err == nil {
			t.Errorf("%s accepted", meth)
		}
	}
}
