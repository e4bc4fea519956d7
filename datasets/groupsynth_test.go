package datasets

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// Statistical checks here use zCrit (generators_test.go): a tolerance of
// zCrit standard errors, from population moments, has false-failure
// probability 1e-6 per check.

// groupedRanges are Raab et al.'s three input ranges (E3).
var groupedRanges = [][2]float64{{-1, 1}, {0, 100}, {-50, 50}}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

// TestGroupMeanFormula: μ_g = lo + (g + 1)(hi − lo)/(d + 1), the d interior
// points of d + 2 equally spaced points. Catches g instead of g + 1 (group 0
// at lo), d − 1 instead of d + 1 (groups at the ends), and the midpoint.
func TestGroupMeanFormula(t *testing.T) {
	tests := []struct {
		g, d   int
		lo, hi float64
		want   float64
	}{
		{0, 2, -1, 1, -1.0 / 3}, {1, 2, -1, 1, 1.0 / 3}, // d = 2 on [−1, 1]: ±1/3
		{0, 8, 0, 100, 100.0 / 9}, {7, 8, 0, 100, 800.0 / 9},
		{0, 3, -50, 50, -25}, {1, 3, -50, 50, 0}, {2, 3, -50, 50, 25},
	}
	for _, tt := range tests {
		if got := GroupMean(tt.g, tt.d, tt.lo, tt.hi); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("GroupMean(%d, %d, %v, %v) = %v, want %v", tt.g, tt.d, tt.lo, tt.hi, got, tt.want)
		}
	}
}

// TestNormalSigmaE23: σ = 0.2(hi − lo)/d is a standard deviation (ERRATA
// E2.3, the authors' code). Catches the printed reading N(μ, (s+r)/(5d))
// as a variance, σ = √(0.2(hi − lo)/d), and the printed s + r (0 on
// [−1, 1]).
func TestNormalSigmaE23(t *testing.T) {
	tests := []struct {
		d      int
		lo, hi float64
		want   float64
	}{
		{2, -1, 1, 0.2}, {8, -1, 1, 0.05}, {64, -1, 1, 0.00625}, {2, 0, 100, 10}, {8, -50, 50, 2.5},
	}
	for _, tt := range tests {
		if got := NormalSigma(tt.d, tt.lo, tt.hi); math.Abs(got-tt.want) > 1e-15*tt.want {
			t.Errorf("NormalSigma(%d, %v, %v) = %v, want %v", tt.d, tt.lo, tt.hi, got, tt.want)
		}
	}
}

// TestEqualSizes: ⌊n/d⌋ each, the remainder to the last group. Catches
// the remainder dropped or given to the first group, and rounding up.
func TestEqualSizes(t *testing.T) {
	tests := []struct {
		n, d int
		want []int
	}{
		{20000, 2, []int{10000, 10000}},
		{640000, 64, slices.Repeat([]int{10000}, 64)},
		{10, 3, []int{3, 3, 4}},
		{5, 8, []int{0, 0, 0, 0, 0, 0, 0, 5}},
		{0, 2, []int{0, 0}},
		{7, 1, []int{7}},
		{10, 0, nil},
		{-1, 2, nil},
	}
	for _, tt := range tests {
		if got := EqualSizes(tt.n, tt.d); !slices.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
			t.Errorf("EqualSizes(%d, %d) = %v, want %v", tt.n, tt.d, got, tt.want)
		}
	}
}

