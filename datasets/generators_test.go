package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat/distuv"
)

// Every statistical check below has false-failure probability 1e-6: the
// tolerance is zCrit standard errors, with zCrit the two-sided 1e-6 normal
// quantile Φ⁻¹(1 − 5e-7) (mpmath), and the standard error comes from the
// population moments, not from the sample.
const (
	zCrit       = 4.8916384756985904
	falseAlarm  = 1e-6
	nStatistic  = 200_000
	quadNodes   = 2000 // Gauss–Legendre nodes for the numerical reference integrals
	testSeedOne = 20250101
)

// law is the population law of a generated dataset on the mechanism domain
// [-1, 1]: central moments and the CDF.
type law struct {
	mean, variance, mu4 float64
	cdf                 func(x float64) float64
}

// affine maps a law of raw values u on [lo, hi] to the law of
// x = 2(u − lo)/(hi − lo) − 1.
func affine(mean, variance, mu4 float64, cdf func(u float64) float64, lo, hi float64) law {
	c := 2 / (hi - lo)
	return law{
		mean:     c*(mean-lo) - 1,
		variance: c * c * variance,
		mu4:      c * c * c * c * mu4,
		cdf: func(x float64) float64 {
			return cdf(lo + (x+1)/c)
		},
	}
}

// betaLaw is Beta(a, b) mapped by 2u − 1, from the closed-form moments.
func betaLaw(a, b float64) law {
	s := a + b
	mean := a / s
	variance := a * b / (s * s * (s + 1))
	exKurt := 6 * ((a-b)*(a-b)*(s+1) - a*b*(s+2)) / (a * b * (s + 2) * (s + 3))
	d := distuv.Beta{Alpha: a, Beta: b}
	return affine(mean, variance, (3+exKurt)*variance*variance, d.CDF, 0, 1)
}

// integrate returns ∫_lo^hi f by fixed Gauss–Legendre quadrature.
func integrate(f func(float64) float64, lo, hi float64) float64 {
	return quad.Fixed(f, lo, hi, quadNodes, quad.Legendre{}, 0)
}

// densityLaw computes the law of an (unnormalised) density on [lo, hi] by
// numerical integration and maps it by 2(u − lo)/(hi − lo) − 1.
func densityLaw(f func(float64) float64, lo, hi float64) law {
	z := integrate(f, lo, hi)
	mean := integrate(func(u float64) float64 { return u * f(u) }, lo, hi) / z
	central := func(k float64) float64 {
		return integrate(func(u float64) float64 { return math.Pow(u-mean, k) * f(u) }, lo, hi) / z
	}
	cdf := func(u float64) float64 {
		switch {
		case u <= lo:
			return 0
		case u >= hi:
			return 1
		}
		return integrate(f, lo, u) / z
	}
	return affine(mean, central(2), central(4), cdf, lo, hi)
}

// betaSinDensity is the unnormalised Beta+Sin density on [0, 1].
func betaSinDensity(a, b, amplitude, frequency float64) func(float64) float64 {
	d := distuv.Beta{Alpha: a, Beta: b}
	return func(u float64) float64 {
		return d.Prob(u) * (1 + amplitude*math.Sin(2*math.Pi*frequency*u))
	}
}

// truncNormalLaw is N(mu, sigma) truncated to [lo, hi] with the closed-form
// mean and variance of the truncated normal,
//
//	mean = μ + σ(φ(α) − φ(β))/Z,
//	var  = σ²[1 + (αφ(α) − βφ(β))/Z − ((φ(α) − φ(β))/Z)²],
//
// α = (lo − μ)/σ, β = (hi − μ)/σ, Z = Φ(β) − Φ(α); the fourth central moment
// by quadrature. The window is then mapped by the fixed rule.
func truncNormalLaw(mu, sigma, lo, hi float64) law {
	std := distuv.UnitNormal
	al, be := (lo-mu)/sigma, (hi-mu)/sigma
	z := std.CDF(be) - std.CDF(al)
	pa, pb := std.Prob(al), std.Prob(be)
	mean := mu + sigma*(pa-pb)/z
	variance := sigma * sigma * (1 + (al*pa-be*pb)/z - (pa-pb)*(pa-pb)/(z*z))
	n := distuv.Normal{Mu: mu, Sigma: sigma}
	mu4 := integrate(func(x float64) float64 { return math.Pow(x-mean, 4) * n.Prob(x) }, lo, hi) / z
	cdf := func(x float64) float64 {
		x = math.Max(lo, math.Min(hi, x))
		return (n.CDF(x) - n.CDF(lo)) / z
	}
	return affine(mean, variance, mu4, cdf, lo, hi)
}

