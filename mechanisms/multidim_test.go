package mechanisms_test

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/mechtest"
)

// coord views coordinate j of a Vector at the input point x (whose j-th
// coordinate is replaced by the 1-D input) as a 1-D mechanism, so that the
// mechtest checks (unbiasedness, variance against CoordinateVariance, with
// their stated false-failure probability) apply unchanged.
type coord struct {
	v      mechanisms.Vector
	j      int
	x, dst []float64
}

func newCoord(v mechanisms.Vector, j int, x []float64) *coord {
	return &coord{v: v, j: j, x: slices.Clone(x), dst: make([]float64, v.Dim())}
}

func (c *coord) Name() string             { return fmt.Sprintf("%s[%d of %d]", c.v.Name(), c.j, c.v.Dim()) }
func (c *coord) Epsilon() float64         { return c.v.Epsilon() }
func (c *coord) Domain() (lo, hi float64) { return -1, 1 }
func (c *coord) Perturb(x float64, rng *rand.Rand) float64 {
	c.x[c.j] = x
	if err := c.v.PerturbVector(c.dst, c.x, rng); err != nil {
		panic(err)
	}
	return c.dst[c.j]
}
func (c *coord) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	for i, x := range xs {
		dst[i] = c.Perturb(x, rng)
	}
	return nil
}
func (c *coord) Variance(x float64) float64 { return c.v.CoordinateVariance(x) }
func (c *coord) WorstCaseVariance() float64 { return math.NaN() }

// point returns a d-vector of varied inputs in [-1, 1].
func point(d int) []float64 {
	x := make([]float64, d)
	for j := range x {
		x[j] = dzXs[j%len(dzXs)]
	}
	return x
}

// checkCoords runs mechtest.Unbiased and mechtest.Variance on the first and
// the last coordinate of v at every input of dzXs.
func checkCoords(t *testing.T, v mechanisms.Vector, rng *rand.Rand, n int) {
	t.Helper()
	for _, j := range []int{0, v.Dim() - 1} {
		c := newCoord(v, j, point(v.Dim()))
		for _, x := range dzXs {
			if err := mechtest.Unbiased(c, x, n, rng, mechtest.DefaultAlpha); err != nil {
				t.Error(err)
			}
			if err := mechtest.Variance(c, x, n, rng, mechtest.DefaultAlpha); err != nil {
				t.Error(err)
			}
		}
	}
}

func TestSampleK(t *testing.T) {
	for _, c := range []struct {
		d    int
		eps  float64
		want int
	}{
		{16, 0.5, 1}, {16, 2.4, 1}, {16, 4.99, 1}, {16, 5, 2}, {16, 7.5, 3}, {16, 12.4, 4},
		{16, 1000, 16}, {16, math.MaxFloat64, 16}, {1, 8, 1}, {2, 100, 2}, {3, 7.5, 3},
	} {
		if got := mechanisms.SampleK(c.d, c.eps); got != c.want {
			t.Errorf("SampleK(%d, %v) = %d, want %d", c.d, c.eps, got, c.want)
		}
	}
}

// TestVectorMoments: every coordinate's report is unbiased with the exact
// CoordinateVariance (eq. (162) for Algorithm 6, B² - x² for Duchi's, 8d²/ε²
// for Laplace), on every sampling path: Floyd (k < d ≤ 1024), k = d,
// Duchi's d ≤ 64 and d > 64 samplers. (Selection sampling, d > 1024, is
// checked by TestSampleKofDSubsets: the moments follow from uniform
// inclusion without replacement.)
func TestVectorMoments(t *testing.T) {
	pmNew := func(e float64) (mechanisms.Mechanism, error) { return mechanisms.NewPM(e) }
	swNew := func(e float64) (mechanisms.Mechanism, error) { return mechanisms.NewSquareWave(e) }
	cases := []struct {
		name string
		v    func() (mechanisms.Vector, error)
		n    int
	}{
		{"pm d=16 ε=1", func() (mechanisms.Vector, error) { return mechanisms.NewSampleKofD("pm", pmNew, 16, 1) }, dzReports},
		{"pm d=16 ε=5 (k=2)", func() (mechanisms.Vector, error) { return mechanisms.NewSampleKofD("pm", pmNew, 16, 5) }, dzReports},
		{"pm d=3 ε=8 (k=d)", func() (mechanisms.Vector, error) { return mechanisms.NewSampleKofD("pm", pmNew, 3, 8) }, dzReports},
		{"sw d=4 ε=5", func() (mechanisms.Vector, error) { return mechanisms.NewSampleKofD("sw", swNew, 4, 5) }, dzReports},
		{"duchi-md d=1", func() (mechanisms.Vector, error) { return mechanisms.NewDuchiMD(1, 1) }, dzReports},
		{"duchi-md d=16", func() (mechanisms.Vector, error) { return mechanisms.NewDuchiMD(16, 2) }, dzReports},
		{"duchi-md d=70", func() (mechanisms.Vector, error) { return mechanisms.NewDuchiMD(70, 2) }, 20_000},
		{"laplace d=4", func() (mechanisms.Vector, error) { return mechanisms.NewLaplaceSplit(4, 2) }, 100_000},
	}
	for i, c := range cases {
		rng := dzRNG(uint64(500 + i))
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v, err := c.v()
			if err != nil {
				t.Fatal(err)
			}
			checkCoords(t, v, rng, c.n)
		})
	}
}

