package mechanisms_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/mechtest"
)

// epsPrime is ε′ = ln((3+√65)/2) of eq. (8).
var epsPrime = math.Log((3 + math.Sqrt(65)) / 2)

// toEps are budgets on both sides of ln 2 and ε′ ≈ 1.71, and far above.
var toEps = []float64{0.01, 0.3, 0.5, math.Ln2, 0.7, 1, 1.5, 1.7, epsPrime, 1.75, 2, 4, 8, 16, 30}

func TestThreeOutputsReference(t *testing.T) {
	// a = P[0|0], C, the worst case eq. (122) and Var at x = 0.3, from
	// testdata/zhao_reference.py (mpmath, 50 digits; a from the cubic (92)
	// by mpmath.findroot).
	for _, c := range []struct{ eps, a, c, worst, v03 float64 }{
		{0.5, 0, 4.0829881650735965683, 16.670792356131055059, 16.580792356131055059},
		{0.7, 0.010650537516509247296, 2.9886745292063559358, 8.8376163608478508645, 8.7614102968744350135},
		{1, 0.28607689713351112131, 2.4184784622535578769, 4.4554517159044341616, 4.4030768039286937541},
		{1.5, 0.60660942652943870622, 1.8208975176006146471, 1.9147276126332142333, 1.6831115094821202375},
		{2, 0.78698604216159849898, 1.4695529282489969555, 0.99991837268210349083, 0.81088779892550217898},
		{4, 0.96466315597190390157, 1.0559720810913221438, 0.3181725623130949145, 0.26619492762940710027},
		{8, 0.99932952458308558061, 1.0010067256025237349, 0.25117544224134656939, 0.21097384374673212822},
		{30, 0.99999999999981284754, 1.0000000000002807287, 0.2500000000003275168, 0.21000000000027137107},
	} {
		m, err := mechanisms.NewThreeOutputs(c.eps)
		if err != nil {
			t.Fatal(err)
		}
		// a just above ln 2 is small and has a small absolute error.
		if math.Abs(m.A()-c.a) > 1e-15*max(1, c.a*10) || !relClose(m.C(), c.c, 1e-14) {
			t.Errorf("ε=%v: a = %.17g, C = %.17g; want %.17g, %.17g", c.eps, m.A(), m.C(), c.a, c.c)
		}
		if !relClose(m.WorstCaseVariance(), c.worst, 1e-13) || !relClose(m.Variance(0.3), c.v03, 1e-13) || !relClose(m.Variance(-0.3), c.v03, 1e-13) {
			t.Errorf("ε=%v: worst %.17g, Var(±0.3) %.17g, %.17g; want %.17g, %.17g", c.eps, m.WorstCaseVariance(), m.Variance(0.3), m.Variance(-0.3), c.worst, c.v03)
		}
		if out := m.Outputs(); len(out) != 3 || out[0] != -m.C() || out[1] != 0 || out[2] != m.C() {
			t.Errorf("ε=%v: outputs %v", c.eps, out)
		}
	}
}

// eq122 is the worst case at the optimal a as printed in eq. (122), with
// f1 of eq. (76).
func eq122(eps, a float64) float64 {
	e := math.Exp(eps)
	switch {
	case eps < math.Ln2:
		c := (e + 1) / (e - 1)
		return c * c
	case eps > epsPrime:
		return (e + 2) * (e + 10) / (4 * (e - 1) * (e - 1))
	}
	k := (e + 1) * (e + 1) * e * e / ((e - 1) * (e - 1))
	return k * ((1-a)/((e-a)*(e-a)) + (e+1)*(e+1)*a*a/(4*math.Pow(e-a, 4)))
}