func uniformLaw(lo, hi float64) law {
	w := hi - lo
	cdf := func(u float64) float64 { return math.Max(0, math.Min(1, (u-lo)/w)) }
	return affine((lo+hi)/2, w*w/12, w*w*w*w/80, cdf, lo, hi)
}

// checkLaw compares a sample on [-1, 1] with its population law: every value
// in [-1, 1], the sample mean and (population-divisor) variance within zCrit
// standard errors, and a chi-square goodness-of-fit test on 50 equal-width
// bins (adjacent bins merged until each expects ≥ 20 values) at level 1e-6.
func checkLaw(t *testing.T, xs []float64, want law) {
	t.Helper()
	for _, p := range lawProblems(xs, want) {
		t.Error(p)
	}
}

// lawProblems returns the failed checks of checkLaw.
func lawProblems(xs []float64, want law) []string {
	var problems []string
	n := float64(len(xs))
	for i, x := range xs {
		if !(x >= -1 && x <= 1) {
			return []string{fmt.Sprintf("value %d = %v outside [-1, 1]", i, x)}
		}
	}
	d := Dataset{Values: xs}
	gotMean, gotVar := d.Mean(), d.Variance()
	if tol := zCrit * math.Sqrt(want.variance/n); math.Abs(gotMean-want.mean) > tol {
		problems = append(problems, fmt.Sprintf("mean = %.6f, want %.6f ± %.6f", gotMean, want.mean, tol))
	}
	if tol := zCrit * math.Sqrt((want.mu4-want.variance*want.variance)/n); math.Abs(gotVar-want.variance) > tol {
		problems = append(problems, fmt.Sprintf("variance = %.6f, want %.6f ± %.6f", gotVar, want.variance, tol))
	}

	const bins = 50
	counts := make([]float64, bins)
	for _, x := range xs {
		k := min(int((x+1)/2*bins), bins-1)
		counts[k]++
	}
	// Group adjacent bins until each group expects >= 20 values; a short
	// remainder at the top joins the last group.
	var obs, exp []float64
	var o, p float64
	prev := want.cdf(-1)
	for k := range bins {
		next := want.cdf(-1 + 2*float64(k+1)/bins)
		o += counts[k]
		p += next - prev
		prev = next
		if n*p >= 20 {
			obs, exp = append(obs, o), append(exp, n*p)
			o, p = 0, 0
		}
	}
	if p > 0 || o > 0 {
		if len(obs) == 0 {
			return append(problems, "law has no mass on [-1, 1]")
		}
		obs[len(obs)-1] += o
		exp[len(exp)-1] += n * p
	}
	var chi2 float64
	for i := range obs {
		chi2 += (obs[i] - exp[i]) * (obs[i] - exp[i]) / exp[i]
	}
	groups := len(obs)
	df := float64(groups - 1)
	limit := distuv.ChiSquared{K: df}.Quantile(1 - falseAlarm)
	if chi2 > limit {
		problems = append(problems, fmt.Sprintf("chi-square = %.1f on %v df, above the 1e-6 critical value %.1f", chi2, df, limit))
	}
	return problems
}

// TestCheckLawCatchesWrongLaws shows that the checks have power: samples
// from a slightly wrong law fail them.
func TestCheckLawCatchesWrongLaws(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	toX := func(us []float64) []float64 {
		for i, u := range us {
			us[i] = 2*u - 1
		}
		return us
	}

	// Beta+Sin with the sine switched off (plain Beta(2,5)) against the
	// Beta+Sin law: the wiggles are caught by the chi-square test.
	plain, err := Beta(nStatistic, 2, 5, rng)
	if err != nil {
		t.Fatal(err)
	}
	if p := lawProblems(toX(plain), densityLaw(betaSinDensity(2, 5, 0.5, 10), 0, 1)); len(p) == 0 {
		t.Error("Beta(2,5) passed as Beta+Sin")
	} else {
		t.Log("Beta(2,5) as Beta+Sin:", p)
	}

	// N(1, 1/4) clipped to [-1, 1] instead of truncated.
	clipped := make([]float64, nStatistic)
	for i := range clipped {
		clipped[i] = math.Max(-1, math.Min(1, 1+0.25*rng.NormFloat64()))
	}
	if p := lawProblems(clipped, truncNormalLaw(1, 0.25, -1, 1)); len(p) == 0 {
		t.Error("clipped normal passed as truncated normal")
	} else {
		t.Log("clipped as truncated:", p)
	}

	// Beta(3.1, 2) as Beta(3, 2).
	near, err := Beta(nStatistic, 3.1, 2, rng)
	if err != nil {
		t.Fatal(err)
	}
	if p := lawProblems(toX(near), betaLaw(3, 2)); len(p) == 0 {
		t.Error("Beta(3.1,2) passed as Beta(3,2)")
	} else {
		t.Log("Beta(3.1,2) as Beta(3,2):", p)
	}
}