// TestSampleKofDVariance: eq. (162) against the inner mechanism's variance,
// for PM at ε/k with k = 1 and 2.
func TestSampleKofDVariance(t *testing.T) {
	for _, c := range []struct {
		eps float64
		k   int
	}{{1, 1}, {4.9, 1}, {5, 2}, {10, 4}} {
		v, err := mechanisms.NewVector("pm", 16, c.eps)
		if err != nil {
			t.Fatal(err)
		}
		s := v.(*mechanisms.SampleKofD)
		pm := mustPM(t, c.eps/float64(c.k))
		if s.K() != c.k || s.Inner().Epsilon() != c.eps/float64(c.k) {
			t.Errorf("ε=%v: k = %d, inner ε = %v", c.eps, s.K(), s.Inner().Epsilon())
		}
		for _, x := range dzXs {
			want := 16/float64(c.k)*(pm.Variance(x)+x*x) - x*x
			if got := v.CoordinateVariance(x); !dzClose(got, want, 1e-14) {
				t.Errorf("ε=%v x=%v: %v, want %v", c.eps, x, got, want)
			}
		}
	}
}

// TestSampleKofDSubsets: the reported coordinates are a uniform k-subset
// (chi-square over all binom(d, k) subsets), exactly k per report.
func TestSampleKofDSubsets(t *testing.T) {
	for _, c := range []struct {
		d   int
		eps float64
	}{{5, 5}, {5, 7.5}, {6, 2}} {
		v, err := mechanisms.NewVector("pm", c.d, c.eps)
		if err != nil {
			t.Fatal(err)
		}
		k := mechanisms.SampleK(c.d, c.eps)
		rng := dzRNG(600 + uint64(c.d) + uint64(c.eps))
		counts := map[uint64]float64{}
		x, dst := point(c.d), make([]float64, c.d)
		const n = 100_000
		for range n {
			if err := v.PerturbVector(dst, x, rng); err != nil {
				t.Fatal(err)
			}
			var set uint64
			for j, y := range dst {
				if y != 0 {
					set |= 1 << j
				}
			}
			if bits.OnesCount64(set) != k {
				t.Fatalf("d=%d ε=%v: report %v has %d non-zero coordinates, want %d", c.d, c.eps, dst, bits.OnesCount64(set), k)
			}
			counts[set]++
		}
		cells := binom(c.d, k)
		if len(counts) != cells {
			t.Errorf("d=%d k=%d: %d subsets seen, want %d", c.d, k, len(counts), cells)
		}
		e := float64(n) / float64(cells)
		stat := 0.0
		for _, o := range counts {
			stat += (o - e) * (o - e) / e
		}
		if pv := (distuv.ChiSquared{K: float64(cells - 1)}).Survival(stat); pv < mechtest.DefaultAlpha {
			t.Errorf("d=%d k=%d: subsets not uniform: chi-square %v, p-value %v", c.d, k, stat, pv)
		}
	}
}

