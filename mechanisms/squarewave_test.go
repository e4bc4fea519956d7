package mechanisms_test

import (
	"math"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/mechtest"
)

func TestSquareWaveB(t *testing.T) {
	// b = (εe^ε - e^ε + 1)/(2e^ε(e^ε - ε - 1)) from mpmath (40 digits).
	for _, c := range []struct{ eps, b float64 }{
		{1e-4, 0.49996666777775185235},
		{1e-3, 0.49966677775185678932},
		{0.01, 0.49667775190115384662},
		{0.1, 0.46775233770781769009},
		{0.5, 0.35815542461116703808},
		{1, 0.2560829375014726232},
		{4, 0.030427703824353609963},
		{16, 8.4401543141073480588e-7},
		{50, 4.7254371275115985684e-21},
	} {
		m, err := mechanisms.NewSquareWave(c.eps)
		if err != nil {
			t.Fatal(err)
		}
		if !relClose(m.B(), c.b, 4e-16) {
			t.Errorf("ε=%v: b = %v, want %v (relative error %.2g)", c.eps, m.B(), c.b, m.B()/c.b-1)
		}
		lo, hi := m.OutputRange()
		if lo != -m.B() || hi != 1+m.B() {
			t.Errorf("ε=%v: output range [%v, %v]", c.eps, lo, hi)
		}
	}
	// The printed formula evaluated directly loses half the digits at
	// ε = 1e-4 (e^ε - ε - 1 cancels): why b is computed otherwise.
	eps := 1e-4
	e := math.Exp(eps)
	naive := (eps*e - e + 1) / (2 * e * (e - eps - 1))
	if relClose(naive, 0.49996666777775185235, 1e-9) {
		t.Errorf("the naive formula is accurate (%v): the series is unnecessary", naive)
	}
}

func TestSquareWaveReference(t *testing.T) {
	// p, q, var_usw at s = 0 (the worst case) and s = 1/2, from mpmath.
	for _, c := range []struct{ eps, p, q, worst, half float64 }{
		{0.5, 0.75594845886345800957, 0.45850591746320171587, 5.3794760804485615164, 4.4561049557677640545},
		{1, 1.136305121589718811, 0.41802329313067357561, 1.3790245115869011888, 0.94945405447213987992},
		{4, 12.630880147922285722, 0.23134263963622595206, 0.12214308128715025885, 0.04083246979385588681},
	} {
		m, _ := mechanisms.NewSquareWave(c.eps)
		b := m.B()
		p, q := m.Density(0.5, 0.5), m.Density(0.5+2*b+0.01, 0.5)
		if !relClose(p, c.p, 1e-14) || !relClose(q, c.q, 1e-14) {
			t.Errorf("ε=%v: p = %v, q = %v; want %v, %v", c.eps, p, q, c.p, c.q)
		}
		if !relClose(m.WorstCaseVariance(), c.worst, 1e-13) || !relClose(m.Variance(0.5), c.half, 1e-13) {
			t.Errorf("ε=%v: worst %v, Var(1/2) %v; want %v, %v", c.eps, m.WorstCaseVariance(), m.Variance(0.5), c.worst, c.half)
		}
		if !relClose(m.Variance(1), c.worst, 1e-13) {
			t.Errorf("ε=%v: Var(1) = %v, want Var(0) = %v", c.eps, m.Variance(1), c.worst)
		}
		u, _ := mechanisms.Unbiased(m)
		if !relClose(u.WorstCaseVariance(), 4*c.worst, 1e-13) || !relClose(u.Variance(0), 4*c.half, 1e-13) {
			t.Errorf("ε=%v: Unbiased(sw) worst %v, Var(0) %v; want 4× (E4.5)", c.eps, u.WorstCaseVariance(), u.Variance(0))
		}
	}
}

// TestSquareWaveFormulas: the implementation against the formulas as
// printed in Du et al. Section 2.5, at ε where they are numerically safe.
func TestSquareWaveFormulas(t *testing.T) {
	for _, eps := range []float64{0.1, 0.5, 1, 2, 4, 8} {
		m, _ := mechanisms.NewSquareWave(eps)
		e := math.Exp(eps)
		b := (eps*e - e + 1) / (2 * e * (e - eps - 1))
		p, q := e/(2*b*e+1), 1/(2*b*e+1)
		if math.Abs(q+2*b*p-1) > 1e-15 {
			t.Fatalf("ε=%v: spec constants do not normalise", eps)
		}
		for _, s := range mechtest.Grid(0, 1, 20) {
			mean := q/2 + q*b + 2*b*(p-q)*s
			if math.Abs(m.Mean(s)-mean) > 1e-12 || math.Abs(m.Debias(mean)-s) > 1e-11 {
				t.Errorf("ε=%v s=%v: mean %v, want %v; Debias(mean) = %v", eps, s, m.Mean(s), mean, m.Debias(mean))
			}
			// var_sw of Section 2.5, printed form.
			vsw := q*(b*b*b-math.Pow(b+s, 3)-math.Pow(b-s, 3)+math.Pow(b+1, 3))/3 -
				math.Pow(q+2*b*q+4*b*p*s-4*b*q*s, 2)/4 + 2*b*p*(b*b+3*s*s)/3
			if math.Abs(m.RawVariance(s)-vsw) > 1e-12 {
				t.Errorf("ε=%v s=%v: var_sw %v, printed %v", eps, s, m.RawVariance(s), vsw)
			}
			k := 2 * b * (p - q)
			if !relClose(m.Variance(s), vsw/(k*k), 1e-10) {
				t.Errorf("ε=%v s=%v: var_usw %v, printed %v", eps, s, m.Variance(s), vsw/(k*k))
			}
			// Moments of the density, numerically.
			lo, hi := m.OutputRange()
			mom := func(j int) float64 {
				return integrateSplit(func(y float64) float64 { return math.Pow(y, float64(j)) * m.Density(y, s) }, lo, s-b, s+b, hi)
			}
			if m0, m1, m2 := mom(0), mom(1), mom(2); math.Abs(m0-1) > 1e-11 || math.Abs(m1-mean) > 1e-11 || math.Abs(m2-m1*m1-vsw) > 1e-10 {
				t.Errorf("ε=%v s=%v: numerical moments %v, %v, %v", eps, s, m0, m1, m2-m1*m1)
			}
		}
	}
}

