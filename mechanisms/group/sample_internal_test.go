package group

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// alpha is the false-failure probability of each statistical check.
const alpha = 1e-6

// zAlpha is the two-sided normal critical value at alpha, 4.8916.
var zAlpha = distuv.UnitNormal.Quantile(1 - alpha/2)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 7)) }

// binomialPMF returns Pr[X = k] for X ~ Binomial(n, p), from log-gamma.
func binomialPMF(n, k int, p float64) float64 {
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	nf, kf := float64(n), float64(k)
	return math.Exp(lg(nf+1) - lg(kf+1) - lg(nf-kf+1) + kf*math.Log(p) + (nf-kf)*math.Log1p(-p))
}

// chiSquareFit tests the counts of the values 0..n against the binomial
// pmf by Pearson's test, on cells made from left to right, each closed when
// its expected count reaches 5 and what remains to its right also has
// expected count ≥ 5 (otherwise the rest joins it), and returns an error
// if the p-value is below alpha.
func chiSquareFit(counts []float64, n int, p float64, draws int) error {
	exp := make([]float64, n+2) // exp[k]; tail[k] = Σ_{j ≥ k} exp[j]
	tail := make([]float64, n+2)
	for k := n; k >= 0; k-- {
		exp[k] = binomialPMF(n, k, p) * float64(draws)
		tail[k] = tail[k+1] + exp[k]
	}
	var stat, o, e float64
	cells := 0
	for k := 0; k <= n; k++ {
		o += counts[k]
		e += exp[k]
		if (e >= 5 && tail[k+1] >= 5) || k == n {
			stat += (o - e) * (o - e) / e
			cells++
			o, e = 0, 0
		}
	}
	if cells < 2 {
		return nil
	}
	if pv := (distuv.ChiSquared{K: float64(cells - 1)}).Survival(stat); pv < alpha {
		return fmt.Errorf("chi-square %.4g on %d cells, p-value %.3g", stat, cells, pv)
	}
	return nil
}

// TestBinomial: the draws of binomial fit the exact pmf by a chi-square
// test (alpha 1e-6), on both of its samplers (inversion below n·p = 10,
// BTRS above, and p > 1/2 by symmetry), and their mean is n·p within
// z·√(np(1-p)/draws). Catches an off-by-one in the inversion (the mass of
// k and k+1 swapped), a BTRS acceptance bound with a wrong Stirling term,
// and the complement taken the wrong way round for p > 1/2.
func TestBinomial(t *testing.T) {
	const draws = 200_000
	rng := newRNG(1)
	for _, c := range []struct {
		n int
		p float64
	}{
		{1, 0.3}, {7, 0.5}, {30, 0.1}, {30, 0.3}, {19, 0.52}, // inversion
		{100, 0.1}, {40, 0.25}, {1000, 0.5}, {5000, 0.013}, {300, 0.7}, {100000, 0.25}, // BTRS
		{2_000_000, 0.00001}, // inversion with a large n
	} {
		counts := make([]float64, c.n+1)
		sum := 0.0
		for range draws {
			k := binomial(rng, c.n, c.p, 1-c.p)
			if k < 0 || k > c.n {
				t.Fatalf("n=%d p=%v: draw %d", c.n, c.p, k)
			}
			counts[k]++
			sum += float64(k)
		}
		if err := chiSquareFit(counts, c.n, c.p, draws); err != nil {
			t.Errorf("n=%d p=%v: %v", c.n, c.p, err)
		}
		mean := sum / draws
		se := math.Sqrt(float64(c.n) * c.p * (1 - c.p) / draws)
		if math.Abs(mean-float64(c.n)*c.p) > zAlpha*se {
			t.Errorf("n=%d p=%v: mean %v, want %v (se %.3g)", c.n, c.p, mean, float64(c.n)*c.p, se)
		}
	}
	// Degenerate cases.
	for _, c := range []struct {
		n     int
		p, pc float64
		want  int
	}{{0, 0.5, 0.5, 0}, {10, 0, 1, 0}, {10, 1, 0, 10}, {-3, 0.5, 0.5, 0}} {
		if k := binomial(rng, c.n, c.p, c.pc); k != c.want {
			t.Errorf("binomial(%d, %v) = %d, want %d", c.n, c.p, k, c.want)
		}
	}
}

// TestBinomialBrokenCaught: the fit test rejects a sampler whose p is 1 %
// off, at the sizes Simulate uses (n·p ≈ 1000), so it has the power to
// see the bias a wrong constant would make.
func TestBinomialBrokenCaught(t *testing.T) {
	const draws = 200_000
	rng := newRNG(2)
	n, p := 4000, 0.25
	counts := make([]float64, n+1)
	for range draws {
		counts[binomial(rng, n, p*1.01, 1-p*1.01)]++
	}
	if err := chiSquareFit(counts, n, p, draws); err == nil {
		t.Error("the fit test missed p off by 1 %")
	}
}

