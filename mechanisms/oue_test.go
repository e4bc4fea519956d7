package mechanisms_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// TestOUELawExact enumerates every report of d = 4 and 5 categories: the
// probabilities sum to 1 for each input, and the largest ratio
// Pr[report | x]/Pr[report | x'] is exactly e^ε. Catches q = 1/(e^ε − 1) or
// p ≠ 1/2 (ratio above e^ε), a report law that does not sum to 1.
func TestOUELawExact(t *testing.T) {
	for _, c := range []struct {
		eps float64
		d   int
	}{{0.5, 4}, {1, 5}, {4, 4}} {
		m, err := mechanisms.NewOUE(c.eps, c.d)
		if err != nil {
			t.Fatal(err)
		}
		bits := make([]uint8, c.d)
		worst := 0.0
		sums := make([]float64, c.d)
		for code := range 1 << c.d {
			for v := range bits {
				bits[v] = uint8(code >> v & 1)
			}
			for x := range c.d {
				sums[x] += m.ReportProbability(bits, x)
				for x2 := range c.d {
					worst = max(worst, m.ReportProbability(bits, x)/m.ReportProbability(bits, x2))
				}
			}
		}
		for x, s := range sums {
			if math.Abs(s-1) > 1e-12 {
				t.Errorf("ε=%v d=%d x=%d: probabilities sum to %v", c.eps, c.d, x, s)
			}
		}
		if math.Abs(worst/math.Exp(c.eps)-1) > 1e-12 {
			t.Errorf("ε=%v d=%d: max ratio %v, want e^ε = %v", c.eps, c.d, worst, math.Exp(c.eps))
		}
	}
}

// TestOUESamplers: PerturbBits sets each bit with its probability (2·10⁵
// reports, every bit within 4.5 SE: false-failure probability below 1e-4
// over the 8 bits), and SupportCounts has the mean c·p + (n−c)·q and the
// variance c·p(1−p) + (n−c)·q(1−q) of the per-user sum (3,000 draws, mean
// within 4.5 SE, variance within 4.5 of its normal-theory SE ·√(2/(k−1))).
// Catches p and q swapped (the mean of bit x is q), the binomials drawn
// from n instead of n − c (mean off by c·q, ≥ 5 %), and one binomial for
// both parts (wrong variance).
func TestOUESamplers(t *testing.T) {
	const eps, d = 1.0, 8
	m, _ := mechanisms.NewOUE(eps, d)
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 200000
	ones := make([]float64, d)
	bits := make([]uint8, d)
	for range n {
		m.PerturbBits(3, rng, bits)
		for v, b := range bits {
			ones[v] += float64(b)
		}
	}
	for v := range d {
		p := m.Q()
		if v == 3 {
			p = m.P()
		}
		se := math.Sqrt(p * (1 - p) / n)
		if z := (ones[v]/n - p) / se; math.Abs(z) > 4.5 {
			t.Errorf("bit %d: frequency %v, want %v (z = %.2f)", v, ones[v]/n, p, z)
		}
	}
	counts := []int{1000, 0, 5000, 200, 0, 0, 3000, 800}
	N := 0
	for _, c := range counts {
		N += c
	}
	const k = 3000
	s1, s2 := make([]float64, d), make([]float64, d)
	dst := make([]float64, d)
	for range k {
		m.SupportCounts(counts, rng, dst)
		for v, x := range dst {
			s1[v] += x
			s2[v] += x * x
		}
	}
	for v, c := range counts {
		mean := float64(c)*m.P() + float64(N-c)*m.Q()
		vr := float64(c)*m.P()*(1-m.P()) + float64(N-c)*m.Q()*(1-m.Q())
		gotMean := s1[v] / k
		gotVar := (s2[v] - k*gotMean*gotMean) / (k - 1)
		if z := (gotMean - mean) / math.Sqrt(vr/k); math.Abs(z) > 4.5 {
			t.Errorf("support %d: mean %v, want %v (z = %.2f)", v, gotMean, mean, z)
		}
		if z := (gotVar/vr - 1) / math.Sqrt(2.0/(k-1)); math.Abs(z) > 4.5 {
			t.Errorf("support %d: variance %v, want %v (z = %.2f)", v, gotVar, vr, z)
		}
	}
	if _, err := mechanisms.NewOUE(1, 1); err == nil {
		t.Error("d = 1 accepted")
	}
}

