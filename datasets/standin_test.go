package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// standinPrinted are Raab et al.'s printed group sizes (the captions of
// Figs 14a, 6d, 14c and 14b; AQUILA's of Figs 6a, 6b, 12 and 13), typed
// again here independently of standin.go, with the number of Table 7 labels
// and the paper's fixed value ranges (Table 2). mimic-gender's sizes are
// not printed: they are derived from Section 5.3.2's "roughly 10% more
// female than male".
var standinPrinted = []struct {
	name   string
	sizes  []int
	total  int
	first  string // first label in alphabetical order
	last   string
	lo, hi float64 // the value's fixed range (0, 0: MIMIC's age, [18, 100])
}{
	{"mimic-admission-type", []int{6620, 19519, 18682, 10557, 94739, 149278, 52641, 34184, 44642}, 430862,
		"AMBULATORY OBSERVATION", "URGENT", 0, 0},
	{"mimic-admission-location", []int{185, 10006, 232476, 358, 4204, 5401, 114815, 7798, 35964, 3842, 15813}, 430862,
		"AMBULATORY SURGERY TRANSFER", "WALK-IN/SELF REFERRAL", 0, 0},
	{"mimic-discharge-location", []int{1610, 2587, 550, 7144, 8506, 42, 155321, 75545, 3469, 1354, 2262, 10521, 43013}, 311924,
		"ACUTE HOSPITAL", "SKILLED NURSING FACILITY", 0, 0},
	{"mimic-deceased", []int{324785, 106077}, 430862, "no", "yes", 0, 0},
	{"mimic-gender", []int{225690, 205172}, 430862, "F", "M", 0, 0},
	{"aquila-disease-age", []int{683, 1278}, 1961, "AS", "PsA", 18, 100},
	{"aquila-disease-bmi", []int{683, 1278}, 1961, "AS", "PsA", 10, 60},
	{"aquila-disease-height", []int{683, 1278}, 1961, "AS", "PsA", 1.0, 2.3},
	{"aquila-disease-weight", []int{683, 1278}, 1961, "AS", "PsA", 30, 200},
	{"aquila-gender-age", []int{993, 921}, 1914, "F", "M", 18, 100},
	{"aquila-gender-bmi", []int{993, 921}, 1914, "F", "M", 10, 60},
	{"aquila-gender-height", []int{993, 921}, 1914, "F", "M", 1.0, 2.3},
	{"aquila-gender-weight", []int{993, 921}, 1914, "F", "M", 30, 200},
}