func TestSquareWaveSmallAndLargeEpsilon(t *testing.T) {
	for _, eps := range []float64{1e-4, 1e-3, 16, 30} {
		m, _ := mechanisms.NewSquareWave(eps)
		lo, hi := m.OutputRange()
		for _, s := range []float64{0, 0.3, 1} {
			if sum := m.BucketGivenBin(lo, hi, s, s); math.Abs(sum-1) > 1e-13 {
				t.Errorf("ε=%v s=%v: total probability %v", eps, s, sum)
			}
			if got := m.Debias(m.Mean(s)); math.Abs(got-s) > 1e-9 {
				t.Errorf("ε=%v s=%v: Debias(Mean) = %v", eps, s, got)
			}
			if v := m.Variance(s); !(v > 0) || math.IsInf(v, 0) {
				t.Errorf("ε=%v s=%v: variance %v", eps, s, v)
			}
		}
		// The window's share of the mass, 2bp = 2be^ε/(2be^ε+1) = 1 - q.
		b := m.B()
		win := m.BucketGivenBin(-b, b, 0, 0)
		wantWin := 1 - m.Density(0.9, 0)
		if !relClose(win, wantWin, 1e-12) {
			t.Errorf("ε=%v: window probability %v, want %v", eps, win, wantWin)
		}
	}
	// Small ε: SW tends to a uniform report on [-1/2, 3/2], with the
	// debiased variance of order 1/(3ε²)·... finite and positive.
	m, _ := mechanisms.NewSquareWave(1e-4)
	if v := m.WorstCaseVariance(); !(v > 1e7 && v < 1e9) {
		t.Errorf("ε=1e-4: worst variance %v", v)
	}
}

func TestSquareWaveBucketReference(t *testing.T) {
	m, _ := mechanisms.NewSquareWave(1)
	// From mpmath quadrature of the density of Du et al. Section 2.5.
	for _, c := range []struct{ ylo, yhi, slo, shi, want float64 }{
		{0.2, 0.5, 0.1, 0.4, 0.31609630305081251274},
		{0.2, 0.5, 0.3, 0.3, 0.34089153647691564329},
	} {
		if got := m.BucketGivenBin(c.ylo, c.yhi, c.slo, c.shi); !relClose(got, c.want, 1e-14) {
			t.Errorf("BucketGivenBin(%v, %v, %v, %v) = %v, want %v", c.ylo, c.yhi, c.slo, c.shi, got, c.want)
		}
	}
}

// rawSW hides the de-biasing map of Square Wave: its reports are the raw,
// biased ones.
type rawSW struct {
	mechanisms.Mechanism
	mechanisms.Variancer
}

func TestSquareWaveBrokenCaught(t *testing.T) {
	rng := newRNG(61)
	for _, eps := range epsGrid {
		sw, _ := mechanisms.NewSquareWave(eps)
		m := rawSW{sw, sw}
		for _, s := range []float64{0, 1} {
			if err := mechtest.Unbiased(m, s, nMC, rng, mechtest.DefaultAlpha); err == nil {
				t.Errorf("ε=%v s=%v: the unbiasedness check missed the missing de-biasing", eps, s)
			}
		}
		// By symmetry the raw report is unbiased at s = 1/2: the grid needs
		// its ends.
		if err := mechtest.Unbiased(m, 0.5, nMC, rng, mechtest.DefaultAlpha); err != nil {
			t.Errorf("ε=%v: %v", eps, err)
		}
	}
}

// unscaledSW is SW as an estimate on [-1, 1] with the variance var_usw of
// Section 4.1 used as printed, without the ×4 of the [0, 1] → [-1, 1] map
// (E4.5).
type unscaledSW struct {
	mechanisms.Estimate
	sw *mechanisms.SquareWave
}

func (m unscaledSW) Variance(x float64) float64 { return m.sw.Variance((x + 1) / 2) }

// TestSquareWaveE45: the estimate of mechanisms.Unbiased passes the
// variance check on [-1, 1] (TestMoments), the printed-scale variance
// fails it.
func TestSquareWaveE45(t *testing.T) {
	rng := newRNG(71)
	for _, eps := range epsGrid {
		sw, _ := mechanisms.NewSquareWave(eps)
		u, _ := mechanisms.Unbiased(sw)
		for _, x := range []float64{-1, 0, 1} {
			if got, want := u.Variance(x), 4*sw.Variance((x+1)/2); !relClose(got, want, 1e-15) {
				t.Errorf("ε=%v x=%v: Unbiased(sw).Variance %v, want %v", eps, x, got, want)
			}
			if err := mechtest.Variance(unscaledSW{u, sw}, x, nMC, rng, mechtest.DefaultAlpha); err == nil {
				t.Errorf("ε=%v x=%v: the variance check accepted the unscaled variance", eps, x)
			}
		}
	}
}