// TestThreeOutputsVariance: Variance is eq. (25), C²(1-a) + C²b|x| - x²;
// WorstCaseVariance is its maximum (eqs. (76)–(78)) and, at the optimal a,
// eq. (122) in every regime (the vertex C²b/2 is below 1 exactly up to ε′).
func TestThreeOutputsVariance(t *testing.T) {
	for _, eps := range toEps {
		m, _ := mechanisms.NewThreeOutputs(eps)
		e, a, c := math.Exp(eps), m.A(), m.C()
		b := a * (1 - 1/e)
		for _, x := range mechtest.Grid(-1, 1, 40) {
			want := c*c*(1-a) + c*c*b*math.Abs(x) - x*x
			if !relClose(m.Variance(x), want, 1e-12) && !(eps > 8 && math.Abs(m.Variance(x)-want) < 1e-12) {
				t.Errorf("ε=%v x=%v: Variance %v, eq. (25) %v", eps, x, m.Variance(x), want)
			}
		}
		if !relClose(m.VarianceVertex(), c*c*b/2, 1e-14) && m.VarianceVertex() != 0 {
			t.Errorf("ε=%v: vertex %v, want %v", eps, m.VarianceVertex(), c*c*b/2)
		}
		// At the optimal a the vertex is inside [0, 1) for every ε ≥ ln 2
		// (→ 1/2 as ε → ∞), so the worst case is f1 of eq. (76).
		if eps >= math.Ln2 && !(m.VarianceVertex() < 1) {
			t.Errorf("ε=%v: vertex %v not inside [0, 1)", eps, m.VarianceVertex())
		}
		if w := eq122(eps, a); !relClose(m.WorstCaseVariance(), w, 1e-10) {
			t.Errorf("ε=%v: worst %.17g, eq. (122) %.17g", eps, m.WorstCaseVariance(), w)
		}
	}
	// For an a whose vertex is beyond 1 the worst case is Var(1) =
	// (1-a+b)C² - 1 (eq. (76), and the first line of eq. (77)'s second
	// branch), which simplifies to (e+1)²e/((e-1)²(e-a)) - 1. The paper's
	// simplification in eq. (77) prints (e+1)²e^{2ε}/((e-1)²(e-a)²) - 1
	// (= C² - 1, as if 1-a+b were 1), and eq. (86a) prints e^ε over (e-a)².
	// Neither is Var(1) (E3.7); this branch never applies at the optimal a
	// (the vertex is then below 1), so eq. (122) is unaffected.
	for _, c := range []struct{ eps, a float64 }{{0.7, 0.5}, {1, 0.55}, {0.3, 0.2}} {
		m, err := mechanisms.NewThreeOutputsA("to-a", c.eps, c.a)
		if err != nil {
			t.Fatal(err)
		}
		e := math.Exp(c.eps)
		b := c.a * (1 - 1/e)
		eq76 := (1-c.a+b)*m.C()*m.C() - 1
		simplified := (e+1)*(e+1)*e/((e-1)*(e-1)*(e-c.a)) - 1
		e37 := (e+1)*(e+1)*e*e/((e-1)*(e-1)*(e-c.a)*(e-c.a)) - 1
		printed86a := (e+1)*(e+1)*e/((e-1)*(e-1)*(e-c.a)*(e-c.a)) - 1
		w := m.WorstCaseVariance()
		if !(m.VarianceVertex() > 1) || !relClose(w, m.Variance(1), 1e-15) || !relClose(w, eq76, 1e-13) || !relClose(w, simplified, 1e-13) {
			t.Errorf("ε=%v a=%v: vertex %v, worst %v, Var(1) %v, eq. (76) %v, simplified %v", c.eps, c.a, m.VarianceVertex(), w, m.Variance(1), eq76, simplified)
		}
		if relClose(e37, w, 0.05) || relClose(printed86a, w, 0.05) {
			t.Errorf("ε=%v a=%v: E3.7's %v or printed (86a) %v agrees with the worst case %v", c.eps, c.a, e37, printed86a, w)
		}
	}
	// Var → 1/4 as ε → ∞ (eq. (122)).
	m, _ := mechanisms.NewThreeOutputs(60)
	if w := m.WorstCaseVariance(); math.Abs(w-0.25) > 1e-15 {
		t.Errorf("ε=60: worst %v, want 1/4", w)
	}
}

// cubic92 is the cubic (92) of a.
func cubic92(eps, a float64) float64 {
	e := math.Exp(eps)
	return 2*a*a*a + a*a*(-e*e-5-4*e) + a*(7*e-4*e*e-e*e*e) + (2*e*e*e - 4*e*e)
}

// trigA is eq. (5), middle branch; printed = true uses the printed
// arccos(-Δ1/(2Δ0)), else the corrected arccos(-Δ1/(2Δ0^{3/2})) (E3.3)
// with the argument clamped to [-1, 1] only when clamp is set.
func trigA(eps float64, printed, clamp bool) float64 {
	e := math.Exp(eps)
	e2, e3 := e*e, e*e*e
	d0 := e2*e2 + 14*e3 + 50*e2 - 2*e + 25
	d1 := -2*e3*e3 - 42*e2*e3 - 270*e2*e2 - 404*e3 - 918*e2 + 30*e - 250
	arg := -d1 / (2 * math.Pow(d0, 1.5))
	if printed {
		arg = -d1 / (2 * d0)
	}
	if clamp {
		arg = min(max(arg, -1), 1)
	}
	return -(-e2 - 4*e - 5 + 2*math.Sqrt(d0)*math.Cos(math.Pi/3+math.Acos(arg)/3)) / 6
}

