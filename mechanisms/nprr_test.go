package mechanisms_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/mechtest"
)

// nprrKs are the discretisations tested: the paper's {1, 2, 4, 8, 16, 32}
// (E1) and odd ones, where 0 is not a grid point.
var nprrKs = []int{1, 2, 3, 4, 5, 8, 16, 32}

func mustNPRR(t testing.TB, eps float64, k int) *mechanisms.NPRR {
	t.Helper()
	m, err := mechanisms.NewNPRR(eps, k)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// nprrInputs returns a fine grid of [-1, 1] together with the k+1 grid
// points 2j/k - 1 (where the probability of one output is largest) and
// 1/3 (off the grid for every even k).
func nprrInputs(m *mechanisms.NPRR, n int) []float64 {
	xs := slices.Concat(mechtest.Grid(-1, 1, n), m.Outputs(), []float64{1.0 / 3, -1.0 / 3})
	slices.Sort(xs)
	return slices.Compact(xs)
}

// TestNPRRReference: c = (e^ε-1)/(e^ε+k), p = e^ε/(e^ε+k), q = 1/(e^ε+k),
// the variance at v = 1/3 and the worst case as literal digits, from
// mpmath at 40 digits (the worst case by a dense grid and golden-section
// search on every cell, not by the vertex formula WorstCaseVariance uses):
//
//	c, p, q = (e-1)/(e+k), e/(e+k), 1/(e+k); s = k(v+1)/2; θ = s - ⌊s⌋
//	Var(v) = ((k+1)(k+2)/(3k)·q + c(v² + 4θ(1-θ)/k²) - c²v²)/c²
//
// Catches a wrong S_k, a missing θ(1-θ) term (Var(1/3) off by ~10 % for
// k = 2), GRR over k instead of k+1 outputs, and a worst case taken at
// v = 0 or ±1 only (for k = 32, ε = 4 the maximum is inside a cell).
func TestNPRRReference(t *testing.T) {
	for _, c := range []struct {
		eps             float64
		k               int
		c, p, q, v3, wc float64
	}{
		{0.5, 1, 0.24491866240370912928, 0.62245933120185456464, 0.37754066879814543536, 16.559681245019943948, 16.670792356131055059},
		{0.5, 2, 0.17779414281640906572, 0.45186276187760604381, 0.27406861906119697809, 19.103928508808409959, 21.964694451659784305},
		{0.5, 3, 0.13954832585659119031, 0.35466124439244339273, 0.21511291853585220242, 25.232464277840044142, 30.713332126859771374},
		{0.5, 8, 0.067233911365029595583, 0.17087458788002630718, 0.1036406765149967116, 87.725557760494615498, 99.850934771583013097},
		{0.5, 32, 0.019279225070136824808, 0.048998036431647830117, 0.029718811361511005309, 940.18556525249133426, 985.35769956877585967},
		{1, 1, 0.4621171572600097585, 0.73105857863000487925, 0.26894142136999512075, 4.5715832657200581647, 4.6826943768311692758},
		{1, 2, 0.36417532714874366479, 0.57611688476582910986, 0.21194155761708544507, 4.0003336668609968627, 4.9420648583774274893},
		{1, 3, 0.3004891818915622548, 0.4753668864186716911, 0.1748777045271094363, 4.56257688354901175, 6.63182739686217237},
		{1, 8, 0.16031317854478179845, 0.25361171426202826529, 0.093298535717246466839, 14.282045282550079149, 18.851222960257135852},
		{1, 32, 0.049492133192217662628, 0.078295401883362581942, 0.028803268691144919314, 139.58446235204843065, 156.6382398235775893},
		{4, 1, 0.96402758007581688395, 0.98201379003790844197, 0.017986209962091558027, 0.96491071872695998814, 1.0760218298380710993},
		{4, 2, 0.94699473395785585236, 0.96466315597190390157, 0.017668422014048049214, 0.28028288588800672729, 0.3181725623130949145},
		{4, 3, 0.93055332510335413891, 0.94791499382751560418, 0.017361668724161465273, 0.052847157376675033388, 0.1996022662597842875},
		{4, 8, 0.85622578310645421659, 0.8722006960946259703, 0.015974912988171753713, 0.1165917976436381546, 0.24962962161946989323},
		{4, 32, 0.61892950383617076843, 0.63047709462901407848, 0.011547590792843310047, 0.42212743039108218625, 0.96800748987081142615},
	} {
		m := mustNPRR(t, c.eps, c.k)
		if !relClose(m.C(), c.c, 1e-15) || !relClose(m.P(), c.p, 1e-15) || !relClose(m.Q(), c.q, 1e-15) {
			t.Errorf("ε=%v k=%d: c %v, p %v, q %v; want %v, %v, %v", c.eps, c.k, m.C(), m.P(), m.Q(), c.c, c.p, c.q)
		}
		if !relClose(m.Variance(1.0/3), c.v3, 1e-13) || !relClose(m.WorstCaseVariance(), c.wc, 1e-13) {
			t.Errorf("ε=%v k=%d: Var(1/3) %.17g, worst %.17g; want %.17g, %.17g", c.eps, c.k, m.Variance(1.0/3), m.WorstCaseVariance(), c.v3, c.wc)
		}
		if m.K() != c.k || m.Name() != "nprr" || m.Epsilon() != c.eps {
			t.Errorf("ε=%v k=%d: K %d, Name %q, Epsilon %v", c.eps, c.k, m.K(), m.Name(), m.Epsilon())
		}
	}
}

// TestNPRRLaw: the outputs are 2j/k - 1; at a grid point the law is GRR's
// row (p at the point, q elsewhere); off the grid the mass c is split
// between the two neighbours in proportion 1-θ : θ (v = 1/3, k = 2:
// s = 4/3, θ = 1/3); Value is Outputs()[z]; RoundIndex rounds up exactly
// when u < θ, and ReportIndex is GRR's keep-or-offset (u < p keeps).
func TestNPRRLaw(t *testing.T) {
	for _, k := range nprrKs {
		m := mustNPRR(t, 1, k)
		outs := m.Outputs()
		ps := make([]float64, k+1)
		for j := range k + 1 {
			if want := float64(2*j-k) / float64(k); outs[j] != want || m.Value(j) != want {
				t.Errorf("k=%d: output %d is %v, want %v", k, j, outs[j], want)
			}
			m.Probabilities(outs[j], ps)
			for i, p := range ps {
				want := m.Q()
				if i == j {
					want = m.P()
				}
				if !relClose(p, want, 1e-15) {
					t.Errorf("k=%d x=%v: P[index %d] = %v, want %v", k, outs[j], i, p, want)
				}
			}
			for _, u := range []float64{0, 0.5, 0.999999} {
				if y := m.RoundIndex(outs[j], u); y != j {
					t.Errorf("k=%d: RoundIndex(%v, %v) = %d, want %d", k, outs[j], u, y, j)
				}
			}
		}
	}
	m := mustNPRR(t, 1, 2)
	ps := make([]float64, 3)
	m.Probabilities(1.0/3, ps)
	want := []float64{m.Q(), m.Q() + m.C()*2/3, m.Q() + m.C()/3}
	for i := range ps {
		if !relClose(ps[i], want[i], 1e-15) {
			t.Errorf("k=2 v=1/3: probabilities %v, want %v", ps, want)
		}
	}
	// s = 4/3: the cell 1 with θ = 1/3, index 2 exactly for u < 1/3.
	if s := m.Position(1.0 / 3); math.Abs(s-4.0/3) > 1e-15 {
		t.Errorf("k=2: Position(1/3) = %v, want 4/3", s)
	}
	if f, th := m.Cell(1.0 / 3); f != 1 || math.Abs(th-1.0/3) > 1e-15 {
		t.Errorf("k=2: Cell(1/3) = %d, %v; want 1, 1/3", f, th)
	}
	for _, c := range []struct {
		u    float64
		want int
	}{{0, 2}, {0.33333, 2}, {0.33334, 1}, {0.9, 1}} {
		if y := m.RoundIndex(1.0/3, c.u); y != c.want {
			t.Errorf("k=2: RoundIndex(1/3, %v) = %d, want %d", c.u, y, c.want)
		}
	}
	// GRR over the 3 indices: keep below p, then the offsets 1 and 2 in
	// equal halves of [p, 1).
	p := m.P()
	for _, c := range []struct {
		u    float64
		want int
	}{{0, 1}, {p - 1e-12, 1}, {p + 1e-12, 2}, {(p+1)/2 - 1e-12, 2}, {(p+1)/2 + 1e-12, 0}, {math.Nextafter(1, 0), 0}} {
		if z := m.ReportIndex(1, c.u); z != c.want {
			t.Errorf("k=2: ReportIndex(1, %v) = %d, want %d (p = %v)", c.u, z, c.want, p)
		}
	}
}

// TestNPRRExact: at every k and ε, over a fine grid with the k+1 grid
// points, the probabilities are in [0, 1], sum to 1 and give an unbiased
// de-biased report, and the privacy ratio is exactly e^ε (GRR's p/q,
// attained between two grid points). Catches GRR over k outputs (ratio
// (e+k)/(e+k-1)·… off) and a rounding that loses mass.
func TestNPRRExact(t *testing.T) {
	for _, k := range nprrKs {
		for _, eps := range []float64{0.01, 0.5, 1, 4, 16} {
			m := mustNPRR(t, eps, k)
			xs := nprrInputs(m, 1000)
			if err := mechtest.ProbabilitiesSumToOne(m, xs, 1e-12); err != nil {
				t.Error(err)
			}
			if err := mechtest.DiscreteLDPTight(m, xs, eps, 1e-12); err != nil {
				t.Errorf("k=%d: %v", k, err)
			}
		}
	}
}

// TestNPRRSecondMoment: the derived E[Y² | v] = S_k·q + c(v² + 4θ(1-θ)/k²)
// with S_k = (k+1)(k+2)/(3k) equals Σ_j o_j²·P[o_j | v], enumerated, to
// 1e-12 at every input; so Variance, built on it, is the variance of the
// exact law. Catches S_k = Σ o_j² off by a term or a wrong θ.
func TestNPRRSecondMoment(t *testing.T) {
	for _, k := range nprrKs {
		for _, eps := range []float64{0.01, 0.5, 1, 4, 16} {
			m := mustNPRR(t, eps, k)
			sk := 0.0
			for _, o := range m.Outputs() {
				sk += o * o
			}
			if want := float64((k+1)*(k+2)) / float64(3*k); !relClose(sk, want, 1e-13) {
				t.Errorf("k=%d: Σ o² = %v, S_k = %v", k, sk, want)
			}
			ps := make([]float64, k+1)
			for _, x := range nprrInputs(m, 300) {
				m.Probabilities(x, ps)
				m2, mean := 0.0, 0.0
				for j, o := range m.Outputs() {
					m2 += o * o * ps[j]
					mean += o * ps[j]
				}
				if got := m.SecondMoment(x); math.Abs(got-m2) > 1e-12 {
					t.Errorf("k=%d ε=%v x=%v: SecondMoment %v, enumerated %v", k, eps, x, got, m2)
				}
				c := m.C()
				if v := (m2 - mean*mean) / (c * c); math.Abs(m.Variance(x)-v) > 1e-12*max(1, v) {
					t.Errorf("k=%d ε=%v x=%v: Variance %v, enumerated %v", k, eps, x, m.Variance(x), v)
				}
			}
		}
	}
}

// TestNPRRStatistics: the reports fit the exact law by a chi-square test,
// and the de-biased reports are unbiased with the closed-form variance
// (alpha 1e-6 each), at inputs on and off the grid, for k = 1, 2, 3, 8, 32.
func TestNPRRStatistics(t *testing.T) {
	seed := uint64(320)
	xs := []float64{-1, -0.4, 0, 1.0 / 3, 0.7, 1}
	for _, k := range []int{1, 2, 3, 8, 32} {
		for _, eps := range epsGrid {
			seed++
			rng := newRNG(seed)
			t.Run(fmt.Sprintf("k=%d/eps=%v", k, eps), func(t *testing.T) {
				t.Parallel()
				m := mustNPRR(t, eps, k)
				for _, x := range xs {
					if err := mechtest.DiscreteFit(m, x, nMC, rng, mechtest.DefaultAlpha); err != nil {
						t.Error(err)
					}
				}
				checkMoments(t, m, xs, rng)
			})
		}
	}
}

// roundedNPRR is NPRR with the rounding trap that Algorithm 2's stochastic
// rounding avoids: the input is rounded to a grid index by round
// (or truncation) instead of stochastically, so every input off the grid is
// biased.
type roundedNPRR struct {
	*mechanisms.NPRR
	round func(float64) float64
}

func (m roundedNPRR) index(x float64) int {
	return int(m.round((x + 1) * float64(m.K()) / 2))
}

func (m roundedNPRR) Perturb(x float64, rng *rand.Rand) float64 {
	return m.Value(m.ReportIndex(m.index(x), rng.Float64()))
}

func (m roundedNPRR) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	for i, x := range xs {
		dst[i] = m.Perturb(x, rng)
	}
	return nil
}

