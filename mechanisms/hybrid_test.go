package mechanisms_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/mechtest"
)

func TestHMReference(t *testing.T) {
	// α, the worst case and the variance at 0 and 1, from
	// testdata/zhao_reference.py (mpmath, 50 digits).
	for _, c := range []struct{ eps, alpha, worst, v0, v1 float64 }{
		{0.5, 0, 16.670792356131055059, 16.670792356131055059, 15.670792356131055059},
		{0.65, 0.27747264635792781088, 10.076602080168089107, 10.076602080168089107, 10.076602080168089107},
		{1, 0.3934693402873665764, 4.2889924932818122466, 4.2889924932818122466, 4.2889924932818122466},
		{4, 0.86466471676338730811, 0.21897862620618846195, 0.21897862620618846195, 0.21897862620618846195},
		{8, 0.98168436111126581971, 0.024901073831975349188, 0.024901073831975349188, 0.024901073831975349188},
	} {
		m, err := mechanisms.NewHM(c.eps)
		if err != nil {
			t.Fatal(err)
		}
		if !relClose(m.Weight(), c.alpha, 1e-15) || mechanisms.HMAlpha(c.eps) != m.Weight() {
			t.Errorf("ε=%v: α = %v, want %v", c.eps, m.Weight(), c.alpha)
		}
		if !relClose(m.WorstCaseVariance(), c.worst, 1e-14) || !relClose(m.Variance(0), c.v0, 1e-14) || !relClose(m.Variance(-1), c.v1, 1e-14) {
			t.Errorf("ε=%v: worst %.17g, Var(0) %.17g, Var(-1) %.17g; want %.17g, %.17g, %.17g",
				c.eps, m.WorstCaseVariance(), m.Variance(0), m.Variance(-1), c.worst, c.v0, c.v1)
		}
	}
	// Wang et al.'s HM: α = 0 up to 0.61 (HM is Duchi); above, the variance
	// is constant in x and equals (s+3)/(3s(s-1)) + (e+1)²/(s(e-1)²).
	for _, eps := range []float64{0.01, 0.3, 0.61} {
		m, _ := mechanisms.NewHM(eps)
		d, _ := mechanisms.NewDuchi(eps)
		if m.Weight() != 0 || m.WorstCaseVariance() != d.WorstCaseVariance() || m.Variance(0.3) != d.Variance(0.3) {
			t.Errorf("ε=%v: α = %v, worst %v, Duchi %v", eps, m.Weight(), m.WorstCaseVariance(), d.WorstCaseVariance())
		}
	}
	for _, eps := range []float64{0.6101, 0.7, 1, 2, 4, 8, 16} {
		m, _ := mechanisms.NewHM(eps)
		s, e := math.Exp(eps/2), math.Exp(eps)
		want := (s+3)/(3*s*(s-1)) + (e+1)*(e+1)/(s*(e-1)*(e-1))
		for _, x := range mechtest.Grid(-1, 1, 20) {
			if !relClose(m.Variance(x), want, 1e-12) {
				t.Errorf("ε=%v x=%v: Var %v, want the constant %v", eps, x, m.Variance(x), want)
			}
		}
		if !relClose(m.WorstCaseVariance(), want, 1e-12) {
			t.Errorf("ε=%v: worst %v, want %v", eps, m.WorstCaseVariance(), want)
		}
	}
}

