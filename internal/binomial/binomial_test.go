package binomial

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// alpha is the false-failure probability of each statistical check. On
// the fixed seeds below TestSample makes 3 checks in each of its 26 cases,
// so a correct sampler fails it with probability at most 78·alpha ≈
// 8·10⁻⁵ (and, the seeds being fixed, either always or never).
const alpha = 1e-6

// zAlpha is the two-sided normal critical value at alpha, 4.8916.
var zAlpha = distuv.UnitNormal.Quantile(1 - alpha/2)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 7)) }

// pmf returns Pr[X = k] for X ~ Binomial(n, p), pc = 1 − p, from
// log-gamma and the logarithms of p and pc taken separately (so p near 1
// keeps the digits of pc).
func pmf(n, k int, p, pc float64) float64 {
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	nf, kf := float64(n), float64(k)
	return math.Exp(lg(nf+1) - lg(kf+1) - lg(nf-kf+1) + kf*math.Log(p) + (nf-kf)*math.Log(pc))
}

// chiSquareFit tests the counts of the values 0..n against the binomial
// pmf by Pearson's test, on cells made from left to right, each closed when
// its expected count reaches 5 and what remains to its right also has
// expected count ≥ 5 (otherwise the rest joins it), and returns the
// statistic, the number of cells and an error if the p-value is below
// alpha.
func chiSquareFit(counts []float64, n int, p, pc float64, draws int) (float64, int, error) {
	exp := make([]float64, n+2) // exp[k]; tail[k] = Σ_{j ≥ k} exp[j]
	tail := make([]float64, n+2)
	for k := n; k >= 0; k-- {
		exp[k] = pmf(n, k, p, pc) * float64(draws)
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
		return stat, cells, nil
	}
	if pv := (distuv.ChiSquared{K: float64(cells - 1)}).Survival(stat); pv < alpha {
		return stat, cells, fmt.Errorf("chi-square %.4g on %d cells, p-value %.3g", stat, cells, pv)
	}
	return stat, cells, nil
}

// sampleCases cover both samplers and both sides of p = 1/2: n·p < 1
// (where gonum's sampler switches to its Poisson-proposal branch), the
// inversion up to n·p = 10, BTRS above, p near 0 and near 1 (given by its
// complement pc), and large n.
var sampleCases = []struct {
	n     int
	p, pc float64
}{
	// n·p < 1: inversion, one uniform.
	{25, 0.03, 0.97}, {40, 0.02, 0.98}, {1000, 0.0005, 0.9995}, {1_000_000, 3e-7, 1 - 3e-7}, {1, 0.3, 0.7},
	// inversion, 1 ≤ n·p < 10.
	{7, 0.5, 0.5}, {30, 0.1, 0.9}, {30, 0.3, 0.7}, {19, 0.52, 0.48}, {2_000_000, 0.00001, 1 - 0.00001},
	// BTRS.
	{100, 0.1, 0.9}, {40, 0.25, 0.75}, {1000, 0.5, 0.5}, {5000, 0.013, 0.987}, {300, 0.7, 0.3},
	{100_000, 0.25, 0.75}, {200_000, 0.2689414213699951, 0.7310585786300049}, // OUE's q and 1 − q at ε = 1
	// p near 0.
	{1_000_000, 1e-9, 1 - 1e-9}, {100_000, 1e-4, 1 - 1e-4},
	// p near 1, through pc: inversion on the complement, then BTRS.
	{50, 1 - 1e-3, 1e-3}, {100_000, 1 - 1e-6, 1e-6}, {1000, 1 - 0.004, 0.004}, {100_000, 1 - 1e-4, 1e-4},
	{100_000, 1 - 3e-4, 3e-4},
	// n·p = 10 exactly (the switch) from both sides of 1/2.
	{20, 0.5, 0.5}, {1000, 0.99, 0.01},
}

