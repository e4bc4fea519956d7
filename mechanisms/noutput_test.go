package mechanisms_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/mechtest"
)

// noGrid returns steps+1 equal points on [-1, 1], m's knots and 0, and the
// floats next to every knot: the inputs at which every output probability
// attains its extremes, and those on both sides of every kink.
func noGrid(m *mechanisms.NOutput, steps int) []float64 {
	xs := mechtest.Grid(-1, 1, steps)
	xs = append(xs, 0)
	for _, k := range m.Knots() {
		xs = append(xs, k, math.Nextafter(k, -2), math.Nextafter(k, 2))
	}
	for i, x := range xs {
		xs[i] = min(max(x, -1), 1)
	}
	slices.Sort(xs)
	return slices.Compact(xs)
}

// TestNOutputReference: the optimal N, construction, p0 and worst case
// against an independent 40-digit mpmath implementation of Section 3
// (Theorems 4 and 5 as printed, eq. (12) by bisection, N = 3 by golden
// section; the variance as -x² + b_i·x + k_i of Var_i[Y|x], Section 3.4).
func TestNOutputReference(t *testing.T) {
	for _, c := range []struct {
		eps   float64
		N     int
		how   string
		worst float64
		p0    float64
	}{
		{0.5, 2, "duchi", 16.670792356131055059, 0},
		{1, 3, "three-outputs", 4.4554517159044341616, 0.10524180904953626107},
		{2, 3, "three-outputs", 0.99991837268210349083, 0.10650697891920075051},
		{2.6, 4, "theorem 4", 0.57059431328552159846, 0},
		{3, 4, "theorem 5", 0.37785506617185418356, 0},
		{4, 5, "theorem 5", 0.16423538212651085861, 0.017065385160357123805},
		{5, 7, "theorem 5", 0.077222965761205415992, 0.0064761319942667604949},
		{8, 17, "theorem 5", 0.0091186787144668015923, 0.0003336716778559486882},
		{12, 61, "theorem 5", 0.00060175714702309227226, 6.1419481073221391884e-6},
		{16, 228, "theorem 5", 0.000041274143949311191574, 0},
	} {
		m, err := mechanisms.NewNOutput(c.eps)
		if err != nil {
			t.Fatal(err)
		}
		if m.N() != c.N || m.Construction() != c.how {
			t.Errorf("ε=%v: N = %d by %s, want %d by %s", c.eps, m.N(), m.Construction(), c.N, c.how)
			continue
		}
		// At large ε the worst case (4e-5 at ε = 16) is a small difference
		// of O(1) outputs built by a 114-step recurrence: a few 1e-12.
		if !relClose(m.WorstCaseVariance(), c.worst, 1e-12*max(1, c.eps-8)) {
			t.Errorf("ε=%v: worst case %v, want %v", c.eps, m.WorstCaseVariance(), c.worst)
		}
		if math.Abs(m.P0()-c.p0) > 1e-12*c.p0 {
			t.Errorf("ε=%v: p0 = %v, want %v", c.eps, m.P0(), c.p0)
		}
		if got := len(m.Outputs()); got != c.N {
			t.Errorf("ε=%v: %d outputs", c.eps, got)
		}
	}
}

