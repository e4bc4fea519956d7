package central

import (
	"fmt"
	"math"
	"testing"

	"github.com/ldpbench/ldpbench/centraldp"
)

// integrate is composite Simpson on [a, b] with n (even) intervals.
func integrate(f func(float64) float64, a, b float64, n int) float64 {
	h := (b - a) / float64(n)
	s := f(a) + f(b)
	for i := 1; i < n; i++ {
		x := a + float64(i)*h
		if i%2 == 1 {
			s += 4 * f(x)
		} else {
			s += 2 * f(x)
		}
	}
	return s * h / 3
}

// stepIntegral sums ∫ f·density over x ≥ lo (up to top), piece by piece,
// for a density that is constant between the breakpoints k and k + γ:
// F is an antiderivative of f, the density is read at each piece's
// midpoint from package central. Independent of the laws' closed forms
// (geometric mixtures, telescoped rings).
func stepIntegral(F func(float64) float64, density func(float64) float64, lo, gamma, top float64) float64 {
	var breaks []float64
	for k := 0.0; k < top; k++ {
		breaks = append(breaks, k, k+gamma)
	}
	breaks = append(breaks, top)
	var sum float64
	for i := 0; i+1 < len(breaks); i++ {
		a, b := math.Max(breaks[i], lo), breaks[i+1]
		if b <= a {
			continue
		}
		sum += density((a+b)/2) * (F(b) - F(a))
	}
	return sum
}

// power returns the antiderivative of c·x^p.
func power(c float64, p int) func(float64) float64 {
	return func(x float64) float64 { return c * math.Pow(x, float64(p+1)) / float64(p+1) }
}

// TestStaircaseLawMoments: the staircase law's moments and tail against
// a direct integration of the density of package centraldp (2·∫₀^∞ over
// the steps), and its second moment against SigmaSq at γ*. Bugs caught:
// a wrong mixture weight p0 (the moments move by the outer/inner
// imbalance), the tail's memoryless shift off by one step (E[Z²; |Z| > x]
// off by a factor e^{±ε}), a geometric moment of the wrong order.
func TestStaircaseLawMoments(t *testing.T) {
	for _, c := range []struct{ eps, gamma float64 }{
		{0.5, 0.3}, {1, centraldp.GammaStar(1)}, {4, centraldp.GammaStar(4)}, {10, centraldp.GammaStar(10)}, {2, 0}, {2, 1},
	} {
		t.Run(fmt.Sprintf("eps=%g,gamma=%.3f", c.eps, c.gamma), func(t *testing.T) {
			l := staircaseLaw(c.eps, c.gamma)
			s, err := centraldp.NewStaircase(c.eps, c.gamma, 1)
			if err != nil {
				t.Fatal(err)
			}
			top := 60/c.eps + 2
			dens := func(x float64) float64 { return 2 * s.Density(x) }
			for p, want := range map[int]float64{2: l.m2, 3: l.m3, 4: l.m4} {
				got := stepIntegral(power(1, p), dens, 0, c.gamma, top)
				if math.Abs(got-want) > 1e-9*want {
					t.Errorf("E|Z|^%d = %.12g by integration, law %.12g", p, got, want)
				}
			}
			if got, want := l.m2, s.SecondMoment(); math.Abs(got-want) > 1e-12*want {
				t.Errorf("m2 = %.15g, central's SecondMoment %.15g", got, want)
			}
			for _, x := range []float64{0, 0.1, c.gamma, 0.7, 1, 1.5, 2.3, 5} {
				got := stepIntegral(power(1, 2), dens, x, c.gamma, top)
				if want := l.tail(x); math.Abs(got-want) > 1e-9*l.m2 {
					t.Errorf("tail(%g) = %.12g, integration %.12g", x, want, got)
				}
			}
		})
	}
	if got, want := staircaseLaw(3, centraldp.GammaStar(3)).m2, centraldp.SigmaSq(3); math.Abs(got-want) > 1e-12*want {
		t.Errorf("E Z² at γ* = %.15g, σ²(3) = %.15g", got, want)
	}
}

// TestStaircase2DLawMoments: the 2-D staircase coordinate's moments
// against a direct integration over the ℓ1 rings of central's density,
// its second moment against central's closed form, and the tail bound
// against the radius integral. Bugs caught: the uncorrected normaliser
// (E1.2: every moment off by a factor 2), the ring area 2(R2² − R1²)
// taken as R2² − R1², the telescoped outer ring with the wrong power of r.
func TestStaircase2DLawMoments(t *testing.T) {
	for _, c := range []struct{ eps, gamma float64 }{
		{0.5, 0.4}, {1, centraldp.Staircase2DGamma(1)}, {4, centraldp.Staircase2DGamma(4)}, {9, centraldp.Staircase2DGamma(9)},
	} {
		t.Run(fmt.Sprintf("eps=%g", c.eps), func(t *testing.T) {
			l := staircase2DLaw(c.eps, c.gamma)
			s, err := centraldp.NewStaircase2D(c.eps, c.gamma, 1)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := l.m2, s.SecondMoment(); math.Abs(got-want) > 1e-12*want {
				t.Errorf("m2 = %.15g, central's SecondMoment %.15g", got, want)
			}
			// Density on the ring of radius ρ, times the ring's measure
			// 4ρ dρ, times the average of |x|^p over the ℓ1 circle of
			// radius ρ (x = ρV, V uniform): ρ^p/(p+1).
			top := 60/c.eps + 2
			dens := func(rho float64) float64 { return s.Density(rho, 0) }
			for p, want := range map[int]float64{2: l.m2, 3: l.m3, 4: l.m4} {
				got := stepIntegral(power(4/float64(p+1), p+1), dens, 0, c.gamma, top)
				if math.Abs(got-want) > 1e-9*want {
					t.Errorf("E|x|^%d = %.12g by integration, law %.12g", p, got, want)
				}
			}
			for _, x := range []float64{0, 0.2, 1, 2.5, 6} {
				got := stepIntegral(power(4, 3), dens, x, c.gamma, top)
				if want := l.tail(x); math.Abs(got-want) > 1e-9*math.Max(got, 1e-300)+1e-15*l.m2 {
					t.Errorf("radius tail(%g) = %.12g, integration %.12g", x, want, got)
				}
			}
		})
	}
}

// TestLaplaceLawTail: the Laplace tail E[Z²; |Z| > x] against
// integration. Bug caught: the tail of one side only (a factor 2).
func TestLaplaceLawTail(t *testing.T) {
	l := laplaceLaw(0.7)
	for _, x := range []float64{0, 0.3, 2, 9} {
		got := 2 * integrate(func(z float64) float64 { return z * z * math.Exp(-z/0.7) / 1.4 }, x, 80, 20000)
		if want := l.tail(x); math.Abs(got-want) > 1e-9*l.m2 {
			t.Errorf("tail(%g) = %.12g, integration %.12g", x, want, got)
		}
	}
}