// TestSample: for each case, 200,000 draws fit the exact pmf by a
// chi-square test, and their mean and variance are n·p and n·p·(1−p)
// within zAlpha standard errors (the variance's from the fourth central
// moment μ₄ = npq(1 + 3(n−2)pq), about the known mean). Catches (each
// planted and seen to fail): the inversion's recurrence off by one, the
// complement not taken or p and pc swapped for p > 1/2, BTRS used below
// n·p = 10 where its envelope does not hold, BTRS's exponent k + ½ off by
// one, its squeeze accepting without the us ≥ 0.07 guard; and a sampler
// with the right mean and the wrong spread (the variance check). Below its
// resolution, and not caught: a Stirling tail of (n − k)! dropped from the
// acceptance test (under 0.3 % of the ratio, and only in the rejection
// region); TestStirlingTail checks the tails themselves.
func TestSample(t *testing.T) {
	const draws = 200_000
	rng := newRNG(1)
	for _, c := range sampleCases {
		counts := make([]float64, c.n+1)
		mu := float64(c.n) * c.p
		v := float64(c.n) * c.p * c.pc
		var sum, sq float64
		for range draws {
			k := Sample(rng, c.n, c.p, c.pc)
			if k < 0 || k > c.n {
				t.Fatalf("n=%d p=%v: draw %d", c.n, c.p, k)
			}
			counts[k]++
			sum += float64(k)
			sq += (float64(k) - mu) * (float64(k) - mu)
		}
		if _, _, err := chiSquareFit(counts, c.n, c.p, c.pc, draws); err != nil {
			t.Errorf("n=%d p=%v: %v", c.n, c.p, err)
		}
		if se := math.Sqrt(v / draws); math.Abs(sum/draws-mu) > zAlpha*se {
			t.Errorf("n=%d p=%v: mean %v, want %v (se %.3g)", c.n, c.p, sum/draws, mu, se)
		}
		mu4 := v * (1 + 3*float64(c.n-2)*c.p*c.pc)
		if se := math.Sqrt((mu4 - v*v) / draws); math.Abs(sq/draws-v) > zAlpha*se {
			t.Errorf("n=%d p=%v: variance %v, want %v (se %.3g)", c.n, c.p, sq/draws, v, se)
		}
	}
}

// TestSampleDegenerate: n = 0, n < 0, p = 0 and p = 1 (pc = 0) have one
// value, and every draw is it. Catches p = 1 falling through to the
// inversion with r = p/pc = +Inf (a NaN search), and n = 0 read as a
// draw of 1.
func TestSampleDegenerate(t *testing.T) {
	rng := newRNG(2)
	for _, c := range []struct {
		n     int
		p, pc float64
		want  int
	}{{0, 0.5, 0.5, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {10, 0, 1, 0}, {1_000_000, 0, 1, 0}, {10, 1, 0, 10}, {1_000_000, 1, 0, 1_000_000}, {-3, 0.5, 0.5, 0}} {
		for range 1000 {
			if k := Sample(rng, c.n, c.p, c.pc); k != c.want {
				t.Fatalf("Sample(%d, %v, %v) = %d, want %d", c.n, c.p, c.pc, k, c.want)
			}
		}
	}
}

// TestFitDetectsBias: the fit test has the power to see the bias a wrong
// constant would make in either sampler: it rejects p 0.2 % too large at
// n·p = 1000 (BTRS; statistic 1363 on 205 cells against 315 at alpha) and
// p 3 % too large at n·p = 0.9 (the inversion; 208 on 7 cells against 38).
func TestFitDetectsBias(t *testing.T) {
	const draws = 200_000
	rng := newRNG(3)
	for _, c := range []struct {
		n       int
		p, skew float64
	}{{4000, 0.25, 1.002}, {30, 0.03, 1.03}} {
		counts := make([]float64, c.n+1)
		q := c.p * c.skew
		for range draws {
			counts[Sample(rng, c.n, q, 1-q)]++
		}
		stat, cells, err := chiSquareFit(counts, c.n, c.p, 1-c.p, draws)
		if err == nil {
			t.Errorf("n=%d p=%v: the fit test missed p off by a factor %v", c.n, c.p, c.skew)
		}
		t.Logf("n=%d p=%v off by %v: chi-square %.4g on %d cells", c.n, c.p, c.skew, stat, cells)
	}
}

// TestStirlingTail: the table and the series agree with ln k! from
// math.Lgamma to 1e−13 (the series is within 7e−15 of the exact tail).
// Catches a table entry or a series coefficient mistyped.
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

// TestSampleNoAlloc: no allocation per draw on either sampler, for the
// simulators' hot loops. Catches a per-call rand.New that escapes, or a
// slice built per draw.
func TestSampleNoAlloc(t *testing.T) {
	rng := newRNG(4)
	for _, c := range []struct {
		n     int
		p, pc float64
	}{{25, 0.03, 0.97}, {300, 0.03, 0.97}, {200_000, 0.25, 0.75}, {1000, 0.99, 0.01}} {
		if a := testing.AllocsPerRun(1000, func() { Sample(rng, c.n, c.p, c.pc) }); a != 0 {
			t.Errorf("n=%d p=%v: %v allocations a draw", c.n, c.p, a)
		}
	}
}