func TestHMTPReference(t *testing.T) {
	if got, want := mechanisms.HMTPEpsStar(), 0.61098633542002050216; !relClose(got, want, 1e-15) {
		t.Errorf("ε* = %.17g, want %.17g (testdata/zhao_reference.py)", got, want)
	}
	// β, the worst case, its maximiser x* and the variance at 1, from
	// testdata/zhao_reference.py (mpmath, 50 digits; eqs. (150), (173),
	// Lemma 11).
	for _, c := range []struct{ eps, beta, worst, xstar, v1 float64 }{
		{0.5, 0, 16.670792356131055059, 0, 15.670792356131055059},
		{0.65, 0.28996018086159473901, 10.07660907767802431, 0, 10.07660907767802431},
		{1, 0.16167383843627888902, 4.4176259533616268782, 0.72334412129127967161, 4.3707138372171507491},
		{1.5, 0.089486363407257648215, 1.9107416880759176567, 0.84439928592725383864, 1.8903449745269726582},
		{2, 0.23969629247080800859, 0.98427641035803942379, 0.85984429501663503372, 0.97151366537652346336},
		{4, 0.82900273128306352881, 0.1548065895565013901, 0.93217160777511265367, 0.15436099611637744508},
		{8, 0.98969236641310169601, 0.0086894784491892480594, 0.99293200107502973596, 0.0086892188882042590512},
	} {
		m, err := mechanisms.NewHMTP(c.eps)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(m.Weight()-c.beta) > 2e-15 || mechanisms.HMTPBeta(c.eps) != m.Weight() {
			t.Errorf("ε=%v: β = %.17g, want %.17g", c.eps, m.Weight(), c.beta)
		}
		if !relClose(m.WorstCaseVariance(), c.worst, 1e-14) || !relClose(m.Variance(1), c.v1, 1e-14) {
			t.Errorf("ε=%v: worst %.17g, Var(1) %.17g; want %.17g, %.17g", c.eps, m.WorstCaseVariance(), m.Variance(1), c.worst, c.v1)
		}
		if c.xstar > 0 && math.Abs(m.WorstCaseInput()-c.xstar) > 1e-13 {
			t.Errorf("ε=%v: worst-case input %.17g, Lemma 11's x* %.17g", c.eps, m.WorstCaseInput(), c.xstar)
		}
		// E3.15: for ε ≥ ln 2 the maximum is interior, above Var(1), which
		// Appendix R (eq. (164)) uses as the worst case.
		if c.eps >= math.Ln2 && !(m.WorstCaseVariance() > m.Variance(1)*(1+1e-6)) {
			t.Errorf("ε=%v: worst %v not above Var(1) = %v", c.eps, m.WorstCaseVariance(), m.Variance(1))
		}
	}
}

// hmtpEq173 is Var_H(x) written out as in eq. (173) (Zhao et al.
// Appendix U).
func hmtpEq173(eps, beta, a, x float64) float64 {
	c, t := math.Exp(eps), math.Exp(eps/3)
	v0p := (t + c) * ((t+1)*(t+1)*(t+1) + c - 1) / (3 * t * t * (c - 1) * (c - 1))
	return (beta*(t+1)/(c-1)+beta-1)*x*x +
		(1-beta)*a*c*(c+1)*(c+1)/((c-1)*(c-a)*(c-a))*math.Abs(x) +
		beta*v0p + (1-beta)*(1-a)*c*c*(c+1)*(c+1)/((c-1)*(c-1)*(c-a)*(c-a))
}

// lemma11XStar is x* of Lemma 11.
func lemma11XStar(eps, beta, a float64) float64 {
	c, t := math.Exp(eps), math.Exp(eps/3)
	return (beta - 1) * a * c * (c + 1) * (c + 1) / (2 * (c - a) * (c - a) * (beta*(c+t) - c + 1))
}

// hmtpAB returns A and B of eqs. (154)–(155), the first two printed terms
// of A summed into one.
func hmtpAB(eps float64) (A, B float64) {
	c, t, a := math.Exp(eps), math.Exp(eps/3), mechanisms.ThreeOutputsA(eps)
	ca4 := math.Pow(c-a, 4)
	A = -a*a*c*c*math.Pow(c+1, 4)/(4*(c+t)*(c+t)*(c-1)*ca4) +
		((t+1)*(t+1)*(t+1)+c-1)/(3*t*t*(c-1)*(c-1)) -
		(1-a)*c*c*(c+1)*(c+1)/((c+t)*(c-1)*(c-1)*(c-a)*(c-a))
	B = -(1 + t) * (1 + t) * a * a * c * c * math.Pow(c+1, 4) / (4 * (c + t) * (c + t) * ca4 * (c - 1))
	return A, B
}

