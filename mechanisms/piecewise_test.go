package mechanisms_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/mechtest"
)

func TestPMReference(t *testing.T) {
	// A = C = (s+1)/(s-1), worst case 4s/(3(s-1)²) and Var(0) =
	// (s+3)/(3(s-1)²), s = e^{ε/2}, from mpmath (40 digits).
	for _, c := range []struct{ eps, a, worst, var0 float64 }{
		{0.5, 8.0416233283755969285, 21.222568585158204543, 17.701756920970406078},
		{1, 4.0829881650735965683, 5.2235974520436850198, 3.6821033695068867357},
		{4, 1.3130352854993313036, 0.24135388698877015547, 0.084836244239104503651},
	} {
		m, err := mechanisms.NewPM(c.eps)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := m.OutputRange()
		if !relClose(hi, c.a, 1e-14) || lo != -hi {
			t.Errorf("ε=%v: output range [%v, %v], want ±%v", c.eps, lo, hi, c.a)
		}
		if !relClose(m.WorstCaseVariance(), c.worst, 1e-14) || !relClose(m.Variance(0), c.var0, 1e-14) {
			t.Errorf("ε=%v: worst %v, Var(0) %v; want %v, %v", c.eps, m.WorstCaseVariance(), m.Variance(0), c.worst, c.var0)
		}
	}
}

// TestPMMatchesWang: the family at t = e^{ε/2} is Wang et al.'s PM in the
// C, l, r, p, q parameterisation of Du et al. Section 2.4 and Raab et al.
// Definition 3.
func TestPMMatchesWang(t *testing.T) {
	for _, eps := range []float64{0.01, 0.5, 1, 4, 16} {
		m, _ := mechanisms.NewPM(eps)
		s := math.Exp(eps / 2)
		C := (s + 1) / (s - 1)
		p := (math.Exp(eps) - s) / (2 * (s + 1))
		q := (s - 1) / (2 * (s + math.Exp(eps)))
		if _, hi := m.OutputRange(); !relClose(hi, C, 1e-12) {
			t.Errorf("ε=%v: A = %v, C = %v", eps, hi, C)
		}
		for _, x := range mechtest.Grid(-1, 1, 10) {
			l := (C+1)*x/2 - (C-1)/2
			r := l + C - 1
			gl, gr := m.Window(x)
			if math.Abs(gl-l) > 1e-12*C || math.Abs(gr-r) > 1e-12*C {
				t.Errorf("ε=%v x=%v: window [%v, %v], want [%v, %v]", eps, x, gl, gr, l, r)
			}
			if d := m.Density((l+r)/2, x); !relClose(d, p, 1e-12) {
				t.Errorf("ε=%v x=%v: inner density %v, want p_pm = %v", eps, x, d, p)
			}
			if x > -1 {
				if d := m.Density((l-C)/2, x); !relClose(d, q, 1e-12) {
					t.Errorf("ε=%v x=%v: outer density %v, want q_pm = %v", eps, x, d, q)
				}
			}
			if inner := m.BucketGivenBin(l, r, x, x); !relClose(inner, s/(s+1), 1e-12) {
				t.Errorf("ε=%v x=%v: inner probability %v, want s/(s+1) = %v", eps, x, inner, s/(s+1))
			}
			want := x*x/(s-1) + (s+3)/(3*(s-1)*(s-1))
			if !relClose(m.Variance(x), want, 1e-12) {
				t.Errorf("ε=%v x=%v: variance %v, want var_pm %v", eps, x, m.Variance(x), want)
			}
		}
	}
}