// TestStirlingTail: the table and the series agree with ln k! from
// math.Lgamma to 1e-13 (the series is within 7e-15 of the exact tail).
func TestStirlingTail(t *testing.T) {
	for k := 0; k < 200; k++ {
		kf := float64(k)
		lg, _ := math.Lgamma(kf + 1)
		want := lg - ((kf+0.5)*math.Log(kf+1) - (kf + 1) + 0.5*math.Log(2*math.Pi))
		if got := stirlingTailOf(kf); math.Abs(got-want) > 1e-13*max(1, lg) {
			t.Errorf("k=%d: tail %v, from Lgamma %v", k, got, want)
		}
	}
}

// TestGammaInt: Gamma(m, 1) draws have mean m and variance m (z-tests at
// alpha 1e-6, the variance's SE from the fourth central moment 3m² + 6m),
// and a fit of the distribution function at its quartiles (chi-square on
// 4 cells) for m = 1, 2, 7, 1000. Catches d = m - 1 instead of m - 1/3
// (a biased mean) and a missing logarithmic acceptance test (the squeeze
// alone, a distorted shape).
func TestGammaInt(t *testing.T) {
	const draws = 200_000
	rng := newRNG(3)
	for _, m := range []int{1, 2, 7, 1000} {
		g := distuv.Gamma{Alpha: float64(m), Beta: 1}
		q := []float64{g.Quantile(0.25), g.Quantile(0.5), g.Quantile(0.75)}
		cells := make([]float64, 4)
		sum, sum2 := 0.0, 0.0
		mf := float64(m)
		for range draws {
			x := gammaInt(rng, m)
			sum += x
			sum2 += (x - mf) * (x - mf)
			c := 0
			for _, e := range q {
				if x > e {
					c++
				}
			}
			cells[c]++
		}
		if se := math.Sqrt(mf / draws); math.Abs(sum/draws-mf) > zAlpha*se {
			t.Errorf("m=%d: mean %v (se %.3g)", m, sum/draws, se)
		}
		if se := math.Sqrt((3*mf*mf + 6*mf - mf*mf) / draws); math.Abs(sum2/draws-mf) > zAlpha*se {
			t.Errorf("m=%d: variance %v (se %.3g)", m, sum2/draws, se)
		}
		stat := 0.0
		for _, o := range cells {
			e := draws / 4.0
			stat += (o - e) * (o - e) / e
		}
		if pv := (distuv.ChiSquared{K: 3}).Survival(stat); pv < alpha {
			t.Errorf("m=%d: quartile counts %v, p-value %.3g", m, cells, pv)
		}
	}
	if gammaInt(rng, 0) != 0 {
		t.Error("gammaInt(0) != 0")
	}
}

// TestSpread: spread's counts sum to n, and each cell's count has the
// multinomial's mean n/m within z·SE, over repeated draws with m not a
// power of two. Catches the last cell taking the wrong remainder.
func TestSpread(t *testing.T) {
	rng := newRNG(4)
	const reps = 20_000
	for _, c := range []struct{ n, m int }{{7, 3}, {1000, 7}, {50, 1}, {0, 5}} {
		sums := make([]float64, c.m)
		for range reps {
			dst := make([]int, c.m)
			spread(rng, c.n, c.m, dst, func(j int) int { return j })
			tot := 0
			for j, x := range dst {
				tot += x
				sums[j] += float64(x)
			}
			if tot != c.n {
				t.Fatalf("n=%d m=%d: counts %v sum to %d", c.n, c.m, dst, tot)
			}
		}
		p := 1 / float64(c.m)
		se := math.Sqrt(float64(c.n) * p * (1 - p) / reps)
		for j, s := range sums {
			if math.Abs(s/reps-float64(c.n)*p) > zAlpha*se+1e-12 {
				t.Errorf("n=%d m=%d: cell %d mean %v, want %v", c.n, c.m, j, s/reps, float64(c.n)*p)
			}
		}
	}
}

func BenchmarkBinomial(b *testing.B) {
	for _, c := range []struct {
		n int
		p float64
	}{{300, 0.25}, {300, 0.03}, {10000, 0.5}, {10000, 0.125}} {
		b.Run(fmt.Sprintf("n=%d,p=%v", c.n, c.p), func(b *testing.B) {
			rng := newRNG(5)
			s := 0
			for b.Loop() {
				s += binomial(rng, c.n, c.p, 1-c.p)
			}
			_ = s
		})
	}
}