func (m roundedNPRR) Probabilities(x float64, dst []float64) {
	for j := range dst {
		dst[j] = m.Q()
	}
	dst[m.index(x)] = m.P()
}

// TestNPRRRoundTrap: at v = 1/3 (the Constant dataset's group means for
// d = 2 are ±1/3, off the grid for every even k) stochastic rounding is
// unbiased, while round() and truncation bias the de-biased report by
//
//	k = 2: s = 4/3;  round → 1 (report 0),    bias -1/3;  trunc → 1, bias -1/3
//	k = 4: s = 8/3;  round → 3 (report 1/2),  bias +1/6;  trunc → 2, bias -1/3
//	k = 8: s = 16/3; round → 5 (report 1/4),  bias -1/12; trunc → 5, bias -1/12
//
// which at ε = 1 and n = 2e5 is 74, 30 and 9.9 standard errors
// (√(Var(1/3)/n) = 0.0045, 0.0056, 0.0085 from the closed form): the
// Monte Carlo check (tolerance 4.9 SE) and the exact one
// (ProbabilitiesSumToOne checks the de-biased mean) both catch it.
func TestNPRRRoundTrap(t *testing.T) {
	rng := newRNG(330)
	for _, k := range []int{2, 4, 8} {
		m := mustNPRR(t, 1, k)
		for _, x := range []float64{1.0 / 3, -1.0 / 3} {
			if err := mechtest.Unbiased(m, x, nMC, rng, mechtest.DefaultAlpha); err != nil {
				t.Errorf("stochastic rounding: %v", err)
			}
		}
		for name, round := range map[string]func(float64) float64{"round": math.Round, "trunc": math.Trunc} {
			broken := roundedNPRR{m, round}
			if err := mechtest.Unbiased(broken, 1.0/3, nMC, rng, mechtest.DefaultAlpha); err == nil {
				t.Errorf("k=%d: the unbiasedness check missed %s() at v = 1/3", k, name)
			}
			if err := mechtest.ProbabilitiesSumToOne(broken, []float64{1.0 / 3}, 1e-12); err == nil {
				t.Errorf("k=%d: ProbabilitiesSumToOne missed %s() at v = 1/3", k, name)
			}
		}
	}
}