// TestPiecewiseFamily checks eq. (31) and the density of the general family
// against numerical moments of the density, for several t.
func TestPiecewiseFamily(t *testing.T) {
	for _, eps := range []float64{0.1, 1, 4} {
		for _, tw := range []float64{0.3, math.Exp(eps / 3), math.Exp(eps / 2), 5} {
			m, err := mechanisms.NewPiecewise("pm-t", eps, tw)
			if err != nil {
				t.Fatal(err)
			}
			lo, hi := m.OutputRange()
			for _, x := range []float64{-1, -0.3, 0, 0.6, 1} {
				l, r := m.Window(x)
				f := func(k int) float64 {
					return integrateSplit(func(y float64) float64 {
						return math.Pow(y, float64(k)) * m.Density(y, x)
					}, lo, l, r, hi)
				}
				m0, m1, m2 := f(0), f(1), f(2)
				if math.Abs(m0-1) > 1e-11 || math.Abs(m1-x) > 1e-11*hi {
					t.Errorf("ε=%v t=%v x=%v: ∫f = %v, ∫yf = %v", eps, tw, x, m0, m1)
				}
				if v := m2 - x*x; !relClose(m.Variance(x), v, 1e-9) {
					t.Errorf("ε=%v t=%v x=%v: Variance %v, numerical %v", eps, tw, x, m.Variance(x), v)
				}
				// c/d = e^ε, with d read on the right side (R, A), empty at x = 1.
				if c, d := m.Density((l+r)/2, x), m.Density((r+hi)/2, x); x < 1 && !relClose(c/d, math.Exp(eps), 1e-12) {
					t.Errorf("ε=%v t=%v x=%v: c/d = %v", eps, tw, x, c/d)
				}
			}
		}
	}
}

// TestPMSub: NewPiecewise with t = e^{ε/3} has the worst case of eq. (33).
// integrateSplit integrates f over [pts[0], pts[len-1]] piece by piece
// between the given breakpoints (the density's jumps, from the papers'
// formulas): adaptive quadrature does not see a jump where y·f vanishes on
// the sample points.
func integrateSplit(f func(float64) float64, pts ...float64) float64 {
	sum := 0.0
	for i := 0; i+1 < len(pts); i++ {
		a, b := max(pts[i], pts[0]), min(pts[i+1], pts[len(pts)-1])
		if b > a {
			// Open pieces: the value at a jump is a convention.
			sum += mechtest.Integrate(func(y float64) float64 {
				if y == a || y == b {
					return f(min(max(y, a+(b-a)*1e-12), b-(b-a)*1e-12))
				}
				return f(y)
			}, a, b, 4, 1e-15)
		}
	}
	return sum
}

func TestPMSub(t *testing.T) {
	// eq. (33) from mpmath (40 digits).
	for _, c := range []struct{ eps, worst float64 }{
		{0.5, 21.076184957978551706}, {1, 5.0823387960713409744}, {4, 0.1665278782237831645},
	} {
		m, _ := mechanisms.NewPiecewise("pm-sub", c.eps, math.Exp(c.eps/3))
		if !relClose(m.WorstCaseVariance(), c.worst, 1e-14) {
			t.Errorf("ε=%v: worst %v, want %v", c.eps, m.WorstCaseVariance(), c.worst)
		}
	}
	for _, eps := range []float64{0.01, 2, 8, 16} {
		m, _ := mechanisms.NewPiecewise("pm-sub", eps, math.Exp(eps/3))
		e := math.Exp(eps)
		em := (e - 1) * (e - 1)
		want := 5*math.Exp(4*eps/3)/(3*em) + 5*math.Exp(2*eps/3)/(3*em) + 2*e/em
		if !relClose(m.WorstCaseVariance(), want, 1e-11) {
			t.Errorf("ε=%v: worst %v, eq. (33) %v", eps, m.WorstCaseVariance(), want)
		}
		pm, _ := mechanisms.NewPM(eps)
		if m.WorstCaseVariance() >= pm.WorstCaseVariance() {
			t.Errorf("ε=%v: PM-SUB %v not below PM %v (Zhao et al. Table II)", eps, m.WorstCaseVariance(), pm.WorstCaseVariance())
		}
	}
	m, _ := mechanisms.NewPiecewise("pm-sub", 1, math.Exp(1.0/3))
	checkMoments(t, m, xGrid, newRNG(41))
}

func TestPMBucketReference(t *testing.T) {
	m, _ := mechanisms.NewPM(1)
	// From mpmath quadrature of PM's density (Du et al. Section 2.4), split
	// at the kinks.
	for _, c := range []struct{ ylo, yhi, xlo, xhi, want float64 }{
		{0.3, 0.9, -0.4, 0.8, 0.11742782791467890689}, // two kinks inside the bin
		{0.3, 0.9, 0.2, 0.2, 0.12114078248892570527},
	} {
		if got := m.BucketGivenBin(c.ylo, c.yhi, c.xlo, c.xhi); !relClose(got, c.want, 1e-14) {
			t.Errorf("BucketGivenBin(%v, %v, %v, %v) = %v, want %v", c.ylo, c.yhi, c.xlo, c.xhi, got, c.want)
		}
	}
	// Narrow windows (ε = 16): exact bucket sums over a fine partition.
	m, _ = mechanisms.NewPM(16)
	l, r := m.Window(0.3)
	if got, want := m.BucketGivenBin(l, r, 0.3, 0.3), 1/(1+math.Exp(-8)); !relClose(got, want, 1e-14) {
		t.Errorf("ε=16: inner probability %v, want %v", got, want)
	}
}