// hmtpWorstAt returns the worst case of HM-TP at eps with weight beta on
// PM-SUB, by the same three candidates as Lemma 11 but from eq. (173).
func hmtpWorstAt(eps, beta float64) float64 {
	a := mechanisms.ThreeOutputsA(eps)
	w := max(hmtpEq173(eps, beta, a, 0), hmtpEq173(eps, beta, a, 1))
	if x := lemma11XStar(eps, beta, a); x > 0 && x < 1 {
		w = max(w, hmtpEq173(eps, beta, a, x))
	}
	return w
}

// TestHMTPBeta: β is eq. (150) corrected (E3.5), the variance is eq. (173)
// with Lemma 11's maximiser, and β is the argmin over [0, 1] of the worst
// case. The printed eq. (150) (√(A/β), read as √(A/B)) and Appendix M's
// √(B/A + c - 1) give a negative β or a larger worst case.
func TestHMTPBeta(t *testing.T) {
	star := mechanisms.HMTPEpsStar()
	for _, eps := range []float64{0.1, 0.5, 0.61, star - 1e-9} {
		if b := mechanisms.HMTPBeta(eps); b != 0 {
			t.Errorf("ε=%v < ε*: β = %v, want 0", eps, b)
		}
	}
	for _, eps := range []float64{star + 1e-9, 0.62, 0.65, 0.69} {
		e, tw := math.Exp(eps), math.Exp(eps/3)
		if b := mechanisms.HMTPBeta(eps); !relClose(b, (e-1)/(e+tw), 1e-14) {
			t.Errorf("ε=%v: β = %v, β1 = %v", eps, b, (e-1)/(e+tw))
		}
	}
	for _, eps := range []float64{0.62, 0.65, 0.7, 0.8, 1, 1.2, 1.5, 2, 3, 4, 6, 8, 12} {
		m, _ := mechanisms.NewHMTP(eps)
		beta, a := m.Weight(), mechanisms.ThreeOutputsA(eps)
		for _, x := range mechtest.Grid(-1, 1, 40) {
			if want := hmtpEq173(eps, beta, a, x); !relClose(m.Variance(x), want, 1e-11) {
				t.Errorf("ε=%v x=%v: Var %v, eq. (173) %v", eps, x, m.Variance(x), want)
			}
		}
		if want := hmtpWorstAt(eps, beta); !relClose(m.WorstCaseVariance(), want, 1e-11) {
			t.Errorf("ε=%v: worst %v, Lemma 11 %v", eps, m.WorstCaseVariance(), want)
		}
		if eps >= math.Ln2 {
			A, B := hmtpAB(eps)
			e, tw := math.Exp(eps), math.Exp(eps/3)
			if !(A < 0 && B < 0) || !relClose(beta, (e-1-math.Sqrt(B/A))/(e+tw), 1e-10) {
				t.Errorf("ε=%v: A = %v, B = %v, β = %v, direct eq. (150) %v", eps, A, B, beta, (e-1-math.Sqrt(B/A))/(e+tw))
			}
			for _, printed := range []float64{(e - 1 - math.Sqrt(A/B)) / (e + tw), -math.Sqrt(B/A+e-1) / (e + tw)} {
				if printed >= 0 && printed <= 1 && !(hmtpWorstAt(eps, printed) > m.WorstCaseVariance()*(1+1e-6)) {
					t.Errorf("ε=%v: printed β = %v has worst case %v, not above %v (E3.5)", eps, printed, hmtpWorstAt(eps, printed), m.WorstCaseVariance())
				}
			}
		}
		// Brute force: a scan of β over [0, 1] and golden section (the worst
		// case is a maximum of functions linear in β, so convex in β).
		best, arg := math.Inf(1), 0.0
		for i := 0; i <= 2000; i++ {
			b := float64(i) / 2000
			if w := hmtpWorstAt(eps, b); w < best {
				best, arg = w, b
			}
		}
		lo, hi := max(0, arg-1.0/2000), min(1, arg+1.0/2000)
		g := (math.Sqrt(5) - 1) / 2
		for range 80 {
			c, d := hi-g*(hi-lo), lo+g*(hi-lo)
			if hmtpWorstAt(eps, c) < hmtpWorstAt(eps, d) {
				hi = d
			} else {
				lo = c
			}
		}
		if math.Abs((lo+hi)/2-beta) > 1e-6 {
			t.Errorf("ε=%v: brute-force argmin β = %v, eq. (150) β = %v", eps, (lo+hi)/2, beta)
		}
		if w := m.WorstCaseVariance(); w > best*(1+1e-13) {
			t.Errorf("ε=%v: worst case %v at β above the scan's %v", eps, w, best)
		}
	}
	// Large ε: β → 1, 1-β → (t+1+√(B/A))/(e+t) keeps its accuracy.
	m, _ := mechanisms.NewHMTP(30)
	_, _, w := m.Components()
	if !(w < 1 && w > 1-1e-8) {
		t.Errorf("ε=30: β = %v", w)
	}
}