// TestThreeOutputsA: the optimal a is 0 below ln 2, e/(e+2) above ε′, and
// in between the root of the cubic (92), equal to the corrected
// trigonometric eq. (5) and to a brute-force argmin of the worst case over
// a; the printed eq. (5) is NaN there (E3.3).
func TestThreeOutputsA(t *testing.T) {
	for _, eps := range []float64{0.01, 0.3, 0.5, 0.69} {
		if a := mechanisms.ThreeOutputsA(eps); a != 0 {
			t.Errorf("ε=%v < ln 2: a = %v, want 0", eps, a)
		}
	}
	for _, eps := range []float64{1.72, 2, 4, 8, 30} {
		e := math.Exp(eps)
		if a := mechanisms.ThreeOutputsA(eps); !relClose(a, e/(e+2), 1e-15) {
			t.Errorf("ε=%v > ε′: a = %v, want e/(e+2) = %v", eps, a, e/(e+2))
		}
	}
	nan := 0
	for i := 0; i <= 100; i++ {
		eps := math.Ln2 + (epsPrime-math.Ln2)*float64(i)/100
		a := mechanisms.ThreeOutputsA(eps)
		e := math.Exp(eps)
		if !(a >= 0 && a <= e/(e+2)*(1+1e-15)) || math.Abs(cubic92(eps, a)) > 1e-12*e*e*e {
			t.Errorf("ε=%v: a = %v outside [0, e/(e+2)] or not a root (residual %v)", eps, a, cubic92(eps, a))
		}
		// The clamped corrected trigonometric form agrees; near the ends of
		// the range its arccos argument is near ±1 and loses digits.
		if tr := trigA(eps, false, true); math.Abs(tr-a) > 1e-9 {
			t.Errorf("ε=%v: bisection a = %.17g, corrected eq. (5) %.17g", eps, a, tr)
		}
		if i > 0 && i < 100 && !math.IsNaN(trigA(eps, true, false)) {
			t.Errorf("ε=%v: printed eq. (5) = %v, E3.3 says its arccos argument is outside [-1, 1]", eps, trigA(eps, true, false))
		}
		if math.IsNaN(trigA(eps, true, false)) {
			nan++
		}
	}
	if nan < 99 {
		t.Errorf("printed eq. (5) is NaN at only %d of 101 budgets in [ln 2, ε′]", nan)
	}
	// The branches meet: a(ln 2) = 0 and a(ε′) = e/(e+2).
	if a := mechanisms.ThreeOutputsA(math.Ln2); a > 1e-15 {
		t.Errorf("a(ln 2) = %v", a)
	}
	if a, e := mechanisms.ThreeOutputsA(epsPrime), math.Exp(epsPrime); !relClose(a, e/(e+2), 1e-9) {
		t.Errorf("a(ε′) = %v, e/(e+2) = %v", a, e/(e+2))
	}
	// Brute force: the worst case over a ∈ [0, e/(e+2)] (a scan of 2000
	// values, then golden section) is smallest at the a of eq. (5).
	for _, eps := range []float64{0.5, 0.7, 0.8, 1, 1.3, 1.5, 1.7, 2, 4} {
		e := math.Exp(eps)
		hi := e / (e + 2)
		worst := func(a float64) float64 {
			m, err := mechanisms.NewThreeOutputsA("to-a", eps, a)
			if err != nil {
				t.Fatal(err)
			}
			return m.WorstCaseVariance()
		}
		best, arg := math.Inf(1), 0.0
		for i := 0; i <= 2000; i++ {
			a := hi * float64(i) / 2000
			if w := worst(a); w < best {
				best, arg = w, a
			}
		}
		lo, up := max(0, arg-hi/2000), min(hi, arg+hi/2000)
		g := (math.Sqrt(5) - 1) / 2
		for range 80 {
			c, d := up-g*(up-lo), lo+g*(up-lo)
			if worst(c) < worst(d) {
				up = d
			} else {
				lo = c
			}
		}
		opt := mechanisms.ThreeOutputsA(eps)
		if math.Abs((lo+up)/2-opt) > 1e-6 {
			t.Errorf("ε=%v: brute-force argmin a = %v, eq. (5) a = %v", eps, (lo+up)/2, opt)
		}
		m, _ := mechanisms.NewThreeOutputs(eps)
		if w := m.WorstCaseVariance(); w > best*(1+1e-14) {
			t.Errorf("ε=%v: worst case %v at the optimal a above the scan's %v", eps, w, best)
		}
	}
}