// TestGeneratorLaws draws nStatistic values from each synthetic spec and
// checks them against the exact population law.
func TestGeneratorLaws(t *testing.T) {
	third := 1.0 / 3
	tests := []struct {
		spec Spec
		law  law
	}{
		{Spec{Name: "beta32", Source: SourceBeta, A: 3, B: 2}, betaLaw(3, 2)},
		{Spec{Name: "beta25", Source: SourceBeta, A: 2, B: 5}, betaLaw(2, 5)},
		{Spec{Name: "beta-half", Source: SourceBeta, A: 0.5, B: 0.5}, betaLaw(0.5, 0.5)},
		{Spec{Name: "beta-sin", Source: SourceBetaSin}, densityLaw(betaSinDensity(2, 5, 0.5, 10), 0, 1)},
		{Spec{Name: "beta-sin-neg", Source: SourceBetaSin, A: 3, B: 2, Amplitude: -0.9, Frequency: 3.5},
			densityLaw(betaSinDensity(3, 2, -0.9, 3.5), 0, 1)},
		{Spec{Name: "gaussian-mu0", Source: SourceGaussian, Mu: 0, Sigma: 0.25}, truncNormalLaw(0, 0.25, -1, 1)},
		{Spec{Name: "gaussian-mu1/3", Source: SourceGaussian, Mu: third, Sigma: 0.25}, truncNormalLaw(third, 0.25, -1, 1)},
		{Spec{Name: "gaussian-mu2/3", Source: SourceGaussian, Mu: 2 * third, Sigma: 0.25}, truncNormalLaw(2*third, 0.25, -1, 1)},
		{Spec{Name: "gaussian-mu1", Source: SourceGaussian, Mu: 1, Sigma: 0.25}, truncNormalLaw(1, 0.25, -1, 1)},
		{Spec{Name: "gaussian-wide", Source: SourceGaussian, Mu: 50, Sigma: 30, Lo: 0, Hi: 100}, truncNormalLaw(50, 30, 0, 100)},
		{Spec{Name: "uniform", Source: SourceUniform}, uniformLaw(-1, 1)},
		{Spec{Name: "uniform-0-100", Source: SourceUniform, Lo: 0, Hi: 100}, uniformLaw(0, 100)},
	}
	for i, tt := range tests {
		t.Run(tt.spec.Name, func(t *testing.T) {
			t.Parallel()
			d, err := tt.spec.Build(nStatistic, rand.New(rand.NewPCG(testSeedOne, uint64(i))))
			if err != nil {
				t.Fatal(err)
			}
			if d.Len() != nStatistic {
				t.Fatalf("Len = %d, want %d", d.Len(), nStatistic)
			}
			checkLaw(t, d.Values, tt.law)
		})
	}
}

// TestReferenceLaws pins the numerical references used above to values
// computed independently with mpmath at 40 digits, so that an error in the
// reference (the quadrature, the truncated-normal formula) cannot hide an
// error in a generator.
func TestReferenceLaws(t *testing.T) {
	third := 1.0 / 3
	tests := []struct {
		name           string
		law            law
		mean, variance float64
	}{
		// Beta+Sin defaults: u-mean 0.28545760859331612621, mapped by 2u−1.
		{"beta-sin", densityLaw(betaSinDensity(2, 5, 0.5, 10), 0, 1), -0.42908478281336774758, 4 * 0.0256033821442823816},
		{"gaussian-mu0", truncNormalLaw(0, 0.25, -1, 1), 0, 0.06243308064827961402},
		{"gaussian-mu1/3", truncNormalLaw(third, 0.25, -1, 1), 0.33047344865033263868, 0.060585097945142449907},
		{"gaussian-mu2/3", truncNormalLaw(2*third, 0.25, -1, 1), 0.62154890163996456838, 0.045425132221068367088},
		{"gaussian-mu1", truncNormalLaw(1, 0.25, -1, 1), 0.80052885979928593899, 0.022711264227022022559},
		{"beta32", betaLaw(3, 2), 0.2, 0.16},
	}
	for _, tt := range tests {
		if math.Abs(tt.law.mean-tt.mean) > 1e-13 {
			t.Errorf("%s: mean = %.17g, want %.17g", tt.name, tt.law.mean, tt.mean)
		}
		if math.Abs(tt.law.variance-tt.variance) > 1e-13 {
			t.Errorf("%s: variance = %.17g, want %.17g", tt.name, tt.law.variance, tt.variance)
		}
	}
}

