package mechanisms_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/mechtest"
)

// TestHMNPReference: N, α, the worst case and the mean bits (F = 32)
// against an independent 40-digit mpmath implementation (Theorem 8 with
// the last piece's coefficients, exact worst case over the pieces).
func TestHMNPReference(t *testing.T) {
	for _, c := range []struct {
		eps   float64
		N     int
		alpha float64
		worst float64
		bits  float64
	}{
		{0.3, 2, 1, 45.112605770794080826, 1},
		{0.65, 2, 0.71003981913840526099, 10.07660907767802431, 9.98876560671},
		{1, 2, 0.58232231492622311479, 4.2672946177858350555, 13.9480082373},
		{2, 3, 0.76030370752919199141, 0.98427641035803942379, 9.19088877412},
		{3, 3, 0.35491761327924561317, 0.35541767927678288325, 21.3524716016},
		{4, 4, 0.3018874491435346655, 0.15382568020787300106, 22.9433765257},
		{5, 5, 0.21009890423771016457, 0.071535951757474879702, 25.9071317771},
		{8, 12, 0.085679004725368261891, 0.0085387789783243816889, 29.6009878677},
	} {
		m, err := mechanisms.NewHMNP(c.eps)
		if err != nil {
			t.Fatal(err)
		}
		if m.NOutput().N() != c.N || !relClose(m.Alpha(), c.alpha, 1e-9) || !relClose(m.WorstCaseVariance(), c.worst, 1e-12) ||
			!relClose(m.AverageBits(32), c.bits, 1e-9) {
			t.Errorf("ε=%v: N = %d, α = %v, worst %v, bits %v; want %d, %v, %v, %v",
				c.eps, m.NOutput().N(), m.Alpha(), m.WorstCaseVariance(), m.AverageBits(32), c.N, c.alpha, c.worst, c.bits)
		}
	}
}

// mixtureWorst returns max over [0, 1] of α·Var_N(x) + (1-α)·Var_P(x) for
// an N-output mechanism and PM-SUB, from their public Variance alone: the
// sum is a quadratic between consecutive knots, fitted through three
// points.
func mixtureWorst(no *mechanisms.NOutput, pm *mechanisms.Piecewise, alpha float64) float64 {
	v := func(x float64) float64 { return alpha*no.Variance(x) + (1-alpha)*pm.Variance(x) }
	pts := []float64{0, 1}
	for _, k := range no.Knots() {
		if k > 0 {
			pts = append(pts, k)
		}
	}
	slices.Sort(pts)
	pts = slices.Compact(pts)
	best := math.Inf(-1)
	for i := 0; i+1 < len(pts); i++ {
		a, b := pts[i], pts[i+1]
		mid, h := (a+b)/2, (b-a)/2
		fa, fb, fm := v(a), v(b), v(mid)
		best = max(best, fa, fb, fm)
		beta := (fb - fa) / (2 * h)
		gamma := (fb + fa - 2*fm) / (2 * h * h)
		if gamma < 0 {
			if u := -beta / (2 * gamma); u > -h && u < h {
				best = max(best, v(mid+u))
			}
		}
	}
	return best
}

// TestHMNPTheorem8: for every N with a configuration at ε, Theorem 8's α
// (corrected, E0.10) attains the minimum over α of the exact worst case
// W(α) = max_x [α·Var_N + (1-α)·Var_P], which is convex in α (a maximum of
// functions linear in α) and is minimised here by golden section on
// [0, 1]; and WorstCaseVariance is W at that α.
func TestHMNPTheorem8(t *testing.T) {
	count := 0
	for _, eps := range []float64{0.3, 0.65, 1, 1.5, 2, 2.6, 3, 3.5, 4, 5, 6, 8, 12} {
		opt, _ := mechanisms.NewNOutput(eps)
		for N := 2; N <= opt.N()+3; N++ {
			m, err := mechanisms.NewHMNPN(eps, N)
			if err != nil {
				if N <= opt.N() {
					t.Fatal(err)
				}
				break
			}
			count++
			no, pm := m.NOutput(), m.PMSub()
			w := func(a float64) float64 { return mixtureWorst(no, pm, a) }
			name := fmt.Sprintf("ε=%v N=%d", eps, N)
			if got := w(m.Alpha()); !relClose(m.WorstCaseVariance(), got, 1e-12) {
				t.Errorf("%s: WorstCaseVariance %v, W(α) from the components %v", name, m.WorstCaseVariance(), got)
			}
			g := (math.Sqrt(5) - 1) / 2
			a, b := 0.0, 1.0
			for range 100 {
				if c, d := b-g*(b-a), a+g*(b-a); w(c) < w(d) {
					b = d
				} else {
					a = c
				}
			}
			best := min(w((a+b)/2), w(0), w(1))
			if m.WorstCaseVariance() > best*(1+1e-10) {
				t.Errorf("%s: Theorem 8 α = %v gives %v, the convex search %v at α = %v", name, m.Alpha(), m.WorstCaseVariance(), best, (a+b)/2)
			}
		}
	}
	if count < 60 {
		t.Errorf("only %d configurations", count)
	}
}