// toSpec returns the corrected eqs. (2)–(4) (E3.1, E3.2) literally:
// P[-C|x], P[0|x], P[C|x].
func toSpec(eps, a, x float64) [3]float64 {
	e := math.Exp(eps)
	h := (1 - a) / 2
	var pc, pm float64
	if x >= 0 {
		pc = h + ((e-a)/(e+1)-h)*x
		pm = h - (h-(e-a)/(e*(e+1)))*x
	} else {
		pc = h + (h-(e-a)/(e*(e+1)))*x
		pm = h - ((e-a)/(e+1)-h)*x
	}
	return [3]float64{pm, a - (a-a/e)*math.Abs(x), pc}
}

// TestThreeOutputsProbabilities: the probabilities are the corrected
// eqs. (2)–(4), sum to 1, are unbiased, and the privacy ratio is e^ε and
// attained, at every budget (an exhaustive privacy check).
func TestThreeOutputsProbabilities(t *testing.T) {
	xs := mechtest.Grid(-1, 1, 1000)
	ps := make([]float64, 3)
	for _, eps := range toEps {
		m, _ := mechanisms.NewThreeOutputs(eps)
		for _, x := range mechtest.Grid(-1, 1, 50) {
			m.Probabilities(x, ps)
			want := toSpec(eps, m.A(), x)
			for i := range ps {
				if math.Abs(ps[i]-want[i]) > 1e-14 {
					t.Errorf("ε=%v x=%v: probabilities %v, spec %v", eps, x, ps, want)
					break
				}
			}
		}
		if err := mechtest.ProbabilitiesSumToOne(m, xs, 1e-13); err != nil {
			t.Error(err)
		}
		if err := mechtest.DiscreteLDPTight(m, xs, eps, 1e-12); err != nil {
			t.Error(err)
		}
	}
	// The small probabilities keep their relative accuracy at large ε.
	m, _ := mechanisms.NewThreeOutputs(30)
	m.Probabilities(1, ps)
	a, e := m.A(), math.Exp(30)
	if want := (e - a) / (e * (e + 1)); !relClose(ps[0], want, 1e-14) {
		t.Errorf("ε=30: P[-C|1] = %v, want %v", ps[0], want)
	}
	m.Probabilities(0, ps)
	if want := 1 / (e + 2); !relClose(ps[0], want, 1e-14) {
		t.Errorf("ε=30: P[-C|0] = (1-a)/2 = %v, want %v", ps[0], want)
	}
}