// misreportedPM has the constants of one budget and claims another, with
// the claimed budget's variance.
type misreportedPM struct {
	*mechanisms.Piecewise
	claimed *mechanisms.Piecewise
}

func (m misreportedPM) Epsilon() float64           { return m.claimed.Epsilon() }
func (m misreportedPM) Variance(x float64) float64 { return m.claimed.Variance(x) }
func (m misreportedPM) WorstCaseVariance() float64 { return m.claimed.WorstCaseVariance() }

// fiftyFiftyPM chooses the outer side with probability 1/2 instead of by
// length (the trap of Zhao et al.'s eqs. (26)–(29)): biased for x ≠ 0.
type fiftyFiftyPM struct{ *mechanisms.Piecewise }

func (m fiftyFiftyPM) Perturb(x float64, rng *rand.Rand) float64 {
	e, tw := math.Exp(m.Epsilon()), m.T()
	l, r := m.Window(x)
	_, a := m.OutputRange()
	u, v := rng.Float64(), rng.Float64()
	switch {
	case u < e/(tw+e):
		return l + (r-l)*v
	case v < 0.5:
		return -a + (l+a)*2*v
	default:
		return r + (a-r)*(2*v-1)
	}
}

func (m fiftyFiftyPM) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	for i, x := range xs {
		dst[i] = m.Perturb(x, rng)
	}
	return nil
}

// midpointPM evaluates the transition at the bin midpoint instead of
// averaging over the bin (what the authors' code of p4 does for PM, E4.13).
type midpointPM struct{ *mechanisms.Piecewise }

func (m midpointPM) BucketGivenBin(ylo, yhi, xlo, xhi float64) float64 {
	mid := (xlo + xhi) / 2
	return m.Piecewise.BucketGivenBin(ylo, yhi, mid, mid)
}

func TestPMBrokenCaught(t *testing.T) {
	rng := newRNG(51)
	xs := mechtest.Grid(-1, 1, 100)
	for _, eps := range epsGrid {
		claimed, _ := mechanisms.NewPM(eps)
		_, a := claimed.OutputRange()
		ys := mechtest.Grid(-a*1.5, a*1.5, 1001)
		for _, c := range []struct {
			factor     float64
			ldp, tight bool
		}{{1.5, false, false}, {0.5, true, false}} {
			inner, _ := mechanisms.NewPM(c.factor * eps)
			m := misreportedPM{inner, claimed}
			name := fmt.Sprintf("ε=%v built at %vε", eps, c.factor)
			if err := mechtest.DensityLDP(m, xs, ys, m.Epsilon(), 1e-9); (err == nil) != c.ldp {
				t.Errorf("%s: DensityLDP error %v", name, err)
			}
			if err := mechtest.DensityLDPTight(m, xs, ys, m.Epsilon(), 1e-9); (err == nil) != c.tight {
				t.Errorf("%s: DensityLDPTight error %v", name, err)
			}
			for _, x := range []float64{0, 1} {
				if err := mechtest.Variance(m, x, nMC, rng, mechtest.DefaultAlpha); err == nil {
					t.Errorf("%s: the variance check missed it at x = %v", name, x)
				}
			}
			// Still unbiased: the unbiasedness check must not flag it.
			if err := mechtest.Unbiased(m, 0.7, nMC, rng, mechtest.DefaultAlpha); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}

		ff := fiftyFiftyPM{claimed}
		for _, x := range []float64{-1, 1} {
			if err := mechtest.Unbiased(ff, x, nMC, rng, mechtest.DefaultAlpha); err == nil {
				t.Errorf("ε=%v x=%v: the unbiasedness check missed 50/50 side choice", eps, x)
			}
		}

		mid := midpointPM{claimed}
		if err := mechtest.BucketsMatchDensity(mid, mechtest.Grid(-a, a, 8), mechtest.Grid(-1, 1, 4), 1e-9); err == nil {
			t.Errorf("ε=%v: BucketsMatchDensity missed the midpoint transition", eps)
		}
	}
}