// TestSampleKofDSelection: for d > 1024 (selection sampling) every report
// has exactly k non-zero coordinates and every coordinate is included with
// probability k/d (chi-square over the d inclusion counts; the counts of a
// without-replacement design are slightly less dispersed than multinomial
// ones, by the factor 1 - (k-1)/(d-1), so the test is conservative).
func TestSampleKofDSelection(t *testing.T) {
	const d, n = 1100, 20_000
	v, err := mechanisms.NewVector("pm", d, 7.5)
	if err != nil {
		t.Fatal(err)
	}
	k := v.(*mechanisms.SampleKofD).K()
	rng := dzRNG(650)
	x, dst := point(d), make([]float64, d)
	counts := make([]float64, d)
	for range n {
		if err := v.PerturbVector(dst, x, rng); err != nil {
			t.Fatal(err)
		}
		nz := 0
		for j, y := range dst {
			if y != 0 {
				counts[j]++
				nz++
			}
		}
		if nz != k {
			t.Fatalf("a report has %d non-zero coordinates, want k = %d", nz, k)
		}
	}
	e := float64(n*k) / d
	stat := 0.0
	for _, o := range counts {
		stat += (o - e) * (o - e) / e
	}
	if pv := (distuv.ChiSquared{K: d - 1}).Survival(stat); pv < mechtest.DefaultAlpha {
		t.Errorf("inclusion not uniform: chi-square %v, p-value %v", stat, pv)
	}
}

func binom(n, k int) int {
	return int(new(big.Int).Binomial(int64(n), int64(k)).Int64())
}

// unscaledKofD is Algorithm 6 without the d/k scaling: biased by k/d.
type unscaledKofD struct{ *mechanisms.SampleKofD }

func (u unscaledKofD) PerturbVector(dst, x []float64, rng *rand.Rand) error {
	if err := u.SampleKofD.PerturbVector(dst, x, rng); err != nil {
		return err
	}
	f := float64(u.K()) / float64(u.Dim())
	for j := range dst[:u.Dim()] {
		dst[j] *= f
	}
	return nil
}

// withReplacement draws the k coordinates with replacement and adds the
// reports of repeated ones: still unbiased, but the variance is
// (d/k)(Var_M + x²) - x²/k instead of (d/k)(Var_M + x²) - x².
type withReplacement struct{ *mechanisms.SampleKofD }

func (w withReplacement) PerturbVector(dst, x []float64, rng *rand.Rand) error {
	d, k := w.Dim(), w.K()
	clear(dst[:d])
	for range k {
		j := rng.IntN(d)
		dst[j] += float64(d) / float64(k) * w.Inner().Perturb(x[j], rng)
	}
	return nil
}