// TestHMNPGeneralises: HM-NP is at least as good as N-output, PM-SUB and
// HM-TP (Section 4.1, after Theorem 8); with N = 3 it is HM-TP
// (same worst case and α = 1 - β); with N = 2 its α is 1 below
// ε* ≈ 0.610986 and A/(1+A) above (the rule of the authors' code).
func TestHMNPGeneralises(t *testing.T) {
	for k := 1; k <= 160; k++ {
		eps := 0.1 * float64(k)
		m, _ := mechanisms.NewHMNP(eps)
		w := m.WorstCaseVariance()
		for _, name := range []string{"n-output", "pm-sub", "hm-tp", "duchi", "three-outputs"} {
			o := mustNew(t, name, eps).(mechanisms.Variancer).WorstCaseVariance()
			if w > o*(1+1e-12) {
				t.Errorf("ε=%v: HM-NP %v above %s %v", eps, w, name, o)
			}
		}
		if eps > 6 {
			continue
		}
		h3, _ := mechanisms.NewHMNPN(eps, 3)
		tp, _ := mechanisms.NewHMTP(eps)
		if !relClose(h3.WorstCaseVariance(), tp.WorstCaseVariance(), 1e-12) || math.Abs(h3.Alpha()-(1-tp.Weight())) > 1e-12 {
			t.Errorf("ε=%v: HM-NP(N=3) worst %v, α %v; HM-TP %v, 1-β %v", eps, h3.WorstCaseVariance(), h3.Alpha(), tp.WorstCaseVariance(), 1-tp.Weight())
		}
		h2, _ := mechanisms.NewHMNPN(eps, 2)
		e, s := math.Exp(eps), math.Exp(eps/3)
		want := (s + 1) / (e + s)
		if eps < mechanisms.HMTPEpsStar() {
			want = 1
		}
		if !relClose(h2.Alpha(), want, 1e-12) {
			t.Errorf("ε=%v: HM-NP(N=2) α = %v, want %v", eps, h2.Alpha(), want)
		}
	}
}

// TestHMNPBits: at ε = 4 with 32-bit floats HM-NP (N = 4, α = 0.3019)
// takes 22.94 bits on average, the "23 bits" of Section 4.1
// (with the corrected formula α·⌈log2 N⌉ + (1-α)·F, E0.12). HM-TP takes
// 26.87, not the 28.12 of Section 4.1 (E0.13).
func TestHMNPBits(t *testing.T) {
	m, _ := mechanisms.NewHMNP(4)
	if b := m.AverageBits(32); math.Abs(b-22.9433765257) > 1e-8 || math.Round(b) != 23 {
		t.Errorf("HM-NP at ε = 4: %v bits", b)
	}
	tp, _ := mechanisms.NewHMTP(4)
	if b := (1-tp.Weight())*2 + tp.Weight()*32; math.Abs(b-26.870081938) > 1e-6 {
		t.Errorf("HM-TP at ε = 4: %v bits", b)
	}
}

