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

// TestLaplaceSampler: Perturb is the inverse CDF of one uniform: for
// u = Float64() the report y satisfies F(y) = 1/2 - u on the reflected
// lower half and F(y) = u on the upper half, and it is finite at u = 0.
func TestLaplaceSampler(t *testing.T) {
	m, _ := mechanisms.NewLaplace(1)
	src := rand.NewPCG(4, 5)
	probe := rand.NewPCG(4, 5)
	rng := rand.New(src)
	for range 1000 {
		u := rand.New(probe).Float64()
		y := m.Perturb(0.25, rng)
		want := u
		if u < 0.5 {
			want = 0.5 - u
		}
		if got := m.CDF(y, 0.25); math.Abs(got-want) > 1e-12 {
			t.Fatalf("u = %v: report %v has CDF %v, want %v", u, y, got, want)
		}
	}
	zero := rand.New(constSource(0))
	if y := m.Perturb(0, zero); y != 0 {
		t.Errorf("u = 0 gives %v, want 0 (the median)", y)
	}
	top := rand.New(constSource(math.MaxUint64))
	if y := m.Perturb(0, top); math.IsInf(y, 0) || math.IsNaN(y) || y < 70 {
		t.Errorf("u = 1-2^-53 gives %v, want a large finite report", y)
	}
}

// constSource always returns the same 64 bits.
type constSource uint64

func (s constSource) Uint64() uint64 { return uint64(s) }

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