// TestNPRRWorstCase: WorstCaseVariance (the per-cell vertex) equals the
// maximum of Variance over a dense grid refined by golden section, to
// 1e-9 relative, and is never below it, for every k and ε (the registry's
// TestWorstCaseIsMaximum sees only k = 8). Catches a maximum taken at
// v = 0 or ±1 alone, which misses the θ(1-θ) bump near the ends.
func TestNPRRWorstCase(t *testing.T) {
	for _, k := range nprrKs {
		for _, eps := range []float64{0.01, 0.5, 1, 2, 4, 8, 16} {
			m := mustNPRR(t, eps, k)
			best := gridMaximum(m.Variance, -1, 1)
			if w := m.WorstCaseVariance(); !relClose(w, best, 1e-9) || w < best*(1-1e-14) {
				t.Errorf("k=%d ε=%v: WorstCaseVariance %v, grid maximum %v", k, eps, w, best)
			}
		}
	}
}

// gridMaximum is the maximum of f over a grid of 20000 cells of [lo, hi],
// refined by golden section over the two cells around the best point.
func gridMaximum(f func(float64) float64, lo, hi float64) float64 {
	const n = 20000
	best, arg := math.Inf(-1), lo
	for _, x := range mechtest.Grid(lo, hi, n) {
		if v := f(x); v > best {
			best, arg = v, x
		}
	}
	h := (hi - lo) / n
	a, b := max(lo, arg-h), min(hi, arg+h)
	g := (math.Sqrt(5) - 1) / 2
	for range 60 {
		if c, d := b-g*(b-a), a+g*(b-a); f(c) > f(d) {
			b = d
		} else {
			a = c
		}
	}
	return max(best, f((a+b)/2))
}

