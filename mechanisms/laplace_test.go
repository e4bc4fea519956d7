package mechanisms_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/mechtest"
)

func TestLaplaceReference(t *testing.T) {
	for _, c := range []struct{ eps, variance float64 }{
		{0.5, 32}, {1, 8}, {4, 0.5}, {0.01, 80000},
	} {
		m, err := mechanisms.NewLaplace(c.eps)
		if err != nil {
			t.Fatal(err)
		}
		if !relClose(m.Variance(0.3), c.variance, 1e-15) || !relClose(m.WorstCaseVariance(), c.variance, 1e-15) {
			t.Errorf("ε=%v: variance %v, worst %v, want %v", c.eps, m.Variance(0.3), m.WorstCaseVariance(), c.variance)
		}
		if m.Scale() != 2/c.eps {
			t.Errorf("ε=%v: scale %v", c.eps, m.Scale())
		}
	}

	m, _ := mechanisms.NewLaplace(1)
	// Reference digits from mpmath quadrature (30 digits) of the Laplace CDF.
	for _, c := range []struct{ ylo, yhi, xlo, xhi, want float64 }{
		{0.5, 1.5, -0.25, 0.75, 0.17478036468115940836},
		{0.5, 1.5, 0.2, 0.2, 0.16933109983202087967},
		// A far tail bucket: e^{-25}·sinh(1/2); relative accuracy kept.
		{50, math.Inf(1), -1, 1, 7.2369423509934407675e-12},
		{math.Inf(-1), -50, -1, 1, 7.2369423509934407675e-12},
		{math.Inf(-1), math.Inf(1), -1, 1, 1},
		{math.Inf(-1), math.Inf(1), 0.5, 0.5, 1},
	} {
		if got := m.BucketGivenBin(c.ylo, c.yhi, c.xlo, c.xhi); !relClose(got, c.want, 1e-13) {
			t.Errorf("BucketGivenBin(%v, %v, %v, %v) = %v, want %v", c.ylo, c.yhi, c.xlo, c.xhi, got, c.want)
		}
	}
	// A bucket inside a narrow bin: the expm1 forms keep the digits.
	w := 1e-9
	got := m.BucketGivenBin(0.5, 1.5, 0.2-w, 0.2+w)
	if !relClose(got, 0.16933109983202087967, 1e-12) {
		t.Errorf("narrow bin: %v", got)
	}
}

// TestLaplaceSampler: Perturb is b·E with E = rng.ExpFloat64(), negated
// when bit 0 of one rng.Uint64(), drawn first, is set, bit for bit; it
// leaves the generator just after those draws; and both signs come up.
func TestLaplaceSampler(t *testing.T) {
	for _, eps := range []float64{0.5, 1, 8} {
		m, _ := mechanisms.NewLaplace(eps)
		b := m.Scale()
		rng := rand.New(rand.NewPCG(4, 5))
		probe := rand.New(rand.NewPCG(4, 5))
		var neg int
		for i := range 4000 {
			x := -1 + 2*float64(i%9)/8
			signs := probe.Uint64()
			e := probe.ExpFloat64()
			want := x + b*e
			if signs&1 == 1 {
				want = x - b*e
				neg++
			}
			if y := m.Perturb(x, rng); math.Float64bits(y) != math.Float64bits(want) {
				t.Fatalf("ε=%v report %d of x = %v: %v, want %v", eps, i, x, y, want)
			}
			if rng.Uint64() != probe.Uint64() {
				t.Fatalf("ε=%v report %d: the generator is not where the stated draws leave it", eps, i)
			}
		}
		// 4000 fair signs: 2000 ± 31.6; 6σ.
		if neg < 2000-190 || neg > 2000+190 {
			t.Errorf("ε=%v: %d negative reports of 4000", eps, neg)
		}
	}
}

// perturbOnly makes its batches by calling Perturb, so that the mechtest
// checks, which draw through PerturbBatch, test Perturb's own law.
type perturbOnly struct{ *mechanisms.Laplace }

func (m perturbOnly) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	for i, x := range xs {
		dst[i] = m.Perturb(x, rng)
	}
	return nil
}

// TestLaplacePerturbLaw: Perturb, which spends the generator differently
// from PerturbBatch (TestLaplaceBatchStream), passes the same statistical
// checks TestMoments and TestFit run on the batch: unbiased, variance 8/ε²,
// and a chi-square fit of the whole law, at every ε and x of their grids.
func TestLaplacePerturbLaw(t *testing.T) {
	seed := uint64(300)
	for _, eps := range epsGrid {
		lap, _ := mechanisms.NewLaplace(eps)
		m := perturbOnly{lap}
		edges := fitEdges(lap, 40)
		for _, x := range xGrid {
			seed++
			rng := newRNG(seed)
			if err := mechtest.Unbiased(m, x, nMC, rng, mechtest.DefaultAlpha); err != nil {
				t.Error(err)
			}
			if err := mechtest.Variance(m, x, nMC, rng, mechtest.DefaultAlpha); err != nil {
				t.Error(err)
			}
			if err := mechtest.ContinuousFit(m, x, edges, nMC, rng, mechtest.DefaultAlpha); err != nil {
				t.Error(err)
			}
		}
	}
}

// misreportedLaplace has the noise of one budget and claims another, with
// the claimed budget's variance.
type misreportedLaplace struct {
	*mechanisms.Laplace
	claimed *mechanisms.Laplace
}

func (m misreportedLaplace) Epsilon() float64           { return m.claimed.Epsilon() }
func (m misreportedLaplace) Variance(x float64) float64 { return m.claimed.Variance(x) }
func (m misreportedLaplace) WorstCaseVariance() float64 { return m.claimed.WorstCaseVariance() }

func TestLaplaceBrokenCaught(t *testing.T) {
	eps := 1.0
	claimed, _ := mechanisms.NewLaplace(eps)
	xs := mechtest.Grid(-1, 1, 50)
	ys := mechtest.Grid(-20.05, 20.05, 401)
	for _, c := range []struct {
		factor     float64
		ldp, tight bool
	}{
		{1.5, false, false}, // too little noise: not ε-LDP
		{0.5, true, false},  // too much noise: private, but not tight
	} {
		inner, _ := mechanisms.NewLaplace(c.factor * eps)
		m := misreportedLaplace{inner, claimed}
		if err := mechtest.DensityLDP(m, xs, ys, m.Epsilon(), 1e-9); (err == nil) != c.ldp {
			t.Errorf("factor %v: DensityLDP error %v", c.factor, err)
		}
		if err := mechtest.DensityLDPTight(m, xs, ys, m.Epsilon(), 1e-9); (err == nil) != c.tight {
			t.Errorf("factor %v: DensityLDPTight error %v", c.factor, err)
		}
		if err := mechtest.Variance(m, 0.3, nMC, newRNG(21), mechtest.DefaultAlpha); err == nil {
			t.Errorf("factor %v: the variance check missed a wrong noise scale", c.factor)
		}
	}
}