// TestImbalancedSizes: group 1 has round(n0/ratio) users, rounded half to
// even like Python's round. Catches n0·ratio (the inverse), truncation
// (7/0.07 is 99.99999999999999 in float64), and half away from zero
// (5/2 = 2.5 → 2).
func TestImbalancedSizes(t *testing.T) {
	tests := []struct {
		n0    int
		ratio float64
		want  []int
	}{
		{10000, 1, []int{10000, 10000}},
		{10000, 0.1, []int{10000, 100000}},
		{10000, 0.01, []int{10000, 1000000}},
		{10000, 0.5, []int{10000, 20000}},
		{10000, 0.05, []int{10000, 200000}},
		{7, 0.07, []int{7, 100}},
		{5, 2, []int{5, 2}},
		{7, 2, []int{7, 4}},
		{0, 1, nil},
		{10, 0, nil},
		{10, -1, nil},
		{10, math.NaN(), nil},
		{10, math.Inf(1), nil},
		{10000, 1e-9, nil}, // 10^13 users: no int32 count
	}
	for _, tt := range tests {
		if got := ImbalancedSizes(tt.n0, tt.ratio); !slices.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
			t.Errorf("ImbalancedSizes(%d, %v) = %v, want %v", tt.n0, tt.ratio, got, tt.want)
		}
	}
}

// TestSyntheticGroupedSizes: every shape gives exactly the sizes asked for,
// labels "0" … "d−1", the range and a source naming the shape. Catches a
// generator that ignores sizes (equal groups), drops the remainder, or
// loses a group.
func TestSyntheticGroupedSizes(t *testing.T) {
	cases := [][]int{EqualSizes(20000, 2), EqualSizes(1003, 8), ImbalancedSizes(1000, 0.1), {0, 5, 0, 7}}
	for _, shape := range Shapes {
		for _, sizes := range cases {
			g, err := SyntheticGrouped(shape, sizes, 0, 100, newRand(1))
			if err != nil {
				t.Fatal(err)
			}
			total := 0
			for _, s := range sizes {
				total += s
			}
			if got := g.Sizes(); !slices.Equal(got, sizes) || g.Len() != total || g.D != len(sizes) || len(g.Groups) != total {
				t.Errorf("%s %v: sizes %v, Len %d, D %d", shape, sizes, got, g.Len(), g.D)
			}
			for k, l := range g.Labels {
				if l != strconv.Itoa(k) {
					t.Errorf("%s: label %d = %q", shape, k, l)
				}
			}
			if g.Lo != 0 || g.Hi != 100 || g.Name != shape || !strings.Contains(g.Source, shape) || g.Substitute {
				t.Errorf("%s: range [%v, %v], name %q, source %q, substitute %v", shape, g.Lo, g.Hi, g.Name, g.Source, g.Substitute)
			}
			for i, x := range g.Values {
				if !(x >= 0 && x <= 100) {
					t.Fatalf("%s: value %d = %v outside [0, 100]", shape, i, x)
				}
			}
		}
	}
}

// TestSyntheticGroupedConstant: every value is μ_g exactly and its group's
// true mean is μ_g to rounding. Catches constant data at the midpoint or at
// another group's mean (values and groups permuted separately).
func TestSyntheticGroupedConstant(t *testing.T) {
	for _, r := range groupedRanges {
		for _, d := range []int{2, 8, 64} {
			g, err := SyntheticGrouped(ShapeConstant, EqualSizes(100*d+7, d), r[0], r[1], newRand(2))
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range g.Values {
				if want := GroupMean(int(g.Groups[i]), d, r[0], r[1]); x != want {
					t.Fatalf("%v d=%d: user %d of group %d has %v, want μ_g = %v", r, d, i, g.Groups[i], x, want)
				}
			}
			for k, m := range g.Means() {
				if want := GroupMean(k, d, r[0], r[1]); math.Abs(m-want) > 1e-12*(r[1]-r[0]) {
					t.Errorf("%v d=%d: m_%d = %.17g, want %.17g", r, d, k, m, want)
				}
			}
		}
	}
}