// TestNOutputFixedNReference: NewNOutputN takes the better of the Theorem 4
// and Theorem 5 configurations (mpmath values as above; the Theorem 4
// configurations of odd N have p0 from eq. (12) strictly inside (0, p)).
func TestNOutputFixedNReference(t *testing.T) {
	for _, c := range []struct {
		eps   float64
		N     int
		how   string
		worst float64
		p0    float64
		a     []float64 // a_1 … a_n
	}{
		{3, 5, "theorem 4", 0.38591624921733495629, 0.0078556923173143161906, []float64{0.58106201556096, 1.2191601328542629}},
		{3.5, 5, "theorem 4", 0.25415217650973663069, 0.022461899540790740639, []float64{0.69838395672952251, 1.1503905950089609}},
		{4.5, 7, "theorem 4", 0.11476703546811852692, 0.0034192294711599991171, []float64{0.33702905071772857, 0.81176839295514793, 1.0710649731365891}},
		{2.6, 4, "theorem 4", 0.57059431328552159846, 0, []float64{0.45700350414735418, 1.3209310071157523}},
		{3, 4, "theorem 5", 0.37785506617185418356, 0, []float64{0.52432679555730753, 1.2095827859650238}},
		{4, 6, "theorem 4", 0.17726501309569279026, 0, []float64{0.10651460991294501, 0.76282259560494772, 1.1119441621826443}},
	} {
		m, err := mechanisms.NewNOutputN(c.eps, c.N)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("ε=%v N=%d", c.eps, c.N)
		if m.N() != c.N || m.Construction() != c.how {
			t.Errorf("%s: N = %d by %s, want %s", name, m.N(), m.Construction(), c.how)
		}
		if !relClose(m.WorstCaseVariance(), c.worst, 1e-12) || math.Abs(m.P0()-c.p0) > 1e-10*c.p0 {
			t.Errorf("%s: worst %v, p0 %v; want %v, %v", name, m.WorstCaseVariance(), m.P0(), c.worst, c.p0)
		}
		out := m.Outputs()
		pos := out[len(out)-len(c.a):]
		for i, a := range c.a {
			if !relClose(pos[i], a, 1e-13) || out[len(c.a)-1-i] != -pos[i] {
				t.Errorf("%s: outputs %v, want ±%v", name, out, c.a)
				break
			}
		}
		if c.N%2 == 1 && out[len(c.a)] != 0 {
			t.Errorf("%s: middle output %v, want 0", name, out[len(c.a)])
		}
	}
}

// TestNOutputSmallN: N = 2 is Duchi et al.'s mechanism and N = 3 is
// Three-Outputs with P[0|0] = e^ε·p0 at its optimum (two independent
// implementations; Three-Outputs solves the cubic of its eq. (92)).
func TestNOutputSmallN(t *testing.T) {
	for _, eps := range []float64{0.05, 0.5, math.Ln2, 0.8, 1, 1.5, 2, 2.5, 3, 4, 8, 16} {
		m2, err := mechanisms.NewNOutputN(eps, 2)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := mechanisms.NewDuchi(eps)
		if !relClose(m2.WorstCaseVariance(), d.WorstCaseVariance(), 1e-13) || !relClose(m2.Outputs()[1], d.C(), 1e-14) {
			t.Errorf("ε=%v: N = 2 worst %v, outputs %v; Duchi %v, C = %v", eps, m2.WorstCaseVariance(), m2.Outputs(), d.WorstCaseVariance(), d.C())
		}
		m3, _ := mechanisms.NewNOutputN(eps, 3)
		to, _ := mechanisms.NewThreeOutputs(eps)
		if !relClose(m3.WorstCaseVariance(), to.WorstCaseVariance(), 1e-12) {
			t.Errorf("ε=%v: N = 3 worst %v, Three-Outputs %v", eps, m3.WorstCaseVariance(), to.WorstCaseVariance())
		}
		if a := math.Exp(eps) * m3.P0(); math.Abs(a-to.A()) > 1e-13 {
			t.Errorf("ε=%v: N = 3 has e^ε·p0 = %v, Three-Outputs a = %v", eps, a, to.A())
		}
		ps2 := make([]float64, 2)
		pd := make([]float64, 2)
		p3 := make([]float64, 3)
		pt := make([]float64, 3)
		for _, x := range mechtest.Grid(-1, 1, 40) {
			m2.Probabilities(x, ps2)
			d.Probabilities(x, pd)
			m3.Probabilities(x, p3)
			to.Probabilities(x, pt)
			for i := range pd {
				if math.Abs(ps2[i]-pd[i]) > 1e-14 {
					t.Errorf("ε=%v x=%v: N = 2 probabilities %v, Duchi %v", eps, x, ps2, pd)
				}
			}
			for i := range pt {
				if math.Abs(p3[i]-pt[i]) > 1e-14 {
					t.Errorf("ε=%v x=%v: N = 3 probabilities %v, Three-Outputs %v", eps, x, p3, pt)
				}
			}
		}
	}
}

// sumTol is the tolerance of mechtest.ProbabilitiesSumToOne for m: 1e-12,
// or more for a configuration with a narrow piece, whose mean carries a
// rounding error of about ulp·a_n²/(a_i - a_{i-1}) (the knots t·a_i are
// rounded; see noConfig.extras). Such narrow pieces occur only for N well
// above the optimal N.
func sumTol(m *mechanisms.NOutput) float64 {
	o := m.Outputs()
	an := o[len(o)-1]
	gap := math.Inf(1)
	for i := 1; i < len(o); i++ {
		gap = min(gap, o[i]-o[i-1])
	}
	return max(1e-12, 16*0x1p-53*an*an/gap)
}

