package mechanisms_test

import (
	"math"
	"math/rand/v2"
	"slices"
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

// laplaceSignWords are the words Laplace spends on the sign of a report
// besides its exponential, rng.ExpFloat64 (ziggurat: one word, more on its
// slow steps): one rng.Uint64() in Perturb; in PerturbBatch one
// rng.Uint64() for the signs of each run of up to 64 reports.
const laplaceSignWords = 1

// meanVar returns the mean and the unbiased variance of ws.
func meanVar(ws []float64) (mean, variance float64) {
	for _, w := range ws {
		mean += w
	}
	mean /= float64(len(ws))
	for _, w := range ws {
		variance += (w - mean) * (w - mean)
	}
	return mean, variance / float64(len(ws)-1)
}

// mustBatchWords is mechtest.BatchWords, failing t on an error.
func mustBatchWords(t *testing.T, m mechanisms.Mechanism, xs []float64, seed uint64) int {
	t.Helper()
	n, err := mechtest.BatchWords(m, xs, seed)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// checkWordsZ fails t unless got, a mean word count whose sampling variance
// is v, is want within mechtest.ZMax standard errors (false-failure
// probability 9.6e-7 each).
func checkWordsZ(t *testing.T, what string, got, want, v float64) {
	t.Helper()
	if z := (got - want) / math.Sqrt(v); !(math.Abs(z) < mechtest.ZMax) {
		t.Errorf("%s: %v words per report, want %v: z = %.2f (se %.3g), beyond ±%v",
			what, got, want, z, math.Sqrt(v), mechtest.ZMax)
	}
}

// TestLaplaceWords checks Laplace's words, which it does not state
// (mechanisms.WordCounter: the count is random and has no closed form), so
// the registry-wide suite checks only that a batch of one takes Perturb's
// words. Catches a sign drawn per report in the batch (1 + 1/64 words a
// report becomes 2), a sign word dropped or an extra draw. A report
// takes its sign word(s) and the words of one rng.ExpFloat64, whose
// ziggurat takes one word, and on its slow steps (about 3% of calls) one or
// more pairs besides: a random count with a geometric tail and no closed
// form here. Its law is measured instead, on the generator itself: the
// reference is the mean μ_r and variance v_r of the words of 2^20 calls of
// ExpFloat64 on a fixed seed. Then, with independent seeds,
//
//   - Perturb, over 2^16 reports: each takes at least 1 + 1 words, and the
//     mean of (words - 1) is μ_r within zMax standard errors,
//     √(v_p/2^16 + v_r/2^20), v_p the reports' own variance;
//   - PerturbBatch, in 512 batches of 128 (two runs of 64 reports): each
//     batch takes at least 2 + 128 words, and the mean over the batches of
//     (words - 2)/128 is μ_r within zMax standard errors,
//     √(v_b/512 + v_r/2^20), v_b the variance of (words - 2)/128 over the
//     batches (511 degrees of freedom: Student's t exceeds 4.9 with
//     probability 1.3e-6);
//   - Perturb and the batch differ by the sign words alone: the means of
//     their words per report differ by 1 - 1/64 = 63/64 within zMax
//     standard errors √(v_p/2^16 + v_b/512);
//   - a batch of one input is a Perturb: the same words from the same seed.
func TestLaplaceWords(t *testing.T) {
	const (
		nRef   = 1 << 20
		nRep   = 1 << 16
		runLen = 64 // laplaceSignBits
		bLen   = 2 * runLen
		nBatch = nRep / bLen
	)
	// The reference: rand.ExpFloat64 alone.
	src := &countingSource{src: rand.NewPCG(77, 1)}
	rng := rand.New(src)
	ref := make([]float64, nRef)
	for i := range ref {
		n := src.n
		rng.ExpFloat64()
		ref[i] = float64(src.n - n)
	}
	muR, vR := meanVar(ref)

	m, _ := mechanisms.NewLaplace(1)
	xs := mechtest.Grid(-1, 1, nRep-1)

	single := make([]float64, nRep)
	few := 0
	for i, w := range mechtest.PerturbWords(m, xs, 78) {
		few += b2i(w < laplaceSignWords+1)
		single[i] = float64(w - laplaceSignWords)
	}
	if few > 0 {
		t.Errorf("laplace: %d of %d Perturb calls took fewer than %d words", few, nRep, laplaceSignWords+1)
	}
	muP, vP := meanVar(single)
	checkWordsZ(t, "laplace Perturb, less its sign word (the ziggurat's cost)", muP, muR, vP/nRep+vR/nRef)

	signs := laplaceSignWords * (bLen + runLen - 1) / runLen // one word per run
	batch := make([]float64, nBatch)
	few = 0
	for b := range batch {
		w := mustBatchWords(t, m, xs[b*bLen:(b+1)*bLen], 79+uint64(b))
		few += b2i(w < signs+bLen)
		batch[b] = float64(w-signs) / bLen
	}
	if few > 0 {
		t.Errorf("laplace: %d of %d batches of %d took fewer than %d words", few, nBatch, bLen, signs+bLen)
	}
	muB, vB := meanVar(batch)
	checkWordsZ(t, "laplace batch, less its sign words (the ziggurat's cost)", muB, muR, vB/nBatch+vR/nRef)

	// Per report: Perturb takes 1 + μ, the batch 1/64 + μ.
	perReportP := muP + laplaceSignWords
	perReportB := muB + float64(signs)/bLen
	checkWordsZ(t, "laplace Perturb less batch words per report", perReportP-perReportB,
		1-1.0/runLen, vP/nRep+vB/nBatch)

	for seed := range uint64(8) {
		x := xs[seed*997]
		if p, b := mechtest.PerturbWords(m, []float64{x}, seed)[0], mustBatchWords(t, m, []float64{x}, seed); p != b {
			t.Errorf("laplace: a batch of one took %d words, Perturb %d", b, p)
		}
	}
	t.Logf("laplace: ExpFloat64 takes %.5f words a call (variance %.4f); Perturb %.5f, batch %.5f words a report",
		muR, vR, perReportP, perReportB)
}

// TestLaplaceBatch: Laplace's batch makes the reports its PerturbBatch
// comment states (one word for the signs of a run of up to 64 reports, then
// the run's exponentials), which the suite does not check (its batch is not
// the sequence of Perturb calls, mechanisms.BatchOrder). Catches a sign bit
// read from the wrong end of the word, or a run's signs word drawn after
// its exponentials.
func TestLaplaceBatch(t *testing.T) {
	lap, _ := mechanisms.NewLaplace(1)
	for _, n := range []int{5, 64, 65, 200} {
		xs := mechtest.Grid(-1, 1, n-1)
		want := make([]float64, n)
		rng := newRNG(11)
		for r := 0; r < n; r += 64 {
			signs := rng.Uint64()
			for i := r; i < min(n, r+64); i++ {
				e := lap.Scale() * rng.ExpFloat64()
				want[i] = xs[i] + e
				if signs>>(i-r)&1 == 1 {
					want[i] = xs[i] - e
				}
			}
		}
		got := make([]float64, n)
		if err := lap.PerturbBatch(got, xs, newRNG(11)); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("laplace: a batch of %d gives %v, its stated reports %v", n, got[:5], want[:5])
		}
	}
}