// TestNPRRBatchAndErrors: the batch contract (checkBatch) and the
// constructor's errors: k < 1 is a *ParamError on k.
func TestNPRRBatchAndErrors(t *testing.T) {
	for _, k := range []int{1, 3, 8} {
		checkBatch(t, mustNPRR(t, 1, k))
	}
	for _, k := range []int{0, -1} {
		m, err := mechanisms.NewNPRR(1, k)
		var pe *mechanisms.ParamError
		if m != nil || !errors.As(err, &pe) || pe.Param != "k" || pe.Value != float64(k) {
			t.Errorf("NewNPRR(1, %d) = %v, %v; want a *ParamError on k", k, m, err)
		}
	}
	if _, err := mechanisms.NewNPRR(1, 0); err == nil || err.Error() != "nprr: parameter k = 0: must be ≥ 1" {
		t.Errorf("NewNPRR(1, 0): %v", err)
	}
	if _, err := mechanisms.NewNPRR(math.NaN(), 8); err == nil {
		t.Error("NewNPRR(NaN, 8): no error")
	}
}

func ExampleNewNPRR() {
	m, err := mechanisms.NewNPRR(1, 2)
	if err != nil {
		panic(err)
	}
	ps := make([]float64, 3)
	m.Probabilities(1.0/3, ps) // s = 4/3: index 1 or 2, stochastically
	fmt.Printf("outputs %v, c = %.4f\n", m.Outputs(), m.C())
	fmt.Printf("P[report | v = 1/3] = %.4f\n", ps)
	fmt.Printf("E[report]/c = %.4f\n", (-ps[0]+ps[2])/m.C())
	// Output:
	// outputs [-1 0 1], c = 0.3642
	// P[report | v = 1/3] = [0.2119 0.4547 0.3333]
	// E[report]/c = 0.3333
}
