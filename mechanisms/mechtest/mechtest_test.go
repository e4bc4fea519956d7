package mechtest_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/mechtest"
)

func TestZ(t *testing.T) {
	// sqrt(2)·erfinv(1-alpha), mpmath.
	for _, c := range []struct{ alpha, z float64 }{
		{1e-6, 4.8916384756985903862},
		{0.05, 1.9599639845400542355},
	} {
		if got := mechtest.Z(c.alpha); math.Abs(got-c.z) > 1e-9 {
			t.Errorf("Z(%v) = %v, want %v", c.alpha, got, c.z)
		}
	}
}

func TestGrid(t *testing.T) {
	g := mechtest.Grid(-1, 1, 4)
	want := []float64{-1, -0.5, 0, 0.5, 1}
	for i := range want {
		if g[i] != want[i] {
			t.Fatalf("Grid(-1, 1, 4) = %v", g)
		}
	}
}

func TestIntegrate(t *testing.T) {
	step := func(p float64) func(float64) float64 {
		return func(y float64) float64 {
			if y < p {
				return 1
			}
			return 3
		}
	}
	for _, c := range []struct {
		name string
		f    func(float64) float64
		a, b float64
		want float64
	}{
		{"step", step(0.123456789), 0, 1, 0.123456789 + 3*(1-0.123456789)},
		{"step at a panel edge", step(0.25), 0, 1, 0.25 + 3*0.75},
		{"hinge", func(y float64) float64 { return max(0, y-0.3141592653589793) }, 0, 1, (1 - 0.3141592653589793) * (1 - 0.3141592653589793) / 2},
		// mpmath quadrature.
		{"laplace kernel", func(y float64) float64 { return math.Exp(-math.Abs(y - 0.3)) }, -1, 2, 1.5447846829132527467},
		{"cubic", func(y float64) float64 { return y * y * y }, -1, 3, 20},
	} {
		if got := mechtest.Integrate(c.f, c.a, c.b, 32, 1e-14); math.Abs(got-c.want) > 1e-11 {
			t.Errorf("%s: %v, want %v (error %.2g)", c.name, got, c.want, got-c.want)
		}
	}
	// A function that is rough everywhere ends on the bisection budget
	// instead of running for ever.
	rng := rand.New(rand.NewPCG(1, 1))
	noise := func(float64) float64 { return rng.Float64() }
	if got := mechtest.Integrate(noise, 0, 1, 4, 1e-15); !(got > 0.4 && got < 0.6) {
		t.Errorf("noise integrates to %v", got)
	}
}

// noVariance is a mechanism without a closed-form variance.
type noVariance struct{ mechanisms.Mechanism }

func TestArgumentErrors(t *testing.T) {
	m, _ := mechanisms.NewDuchi(1)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"n", mechtest.Unbiased(m, 0, 1, rng, mechtest.DefaultAlpha), "n = 1"},
		{"alpha", mechtest.Variance(m, 0, 100, rng, 0), "alpha"},
		{"variancer", mechtest.Unbiased(noVariance{m}, 0, 100, rng, mechtest.DefaultAlpha), "closed-form variance"},
		{"domain", mechtest.Unbiased(m, 2, 100, rng, mechtest.DefaultAlpha), "outside the domain"},
		{"not continuous", mechtest.ContinuousFit(m, 0, []float64{-2, 2}, 100, rng, mechtest.DefaultAlpha), "not a Continuous"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, c.err, c.want)
		}
	}
	pm, _ := mechanisms.NewPM(1)
	if err := mechtest.BucketsSumToOne(pm, []float64{-1, 1}, []float64{-1, 1}, 1e-12); err == nil {
		t.Error("BucketsSumToOne accepted buckets that do not cover the output range")
	}
	if err := mechtest.ContinuousFit(pm, 0, mechtest.Grid(-5, 5, 1000), 1000, rng, mechtest.DefaultAlpha); err == nil || !strings.Contains(err.Error(), "expected count") {
		t.Errorf("ContinuousFit with tiny expected counts: %v", err)
	}
}