// hmnpGrids returns an input grid with the N-output knots, output points
// off the density's kinks, and bucket edges over the output range.
func hmnpGrids(m *mechanisms.HMNP) (xs, ys, yEdges []float64) {
	xs = noGrid(m.NOutput(), 200)
	lo, hi := m.OutputRange()
	g := mechtest.Grid(lo, hi, 997)
	for i := 0; i+1 < len(g); i++ {
		ys = append(ys, (g[i]+g[i+1])/2)
	}
	return xs, ys, mechtest.Grid(lo, hi, 13)
}

// strided returns every k-th element of s.
func strided(s []float64, k int) []float64 {
	var out []float64
	for i := 0; i < len(s); i += k {
		out = append(out, s[i])
	}
	return out
}

// TestHMNPExact runs the exact checks of a mixture with atoms: atom and
// density ratios ≤ e^ε and attained, the atoms and density against the
// components, buckets summing to 1 and matching the density of the
// continuous part, and the CDF.
func TestHMNPExact(t *testing.T) {
	for _, eps := range []float64{0.5, 2, 4, 8} {
		m, _ := mechanisms.NewHMNP(eps)
		xs, ys, yEdges := hmnpGrids(m)
		xEdges := mechtest.Grid(-1, 1, 5)
		if err := mechtest.MixedLDPTight(m, xs, ys, eps, 1e-9); err != nil {
			t.Error(err)
		}
		if err := mechtest.MixtureMatches(m, strided(xs, 4), strided(ys, 8), yEdges, xEdges, 1e-12); err != nil {
			t.Error(err)
		}
		if err := mechtest.BucketsSumToOne(m, yEdges, xEdges, 1e-12); err != nil {
			t.Error(err)
		}
		cp, err := mechtest.ContinuousPart(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := mechtest.BucketsMatchDensity(cp, yEdges, xEdges, 1e-9); err != nil {
			t.Error(err)
		}
		if err := mechtest.CDFConsistent(m, mechtest.Grid(-1, 1, 7), mechtest.Grid(yEdges[0], yEdges[len(yEdges)-1], 101), 1e-12); err != nil {
			t.Error(err)
		}
	}
}

// TestHMNPMoments: unbiased with the closed-form variance, and the reports
// follow the exact law (chi-square over buckets, atoms included).
func TestHMNPMoments(t *testing.T) {
	seed := uint64(500)
	for _, eps := range []float64{2, 4, 8} {
		m, _ := mechanisms.NewHMNP(eps)
		k := m.NOutput().Knots()
		xs := append(slices.Clone(xGrid), k[len(k)-2], m.WorstCaseInput())
		seed++
		t.Run(fmt.Sprintf("eps=%v", eps), func(t *testing.T) {
			t.Parallel()
			rng := newRNG(seed)
			checkMoments(t, m, xs, rng)
			if eps <= 4 {
				for _, x := range []float64{-1, 0.2, 1} {
					if err := mechtest.ContinuousFit(m, x, fitEdges(m, 40), nMC, rng, mechtest.DefaultAlpha); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
}

// authorsAtoms is HM-NP whose N-output part has the authors' knots (E0.1).
type authorsAtoms struct {
	*mechanisms.HMNP
	bad *mechanisms.NOutputAuthorsKnots
}

func (m authorsAtoms) AtomProbabilities(x float64, dst []float64) {
	m.bad.Probabilities(x, dst[:m.bad.N()])
	for i := range dst[:m.bad.N()] {
		dst[i] *= m.Alpha()
	}
}

// TestHMNPBrokenCaught: the mixed privacy check that HM-NP passes rejects
// it with the authors' N-output knots.
func TestHMNPBrokenCaught(t *testing.T) {
	for _, eps := range []float64{4, 8} {
		m, _ := mechanisms.NewHMNP(eps)
		bad, err := mechanisms.NewNOutputAuthorsKnots(eps, m.NOutput().N())
		if err != nil {
			t.Fatal(err)
		}
		xs, ys, _ := hmnpGrids(m)
		if err := mechtest.MixedLDP(authorsAtoms{m, bad}, xs, ys, eps, 1e-9); err == nil {
			t.Errorf("ε=%v: MixedLDP accepts HM-NP with the authors' knots", eps)
		}
		if err := mechtest.MixedLDP(m, xs, ys, eps, 1e-9); err != nil {
			t.Error(err)
		}
	}
}