// validNs returns every N for which NewNOutputN succeeds at eps, from 2 up
// to the first failure above the optimal N.
func validNs(t *testing.T, eps float64) []*mechanisms.NOutput {
	t.Helper()
	best, _ := mechanisms.NewNOutput(eps)
	var ms []*mechanisms.NOutput
	for N := 2; ; N++ {
		m, err := mechanisms.NewNOutputN(eps, N)
		if err != nil {
			if N <= best.N() {
				t.Fatalf("ε=%v: NewNOutputN(%d) fails below the optimal N %d: %v", eps, N, best.N(), err)
			}
			return ms
		}
		ms = append(ms, m)
	}
}

// TestNOutputProbabilities: for every ε of a grid up to 16 and every N with
// a valid configuration there (N = 2 up to beyond the optimal N), on a grid
// of 401 inputs plus the knots and their neighbours: the probabilities sum
// to 1, give E[Y|x] = x, every nonzero output's probability lies in
// [p, e^ε·p] and that of 0 in [p0, e^ε·p0], and every output attains both
// ends (so the privacy ratio is exactly e^ε; Theorem 1). The tolerance is
// 1e-12 relative to the bounds: rounding only.
func TestNOutputProbabilities(t *testing.T) {
	count := 0
	for _, eps := range []float64{0.1, 0.5, 1, 2, 2.6, 3, 4, 5, 6, 8, 10, 12, 14, 16} {
		e := math.Exp(eps)
		for _, m := range validNs(t, eps) {
			count++
			N := m.N()
			name := fmt.Sprintf("ε=%v N=%d (%s)", eps, N, m.Construction())
			xs := noGrid(m, 400)
			if err := mechtest.ProbabilitiesSumToOne(m, xs, sumTol(m)); err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			p, p0 := m.P(), m.P0()
			lo := make([]float64, N)
			hi := make([]float64, N)
			for i := range lo {
				lo[i], hi[i] = math.Inf(1), math.Inf(-1)
			}
			ps := make([]float64, N)
			bad := 0
			for _, x := range xs {
				m.Probabilities(x, ps)
				for i, q := range ps {
					lo[i], hi[i] = min(lo[i], q), max(hi[i], q)
					b := p
					if N%2 == 1 && i == N/2 {
						b = p0
					}
					if !(q >= b*(1-1e-12) && q <= e*b*(1+1e-12)) && bad < 3 {
						bad++
						t.Errorf("%s: P[%v | %v] = %v outside [%v, %v]", name, m.Outputs()[i], x, q, b, e*b)
					}
					if got := m.ProbabilityOf(i, x); math.Abs(got-q) > 1e-15 {
						t.Errorf("%s: ProbabilityOf(%d, %v) = %v, Probabilities %v", name, i, x, got, q)
					}
				}
			}
			for i := range lo {
				if lo[i] == 0 && hi[i] == 0 {
					continue // the output 0 with p0 = 0 (N = 3 below ln 2)
				}
				if r := hi[i] / lo[i]; !relClose(r, e, 1e-11) {
					t.Errorf("%s: output %v has ratio %v, want e^ε = %v", name, m.Outputs()[i], r, e)
				}
			}
			if err := mechtest.DiscreteLDPTight(m, xs, eps, 1e-11); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	if count < 300 {
		t.Errorf("only %d configurations checked", count)
	}
}

// maxByPieces returns the maximum of m.Variance over [-1, 1] computed
// independently of WorstCaseVariance: between consecutive knots the
// variance is a quadratic, fitted through the ends and the midpoint of the
// piece, whose vertex is taken when it lies inside.
func maxByPieces(m *mechanisms.NOutput) float64 {
	pts := append([]float64{-1, 0, 1}, m.Knots()...)
	slices.Sort(pts)
	pts = slices.Compact(pts)
	best := math.Inf(-1)
	for i := 0; i+1 < len(pts); i++ {
		a, b := pts[i], pts[i+1]
		mid, h := (a+b)/2, (b-a)/2
		fa, fb, fm := m.Variance(a), m.Variance(b), m.Variance(mid)
		best = max(best, fa, fb, fm)
		beta := (fb - fa) / (2 * h)
		gamma := (fb + fa - 2*fm) / (2 * h * h)
		if gamma < 0 {
			if u := -beta / (2 * gamma); u > -h && u < h {
				best = max(best, m.Variance(mid+u))
			}
		}
	}
	return best
}

// TestNOutputVarianceClosedForm: Variance is Σ P[a_i|x]·(a_i - x)² from the
// probabilities, and WorstCaseVariance its exact maximum (the maximum of
// the quadratic pieces, found independently) attained at WorstCaseInput.
func TestNOutputVarianceClosedForm(t *testing.T) {
	for _, eps := range []float64{0.1, 1, 2.6, 3, 4, 6.5, 8, 16} {
		for _, m := range validNs(t, eps) {
			name := fmt.Sprintf("ε=%v N=%d", eps, m.N())
			ps := make([]float64, m.N())
			for _, x := range noGrid(m, 500) {
				m.Probabilities(x, ps)
				v := 0.0
				for i, q := range ps {
					d := m.Outputs()[i] - x
					v += q * d * d
				}
				if got := m.Variance(x); !relClose(got, v, 1e-11) {
					t.Errorf("%s x=%v: Variance %v, from the probabilities %v", name, x, got, v)
				}
			}
			w, best := m.WorstCaseVariance(), maxByPieces(m)
			if !relClose(w, best, 1e-12) || !relClose(w, m.Variance(m.WorstCaseInput()), 1e-14) {
				t.Errorf("%s: worst %v at %v (Variance there %v), maximum of the pieces %v", name, w, m.WorstCaseInput(), m.Variance(m.WorstCaseInput()), best)
			}
		}
	}
}

// TestNOutputMoments: the sampler is unbiased with the closed-form variance
// (mechtest.Unbiased and .Variance) at the ends, 0, the knots and inside
// the pieces, for even and odd N by Theorems 4 and 5 up to N = 228.
func TestNOutputMoments(t *testing.T) {
	type mk struct {
		eps float64
		N   int // 0: optimal
	}
	seed := uint64(400)
	for _, c := range []mk{{2.6, 0}, {3, 0}, {3, 5}, {4, 0}, {4.5, 7}, {8, 0}, {12, 0}, {16, 0}} {
		var m *mechanisms.NOutput
		var err error
		if c.N == 0 {
			m, err = mechanisms.NewNOutput(c.eps)
		} else {
			m, err = mechanisms.NewNOutputN(c.eps, c.N)
		}
		if err != nil {
			t.Fatal(err)
		}
		xs := slices.Clone(xGrid)
		k := m.Knots()
		xs = append(xs, k[len(k)/2], k[len(k)-2], -k[len(k)-2]/2, 0.93)
		if c.eps > 12 {
			// 1.6e7 reports per input at ε = 16: two inputs.
			xs = []float64{-k[len(k)-2] / 2, 0.93}
		}
		seed++
		t.Run(fmt.Sprintf("eps=%v/N=%d/%s", c.eps, m.N(), m.Construction()), func(t *testing.T) {
			t.Parallel()
			rng := newRNG(seed)
			// The flat part (probability 1-t = 2n·p + p0, 2.6e-5 at ε = 16)
			// carries most of the variance at large ε; the checks' normal
			// approximations need many of its draws, so n grows with 1/(1-t).
			n := max(nMC, int(400/(1-m.T())))
			for _, x := range xs {
				if err := mechtest.Unbiased(m, x, n, rng, mechtest.DefaultAlpha); err != nil {
					t.Error(err)
				}
				if err := mechtest.Variance(m, x, n, rng, mechtest.DefaultAlpha); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestNOutputFit: the reports follow the exact law (chi-square over the 17
// outputs at ε = 8, the 5 at ε = 4), and indices match the values.
func TestNOutputFit(t *testing.T) {
	rng := newRNG(411)
	for _, eps := range []float64{4, 8} {
		m, _ := mechanisms.NewNOutput(eps)
		for _, x := range []float64{-1, -0.55, 0, 0.31, 0.8, 1} {
			if err := mechtest.DiscreteFit(m, x, nMC, rng, mechtest.DefaultAlpha); err != nil {
				t.Error(err)
			}
		}
	}
}

// TestNOutputIndices: PerturbIndexBatch draws what PerturbBatch draws and
// returns the indices of its reports; Bits is ⌈log2 N⌉.
func TestNOutputIndices(t *testing.T) {
	for _, c := range []struct {
		eps  float64
		N    int
		bits int
	}{{0.5, 2, 1}, {1, 3, 2}, {2.6, 4, 2}, {4, 5, 3}, {8, 17, 5}, {16, 228, 8}} {
		m, _ := mechanisms.NewNOutput(c.eps)
		if m.N() != c.N || m.Bits() != c.bits {
			t.Errorf("ε=%v: N = %d, %d bits; want %d, %d", c.eps, m.N(), m.Bits(), c.N, c.bits)
		}
		xs := mechtest.Grid(-1, 1, 999)
		ys := make([]float64, len(xs))
		idx := make([]int, len(xs))
		if err := m.PerturbBatch(ys, xs, newRNG(5)); err != nil {
			t.Fatal(err)
		}
		if err := m.PerturbIndexBatch(idx, xs, newRNG(5)); err != nil {
			t.Fatal(err)
		}
		rng := newRNG(5)
		for i := range xs {
			if m.Outputs()[idx[i]] != ys[i] {
				t.Fatalf("ε=%v: index %d (%v) for report %v", c.eps, idx[i], m.Outputs()[idx[i]], ys[i])
			}
			if j := m.PerturbIndex(xs[i], rng); j != idx[i] {
				t.Fatalf("ε=%v: PerturbIndex %d, batch %d", c.eps, j, idx[i])
			}
		}
		var ie *mechanisms.InputError
		if err := m.PerturbIndexBatch(idx[:2], []float64{0, 2}, newRNG(1)); !errors.As(err, &ie) || ie.Index != 1 {
			t.Errorf("bad input: %v", err)
		}
	}
}

// TestNOutputNoAllocsLarge: no allocation per report at large N (the
// registry-wide test runs at ε = 1, N = 3).
func TestNOutputNoAllocsLarge(t *testing.T) {
	for _, eps := range []float64{8, 16} {
		m, _ := mechanisms.NewNOutput(eps)
		xs := mechtest.Grid(-1, 1, 4095)
		dst := make([]float64, len(xs))
		idx := make([]int, len(xs))
		rng := newRNG(3)
		if a := testing.AllocsPerRun(20, func() { _ = m.PerturbBatch(dst, xs, rng) }); a != 0 {
			t.Errorf("ε=%v: PerturbBatch allocates %v", eps, a)
		}
		if a := testing.AllocsPerRun(20, func() { _ = m.PerturbIndexBatch(idx, xs, rng) }); a != 0 {
			t.Errorf("ε=%v: PerturbIndexBatch allocates %v", eps, a)
		}
	}
}

// TestNOutputAverageProbability: the bin averages of the output
// probabilities (Θ^N of eq. (21), E0.19) match adaptive quadrature and sum
// to 1 over the outputs, on bins straddling 0 and the knots.
func TestNOutputAverageProbability(t *testing.T) {
	for _, eps := range []float64{1, 3, 4, 8} {
		m, _ := mechanisms.NewNOutput(eps)
		k := m.Knots()
		bins := [][2]float64{{-1, 1}, {-0.3, 0.2}, {k[0], k[len(k)-1]}, {0.05, 0.95}, {-0.9, -0.1}, {0.4, 0.4}, {k[len(k)/2] - 0.01, k[len(k)/2] + 0.02}}
		for _, b := range bins {
			sum := 0.0
			for i := range m.Outputs() {
				got := m.AverageProbability(i, b[0], b[1])
				var want float64
				if b[0] == b[1] {
					want = m.ProbabilityOf(i, b[0])
				} else {
					f := func(x float64) float64 { return m.ProbabilityOf(i, x) }
					want = mechtest.Integrate(f, b[0], b[1], 64, 1e-15) / (b[1] - b[0])
				}
				if math.Abs(got-want) > 1e-12 {
					t.Errorf("ε=%v bin %v output %d: %v, quadrature %v", eps, b, i, got, want)
				}
				sum += got
			}
			if math.Abs(sum-1) > 1e-13 {
				t.Errorf("ε=%v bin %v: averages sum to %v", eps, b, sum)
			}
		}
	}
}

// TestNOutputAuthorsKnotsCaught: the authors' piece selection by t²·a_j
// (ERRATA E0.1) is caught for N ≥ 4 by the same checks the mechanism
// passes: probabilities outside [0, 1] or an LDP ratio above e^ε, and a
// biased sampler. For N ≤ 3 there is one piece and it is the mechanism.
func TestNOutputAuthorsKnotsCaught(t *testing.T) {
	rng := newRNG(421)
	for _, c := range []struct {
		eps float64
		N   int
	}{{3, 4}, {4, 5}, {4.5, 7}, {8, 17}} {
		m, err := mechanisms.NewNOutputAuthorsKnots(c.eps, c.N)
		if err != nil {
			t.Fatal(err)
		}
		good, _ := mechanisms.NewNOutputN(c.eps, c.N)
		name := fmt.Sprintf("ε=%v N=%d", c.eps, c.N)
		xs := noGrid(good, 1000)
		if err := mechtest.DiscreteLDP(m, xs, c.eps, 1e-9); err == nil {
			t.Errorf("%s: DiscreteLDP accepts the authors' knots", name)
		}
		// The sampler: biased at an input just above the first wrong
		// breakpoint t·x_1, where the extrapolated formulas are furthest
		// off.
		k := good.Knots()
		x1 := k[len(k)-good.N()/2]
		x := good.T()*x1 + 1e-9
		caught := mechtest.Unbiased(m, x, nMC, rng, mechtest.DefaultAlpha) != nil
		if !caught {
			for _, x := range xs[len(xs)/2:] {
				if mechtest.Unbiased(m, x, nMC/4, rng, mechtest.DefaultAlpha) != nil {
					caught = true
					break
				}
			}
		}
		if !caught {
			t.Errorf("%s: the unbiasedness check misses the authors' sampler", name)
		}
		// The correct mechanism passes the same checks.
		if err := mechtest.DiscreteLDPTight(good, xs, c.eps, 1e-11); err != nil {
			t.Error(err)
		}
		if err := mechtest.Unbiased(good, x, nMC, rng, mechtest.DefaultAlpha); err != nil {
			t.Error(err)
		}
	}
	// Negative "probabilities" occur (E0.1), e.g. at ε = 8, N = 17.
	m, _ := mechanisms.NewNOutputAuthorsKnots(8, 17)
	if err := mechtest.ProbabilitiesSumToOne(m, mechtest.Grid(-1, 1, 2000), 1e-12); err == nil {
		t.Error("ε=8 N=17: ProbabilitiesSumToOne accepts the authors' knots")
	}
	// N = 3: no difference.
	bad, _ := mechanisms.NewNOutputAuthorsKnots(2, 3)
	good, _ := mechanisms.NewNOutputN(2, 3)
	pb, pg := make([]float64, 3), make([]float64, 3)
	for _, x := range mechtest.Grid(-1, 1, 50) {
		bad.Probabilities(x, pb)
		good.Probabilities(x, pg)
		if !slices.Equal(pb, pg) {
			t.Errorf("N=3 x=%v: %v vs %v", x, pb, pg)
		}
	}
}

// TestNOutputParamErrors: N < 2, or N too large for ε, is a *ParamError on
// N.
func TestNOutputParamErrors(t *testing.T) {
	for _, c := range []struct {
		eps float64
		N   int
	}{{1, 1}, {1, 0}, {1, 10}, {0.5, 4}, {4, 40}} {
		_, err := mechanisms.NewNOutputN(c.eps, c.N)
		var pe *mechanisms.ParamError
		if !errors.As(err, &pe) || pe.Param != "N" {
			t.Errorf("NewNOutputN(%v, %d): %v, want a *ParamError on N", c.eps, c.N, err)
		}
	}
	if _, err := mechanisms.NewNOutputN(math.NaN(), 4); err == nil {
		t.Error("NewNOutputN(NaN, 4) succeeded")
	}
	if _, err := mechanisms.NewNOutputAuthorsKnots(1, 10); err == nil {
		t.Error("NewNOutputAuthorsKnots(1, 10) succeeded")
	}
}