func TestThreeOutputsMoments(t *testing.T) {
	// TestMoments and TestFit cover ε = 0.5, 1, 4; these add ln 2, the
	// ε′ regime boundary and large ε.
	seed := uint64(300)
	for _, eps := range []float64{0.3, math.Ln2, 1.5, epsPrime, 2, 8} {
		seed++
		rng := newRNG(seed)
		t.Run(fmt.Sprintf("eps=%v", eps), func(t *testing.T) {
			t.Parallel()
			m, _ := mechanisms.NewThreeOutputs(eps)
			checkMoments(t, m, xGrid, rng)
			for _, x := range xGrid {
				if err := mechtest.DiscreteFit(m, x, nMC, rng, mechtest.DefaultAlpha); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// printedTO is Three-Outputs with the probabilities as printed: eq. (2)
// with the sign of the x term flipped (E3.1), eq. (4) without |x| (E3.2);
// eq. (3) is printed correctly. The sampler draws -C and 0 with the printed
// probabilities and C otherwise (as the authors' early code does).
type printedTO struct{ *mechanisms.ThreeOutputs }

func (m printedTO) Probabilities(x float64, dst []float64) {
	e, a := math.Exp(m.Epsilon()), m.A()
	h := (1 - a) / 2
	if x >= 0 {
		dst[0] = h + (h-(e-a)/(e*(e+1)))*x
		dst[2] = h + ((e-a)/(e+1)-h)*x
	} else {
		dst[0] = h + ((e-a)/(e+1)-h)*x
		dst[2] = h + (h-(e-a)/(e*(e+1)))*x
	}
	dst[1] = a + (a/e-a)*x
}

func (m printedTO) Perturb(x float64, rng *rand.Rand) float64 {
	var p [3]float64
	m.Probabilities(x, p[:])
	u := rng.Float64()
	switch {
	case u < p[0]:
		return -m.C()
	case u < p[0]+p[1]:
		return 0
	}
	return m.C()
}

func (m printedTO) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	for i, x := range xs {
		dst[i] = m.Perturb(x, rng)
	}
	return nil
}

// misreportedTO has the constants of one budget and claims another.
type misreportedTO struct {
	*mechanisms.ThreeOutputs
	claimed *mechanisms.ThreeOutputs
}

func (m misreportedTO) Epsilon() float64           { return m.claimed.Epsilon() }
func (m misreportedTO) Variance(x float64) float64 { return m.claimed.Variance(x) }
func (m misreportedTO) WorstCaseVariance() float64 { return m.claimed.WorstCaseVariance() }

// TestThreeOutputsBrokenCaught: the printed eqs. (2)/(4) fail the same
// checks (probabilities do not sum to 1, reports biased), and so do wrong
// constants (the privacy ratio and the variance).
func TestThreeOutputsBrokenCaught(t *testing.T) {
	rng := newRNG(61)
	xs := mechtest.Grid(-1, 1, 100)
	for _, eps := range []float64{0.5, 1, 4} {
		good, _ := mechanisms.NewThreeOutputs(eps)
		p := printedTO{good}
		if err := mechtest.ProbabilitiesSumToOne(p, xs, 1e-12); err == nil {
			t.Errorf("ε=%v: the printed eqs. (2)/(4) passed ProbabilitiesSumToOne (E3.1, E3.2)", eps)
		}
		// Above ε′ (a = e/(e+2)) P[-C|x] is flat on [0, 1], so the sign
		// error of eq. (2) shows only for x < 0.
		for _, x := range []float64{-1, -0.4, 1} {
			if eps > epsPrime && x > 0 {
				continue
			}
			if err := mechtest.Unbiased(p, x, nMC, rng, mechtest.DefaultAlpha); err == nil {
				t.Errorf("ε=%v x=%v: the unbiasedness check missed the printed eq. (2) (E3.1)", eps, x)
			}
		}
		for _, c := range []struct {
			factor     float64
			ldp, tight bool
		}{{1.5, false, false}, {0.5, true, false}} {
			inner, _ := mechanisms.NewThreeOutputs(c.factor * eps)
			m := misreportedTO{inner, good}
			if err := mechtest.DiscreteLDP(m, xs, eps, 1e-9); (err == nil) != c.ldp {
				t.Errorf("ε=%v built at %vε: DiscreteLDP error %v", eps, c.factor, err)
			}
			if err := mechtest.DiscreteLDPTight(m, xs, eps, 1e-9); (err == nil) != c.tight {
				t.Errorf("ε=%v built at %vε: DiscreteLDPTight error %v", eps, c.factor, err)
			}
			if err := mechtest.Variance(m, 0.7, nMC, rng, mechtest.DefaultAlpha); err == nil {
				t.Errorf("ε=%v built at %vε: the variance check missed wrong constants", eps, c.factor)
			}
		}
	}
}

func TestThreeOutputsParams(t *testing.T) {
	for _, c := range []struct {
		eps, a float64
		param  string
	}{
		{0, 0.1, "epsilon"}, {math.NaN(), 0.1, "epsilon"}, {1, -0.01, "a"}, {1, math.NaN(), "a"},
		{1, math.E/(math.E+2) + 1e-9, "a"}, {1, 1, "a"},
	} {
		_, err := mechanisms.NewThreeOutputsA("to-a", c.eps, c.a)
		var pe *mechanisms.ParamError
		if !errors.As(err, &pe) || pe.Param != c.param {
			t.Errorf("NewThreeOutputsA(%v, %v): error %v, want a *ParamError on %s", c.eps, c.a, err, c.param)
		}
	}
	// The ε-LDP bound on a is attained: at a = e/(e+2), P[C|1]/P[C|0] = e^ε.
	e := math.Exp(1.0)
	m, err := mechanisms.NewThreeOutputsA("to-a", 1, e/(e+2))
	if err != nil {
		t.Fatal(err)
	}
	if err := mechtest.DiscreteLDPTight(m, mechtest.Grid(-1, 1, 200), 1, 1e-12); err != nil {
		t.Error(err)
	}
	if m.Name() != "to-a" {
		t.Errorf("name %q", m.Name())
	}
	if _, err := mechanisms.NewThreeOutputs(-1); err == nil {
		t.Error("NewThreeOutputs(-1) accepted")
	}
	if !math.IsNaN(mechanisms.ThreeOutputsA(math.NaN())) {
		t.Error("ThreeOutputsA(NaN) is a number")
	}
}