func TestSampleKofDBrokenCaught(t *testing.T) {
	rng := dzRNG(700)
	v, err := mechanisms.NewVector("pm", 16, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []float64{-1, 0.7} {
		c := newCoord(unscaledKofD{v.(*mechanisms.SampleKofD)}, 3, point(16))
		if err := mechtest.Unbiased(c, x, dzReports, rng, mechtest.DefaultAlpha); err == nil {
			t.Errorf("x=%v: the unbiasedness check missed the missing d/k scaling", x)
		}
	}
	// k = 2 of d = 4 at ε = 5: the variance check catches sampling with
	// replacement (it is 20% too large at |x| = 1), which is unbiased.
	v, err = mechanisms.NewVector("pm", 4, 5)
	if err != nil {
		t.Fatal(err)
	}
	wr := withReplacement{v.(*mechanisms.SampleKofD)}
	for _, x := range []float64{-1, 1} {
		c := newCoord(wr, 1, point(4))
		if err := mechtest.Variance(c, x, dzReports, rng, mechtest.DefaultAlpha); err == nil {
			t.Errorf("x=%v: the variance check missed sampling with replacement", x)
		}
		if err := mechtest.Unbiased(c, x, dzReports, rng, mechtest.DefaultAlpha); err != nil {
			t.Errorf("x=%v: sampling with replacement is unbiased, but: %v", x, err)
		}
	}
}

// TestDuchiMDConstant: C_d against literal values, against
// 2^{d-1}/Σ_{Σw>0} w_1 by enumeration (the unbiasedness condition of the
// law with half-weight ties) for d ≤ 14, and against exact rational
// arithmetic across the switch to log-gamma at d = 60.
func TestDuchiMDConstant(t *testing.T) {
	for _, c := range []struct {
		d    int
		want float64
	}{{1, 1}, {2, 2}, {3, 2}, {4, 8.0 / 3}, {5, 8.0 / 3}, {6, 3.2}, {16, 32768.0 / 6435}} {
		if got := mechanisms.DuchiMDConstant(c.d); !dzClose(got, c.want, 1e-15) {
			t.Errorf("C_%d = %v, want %v", c.d, got, c.want)
		}
	}
	for d := 1; d <= 14; d++ {
		sum := 0 // Σ_{Σw>0} Σw = d·Σ_{Σw>0} w_1
		for w := range uint64(1) << d {
			if s := 2*bits.OnesCount64(w) - d; s > 0 {
				sum += s
			}
		}
		if got, want := mechanisms.DuchiMDConstant(d), math.Ldexp(float64(d), d-1)/float64(sum); !dzClose(got, want, 1e-15) {
			t.Errorf("C_%d = %v, enumeration %v", d, got, want)
		}
	}
	for _, d := range []int{59, 60, 61, 62, 99, 100, 101, 500} {
		num := new(big.Float).SetMantExp(big.NewFloat(1), d-1)
		den := new(big.Float).SetInt(new(big.Int).Binomial(int64(d-1), int64(d/2)))
		want, _ := new(big.Float).Quo(num, den).Float64()
		if got := mechanisms.DuchiMDConstant(d); !dzClose(got, want, 1e-12) {
			t.Errorf("C_%d = %v, exact %v", d, got, want)
		}
		if r := mechanisms.DuchiMDConstant(d) / math.Sqrt(math.Pi*float64(d)/2); math.Abs(r-1) > 1.0/float64(d) {
			t.Errorf("C_%d / √(πd/2) = %v", d, r)
		}
	}
}

// Tie rules of the multi-dimensional Duchi mechanism for even d.
const (
	tiesHalf  = iota // ties in both sets with half weight (DuchiMD)
	tiesBoth         // ties fully in both sets, uniform on each (E3.20 as written)
	tiesNaive        // T+ = {z·v > 0}, T- = the rest (third-party code)
)

// duchiLaw returns P[z | x] for every z ∈ {-1, 1}^d (index: bit j set
// means z_j = +1) by brute force over v ∈ {-1, 1}^d from the definition:
// with probability σ a point of T+(v), else of T-(v), under the given tie
// rule.
func duchiLaw(d int, eps float64, x []float64, rule int) []float64 {
	sig := 1 / (1 + math.Exp(-eps))
	law := make([]float64, 1<<d)
	for v := range uint64(1) << d {
		pv := 1.0
		for j := range d {
			if v>>j&1 == 1 {
				pv *= (1 + x[j]) / 2
			} else {
				pv *= (1 - x[j]) / 2
			}
		}
		if pv == 0 {
			continue
		}
		// Weights of z in T+ and in T-, then normalised per set.
		plus := make([]float64, 1<<d)
		minus := make([]float64, 1<<d)
		var sp, sm float64
		for z := range uint64(1) << d {
			dot := d - 2*bits.OnesCount64(z^v)
			switch {
			case dot > 0:
				plus[z] = 1
			case dot < 0:
				minus[z] = 1
			case rule == tiesHalf:
				plus[z], minus[z] = 0.5, 0.5
			case rule == tiesBoth:
				plus[z], minus[z] = 1, 1
			case rule == tiesNaive:
				minus[z] = 1
			}
			sp += plus[z]
			sm += minus[z]
		}
		for z := range law {
			law[z] += pv * (sig*plus[z]/sp + (1-sig)*minus[z]/sm)
		}
	}
	return law
}

func signs(z uint64, d int, b float64) []float64 {
	out := make([]float64, d)
	for j := range out {
		out[j] = -b
		if z>>j&1 == 1 {
			out[j] = b
		}
	}
	return out
}

// vertices returns {-1, 1}^d.
func vertices(d int) [][]float64 {
	var out [][]float64
	for v := range uint64(1) << d {
		out = append(out, signs(v, d, 1))
	}
	return out
}

// lawStats returns the largest |E[Z_j] - x_j| over the inputs and the
// privacy ratio over the vertex inputs (P[z|x] is multi-affine in x, so
// its extremes over the cube are at vertices), for outputs ±b.
func lawStats(d int, eps, b float64, rule int, inputs [][]float64) (bias, ratio float64) {
	lo := make([]float64, 1<<d)
	hi := make([]float64, 1<<d)
	for z := range lo {
		lo[z], hi[z] = math.Inf(1), math.Inf(-1)
	}
	for _, x := range inputs {
		law := duchiLaw(d, eps, x, rule)
		mean := make([]float64, d)
		for z, p := range law {
			for j, zj := range signs(uint64(z), d, b) {
				mean[j] += p * zj
			}
		}
		for j := range mean {
			bias = max(bias, math.Abs(mean[j]-x[j]))
		}
	}
	for _, x := range vertices(d) {
		for z, p := range duchiLaw(d, eps, x, rule) {
			lo[z], hi[z] = min(lo[z], p), max(hi[z], p)
		}
	}
	for z := range lo {
		ratio = max(ratio, hi[z]/lo[z])
	}
	return bias, ratio
}

// TestDuchiMDExact: for d ≤ 6, by exact enumeration, Probability equals the
// brute-force law of the definition; the law sums to one, is unbiased
// (E[Z] = x) at every vertex and at interior points, and has privacy ratio
// exactly e^ε over all outputs and inputs.
func TestDuchiMDExact(t *testing.T) {
	rng := dzRNG(800)
	for d := 1; d <= 6; d++ {
		for _, eps := range []float64{0.5, 1, 4} {
			m, err := mechanisms.NewDuchiMD(d, eps)
			if err != nil {
				t.Fatal(err)
			}
			inputs := vertices(d)
			for range 5 {
				x := make([]float64, d)
				for j := range x {
					x[j] = 2*rng.Float64() - 1
				}
				inputs = append(inputs, x)
			}
			inputs = append(inputs, make([]float64, d))
			for _, x := range inputs {
				sum := 0.0
				for z, p := range duchiLaw(d, eps, x, tiesHalf) {
					if got := m.Probability(signs(uint64(z), d, m.B()), x); !(math.Abs(got-p) <= 1e-15) {
						t.Errorf("d=%d ε=%v x=%v z=%b: Probability %v, brute force %v", d, eps, x, z, got, p)
					}
					sum += p
				}
				if math.Abs(sum-1) > 1e-14 {
					t.Errorf("d=%d ε=%v x=%v: law sums to %v", d, eps, x, sum)
				}
			}
			bias, ratio := lawStats(d, eps, m.B(), tiesHalf, inputs)
			if bias > 1e-13*m.B() {
				t.Errorf("d=%d ε=%v: E[Z] - x up to %v (biased)", d, eps, bias)
			}
			if !dzClose(ratio, math.Exp(eps), 1e-12) {
				t.Errorf("d=%d ε=%v: privacy ratio %v, want e^ε = %v", d, eps, ratio, math.Exp(eps))
			}
		}
	}
}

// TestDuchiMDOtherTieRules (E3.20): for every even d ≤ 6, with Duchi et
// al.'s textbook even-d constant (ours + 1), the naive split "z·v > 0 vs
// otherwise" is biased and not ε-LDP, and ties counted fully in both sets
// are unbiased but have privacy ratio e^ε + 1; for odd d all three rules are
// the same law.
func TestDuchiMDOtherTieRules(t *testing.T) {
	eps := 1.0
	for d := 1; d <= 6; d++ {
		m, _ := mechanisms.NewDuchiMD(d, eps)
		inputs := vertices(d)
		x := make([]float64, d)
		for j := range x {
			x[j] = 0.5 - 0.2*float64(j)
		}
		inputs = append(inputs, x)
		if d%2 == 1 {
			half := duchiLaw(d, eps, x, tiesHalf)
			for _, rule := range []int{tiesBoth, tiesNaive} {
				if !slices.EqualFunc(half, duchiLaw(d, eps, x, rule), func(a, b float64) bool { return math.Abs(a-b) < 1e-15 }) {
					t.Errorf("d=%d: tie rule %d differs though d is odd", d, rule)
				}
			}
			continue
		}
		textbook := (mechanisms.DuchiMDConstant(d) + 1) / math.Tanh(eps/2)
		if bias, ratio := lawStats(d, eps, textbook, tiesBoth, inputs); bias > 1e-13*textbook || !dzClose(ratio, math.Exp(eps)+1, 1e-12) {
			t.Errorf("d=%d ties in both: bias %v, ratio %v; want 0, e^ε + 1 = %v", d, bias, ratio, math.Exp(eps)+1)
		}
		if bias, ratio := lawStats(d, eps, textbook, tiesNaive, inputs); bias < 0.1 || !(ratio > math.Exp(eps)*1.01) {
			t.Errorf("d=%d naive split: bias %v, ratio %v; want a visible bias and a ratio above e^ε", d, bias, ratio)
		}
		// Our constant with the other rules is biased too.
		if bias, _ := lawStats(d, eps, m.B(), tiesBoth, inputs); bias < 0.1 {
			t.Errorf("d=%d: ties in both with C_d unbiased (bias %v)", d, bias)
		}
	}
}

// naiveDuchiMD samples the naive split with the textbook constant: with
// probability σ a uniform w with Σw > 0, else one with Σw ≤ 0; z = B·v⊙w.
type naiveDuchiMD struct{ *mechanisms.DuchiMD }

func (m naiveDuchiMD) PerturbVector(dst, x []float64, rng *rand.Rand) error {
	d := m.Dim()
	b := (mechanisms.DuchiMDConstant(d) + 1) / math.Tanh(m.Epsilon()/2)
	plus := rng.Float64() < 1/(1+math.Exp(-m.Epsilon()))
	var w uint64
	for {
		w = rng.Uint64() & (1<<d - 1)
		if s := 2*bits.OnesCount64(w) - d; (s > 0) == plus {
			break
		}
	}
	for j := range d {
		v := rng.Float64() < (1+x[j])/2
		dst[j] = b
		if v != (w>>j&1 == 1) {
			dst[j] = -b
		}
	}
	return nil
}

// TestDuchiMDSampler: the histogram of sampled sign patterns fits the exact
// law (chi-square over the 2^d outputs), and the naive sampler is caught by
// the unbiasedness check.
func TestDuchiMDSampler(t *testing.T) {
	rng := dzRNG(900)
	for _, c := range []struct {
		d   int
		eps float64
	}{{2, 1}, {4, 1}, {5, 4}, {6, 2}} {
		m, _ := mechanisms.NewDuchiMD(c.d, c.eps)
		x := point(c.d)
		counts := make([]float64, 1<<c.d)
		dst := make([]float64, c.d)
		const n = dzReports
		for range n {
			if err := m.PerturbVector(dst, x, rng); err != nil {
				t.Fatal(err)
			}
			var z uint64
			for j, y := range dst {
				switch y {
				case m.B():
					z |= 1 << j
				case -m.B():
				default:
					t.Fatalf("report %v is not in {±B}^d", dst)
				}
			}
			counts[z]++
		}
		stat := 0.0
		for z, o := range counts {
			e := n * m.Probability(signs(uint64(z), c.d, m.B()), x)
			stat += (o - e) * (o - e) / e
		}
		if pv := (distuv.ChiSquared{K: float64(len(counts) - 1)}).Survival(stat); pv < mechtest.DefaultAlpha {
			t.Errorf("d=%d ε=%v: reports do not fit the law: chi-square %v, p-value %v", c.d, c.eps, stat, pv)
		}
	}
	for _, d := range []int{2, 4, 16} {
		m, _ := mechanisms.NewDuchiMD(d, 1)
		c := newCoord(naiveDuchiMD{m}, 0, point(d))
		if err := mechtest.Unbiased(c, 0.7, dzReports, rng, mechtest.DefaultAlpha); err == nil {
			t.Errorf("d=%d: the unbiasedness check missed the naive split", d)
		}
	}
}

// TestNewVector: the mapping of method names.
func TestNewVector(t *testing.T) {
	for _, c := range []struct {
		method string
		want   string
	}{{"duchi", "*mechanisms.DuchiMD"}, {"laplace", "*mechanisms.LaplaceSplit"}, {"pm", "*mechanisms.SampleKofD"}, {"sw", "*mechanisms.SampleKofD"}} {
		v, err := mechanisms.NewVector(c.method, 16, 2)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%T", v); got != c.want || v.Dim() != 16 || v.Epsilon() != 2 {
			t.Errorf("%s: %s (d %d, ε %v), want %s", c.method, got, v.Dim(), v.Epsilon(), c.want)
		}
	}
	l, _ := mechanisms.NewVector("laplace", 16, 2)
	if got := l.CoordinateVariance(0.3); !dzClose(got, 8*16*16/4.0, 1e-15) {
		t.Errorf("laplace: variance %v, want 8d²/ε² = %v", got, 8*16*16/4.0)
	}
	if _, err := mechanisms.NewVector("no-such", 16, 2); err == nil {
		t.Error("unknown method accepted")
	}
}