// clippedNormal returns the mean and variance of clip(X, lo, hi), X ~
// N(mu, sigma²) (closed form: the atoms at lo and hi plus the normal's
// moments on [lo, hi]).
func clippedNormal(mu, sigma, lo, hi float64) (mean, variance float64) {
	z := distuv.UnitNormal
	a, b := (lo-mu)/sigma, (hi-mu)/sigma
	pa, pb := z.CDF(a), z.Survival(b)
	in := 1 - pa - pb
	fa, fb := z.Prob(a), z.Prob(b)
	m1 := lo*pa + hi*pb + mu*in + sigma*(fa-fb)
	m2 := lo*lo*pa + hi*hi*pb + (mu*mu+sigma*sigma)*in + 2*mu*sigma*(fa-fb) + sigma*sigma*(a*fa-b*fb)
	return m1, m2 - m1*m1
}

// TestSyntheticGroupedNormal: each group's sample mean and variance match
// N(μ_g, σ²) with σ = 0.2(hi − lo)/d, clipped to [lo, hi]. Tolerances are
// zCrit standard errors: the mean's √(v/n); the variance's √(2/n)·v, the
// normal-theory SE (clipping lowers the fourth moment, so this is
// conservative). Catches σ read as a variance (E2.3: √0.05 = 0.224 against
// 0.05 for d = 8 on [−1, 1], hundreds of SEs), σ without the 1/d, the
// wrong μ_g, and a 1 % error of σ (about 7 SEs of the variance for
// d = 8, n_g = 40,000).
func TestSyntheticGroupedNormal(t *testing.T) {
	const ng = 40000
	for _, r := range [][2]float64{{-1, 1}, {0, 100}} {
		for _, d := range []int{2, 8} {
			lo, hi := r[0], r[1]
			g, err := SyntheticGrouped(ShapeNormal, EqualSizes(ng*d, d), lo, hi, newRand(3))
			if err != nil {
				t.Fatal(err)
			}
			sigma := 0.2 * (hi - lo) / float64(d)
			bySize := split(g)
			for k, xs := range bySize {
				mu := lo + float64(k+1)*(hi-lo)/float64(d+1)
				wantMean, wantVar := clippedNormal(mu, sigma, lo, hi)
				m, v := meanVar(xs)
				if se := math.Sqrt(wantVar / ng); math.Abs(m-wantMean) > zCrit*se {
					t.Errorf("%v d=%d group %d: mean %v, want %v ± %v", r, d, k, m, wantMean, zCrit*se)
				}
				se := math.Sqrt(2.0/ng) * wantVar
				if math.Abs(v-wantVar) > zCrit*se {
					t.Errorf("%v d=%d group %d: variance %v, want %v ± %v (σ = %v)", r, d, k, v, wantVar, zCrit*se, sigma)
				}
				// The misreading is rejected by the same check.
				_, wrongVar := clippedNormal(mu, math.Sqrt(0.2*(hi-lo)/float64(d)), lo, hi)
				if math.Abs(v-wrongVar) <= zCrit*math.Sqrt(2.0/ng)*wrongVar {
					t.Errorf("%v d=%d group %d: variance %v also fits the variance reading of E2.3 (%v)", r, d, k, v, wrongVar)
				}
			}
		}
	}
}

// TestSyntheticGroupedNormalClips: values beyond [lo, hi] are clipped,
// making atoms at lo and hi (the authors' code), not truncated or left out
// of range. For d = 2 the upper group's μ is 3⅓σ below hi, so n·P(Z > 10/3)
// of its 200,000 users sit exactly at hi; the count is binomial. Catches
// truncation by rejection (no atom) and no clipping (values above hi).
func TestSyntheticGroupedNormalClips(t *testing.T) {
	const ng = 200000
	g, err := SyntheticGrouped(ShapeNormal, []int{ng, ng}, -1, 1, newRand(4))
	if err != nil {
		t.Fatal(err)
	}
	atHi := 0
	for i, x := range g.Values {
		if x > 1 || x < -1 {
			t.Fatalf("value %d = %v outside [-1, 1]", i, x)
		}
		if x == 1 {
			if g.Groups[i] != 1 {
				t.Fatalf("user %d of group 0 at hi", i)
			}
			atHi++
		}
	}
	p := distuv.UnitNormal.Survival(10.0 / 3)
	if want, se := ng*p, math.Sqrt(ng*p*(1-p)); math.Abs(float64(atHi)-want) > zCrit*se {
		t.Errorf("%d values clipped to hi, want %.1f ± %.1f", atHi, want, zCrit*se)
	}
}