// binomPMF returns the pmf of Binomial(n, p) on 0..n, with pc = 1 − p.
func binomPMF(n int, p, pc float64) []float64 {
	f := make([]float64, n+1)
	for k := range f {
		lgn, _ := math.Lgamma(float64(n) + 1)
		lgk, _ := math.Lgamma(float64(k) + 1)
		lgr, _ := math.Lgamma(float64(n-k) + 1)
		f[k] = math.Exp(lgn - lgk - lgr + float64(k)*math.Log(p) + float64(n-k)*math.Log(pc))
	}
	return f
}

// TestOUESupportCountsLaw: a support count's draws fit its exact law, the
// convolution of Binomial(c, 1/2) and Binomial(n − c, q), by a chi-square
// test (200,000 draws; cells pooled to expected counts ≥ 5; alpha 1e-6 per
// case, 4 cases, so a false failure on this fixed seed has probability
// below 4e-6), at shapes where a draw is n·q < 1 (ε = 5, n − c = 100:
// n·q = 0.67), both small, and both large. Catches p and q swapped, the
// count drawn from n instead of n − c, 1 − q taken as q (the bit's
// complement), and a sampler whose law is a few percent off in any cell
// of mass 0.1 (4 % there is a noncentrality of 30 at 200,000 draws, past
// the critical values of 30–50 at these cell counts).
func TestOUESupportCountsLaw(t *testing.T) {
	const draws = 200_000
	const alpha = 1e-6
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		eps    float64
		counts []int
	}{
		{5, []int{3, 100}},   // other users' count at n·q = 0.67
		{4, []int{0, 40}},    // no own users; n·q = 0.72
		{1, []int{12, 30}},   // both inversion
		{2, []int{400, 800}}, // both BTRS
	} {
		m, err := mechanisms.NewOUE(c.eps, len(c.counts))
		if err != nil {
			t.Fatal(err)
		}
		own, other := c.counts[0], c.counts[1]
		fo := binomPMF(own, m.P(), 1-m.P())
		em := math.Exp(-c.eps)
		fq := binomPMF(other, m.Q(), 1/(1+em))
		law := make([]float64, own+other+1)
		for i, a := range fo {
			for j, b := range fq {
				law[i+j] += a * b
			}
		}
		obs := make([]float64, len(law))
		dst := make([]float64, len(c.counts))
		for range draws {
			m.SupportCounts(c.counts, rng, dst)
			obs[int(dst[0])]++
		}
		// Pool from the left: close a cell when its expected count
		// reaches 5 and the rest still has 5; the rest joins the last.
		tail := 0.0
		for _, p := range law {
			tail += p * draws
		}
		var stat, o, e float64
		cells := 0
		for k, p := range law {
			o += obs[k]
			e += p * draws
			tail -= p * draws
			if (e >= 5 && tail >= 5) || k == len(law)-1 {
				stat += (o - e) * (o - e) / e
				cells++
				o, e = 0, 0
			}
		}
		pv := distuv.ChiSquared{K: float64(cells - 1)}.Survival(stat)
		if pv < alpha {
			t.Errorf("ε = %g, counts %v: chi-square %.4g on %d cells, p-value %.3g", c.eps, c.counts, stat, cells, pv)
		}
	}
}

// TestOUESupportCountsNoAlloc: SupportCounts allocates nothing (a run
// calls it once per trial, but the samplers below it are shared with the
// group simulations' hot loops). Catches a per-draw rand.Rand or slice.
func TestOUESupportCountsNoAlloc(t *testing.T) {
	m, _ := mechanisms.NewOUE(1, 8)
	rng := rand.New(rand.NewPCG(13, 14))
	counts := []int{1000, 0, 5000, 200, 3, 0, 3000, 800}
	dst := make([]float64, 8)
	if a := testing.AllocsPerRun(100, func() { m.SupportCounts(counts, rng, dst) }); a != 0 {
		t.Errorf("SupportCounts: %v allocations a call", a)
	}
}
