package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func uniform(n int) []float64 {
	p := make([]float64, n)
	for i := range p {
		p[i] = 1
	}
	return p
}

func TestHistogram(t *testing.T) {
	for _, c := range []struct {
		name   string
		values []float64
		lo, hi float64
		bins   int
		want   []float64
	}{
		{"edges go right, hi in last bin", []float64{-1, -0.5, 0, 0.5, 1}, -1, 1, 4, []float64{1, 1, 1, 2}},
		{"interior values", []float64{-0.9, -0.1, 0.1, 0.2, 0.9}, -1, 1, 4, []float64{1, 1, 2, 1}},
		{"outside values clamped", []float64{-5, 5, -1.0000001, 1.0000001}, -1, 1, 4, []float64{2, 0, 0, 2}},
		{"infinities clamped", []float64{inf, ninf, inf}, 0, 1, 3, []float64{1, 0, 2}},
		{"NaN skipped", []float64{nan, 0.5, nan}, 0, 1, 2, []float64{0, 1}},
		{"empty input", nil, 0, 1, 3, []float64{0, 0, 0}},
		{"one bin", []float64{0, 0.3, 1, 7, -7}, 0, 1, 1, []float64{5}},
		// 0.3 is not exactly representable; edges are 0.1·i computed as 0 + i·(0.3/3).
		{"inexact width", []float64{0, 0.1, 0.2, 0.3, 0.15, 0.25}, 0, 0.3, 3, []float64{1, 2, 3}},
	} {
		dst := []float64{}
		for range c.bins {
			dst = append(dst, 99) // overwritten, not accumulated
		}
		Histogram(c.values, c.lo, c.hi, c.bins, dst)
		if !slices.Equal(dst, c.want) {
			t.Errorf("%s: Histogram(%v, %v, %v, %d) = %v, want %v", c.name, c.values, c.lo, c.hi, c.bins, dst, c.want)
		}
	}
}

func TestHistogramPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"bins 0":          func() { Histogram(nil, 0, 1, 0, nil) },
		"bins negative":   func() { Histogram(nil, 0, 1, -1, nil) },
		"dst too short":   func() { Histogram(nil, 0, 1, 3, make([]float64, 2)) },
		"dst too long":    func() { Histogram(nil, 0, 1, 3, make([]float64, 4)) },
		"lo = hi":         func() { Histogram(nil, 1, 1, 2, make([]float64, 2)) },
		"lo > hi":         func() { Histogram(nil, 1, 0, 2, make([]float64, 2)) },
		"NaN lo":          func() { Histogram(nil, nan, 1, 2, make([]float64, 2)) },
		"infinite hi":     func() { Histogram(nil, 0, inf, 2, make([]float64, 2)) },
		"infinite width":  func() { Histogram(nil, -math.MaxFloat64, math.MaxFloat64, 2, make([]float64, 2)) },
		"length mismatch": func() { Wasserstein1([]float64{1}, []float64{1, 2}, 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// TestHistogramEdges checks that bin membership follows the computed edges
// exactly: a value on edge i goes to bin i, the float just below it to bin
// i − 1, and every value v in bin b has edge_b ≤ v < edge_{b+1}.
func TestHistogramEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		lo, hi float64
		bins   int
	}{
		{-1, 1, 1024},
		{0, 0.3, 10},
		{0.1, 0.7, 7},
		{-3.7, 12.9, 333},
		{1e-3, 1e-3 + 1e-9, 17},
	} {
		step := (c.hi - c.lo) / float64(c.bins)
		dst := make([]float64, c.bins)
		bin := func(v float64) int {
			Histogram([]float64{v}, c.lo, c.hi, c.bins, dst)
			return slices.Index(dst, 1)
		}
		for i := 0; i <= c.bins; i++ {
			e := edge(c.lo, c.hi, step, i, c.bins)
			if want := min(i, c.bins-1); bin(e) != want {
				t.Errorf("[%v, %v] / %d: edge %d = %v in bin %d, want %d", c.lo, c.hi, c.bins, i, e, bin(e), want)
			}
			if i > 0 {
				below := math.Nextafter(e, math.Inf(-1))
				if bin(below) != i-1 {
					t.Errorf("[%v, %v] / %d: just below edge %d, %v in bin %d, want %d", c.lo, c.hi, c.bins, i, below, bin(below), i-1)
				}
			}
		}
		for range 2000 {
			v := c.lo + (c.hi-c.lo)*rng.Float64()
			b := bin(v)
			l, r := edge(c.lo, c.hi, step, b, c.bins), edge(c.lo, c.hi, step, b+1, c.bins)
			if !(l <= v && (v < r || b == c.bins-1 && v <= r)) {
				t.Errorf("[%v, %v] / %d: %v in bin %d = [%v, %v)", c.lo, c.hi, c.bins, v, b, l, r)
			}
		}
	}
	// On the 1024-bin grid of [−1, 1] the edges are exact: −1 + k/512 is in bin k.
	dst := make([]float64, 1024)
	for k := range 1024 {
		Histogram([]float64{-1 + float64(k)/512}, -1, 1, 1024, dst)
		if dst[k] != 1 {
			t.Fatalf("-1 + %d/512 not in bin %d", k, k)
		}
	}
}