// TestSyntheticGroupedUniform: every group is U[lo, hi]: mean (lo + hi)/2
// and variance (hi − lo)²/12 (SE of the variance from the uniform's fourth
// central moment (hi − lo)⁴/80). Catches uniform data around μ_g, or on
// [0, 1] instead of [lo, hi].
func TestSyntheticGroupedUniform(t *testing.T) {
	const ng = 20000
	for _, r := range groupedRanges {
		lo, hi := r[0], r[1]
		g, err := SyntheticGrouped(ShapeUniform, EqualSizes(ng*4, 4), lo, hi, newRand(5))
		if err != nil {
			t.Fatal(err)
		}
		w := hi - lo
		wantVar := w * w / 12
		mu4 := w * w * w * w / 80
		for k, xs := range split(g) {
			m, v := meanVar(xs)
			if se := math.Sqrt(wantVar / ng); math.Abs(m-(lo+hi)/2) > zCrit*se {
				t.Errorf("%v group %d: mean %v, want %v ± %v", r, k, m, (lo+hi)/2, zCrit*se)
			}
			if se := math.Sqrt((mu4 - wantVar*wantVar) / ng); math.Abs(v-wantVar) > zCrit*se {
				t.Errorf("%v group %d: variance %v, want %v ± %v", r, k, v, wantVar, zCrit*se)
			}
		}
	}
}

// TestSyntheticGroupedExtremum: only lo and hi, hi with probability
// (μ_g − lo)/(hi − lo) = (g + 1)/(d + 1) (binomial SE). Catches values
// other than the two ends, the probability (g + 1)/d, and groups swapped.
func TestSyntheticGroupedExtremum(t *testing.T) {
	const ng, d = 20000, 8
	for _, r := range groupedRanges {
		lo, hi := r[0], r[1]
		g, err := SyntheticGrouped(ShapeExtremum, EqualSizes(ng*d, d), lo, hi, newRand(6))
		if err != nil {
			t.Fatal(err)
		}
		for k, xs := range split(g) {
			ones := 0
			for _, x := range xs {
				switch x {
				case hi:
					ones++
				case lo:
				default:
					t.Fatalf("%v group %d: value %v is neither lo nor hi", r, k, x)
				}
			}
			p := (GroupMean(k, d, lo, hi) - lo) / (hi - lo)
			if se := math.Sqrt(ng * p * (1 - p)); math.Abs(float64(ones)-ng*p) > zCrit*se {
				t.Errorf("%v group %d: %d at hi, want %.0f ± %.0f", r, k, ones, ng*p, zCrit*se)
			}
		}
	}
}

// TestSyntheticGroupedPermuted: rows are permuted after generation, groups
// and values together. For two groups of 10,000, the number of group-0 users
// among the first 10,000 rows is hypergeometric (mean 5,000, SD 50.0).
// Catches no permutation (10,000 of them), a permutation of the groups
// without the values (constant data off its group's μ_g), and a partial
// shuffle of one half.
func TestSyntheticGroupedPermuted(t *testing.T) {
	const ng = 10000
	for _, shape := range Shapes {
		g, err := SyntheticGrouped(shape, []int{ng, ng}, -1, 1, newRand(7))
		if err != nil {
			t.Fatal(err)
		}
		first := 0
		for _, k := range g.Groups[:ng] {
			if k == 0 {
				first++
			}
		}
		const N, K, n = 2 * ng, ng, ng
		sd := math.Sqrt(float64(n) * K * (N - K) * (N - n) / (N * N * (N - 1)))
		if math.Abs(float64(first)-n*K/N) > zCrit*sd {
			t.Errorf("%s: %d of the first %d rows in group 0, want %d ± %.0f", shape, first, n, n*K/N, zCrit*sd)
		}
		if slices.IsSorted(g.Groups) {
			t.Errorf("%s: groups still in generation order", shape)
		}
	}
	g, err := SyntheticGrouped(ShapeConstant, EqualSizes(1000, 8), -1, 1, newRand(8))
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range g.Values {
		if x != GroupMean(int(g.Groups[i]), 8, -1, 1) {
			t.Fatalf("user %d: value %v is not its group %d's μ: groups and values were permuted apart", i, x, g.Groups[i])
		}
	}
}