func TestVectorErrors(t *testing.T) {
	for _, method := range []string{"duchi", "laplace", "pm"} {
		for _, eps := range []float64{0, -1, math.NaN(), math.Inf(1)} {
			if _, err := mechanisms.NewVector(method, 4, eps); err == nil {
				t.Errorf("%s ε=%v: no error", method, eps)
			}
		}
		for _, d := range []int{0, -3} {
			_, err := mechanisms.NewVector(method, d, 1)
			var pe *mechanisms.ParamError
			if !errors.As(err, &pe) || pe.Param != "d" {
				t.Errorf("%s d=%d: error %v, want a *ParamError on d", method, d, err)
			}
		}
		v, _ := mechanisms.NewVector(method, 4, 1)
		if err := v.PerturbVector(make([]float64, 4), make([]float64, 3), dzRNG(1)); err == nil {
			t.Errorf("%s: a 3-vector accepted for d = 4", method)
		}
		r1, r2 := dzRNG(2), dzRNG(2)
		var ie *mechanisms.InputError
		if err := v.PerturbVector(make([]float64, 4), []float64{0, 0.5, math.NaN(), 0}, r1); !errors.As(err, &ie) || ie.Index != 2 {
			t.Errorf("%s: NaN input gives %v, want an *InputError at 2", method, err)
		}
		if r1.Uint64() != r2.Uint64() {
			t.Errorf("%s: a rejected input drew from the generator", method)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: a short dst did not panic", method)
				}
			}()
			_ = v.PerturbVector(make([]float64, 3), make([]float64, 4), dzRNG(1))
		}()
	}
}