func TestHistogramVariance(t *testing.T) {
	for _, c := range []struct {
		name   string
		p      []float64
		lo, hi float64
		want   float64
	}{
		// Midpoints of d bins of width Δ = 2/d on [−1, 1] have variance
		// (d² − 1)Δ²/12 = 1/3 − Δ²/12. For d = 1024: 1/3 − 1/3145728 = 349525/1048576.
		{"uniform, 1024 bins on [-1,1]", uniform(1024), -1, 1, 0.33333301544189453125},
		{"uniform, 4 bins on [-1,1]", uniform(4), -1, 1, 0.3125}, // 1/3 − 1/48
		{"uniform counts, 1 bin", []float64{5}, -1, 1, 0},
		{"point mass", []float64{0, 0, 7, 0}, -1, 1, 0},
		// Midpoints 0.5 and 3.5 with equal mass: variance 1.5².
		{"two point masses", []float64{1, 0, 0, 1}, 0, 4, 2.25},
		// Midpoints 0.5, 1.5 with mass ¼, ¾: mean 1.25, variance ¼·¾ = 0.1875.
		{"unequal masses", []float64{1, 3}, 0, 2, 0.1875},
		// Shifting the domain does not change the variance.
		{"shifted domain", []float64{1, 3}, 1000, 1002, 0.1875},
		{"zero mass", []float64{0, 0}, 0, 1, nan},
		{"negative entry", []float64{-1, 2}, 0, 1, nan},
		{"empty", nil, 0, 1, nan},
		{"lo = hi", []float64{1, 2}, 1, 1, nan},
		{"lo > hi", []float64{1, 2}, 1, 0, nan},
		{"NaN hi", []float64{1, 2}, 0, nan, nan},
	} {
		if got := HistogramVariance(c.p, c.lo, c.hi); !same(got, c.want, 1e-15) {
			t.Errorf("%s: HistogramVariance = %.20g, want %.20g", c.name, got, c.want)
		}
	}
}