// TestHybridComponents: the mixture interface and the atom/density split.
func TestHybridComponents(t *testing.T) {
	for _, c := range []struct {
		name       string
		new        func(float64) (*mechanisms.Hybrid, error)
		cont, disc string
	}{
		{"hm", mechanisms.NewHM, "pm", "duchi"},
		{"hm-tp", mechanisms.NewHMTP, "pm-sub", "three-outputs"},
	} {
		for _, eps := range []float64{0.01, 0.5, 0.65, 1, 4, 16} {
			m, err := c.new(eps)
			if err != nil {
				t.Fatal(err)
			}
			cm, dm, w := m.Components()
			if m.Name() != c.name || cm.Name() != c.cont || dm.Name() != c.disc || w != m.Weight() ||
				cm.Epsilon() != eps || dm.Epsilon() != eps {
				t.Errorf("%s ε=%v: components %s, %s, weight %v", m.Name(), eps, cm.Name(), dm.Name(), w)
			}
			var mix mechanisms.Mixture = m // the interface of discretize.go
			_ = mix
			lo, hi := m.OutputRange()
			if _, a := cm.(mechanisms.Continuous).OutputRange(); lo != -hi || hi < a {
				t.Errorf("%s ε=%v: output range [%v, %v], piecewise A = %v", m.Name(), eps, lo, hi, a)
			}
			// Atoms + continuous part = 1, split as 1-w and w.
			ps := make([]float64, 3)
			for _, x := range []float64{-1, -0.3, 0, 0.8, 1} {
				m.AtomProbabilities(x, ps)
				atoms := 0.0
				for _, p := range ps[:len(m.AtomOutputs())] {
					atoms += p
				}
				cont := m.BucketGivenBin(lo, hi, x, x) - atoms
				if math.Abs(atoms-(1-w)) > 1e-14 || math.Abs(cont-w) > 1e-13 {
					t.Errorf("%s ε=%v x=%v: atoms %v (want %v), continuous %v (want %v)", m.Name(), eps, x, atoms, 1-w, cont, w)
				}
			}
		}
	}
}