// TestTruncationIsNotClipping shows that rejection leaves no atom at the
// window's edge: for μ = 1 = hi, clipping would put half the mass at x = 1.
func TestTruncationIsNotClipping(t *testing.T) {
	xs, err := TruncNormal(10_000, 1, 0.25, -1, 1, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	atHi := 0
	for _, x := range xs {
		if x == 1 {
			atHi++
		}
	}
	if atHi > 0 {
		t.Errorf("%d of %d values equal hi = 1; truncation by rejection has no atom there", atHi, len(xs))
	}
}

func TestTruncNormalMass(t *testing.T) {
	// References: mpmath ncdf differences at 40 digits, with the same
	// float64 inputs.
	tests := []struct {
		mu, sigma, lo, hi float64
		want              float64
	}{
		{0, 0.25, -1, 1, 0.99993665751633376016},
		{1, 0.25, -1, 1, 0.4999999999999993779},
		{1.0 / 3, 0.25, -1, 1, 0.99616957121937661413},
		{2.0 / 3, 0.25, -1, 1, 0.90878878026104822976},
		{0, 1, 4.5, 5, 3.11102155285086649e-6},
		{0, 1, -5, -4.5, 3.11102155285086649e-6},
		{0, 0.1, 0.9, 1.0, 1.1285122074236018953e-19},
		{0, 1, -1, 2, 0.81859461412036374138},
		{0, 1, math.Inf(-1), 0, 0.5},
	}
	for _, tt := range tests {
		got := truncNormalMass(tt.mu, tt.sigma, tt.lo, tt.hi)
		if math.Abs(got-tt.want) > 1e-12*tt.want {
			t.Errorf("truncNormalMass(%v, %v, %v, %v) = %.17g, want %.17g", tt.mu, tt.sigma, tt.lo, tt.hi, got, tt.want)
		}
	}
}

func TestTruncNormalGuard(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	// Probability 1.1e-19: refused.
	_, err := TruncNormal(10, 0, 0.1, 0.9, 1, rng)
	if err == nil || !strings.Contains(err.Error(), "1.13e-19") {
		t.Errorf("far-tail window: err = %v, want an error reporting probability 1.13e-19", err)
	}
	// Probability 3.1e-6, just above MinAcceptance: sampled (≈3e5
	// proposals per value), and the values lie in the window.
	xs, err := TruncNormal(3, 0, 1, 4.5, 5, rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range xs {
		if x < 4.5 || x > 5 {
			t.Errorf("value %v outside [4.5, 5]", x)
		}
	}
}

func TestGeneratorErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name string
		call func() ([]float64, error)
		want string
	}{
		{"beta a<0", func() ([]float64, error) { return Beta(10, -1, 2, rng) }, "a must be finite and > 0"},
		{"beta b NaN", func() ([]float64, error) { return Beta(10, 1, nan, rng) }, "b must be finite and > 0"},
		{"beta n=0", func() ([]float64, error) { return Beta(0, 1, 1, rng) }, "n must be > 0"},
		{"beta nil rng", func() ([]float64, error) { return Beta(10, 1, 1, nil) }, "nil *rand.Rand"},
		{"beta underflow", func() ([]float64, error) { return Beta(100_000, 0.001, 0.001, rng) }, "underflowed"},
		{"beta-sin amplitude", func() ([]float64, error) { return BetaSin(10, 2, 5, 1.5, 10, rng) }, "amplitude"},
		{"beta-sin frequency", func() ([]float64, error) { return BetaSin(10, 2, 5, 0.5, -1, rng) }, "frequency"},
		{"beta-sin shape", func() ([]float64, error) { return BetaSin(10, 0, 5, 0.5, 10, rng) }, "a must be"},
		{"gaussian sigma", func() ([]float64, error) { return TruncNormal(10, 0, 0, -1, 1, rng) }, "sigma"},
		{"gaussian mu", func() ([]float64, error) { return TruncNormal(10, inf, 1, -1, 1, rng) }, "mu"},
		{"gaussian window", func() ([]float64, error) { return TruncNormal(10, 0, 1, 1, -1, rng) }, "lo < hi"},
		{"uniform window", func() ([]float64, error) { return Uniform(10, 1, 1, rng) }, "lo < hi"},
		{"uniform infinite", func() ([]float64, error) { return Uniform(10, 0, inf, rng) }, "lo < hi"},
	}
	for _, tt := range tests {
		_, err := tt.call()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want it to mention %q", tt.name, err, tt.want)
		}
	}
}