// TestStandinSizes builds every stand-in in full and checks the exact
// printed sizes, the labels (sorted, one per group, Table 7's first and
// last), the fixed age range and the substitute mark. Catches a size typo,
// a dropped group, labels out of order (groups then mean the wrong
// category), a sample of the wrong total (E2.8: 430,862, not the 431,231 of
// Section 5.1.3), and a stand-in not marked as one.
func TestStandinSizes(t *testing.T) {
	if len(Standins()) != len(standinPrinted) {
		t.Fatalf("%d stand-ins, the test knows %d", len(Standins()), len(standinPrinted))
	}
	for _, p := range standinPrinted {
		def, ok := LookupStandin(p.name)
		if !ok {
			t.Fatalf("stand-in %s missing", p.name)
		}
		if def.Total() != p.total || !slices.Equal(def.Sizes, p.sizes) {
			t.Errorf("%s: sizes %v (total %d), want %v (total %d)", p.name, def.Sizes, def.Total(), p.sizes, p.total)
		}
		if len(def.Labels) != len(p.sizes) || !slices.IsSorted(def.Labels) || def.Labels[0] != p.first || def.Labels[len(def.Labels)-1] != p.last {
			t.Errorf("%s: labels %q", p.name, def.Labels)
		}
		lo, hi, paper := p.lo, p.hi, "NOT AQUILA"
		if lo == 0 && hi == 0 {
			lo, hi, paper = 18, 100, "NOT MIMIC-IV"
		}
		s := Spec{Name: p.name, Source: SourceStandin, Standin: p.name}
		d, err := s.BuildSeed(0, 1)
		if err != nil {
			t.Fatal(err)
		}
		g, err := d.Grouped(lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Sizes(); !slices.Equal(got, p.sizes) || g.Len() != p.total {
			t.Errorf("%s: built sizes %v (Len %d), want %v", p.name, got, g.Len(), p.sizes)
		}
		if !d.Substitute || !g.Substitute || !strings.Contains(d.Source, paper) || !strings.HasSuffix(d.Source, " seed=1") {
			t.Errorf("%s: substitute %v, source %q", p.name, d.Substitute, d.Source)
		}
		if want := fmt.Sprintf("fixed[lo=%v,hi=%v]", lo, hi); d.Normalisation.String() != want {
			t.Errorf("%s: normalisation %s, want %s", p.name, d.Normalisation, want)
		}
		if vlo, vhi := slices.Min(d.Values), slices.Max(d.Values); vlo < lo || vhi > hi {
			t.Errorf("%s: values in [%v, %v], outside [%v, %v]", p.name, vlo, vhi, lo, hi)
		}
		if _, err := d.Grouped(0, 120); err == nil {
			t.Errorf("%s: Grouped accepted a range other than [%v, %v]", p.name, lo, hi)
		}
	}
}

// truncNormalMoments returns the mean and variance of N(mu, sigma²)
// truncated to [lo, hi] (closed form).
func truncNormalMoments(mu, sigma, lo, hi float64) (mean, variance float64) {
	z := distuv.UnitNormal
	a, b := (lo-mu)/sigma, (hi-mu)/sigma
	p := z.CDF(b) - z.CDF(a)
	fa, fb := z.Prob(a), z.Prob(b)
	mean = mu + sigma*(fa-fb)/p
	r := (fa - fb) / p
	variance = sigma * sigma * (1 + (a*fa-b*fb)/p - r*r)
	return mean, variance
}

// TestStandinAgeLaw: each group's ages follow N(50 + 20g/(d − 1), 15²)
// truncated to [18, 100]: sample mean within zCrit standard errors of the
// truncated mean, sample variance within zCrit·√(2/n)·v of the truncated
// variance (the normal-theory SE; truncation lowers the fourth moment).
// Catches means assigned to the wrong groups (neighbours are 2.5 years
// apart for admission type; the smallest group's SE is 0.18 years), a
// reversed order, clipping instead of truncation (atoms at 18 shift the
// lowest group's mean), and a wrong σ.
func TestStandinAgeLaw(t *testing.T) {
	for _, name := range []string{"mimic-admission-type", "mimic-deceased"} {
		d, err := Spec{Name: name, Source: SourceStandin, Standin: name}.Build(0, rand.New(rand.NewPCG(2, 3)))
		if err != nil {
			t.Fatal(err)
		}
		g, err := d.Grouped(StandinAgeLo, StandinAgeHi)
		if err != nil {
			t.Fatal(err)
		}
		for k, xs := range split(g) {
			mu := 50 + 20*float64(k)/float64(g.D-1)
			wantMean, wantVar := truncNormalMoments(mu, 15, 18, 100)
			m, v := meanVar(xs)
			n := float64(len(xs))
			if se := math.Sqrt(wantVar / n); math.Abs(m-wantMean) > zCrit*se {
				t.Errorf("%s group %d (%s): mean age %v, want %v ± %v", name, k, g.Labels[k], m, wantMean, zCrit*se)
			}
			if se := math.Sqrt(2/n) * wantVar; math.Abs(v-wantVar) > zCrit*se {
				t.Errorf("%s group %d: variance %v, want %v ± %v", name, k, v, wantVar, zCrit*se)
			}
		}
	}
	// The truncated means quoted in the package documentation.
	if m, _ := truncNormalMoments(StandinAgeMean(0, 9), StandinAgeSigma, StandinAgeLo, StandinAgeHi); math.Abs(m-50.6018) > 1e-4 {
		t.Errorf("lowest truncated mean %v, documented 50.6", m)
	}
	if m, _ := truncNormalMoments(StandinAgeMean(8, 9), StandinAgeSigma, StandinAgeLo, StandinAgeHi); math.Abs(m-69.1861) > 1e-4 {
		t.Errorf("highest truncated mean %v, documented 69.2", m)
	}
}

// TestAquilaLaw: each AQUILA stand-in's groups follow their documented
// truncated normals (the means and spreads of standin.go's aquilaValues,
// typed again here): sample mean within zCrit standard errors of the
// truncated mean. Catches the disease and gender laws swapped (height by
// gender differs by 0.14 m, 20 SE), groups swapped within a grouping, and
// a value drawn on another value's range.
func TestAquilaLaw(t *testing.T) {
	laws := map[string][2][2]float64{
		"aquila-disease-age":    {{45, 12}, {52, 12}},
		"aquila-gender-age":     {{50, 12}, {48, 12}},
		"aquila-disease-bmi":    {{26.5, 5}, {28.5, 5.5}},
		"aquila-gender-bmi":     {{27.6, 6}, {27.9, 4.5}},
		"aquila-disease-height": {{1.74, 0.09}, {1.71, 0.09}},
		"aquila-gender-height":  {{1.65, 0.07}, {1.79, 0.07}},
		"aquila-disease-weight": {{79, 16}, {83, 18}},
		"aquila-gender-weight":  {{74, 16}, {88, 16}},
	}
	for _, p := range standinPrinted {
		law, ok := laws[p.name]
		if !ok {
			continue
		}
		d, err := Spec{Name: p.name, Source: SourceStandin, Standin: p.name}.Build(0, rand.New(rand.NewPCG(4, 5)))
		if err != nil {
			t.Fatal(err)
		}
		g, err := d.Grouped(p.lo, p.hi)
		if err != nil {
			t.Fatal(err)
		}
		for k, xs := range split(g) {
			wantMean, wantVar := truncNormalMoments(law[k][0], law[k][1], p.lo, p.hi)
			m, _ := meanVar(xs)
			if se := math.Sqrt(wantVar / float64(len(xs))); math.Abs(m-wantMean) > zCrit*se {
				t.Errorf("%s group %s: mean %v, want %v ± %v", p.name, g.Labels[k], m, wantMean, zCrit*se)
			}
		}
	}
}

// TestStandinSeedAndPrefix: a seed fixes the stand-in; another changes it;
// 0 < n < total keeps the first n rows of the full draw, with all groups
// (D unchanged), and the rows are shuffled. Catches a stand-in drawn from
// a global source, a prefix that re-draws (not nested across n, as the
// harness needs), and rows left in group order (a prefix of one group).
func TestStandinSeedAndPrefix(t *testing.T) {
	s := Spec{Name: "s", Source: SourceStandin, Standin: "mimic-admission-location"}
	a, err := s.BuildSeed(0, 7)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.BuildSeed(0, 7)
	c, _ := s.BuildSeed(0, 8)
	if !slices.Equal(a.Values, b.Values) || !slices.Equal(a.Groups, b.Groups) {
		t.Error("one seed, two stand-ins")
	}
	if slices.Equal(a.Values, c.Values) {
		t.Error("two seeds, one stand-in")
	}
	p, err := s.BuildSeed(5000, 7)
	if err != nil {
		t.Fatal(err)
	}
	if p.Len() != 5000 || len(p.GroupLabels) != 11 || !slices.Equal(p.Values, a.Values[:5000]) || !slices.Equal(p.Groups, a.Groups[:5000]) {
		t.Errorf("prefix: Len %d, %d labels, or not the first 5000 rows of the full build", p.Len(), len(p.GroupLabels))
	}
	// Group 2 (EMERGENCY ROOM) holds 232,476 of 430,862 users: among the
	// first 5,000 rows of a uniform order, binomial-like (hypergeometric,
	// smaller variance) around 5000·0.5396.
	count := 0
	for _, k := range p.Groups {
		if k == 2 {
			count++
		}
	}
	q := 232476.0 / 430862
	if se := math.Sqrt(5000 * q * (1 - q)); math.Abs(float64(count)-5000*q) > zCrit*se {
		t.Errorf("first 5,000 rows: %d in EMERGENCY ROOM, want %.0f ± %.0f", count, 5000*q, zCrit*se)
	}
}