// TestHybridExact: the exact checks for a law with atoms, in place of
// DensityLDPTight and BucketsMatchDensity (mechtest/mixture.go): both
// components are ε-LDP with the ratio attained, the mixture's atoms and
// density together are ε-LDP and attain it, the continuous part's buckets
// match its density, the mixture matches its components, and the
// buckets, CDF and point masses are consistent.
func TestHybridExact(t *testing.T) {
	for _, name := range []string{"hm", "hm-tp"} {
		for _, eps := range []float64{0.01, 0.5, 0.65, 1, 4, 16} {
			m := mustNew(t, name, eps).(*mechanisms.Hybrid)
			xs := mechtest.Grid(-1, 1, 200)
			ylo, yhi := m.OutputRange()
			g := mechtest.Grid(ylo, yhi, 997)
			ys := make([]float64, len(g)-1)
			for i := range ys {
				ys[i] = (g[i] + g[i+1]) / 2
			}
			cm, dm, _ := m.Components()
			if err := mechtest.DensityLDPTight(cm.(mechanisms.Continuous), xs, ys, eps, 1e-9); err != nil {
				t.Error(err)
			}
			if err := mechtest.DiscreteLDPTight(dm.(mechanisms.Discrete), xs, eps, 1e-9); err != nil {
				t.Error(err)
			}
			if err := mechtest.MixedLDPTight(m, xs, ys, eps, 1e-9); err != nil {
				t.Error(err)
			}
			yEdges := mechtest.Grid(ylo, yhi, 13)
			xEdges := mechtest.Grid(-1, 1, 5)
			tol := 1e-12
			if eps > 4 {
				tol = 1e-9
			}
			if err := mechtest.BucketsSumToOne(m, yEdges, xEdges, tol); err != nil {
				t.Error(err)
			}
			if err := mechtest.CDFConsistent(m, mechtest.Grid(-1, 1, 7), g, tol); err != nil {
				t.Error(err)
			}
			if err := mechtest.MixtureMatches(m, mechtest.Grid(-1, 1, 20), every(ys, 50), yEdges, xEdges, 1e-12); err != nil {
				t.Error(err)
			}
			if eps <= 4 {
				cont, err := mechtest.ContinuousPart(m)
				if err != nil {
					t.Fatal(err)
				}
				if err := mechtest.BucketsMatchDensity(cont, yEdges, xEdges, 1e-9); err != nil {
					t.Error(err)
				}
			}
		}
	}
}

// every returns every k-th element of s.
func every(s []float64, k int) []float64 {
	var out []float64
	for i := 0; i < len(s); i += k {
		out = append(out, s[i])
	}
	return out
}

func TestHybridMoments(t *testing.T) {
	// TestMoments and TestFit cover ε = 0.5, 1, 4 (HM is Duchi at 0.5, HM-TP
	// is Three-Outputs = Duchi there); these add the β1 regime
	// (ε* ≤ ε < ln 2), both sides of ε′ and large ε.
	seed := uint64(400)
	for _, name := range []string{"hm", "hm-tp"} {
		for _, eps := range []float64{0.65, 1.5, 2, 8} {
			seed++
			rng := newRNG(seed)
			t.Run(fmt.Sprintf("%s/eps=%v", name, eps), func(t *testing.T) {
				t.Parallel()
				m := mustNew(t, name, eps)
				checkMoments(t, m, xGrid, rng)
				c := m.(mechanisms.Continuous)
				lo, hi := c.OutputRange()
				for _, x := range xGrid {
					if err := mechtest.ContinuousFit(m, x, mechtest.Grid(lo, hi, 20), nMC, rng, mechtest.DefaultAlpha); err != nil {
						t.Error(err)
					}
				}
			})
		}
	}
}

// wrongWeight samples a hybrid's components with another weight than the
// one its variance (and law) claims: HM-TP with the printed β of eq. (150).
type wrongWeight struct {
	*mechanisms.Hybrid
	w float64
}

func (m wrongWeight) Perturb(x float64, rng *rand.Rand) float64 {
	c, d, _ := m.Components()
	if rng.Float64() < m.w {
		return c.Perturb(x, rng)
	}
	return d.Perturb(x, rng)
}

func (m wrongWeight) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	for i, x := range xs {
		dst[i] = m.Perturb(x, rng)
	}
	return nil
}

// inputWeighted mixes with a weight that depends on x, w(x) = w·(1+x/2):
// still unbiased, but not ε-LDP (the mixing argument needs a weight
// independent of the input). Its law is reported honestly.
type inputWeighted struct{ *mechanisms.Hybrid }

func (m inputWeighted) weight(x float64) float64 { return m.Weight() * (1 + x/2) }

func (m inputWeighted) Density(y, x float64) float64 {
	c, _, _ := m.Components()
	return m.weight(x) * c.(mechanisms.Continuous).Density(y, x)
}