func TestHistogramQuantile(t *testing.T) {
	for _, c := range []struct {
		name   string
		p      []float64
		lo, hi float64
		prob   float64
		want   float64
	}{
		{"uniform, 0", uniform(4), -1, 1, 0, -1},
		{"uniform, 0.25", uniform(4), -1, 1, 0.25, -0.5},
		{"uniform, 0.3", uniform(4), -1, 1, 0.3, -0.4},
		{"uniform, 0.5", uniform(4), -1, 1, 0.5, 0},
		{"uniform, 0.9", uniform(4), -1, 1, 0.9, 0.8},
		{"uniform, 1", uniform(4), -1, 1, 1, 1},
		{"uniform 1024, 0.7", uniform(1024), -1, 1, 0.7, 0.4},
		{"one bin, 0.25", []float64{3}, 0, 8, 0.25, 2},
		// Empty bins: the CDF is flat there and the smallest x is returned.
		{"gaps, 0", []float64{0, 1, 0, 1}, 0, 4, 0, 1},
		{"gaps, 0.25", []float64{0, 1, 0, 1}, 0, 4, 0.25, 1.5},
		{"gaps, 0.5", []float64{0, 1, 0, 1}, 0, 4, 0.5, 2},
		{"gaps, 0.75", []float64{0, 1, 0, 1}, 0, 4, 0.75, 3.5},
		{"gaps, 1", []float64{0, 1, 0, 1, 0}, 0, 5, 1, 4},
		// Mass ¼, ¾ on [0,1), [1,2): level 0.5 is ⅓ into bin 1.
		{"unequal", []float64{1, 3}, 0, 2, 0.5, 1.3333333333333333},
		{"prob < 0", uniform(4), 0, 1, -0.1, nan},
		{"prob > 1", uniform(4), 0, 1, 1.1, nan},
		{"prob NaN", uniform(4), 0, 1, nan, nan},
		{"zero mass", []float64{0, 0}, 0, 1, 0.5, nan},
		{"negative entry", []float64{2, -1}, 0, 1, 0.5, nan},
		{"lo = hi", uniform(4), 1, 1, 0.5, nan},
	} {
		if got := HistogramQuantile(c.p, c.lo, c.hi, c.prob); !same(got, c.want, 1e-14) {
			t.Errorf("%s: HistogramQuantile = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestHistogramQuantileBinCentre(t *testing.T) {
	for _, c := range []struct {
		name   string
		p      []float64
		lo, hi float64
		prob   float64
		want   float64
	}{
		// Centres −0.75, −0.25, 0.25, 0.75; running sums ¼, ½, ¾, 1.
		{"uniform, 0", uniform(4), -1, 1, 0, -0.75},
		{"uniform, 0.25", uniform(4), -1, 1, 0.25, -0.75},
		{"uniform, 0.3", uniform(4), -1, 1, 0.3, -0.25},
		{"uniform, 0.5", uniform(4), -1, 1, 0.5, -0.25},
		{"uniform, 0.9", uniform(4), -1, 1, 0.9, 0.75},
		{"uniform, 1", uniform(4), -1, 1, 1, 0.75},
		{"gaps, 0", []float64{0, 1, 0, 1}, 0, 4, 0, 0.5}, // first bin, even if empty
		{"gaps, 0.1", []float64{0, 1, 0, 1}, 0, 4, 0.1, 1.5},
		{"gaps, 0.6", []float64{0, 1, 0, 1}, 0, 4, 0.6, 3.5},
		{"prob > 1", uniform(4), 0, 1, 1.5, nan},
		{"zero mass", []float64{0, 0}, 0, 1, 0.5, nan},
	} {
		if got := HistogramQuantileBinCentre(c.p, c.lo, c.hi, c.prob); !same(got, c.want, 1e-15) {
			t.Errorf("%s: HistogramQuantileBinCentre = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestVarianceSquaredError(t *testing.T) {
	for _, c := range []struct {
		name        string
		pEst, pTrue []float64
		lo, hi      float64
		want        float64
	}{
		// 0.3125 vs 0.
		{"uniform vs point mass", uniform(4), []float64{0, 1, 0, 0}, -1, 1, 0.09765625},
		// Midpoints 0.5 and 2.5 on both grids (3 and 9 bins on [0, 3]).
		{"same distribution, different bin counts", []float64{1, 0, 1}, []float64{0, 1, 0, 0, 0, 0, 0, 1, 0}, 0, 3, 0},
		{"invalid estimate", []float64{0, 0}, uniform(2), 0, 1, nan},
	} {
		if got := VarianceSquaredError(c.pEst, c.pTrue, c.lo, c.hi); !same(got, c.want, 1e-15) {
			t.Errorf("%s: VarianceSquaredError = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestQuantileSquaredError(t *testing.T) {
	deciles := Deciles()
	for _, c := range []struct {
		name        string
		pEst, pTrue []float64
		lo, hi      float64
		probs       []float64
		want, cent  float64
	}{
		{"identical", uniform(8), uniform(8), -1, 1, deciles, 0, 0},
		// Interpolated quantiles agree for any bin count; bin centres do not
		// (0.25 vs 0.5 at level ¼, 1.25 vs 1.5 at ¾).
		{"uniform, 4 vs 2 bins", uniform(4), uniform(2), 0, 2, []float64{0.25, 0.75}, 0, 0.0625},
		// Shift by one bin of width 1: every quantile moves by 1.
		{"shift", []float64{1, 0, 0, 0}, []float64{0, 1, 0, 0}, 0, 4, []float64{0.25, 0.5, 1}, 1, 1},
		// Levels ½ and 1 of (1,1) vs (1,0) on [0,2]: 1 vs 0.5 and 2 vs 1:
		// (0.25 + 1)/2 = 0.625; centres 0.5 vs 0.5 and 1.5 vs 0.5: ½.
		{"average over levels", []float64{1, 1}, []float64{1, 0}, 0, 2, []float64{0.5, 1}, 0.625, 0.5},
		{"no levels", uniform(2), uniform(2), 0, 1, nil, nan, nan},
		{"level out of range", uniform(2), uniform(2), 0, 1, []float64{0.5, 2}, nan, nan},
		{"invalid truth", uniform(2), []float64{-1, 2}, 0, 1, deciles, nan, nan},
	} {
		if got := QuantileSquaredError(c.pEst, c.pTrue, c.lo, c.hi, c.probs); !same(got, c.want, 1e-14) {
			t.Errorf("%s: QuantileSquaredError = %v, want %v", c.name, got, c.want)
		}
		if got := QuantileSquaredErrorBinCentre(c.pEst, c.pTrue, c.lo, c.hi, c.probs); !same(got, c.cent, 1e-14) {
			t.Errorf("%s: QuantileSquaredErrorBinCentre = %v, want %v", c.name, got, c.cent)
		}
	}
}

func TestDeciles(t *testing.T) {
	want := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}
	d := Deciles()
	if !slices.Equal(d, want) {
		t.Fatalf("Deciles() = %v, want %v", d, want)
	}
	d[0] = 7
	if Deciles()[0] != 0.1 {
		t.Fatal("Deciles returns shared storage")
	}
}

func TestHistogramProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const lo, hi = -1.0, 1.0
	for trial := range 1000 {
		n := 1 + rng.IntN(64)
		p := randHist(rng, n)

		v := HistogramVariance(p, lo, hi)
		if !(v >= 0 && v <= (hi-lo)*(hi-lo)/4) {
			t.Fatalf("trial %d: HistogramVariance = %v outside [0, 1]", trial, v)
		}
		// Against E[X²] − E[X]² in exact-enough arithmetic.
		s, _ := mass(p)
		w := (hi - lo) / float64(n)
		var m1, m2 float64
		for i, x := range p {
			c := lo + (float64(i)+0.5)*w
			m1 += x / s * c
			m2 += x / s * c * c
		}
		if !same(v, m2-m1*m1, 1e-12) {
			t.Fatalf("trial %d: HistogramVariance = %v, moments give %v", trial, v, m2-m1*m1)
		}

		// Quantiles are non-decreasing in the level, inside the domain, and
		// invert the interpolated CDF.
		prev := math.Inf(-1)
		for k := 0; k <= 20; k++ {
			prob := float64(k) / 20
			x := HistogramQuantile(p, lo, hi, prob)
			if !(x >= lo && x <= hi && x >= prev) {
				t.Fatalf("trial %d: HistogramQuantile(%v) = %v after %v", trial, prob, x, prev)
			}
			prev = x
			if got := interpolatedCDF(p, lo, hi, x); !same(got, prob, 1e-12) {
				t.Fatalf("trial %d: CDF(HistogramQuantile(%v)) = %v", trial, prob, got)
			}
			// Away from levels 0 and 1 (where empty end bins separate the
			// conventions) both quantiles lie in the same bin.
			xc := HistogramQuantileBinCentre(p, lo, hi, prob)
			if k > 0 && k < 20 && math.Abs(xc-x) > w/2*(1+1e-9) {
				t.Fatalf("trial %d: level %v: bin-centre quantile %v, interpolated %v, bin width %v", trial, prob, xc, x, w)
			}
		}
	}
}

func interpolatedCDF(p []float64, lo, hi, x float64) float64 {
	s, _ := mass(p)
	w := (hi - lo) / float64(len(p))
	var c float64
	for i, v := range p {
		l := lo + float64(i)*w
		switch {
		case x >= l+w:
			c += v
		case x > l:
			c += v * (x - l) / w
		}
	}
	return c / s
}

func TestHistogramsDoNotAllocate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	p, q := randHist(rng, 1024), randHist(rng, 1024)
	values := make([]float64, 10000)
	for i := range values {
		values[i] = 2*rng.Float64() - 1
	}
	dst := make([]float64, 1024)
	deciles := Deciles()
	for name, f := range map[string]func(){
		"Histogram":                     func() { Histogram(values, -1, 1, 1024, dst) },
		"HistogramVariance":             func() { sink = HistogramVariance(p, -1, 1) },
		"HistogramQuantile":             func() { sink = HistogramQuantile(p, -1, 1, 0.5) },
		"HistogramQuantileBinCentre":    func() { sink = HistogramQuantileBinCentre(p, -1, 1, 0.5) },
		"VarianceSquaredError":          func() { sink = VarianceSquaredError(p, q, -1, 1) },
		"QuantileSquaredError":          func() { sink = QuantileSquaredError(p, q, -1, 1, deciles) },
		"QuantileSquaredErrorBinCentre": func() { sink = QuantileSquaredErrorBinCentre(p, q, -1, 1, deciles) },
	} {
		if a := testing.AllocsPerRun(20, f); a != 0 {
			t.Errorf("%s: %v allocations per run, want 0", name, a)
		}
	}
}
