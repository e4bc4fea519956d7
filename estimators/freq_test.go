package estimators

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/metrics"
)

// simplexProjection is the Euclidean projection onto the probability
// simplex by sorting (Held et al.; Duchi et al. 2008).
func simplexProjection(f []float64) []float64 {
	u := slices.Clone(f)
	slices.Sort(u)
	slices.Reverse(u)
	var cum, theta float64
	for i, v := range u {
		cum += v
		if t := (cum - 1) / float64(i+1); v-t > 0 {
			theta = t
		}
	}
	out := make([]float64, len(f))
	for i, v := range f {
		out[i] = max(v-theta, 0)
	}
	return out
}

// TestNormSub: on random vectors whose positive part sums to ≥ 1, Norm-Sub
// equals the simplex projection to 1e-12; a hand case with a positive sum
// below 1 follows the definition (the zeros stay); the result is always a
// probability vector. Catches stopping after one pass (an entry pushed
// negative by the shift stays negative), dividing by d instead of the
// number of positive entries.
func TestNormSub(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for trial := range 200 {
		d := 2 + trial%37
		f := make([]float64, d)
		for i := range f {
			f[i] = rng.NormFloat64()*0.3 + 1/float64(d)
		}
		var pos float64
		for _, v := range f {
			pos += max(v, 0)
		}
		if pos < 1 {
			continue
		}
		want := simplexProjection(f)
		NormSub(f)
		for i := range f {
			if math.Abs(f[i]-want[i]) > 1e-12 {
				t.Fatalf("trial %d d=%d bin %d: %v, projection %v", trial, d, i, f[i], want[i])
			}
		}
	}
	f := []float64{0.3, 0.2, -0.1}
	NormSub(f)
	if want := []float64{0.55, 0.45, 0}; math.Abs(f[0]-want[0]) > 1e-15 || math.Abs(f[1]-want[1]) > 1e-15 || f[2] != 0 {
		t.Errorf("NormSub([0.3 0.2 -0.1]) = %v, want %v", f, want)
	}
	f = []float64{0.9, 0.8, 0.05, -0.5}
	NormSub(f) // 1.75 → shift −0.25: 0.65, 0.55, −0.2 → 0; then 1.2 → −0.1
	if want := []float64{0.55, 0.45, 0, 0}; math.Abs(f[0]-want[0]) > 1e-15 || math.Abs(f[1]-want[1]) > 1e-15 || f[2] != 0 || f[3] != 0 {
		t.Errorf("NormSub two passes = %v, want %v", f, want)
	}
}

// TestFrequencyEstimatesUnbiased: DE (GRR reports per user) and OUE
// (support counts drawn from their exact law) over d = 16 bins: the mean of
// the unbiased estimate over 400 runs of m = 20,000 users is the true
// frequency in every bin within 4.5 SE (SE from the exact variance
// Var c_v = n_v p(1−p) + (m−n_v) q(1−q); false-failure probability below
// 2e-4 over 32 bins). With 400 runs the SE is about 1.4e-3 of a frequency
// (DE at ε = 2), so a relative bias of 1 % in a bin of frequency 0.2 is
// not seen, but p and q swapped, q for GRR over d − 1 categories, or OUE's
// q = 1/(e^ε − 1) shift a bin by ≥ 10 SE.
func TestFrequencyEstimatesUnbiased(t *testing.T) {
	const eps, d, m, runs = 2.0, 16, 20000, 400
	truth := make([]int, d)
	left := m
	for v := range d - 1 {
		truth[v] = m * (v + 1) / 150
		left -= truth[v]
	}
	truth[d-1] = left
	g, _ := mechanisms.NewGRR(eps, d)
	o, _ := mechanisms.NewOUE(eps, d)
	rng := rand.New(rand.NewPCG(5, 5))
	sumDE, sumOUE := make([]float64, d), make([]float64, d)
	est := make([]float64, d)
	counts := make([]float64, d)
	for range runs {
		clear(counts)
		for v, n := range truth {
			for range n {
				counts[g.Perturb(v, rng)]++
			}
		}
		FrequencyEstimate(est, counts, m, g.P(), g.Q())
		for v := range est {
			sumDE[v] += est[v]
		}
		o.SupportCounts(truth, rng, counts)
		FrequencyEstimate(est, counts, m, o.P(), o.Q())
		for v := range est {
			sumOUE[v] += est[v]
		}
	}
	for v, n := range truth {
		f := float64(n) / m
		for _, c := range []struct {
			name string
			sum  []float64
			p, q float64
		}{{"de", sumDE, g.P(), g.Q()}, {"oue", sumOUE, o.P(), o.Q()}} {
			vc := float64(n)*c.p*(1-c.p) + float64(m-n)*c.q*(1-c.q)
			se := math.Sqrt(vc/runs) / (m * (c.p - c.q))
			if z := (c.sum[v]/runs - f) / se; math.Abs(z) > 4.5 {
				t.Errorf("%s bin %d: mean estimate %v, truth %v (z = %.2f)", c.name, v, c.sum[v]/runs, f, z)
			}
		}
	}
	// The histograms after Norm-Sub are probability vectors.
	if err := DEHistogram(est, counts, m, g); err != nil {
		t.Fatal(err)
	}
	var s float64
	for _, v := range est {
		if v < 0 {
			t.Fatalf("negative bin %v", v)
		}
		s += v
	}
	if math.Abs(s-1) > 1e-12 {
		t.Errorf("DE histogram sums to %v", s)
	}
}

// TestHistVarianceWithMean: with the histogram's own mean it is the plain
// variance (metrics.HistogramVariance, two-pass) to 1e-12; with the
// uniform histogram of d bins on [-1, 1] it is 1/3 − (2/d)²/12 (Sheppard);
// with another mean m it shifts by (μ − m)(μ + m). Catches bin edges in
// place of centres, a mean not squared.
func TestHistVarianceWithMean(t *testing.T) {
	p := []float64{0.1, 0.2, 0.05, 0.3, 0.15, 0.2, 0, 0}
	lo, hi := -1.0, 1.0
	w := (hi - lo) / float64(len(p))
	var mu float64
	for i, v := range p {
		mu += v * (lo + (float64(i)+0.5)*w)
	}
	if got, want := HistVarianceWithMean(p, lo, hi, mu), metrics.HistogramVariance(p, lo, hi); math.Abs(got-want) > 1e-12 {
		t.Errorf("own mean: %v, plain %v", got, want)
	}
	if got, want := HistVarianceWithMean(p, lo, hi, 0.3), metrics.HistogramVariance(p, lo, hi)+(mu-0.3)*(mu+0.3); math.Abs(got-want) > 1e-12 {
		t.Errorf("mean 0.3: %v, want %v", got, want)
	}
	for _, d := range []int{7, 1024} {
		u := make([]float64, d)
		for i := range u {
			u[i] = 1
		}
		if got, want := HistVarianceWithMean(u, lo, hi, 0), 1.0/3-(2.0/float64(d))*(2.0/float64(d))/12; math.Abs(got-want) > 1e-12 {
			t.Errorf("uniform d=%d: %v, want %v", d, got, want)
		}
	}
}