// TestDeterminism: the same seed gives identical values, a different seed
// different values, for every synthetic catalogue entry.
func TestDeterminism(t *testing.T) {
	const n = 1000
	for _, s := range Catalogue() {
		if s.Source == SourceFile {
			continue
		}
		build := func(seed uint64) []float64 {
			d, err := s.Build(n, rand.New(rand.NewPCG(seed, 99)))
			if err != nil {
				t.Fatalf("%s: %v", s.Name, err)
			}
			return d.Values
		}
		a, b, c := build(1), build(1), build(2)
		if !slices.Equal(a, b) {
			t.Errorf("%s: same seed gave different values", s.Name)
		}
		same := 0
		for i := range a {
			if a[i] == c[i] {
				same++
			}
		}
		if same > n/100 {
			t.Errorf("%s: seeds 1 and 2 agree on %d of %d values", s.Name, same, n)
		}

		d1, err1 := s.BuildSeed(n, 7)
		d2, err2 := s.BuildSeed(n, 7)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: BuildSeed: %v, %v", s.Name, err1, err2)
		}
		if !slices.Equal(d1.Values, d2.Values) {
			t.Errorf("%s: BuildSeed(n, 7) twice gave different values", s.Name)
		}
		if !strings.HasSuffix(d1.Source, " seed=7") {
			t.Errorf("%s: Source = %q, want it to end in seed=7", s.Name, d1.Source)
		}
	}
}

// TestBuildSeedStreamsDiffer: two datasets built from one seed use
// different streams (the stream is keyed by Spec.Key).
func TestBuildSeedStreamsDiffer(t *testing.T) {
	a, _ := Lookup("uniform")
	b := Spec{Name: "uniform-0-1", Source: SourceUniform, Lo: 0, Hi: 1}
	da, err := a.BuildSeed(100, 1)
	if err != nil {
		t.Fatal(err)
	}
	db, err := b.BuildSeed(100, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Same rng would give db = (da+1)/2 mapped back to [-1,1] = da exactly.
	if slices.Equal(da.Values, db.Values) {
		t.Error("different specs built with one seed share a stream")
	}
}

func TestMinMaxSynthetic(t *testing.T) {
	s, _ := Lookup("beta25-minmax")
	d, err := s.Build(10_000, rand.New(rand.NewPCG(4, 4)))
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := slices.Min(d.Values), slices.Max(d.Values); lo != -1 || hi != 1 {
		t.Errorf("minmax range = [%v, %v], want exactly [-1, 1]", lo, hi)
	}
	nm := d.Normalisation
	if nm.Rule != RuleMinMax || !(nm.Lo > 0 && nm.Hi < 1 && nm.Lo < nm.Hi) {
		t.Errorf("Normalisation = %v, want minmax with 0 < lo < hi < 1", nm)
	}
}

func benchmarkGenerator(b *testing.B, gen func(n int, rng *rand.Rand) ([]float64, error)) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 100_000
	b.SetBytes(8 * n)
	for b.Loop() {
		if _, err := gen(n, rng); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBeta(b *testing.B) {
	benchmarkGenerator(b, func(n int, rng *rand.Rand) ([]float64, error) { return Beta(n, 2, 5, rng) })
}

func BenchmarkBetaSin(b *testing.B) {
	benchmarkGenerator(b, func(n int, rng *rand.Rand) ([]float64, error) {
		return BetaSin(n, BetaSinA, BetaSinB, BetaSinAmplitude, BetaSinFrequency, rng)
	})
}

func BenchmarkTruncNormal(b *testing.B) {
	benchmarkGenerator(b, func(n int, rng *rand.Rand) ([]float64, error) { return TruncNormal(n, 1, 0.25, -1, 1, rng) })
}