// TestSyntheticGroupedDeterministic: a seed fixes the dataset (the
// protocol generates it once per configuration); another seed changes it.
// Catches a global or time-seeded source.
func TestSyntheticGroupedDeterministic(t *testing.T) {
	for _, shape := range Shapes {
		a, _ := SyntheticGrouped(shape, EqualSizes(5000, 4), 0, 100, newRand(9))
		b, _ := SyntheticGrouped(shape, EqualSizes(5000, 4), 0, 100, newRand(9))
		c, _ := SyntheticGrouped(shape, EqualSizes(5000, 4), 0, 100, newRand(10))
		if !slices.Equal(a.Groups, b.Groups) || !slices.Equal(a.Values, b.Values) {
			t.Errorf("%s: one seed, two datasets", shape)
		}
		if slices.Equal(a.Groups, c.Groups) {
			t.Errorf("%s: two seeds, one order of groups", shape)
		}
	}
}

// TestSyntheticGroupedRangeInvariance: Raab et al.'s E3 runs each shape on
// [−1, 1], [0, 100] and [−50, 50] and pools them, which is only a free check
// because the data are affine images of each other (Section 5.2.3). With
// one seed, the groups are identical and the scaled values (and the scaled
// true means) agree to 1e-12. Catches draws that depend on the range
// (a rejection step inside [lo, hi], a uniform drawn as lo + U·hi) and a σ
// that does not scale with hi − lo.
func TestSyntheticGroupedRangeInvariance(t *testing.T) {
	for _, shape := range Shapes {
		for _, d := range []int{2, 8, 64} {
			var ref *Grouped
			var refScaled []float64
			for _, r := range groupedRanges {
				g, err := SyntheticGrouped(shape, EqualSizes(200*d, d), r[0], r[1], newRand(11))
				if err != nil {
					t.Fatal(err)
				}
				scaled := make([]float64, g.Len())
				g.Scaled(scaled)
				if ref == nil {
					ref, refScaled = g, scaled
					continue
				}
				if !slices.Equal(g.Groups, ref.Groups) {
					t.Fatalf("%s d=%d %v: groups differ from [-1, 1]'s", shape, d, r)
				}
				for i := range scaled {
					if math.Abs(scaled[i]-refScaled[i]) > 1e-12 {
						t.Fatalf("%s d=%d %v: scaled value %d = %.17g, on [-1, 1] %.17g", shape, d, r, i, scaled[i], refScaled[i])
					}
				}
				rm, gm := ref.Means(), g.Means()
				for k := range gm {
					a := (rm[k] - ref.Lo) / (ref.Hi - ref.Lo)
					b := (gm[k] - g.Lo) / (g.Hi - g.Lo)
					if math.Abs(a-b) > 1e-12 {
						t.Errorf("%s d=%d %v: scaled m_%d = %.17g, on [-1, 1] %.17g", shape, d, r, k, b, a)
					}
				}
			}
		}
	}
}

