package mechanisms_test

import (
	"errors"
	"math"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// quartic58 is eq. (58), t⁴ + 2e·t³ - 2e·t - e², divided by e² (so that its
// value is relative to the size of its terms).
func quartic58(eps, t float64) float64 {
	e := math.Exp(eps)
	return (t*t*t*t + 2*e*t*t*t - 2*e*t - e*e) / (e * e)
}

// pmOptClosedForm is eq. (30) as corrected by E3.4, in its compact form:
// t = -E/2 + sgn(2 - E²)·S/2 + ½√(2E² - 2^{2/3}K + |4E - 2E³|/S), E = e^ε,
// K = ∛(E² - E⁴) (real, negative), S = √(E² + 2^{2/3}K). It is 0/0 at
// ε = ln √2, where (30c) holds.
func pmOptClosedForm(eps float64) float64 {
	E := math.Exp(eps)
	K := math.Cbrt(E*E - E*E*E*E)
	c := math.Cbrt(4) // 2^{2/3}
	S := math.Sqrt(E*E + c*K)
	sgn := 1.0
	if 2-E*E < 0 {
		sgn = -1
	}
	return -E/2 + sgn*S/2 + 0.5*math.Sqrt(2*E*E-c*K+math.Abs(4*E-2*E*E*E)/S)
}

// pmOptPrinted30b is branch (30b) as printed: the second square root enters
// with a minus sign, so every term is negative (E3.4).
func pmOptPrinted30b(eps float64) float64 {
	E := math.Exp(eps)
	K := math.Cbrt(E*E - E*E*E*E)
	c := math.Cbrt(4)
	S := math.Sqrt(E*E + c*K)
	return -S/2 - 0.5*math.Sqrt(2*E*E-c*K-(4*E-2*E*E*E)/S) - E/2
}

func TestPMOptT(t *testing.T) {
	// The positive root of eq. (58) and the worst case eq. (32) at it, from
	// testdata/zhao_reference.py (mpmath, 50 digits).
	for _, c := range []struct{ eps, t, worst float64 }{
		{0.001, 1.0002500312565115559, 5333333.055555566059},
		{0.3, 1.0779972043998050795, 58.982423618129335578},
		{0.5, 1.1336933809420929794, 21.058157080230861141},
		{1, 1.2887565694440261101, 5.0656811521461282439},
		{2, 1.690645730240645829, 1.0921569546868997768},
		{4, 3.091759160245662397, 0.16184789944633039392},
		{8, 11.44471533124566138, 0.008384465957898625347},
		{16, 164.3985270843905683, 0.000037226997199185224733},
		{30, 17482.417501208954158, 3.2720645890159073404e-9},
	} {
		got := mechanisms.PMOptT(c.eps)
		if !relClose(got, c.t, 4e-16) {
			t.Errorf("ε=%v: t* = %.17g, want %.17g", c.eps, got, c.t)
		}
		m, err := mechanisms.NewPMOpt(c.eps)
		if err != nil {
			t.Fatal(err)
		}
		if m.Name() != "pm-opt" || m.T() != got {
			t.Errorf("ε=%v: NewPMOpt has name %q, t %v", c.eps, m.Name(), m.T())
		}
		// Eq. (31) loses a few digits to e-1 at ε = 0.001.
		if !relClose(m.WorstCaseVariance(), c.worst, 1e-12) {
			t.Errorf("ε=%v: worst case %.17g, want %.17g", c.eps, m.WorstCaseVariance(), c.worst)
		}
	}
	// (30c) at ε = ln √2 (printed correctly), and the mpmath root there.
	if got, want := mechanisms.PMOptT(math.Log(math.Sqrt2)), (math.Sqrt(3+2*math.Sqrt(3))-1)/math.Sqrt2; !relClose(got, want, 1e-15) || !relClose(got, 1.090683753767087527, 1e-15) {
		t.Errorf("ε = ln √2: t* = %.17g, (30c) %.17g", got, want)
	}
	// Robust over the whole range: a root of (58) to rounding, between 1
	// and 1 + (e/2)^{1/3}, increasing in ε, and → (e^ε/2)^{1/3} (E3.14).
	prev := 1.0
	for eps := 1e-3; eps <= 30; eps *= 1.05 {
		tw := mechanisms.PMOptT(eps)
		if r := quartic58(eps, tw); !(math.Abs(r) < 1e-14) || !(tw > prev) || !(tw < 1+math.Cbrt(math.Exp(eps)/2)) {
			t.Fatalf("ε=%v: t* = %v, residual %v (previous %v)", eps, tw, r, prev)
		}
		prev = tw
	}
	if got, want := mechanisms.PMOptT(60), math.Cbrt(math.Exp(60)/2); !relClose(got, want, 1e-8) {
		t.Errorf("ε=60: t* = %v, asymptote (e^ε/2)^{1/3} = %v", got, want)
	}
	for _, eps := range []float64{0, -1, math.NaN()} {
		if !math.IsNaN(mechanisms.PMOptT(eps)) {
			t.Errorf("PMOptT(%v) = %v, want NaN", eps, mechanisms.PMOptT(eps))
		}
	}
}

// TestPMOptClosedForm: the corrected closed form eq. (30) is an independent
// check of the root (it loses digits near ln √2, where it is 0/0, and at
// large ε). The printed branch (30b) gives a negative t (E3.4): it is in
// fact the negative real root of (58), a root but not the width, which must
// be positive; the family rejects it, and its magnitude is no fix either.
func TestPMOptClosedForm(t *testing.T) {
	lnSqrt2 := math.Log(math.Sqrt2)
	for _, eps := range []float64{0.001, 0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 1.5, 2, 3, 4, 6, 8, 12, 16} {
		tol := 1e-12
		if math.Abs(eps-lnSqrt2) < 0.1 || eps > 8 {
			tol = 1e-9
		}
		if got, cf := mechanisms.PMOptT(eps), pmOptClosedForm(eps); !relClose(got, cf, tol) {
			t.Errorf("ε=%v: root %.17g, corrected eq. (30) %.17g", eps, got, cf)
		}
		if eps <= lnSqrt2 {
			continue
		}
		p := pmOptPrinted30b(eps)
		// (58) at the printed t, relative to its largest term t⁴.
		if r := quartic58(eps, p) * math.Exp(2*eps) / (p * p * p * p); !(p < 0) || math.Abs(r) > 1e-9 {
			t.Errorf("ε=%v: printed (30b) gives t = %v (relative residual %v), want the negative root of (58)", eps, p, r)
		}
		if _, err := mechanisms.NewPiecewise("pm-opt-printed", eps, p); err == nil {
			t.Errorf("ε=%v: the piecewise family accepted the printed t = %v", eps, p)
		}
		// The printed form's magnitude is no fix either.
		good, _ := mechanisms.NewPMOpt(eps)
		bad, _ := mechanisms.NewPiecewise("pm-opt-printed", eps, -p)
		if !(bad.WorstCaseVariance() > good.WorstCaseVariance()) {
			t.Errorf("ε=%v: |printed t| = %v has worst case %v ≤ PM-OPT's %v", eps, -p, bad.WorstCaseVariance(), good.WorstCaseVariance())
		}
	}
}

// TestPMOptIsOptimal: t* minimises eq. (32) over t (a bracketing scan and
// a golden-section search), PM-OPT ≤ PM-SUB < PM, and ln t*/ε < 1/3 (E3.14).
func TestPMOptIsOptimal(t *testing.T) {
	worst := func(eps, tw float64) float64 {
		m, err := mechanisms.NewPiecewise("pm-t", eps, tw)
		if err != nil {
			t.Fatal(err)
		}
		return m.WorstCaseVariance()
	}
	for _, eps := range []float64{0.1, 0.5, 1, 2, 3, 4, 5, 8} {
		ts := mechanisms.PMOptT(eps)
		w := worst(eps, ts)
		for _, f := range []float64{0.5, 0.9, 0.99, 0.999, 1.001, 1.01, 1.1, 2} {
			if v := worst(eps, ts*f); !(v > w) {
				t.Errorf("ε=%v: worst case %v at %v·t* not above %v at t*", eps, v, f, w)
			}
		}
		// Golden section on [t*/2, 2t*] finds t* to √(rounding).
		a, b := ts/2, 2*ts
		g := (math.Sqrt(5) - 1) / 2
		for range 100 {
			c, d := b-g*(b-a), a+g*(b-a)
			if worst(eps, c) < worst(eps, d) {
				b = d
			} else {
				a = c
			}
		}
		if !relClose((a+b)/2, ts, 1e-6) {
			t.Errorf("ε=%v: golden section %v, t* %v", eps, (a+b)/2, ts)
		}
		sub, _ := mechanisms.NewPMSub(eps)
		pm, _ := mechanisms.NewPM(eps)
		if !(w <= sub.WorstCaseVariance() && sub.WorstCaseVariance() < pm.WorstCaseVariance()) {
			t.Errorf("ε=%v: PM-OPT %v, PM-SUB %v, PM %v", eps, w, sub.WorstCaseVariance(), pm.WorstCaseVariance())
		}
		if r := math.Log(ts) / eps; !(r < 1.0/3) {
			t.Errorf("ε=%v: ln t*/ε = %v", eps, r)
		}
	}
}

func TestPMSubConstructor(t *testing.T) {
	for _, eps := range []float64{0.01, 1, 4, 16} {
		m, err := mechanisms.NewPMSub(eps)
		if err != nil {
			t.Fatal(err)
		}
		ref, _ := mechanisms.NewPiecewise("pm-sub", eps, math.Exp(eps/3))
		if m.Name() != "pm-sub" || m.T() != ref.T() || m.WorstCaseVariance() != ref.WorstCaseVariance() {
			t.Errorf("ε=%v: NewPMSub %q t=%v, want t=%v", eps, m.Name(), m.T(), ref.T())
		}
	}
	for _, ctor := range []func(float64) (*mechanisms.Piecewise, error){mechanisms.NewPMSub, mechanisms.NewPMOpt} {
		for _, eps := range []float64{0, -1, math.NaN(), math.Inf(1)} {
			_, err := ctor(eps)
			var pe *mechanisms.ParamError
			if !errors.As(err, &pe) || pe.Param != "epsilon" {
				t.Errorf("ε=%v: error %v, want a *ParamError on epsilon", eps, err)
			}
		}
	}
}