func (m inputWeighted) AtomProbabilities(x float64, dst []float64) {
	_, d, _ := m.Components()
	d.(mechanisms.Discrete).Probabilities(x, dst)
	for i := range d.(mechanisms.Discrete).Outputs() {
		dst[i] *= 1 - m.weight(x)
	}
}

// misreportedHybrid has the constants of one budget and claims another.
type misreportedHybrid struct {
	*mechanisms.Hybrid
	claimed *mechanisms.Hybrid
}

func (m misreportedHybrid) Epsilon() float64           { return m.claimed.Epsilon() }
func (m misreportedHybrid) Variance(x float64) float64 { return m.claimed.Variance(x) }
func (m misreportedHybrid) WorstCaseVariance() float64 { return m.claimed.WorstCaseVariance() }

// TestHybridBrokenCaught: the same checks catch HM-TP sampled with the
// printed β (E3.5), an input-dependent mixing weight, and wrong constants.
func TestHybridBrokenCaught(t *testing.T) {
	rng := newRNG(71)
	xs := mechtest.Grid(-1, 1, 100)
	// (At ε = 4 the printed β is 0.915 against 0.829, which changes the
	// variance by about 4%, the size of the check's tolerance at 2e5 reports;
	// the worst-case comparison of TestHMTPBeta covers it.)
	for _, eps := range []float64{1.5, 2, 3} {
		m, _ := mechanisms.NewHMTP(eps)
		A, B := hmtpAB(eps)
		e, tw := math.Exp(eps), math.Exp(eps/3)
		printed := (e - 1 - math.Sqrt(A/B)) / (e + tw)
		bad := wrongWeight{m, printed}
		// The claimed variance is off where PM-SUB and Three-Outputs differ
		// most; check there.
		c, d, _ := m.Components()
		x := 0.0
		if math.Abs(c.(mechanisms.Variancer).Variance(1)-d.(mechanisms.Variancer).Variance(1)) >
			math.Abs(c.(mechanisms.Variancer).Variance(0)-d.(mechanisms.Variancer).Variance(0)) {
			x = 1
		}
		if err := mechtest.Variance(bad, x, nMC, rng, mechtest.DefaultAlpha); err == nil {
			t.Errorf("ε=%v: the variance check missed HM-TP sampled with the printed β = %v (β = %v)", eps, printed, m.Weight())
		}
		if err := mechtest.Unbiased(bad, x, nMC, rng, mechtest.DefaultAlpha); err != nil {
			t.Errorf("ε=%v: a wrong β is still unbiased: %v", eps, err)
		}
	}
	for _, name := range []string{"hm", "hm-tp"} {
		for _, eps := range []float64{1, 4} {
			m := mustNew(t, name, eps).(*mechanisms.Hybrid)
			ylo, yhi := m.OutputRange()
			ys := mechtest.Grid(ylo*0.999, yhi*0.999, 501)
			if err := mechtest.MixedLDP(inputWeighted{m}, xs, ys, eps, 1e-9); err == nil {
				t.Errorf("%s ε=%v: MixedLDP missed an input-dependent mixing weight", name, eps)
			}
			for _, f := range []struct {
				factor     float64
				ldp, tight bool
			}{{1.5, false, false}, {0.5, true, false}} {
				inner := mustNew(t, name, f.factor*eps).(*mechanisms.Hybrid)
				bad := misreportedHybrid{inner, m}
				if err := mechtest.MixedLDP(bad, xs, ys, eps, 1e-9); (err == nil) != f.ldp {
					t.Errorf("%s ε=%v built at %vε: MixedLDP error %v", name, eps, f.factor, err)
				}
				if err := mechtest.MixedLDPTight(bad, xs, ys, eps, 1e-9); (err == nil) != f.tight {
					t.Errorf("%s ε=%v built at %vε: MixedLDPTight error %v", name, eps, f.factor, err)
				}
				if err := mechtest.Variance(bad, 0.7, nMC, rng, mechtest.DefaultAlpha); err == nil {
					t.Errorf("%s ε=%v built at %vε: the variance check missed wrong constants", name, eps, f.factor)
				}
			}
		}
	}
}