// TestSyntheticGroupedErrors: every refusal names its parameter.
func TestSyntheticGroupedErrors(t *testing.T) {
	r := newRand(12)
	tests := []struct {
		name   string
		shape  string
		sizes  []int
		lo, hi float64
		rng    *rand.Rand
		want   string
	}{
		{"unknown shape", "gaussian", []int{1, 1}, 0, 1, r, `shape "gaussian": want one of uniform, normal, constant, extremum`},
		{"one group", ShapeUniform, []int{10}, 0, 1, r, "sizes: need at least 2 groups, got 1"},
		{"no groups", ShapeUniform, nil, 0, 1, r, "sizes: need at least 2 groups, got 0"},
		{"too many groups", ShapeUniform, make([]int, MaxGroups+1), 0, 1, r, "sizes: 4097 groups, more than 4096"},
		{"negative size", ShapeUniform, []int{3, -1}, 0, 1, r, "sizes[1] = -1: must be >= 0"},
		{"all empty", ShapeUniform, []int{0, 0}, 0, 1, r, "sizes: every group is empty"},
		{"too many users", ShapeUniform, []int{math.MaxInt32, 1}, 0, 1, r, "sizes: more than 2147483647 users"},
		{"empty range", ShapeUniform, []int{1, 1}, 1, 1, r, "lo, hi: need finite lo < hi, got lo=1 hi=1"},
		{"NaN range", ShapeNormal, []int{1, 1}, math.NaN(), 1, r, "lo, hi: need finite lo < hi"},
		{"infinite range", ShapeNormal, []int{1, 1}, 0, math.Inf(1), r, "lo, hi: need finite lo < hi"},
		{"nil rng", ShapeConstant, []int{1, 1}, 0, 1, nil, "rng: nil *rand.Rand"},
	}
	for _, tt := range tests {
		g, err := SyntheticGrouped(tt.shape, tt.sizes, tt.lo, tt.hi, tt.rng)
		if err == nil || g != nil || !strings.HasPrefix(err.Error(), "synthetic grouped: ") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: (%v, %v), want an error containing %q", tt.name, g, err, tt.want)
		}
	}
}

// split returns each group's values.
func split(g *Grouped) [][]float64 {
	out := make([][]float64, g.D)
	for i, k := range g.Groups {
		out[k] = append(out[k], g.Values[i])
	}
	return out
}

// meanVar returns the mean and the population variance of xs.
func meanVar(xs []float64) (m, v float64) {
	m = mean(xs)
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, v / float64(len(xs))
}

// BenchmarkSyntheticGrouped generates Raab et al.'s d = 8 datasets of 80,000
// users; x-draws is the ratio to the floor, the time to draw the same
// number of rng.Float64 values (one per user) plus the shuffle alone.
func BenchmarkSyntheticGrouped(b *testing.B) {
	sizes := EqualSizes(80000, 8)
	for _, shape := range Shapes {
		b.Run(shape, func(b *testing.B) {
			rng := newRand(13)
			for b.Loop() {
				if _, err := SyntheticGrouped(shape, sizes, 0, 100, rng); err != nil {
					b.Fatal(err)
				}
			}
			per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			floor := groupedFloor(80000, rng)
			b.ReportMetric(per/80000, "ns/user")
			b.ReportMetric(per/floor, "x-draws")
		})
	}
}

// groupedFloor returns the median over 15 rounds of the ns to fill n
// uniforms and shuffle n (int32, float64) pairs.
func groupedFloor(n int, rng *rand.Rand) float64 {
	xs := make([]float64, n)
	ks := make([]int32, n)
	var times []float64
	for range 15 {
		start := time.Now()
		for i := range xs {
			xs[i] = rng.Float64()
		}
		rng.Shuffle(n, func(i, j int) { xs[i], xs[j] = xs[j], xs[i]; ks[i], ks[j] = ks[j], ks[i] })
		times = append(times, float64(time.Since(start).Nanoseconds()))
	}
	slices.Sort(times)
	return times[len(times)/2]
}