// TestVectorInPlaceNoAllocs: PerturbVector may run in place (the same
// report as into a separate dst) and does not allocate, on every path.
func TestVectorInPlaceNoAllocs(t *testing.T) {
	disc := func(e float64) (mechanisms.Mechanism, error) {
		pm, err := mechanisms.NewPM(e)
		if err != nil {
			return nil, err
		}
		return mechanisms.NewDiscretized(pm, 10)
	}
	var vs []mechanisms.Vector
	for _, c := range []struct {
		method string
		d      int
		eps    float64
	}{{"pm", 16, 1}, {"pm", 16, 5}, {"pm", 3, 8}, {"pm", 1100, 5}, {"duchi", 16, 1}, {"duchi", 70, 1}, {"laplace", 16, 1}, {"sw", 4, 1}} {
		v, err := mechanisms.NewVector(c.method, c.d, c.eps)
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	dv, err := mechanisms.NewSampleKofD("pm", disc, 16, 5)
	if err != nil {
		t.Fatal(err)
	}
	vs = append(vs, dv)
	for _, v := range vs {
		x := point(v.Dim())
		want := make([]float64, v.Dim())
		if err := v.PerturbVector(want, x, dzRNG(4)); err != nil {
			t.Fatal(err)
		}
		got := slices.Clone(x)
		if err := v.PerturbVector(got, got, dzRNG(4)); err != nil || !slices.Equal(got, want) {
			t.Errorf("%s d=%d: in place %v, separately %v", v.Name(), v.Dim(), got, want)
		}
		rng := dzRNG(5)
		if a := testing.AllocsPerRun(50, func() { _ = v.PerturbVector(want, x, rng) }); a != 0 {
			t.Errorf("%s d=%d: PerturbVector allocates %v times", v.Name(), v.Dim(), a)
		}
	}
}

// BenchmarkPerturbVector reports ns per 16-dimensional report.
func BenchmarkPerturbVector(b *testing.B) {
	disc := func(e float64) (mechanisms.Mechanism, error) {
		pm, err := mechanisms.NewPM(e)
		if err != nil {
			return nil, err
		}
		return mechanisms.NewDiscretized(pm, 1000)
	}
	dv, err := mechanisms.NewSampleKofD("pm", disc, 16, 4)
	if err != nil {
		b.Fatal(err)
	}
	vs := []mechanisms.Vector{dv}
	for _, m := range []string{"pm", "duchi", "laplace"} {
		v, err := mechanisms.NewVector(m, 16, 4)
		if err != nil {
			b.Fatal(err)
		}
		vs = append(vs, v)
	}
	x, dst := point(16), make([]float64, 16)
	for i, v := range vs {
		name := v.Name()
		if i == 0 {
			name = "pm-discretized-1000"
		}
		b.Run(name, func(b *testing.B) {
			rng := dzRNG(1)
			for b.Loop() {
				_ = v.PerturbVector(dst, x, rng)
			}
		})
	}
}
