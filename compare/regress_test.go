package compare

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/results"
)

// The p-values against closed forms: χ²₂'s survival is e^{-x/2}, Student's
// t with 1 degree of freedom is Cauchy (P(|T| > t) = 1 − 2 atan(t)/π), and
// F(2, 2)'s CDF is r/(1+r). Catches a one-sided p where two-sided is meant
// (off by 2), the wrong degrees of freedom (k−1 for χ², k for t) and a
// ratio the wrong way round.
func TestPValuesClosedForms(t *testing.T) {
	cases := []struct {
		name string
		got  func() (float64, bool)
		want float64
	}{
		// Σx/θ = 6 with k = 2: upper tail e^{-3}, doubled.
		{"chi2 upper", func() (float64, bool) { p, _, ok := chi2Theory([]float64{1, 2}, 0.5); return p, ok }, 2 * math.Exp(-3)},
		// Σx/θ = 0.2: lower tail 1 − e^{-0.1}, doubled.
		{"chi2 lower", func() (float64, bool) { p, _, ok := chi2Theory([]float64{0.05, 0.05}, 0.5); return p, ok }, 2 * (1 - math.Exp(-0.1))},
		// mean 2, sd √2, se 1, theory 0: t = 2 with 1 df.
		{"t cauchy", func() (float64, bool) { p, _, ok := tTheory([]float64{1, 3}, 0, false); return p, ok }, 1 - 2*math.Atan(2)/math.Pi},
		// Paired differences 1 and 3: the same t.
		{"paired cauchy", func() (float64, bool) { p, _, ok := pairedT([]float64{11, 13}, []float64{10, 10}); return p, ok }, 1 - 2*math.Atan(2)/math.Pi},
		// A baseline that varies: differences 1 and 2, mean 1.5, sd 1/√2,
		// t = 3 with 1 df. The unpaired variance (of 11, 14 and of 10, 12)
		// would give another t; a constant baseline cannot tell them apart.
		{"paired varying", func() (float64, bool) { p, _, ok := pairedT([]float64{11, 14}, []float64{10, 12}); return p, ok }, 1 - 2*math.Atan(3)/math.Pi},
		// Means 3 and 1, k = 2 each: r = 3, F(2,2) upper tail 1/(1+3).
		{"F upper", func() (float64, bool) { p, _, ok := fRatio([]float64{2, 4}, []float64{0.5, 1.5}); return p, ok }, 2 * 0.25},
		{"F lower", func() (float64, bool) { p, _, ok := fRatio([]float64{0.5, 1.5}, []float64{2, 4}); return p, ok }, 2 * 0.25},
		// Welch with equal sizes and SDs: t = (3-1)/√(2/2+2/2) = √2, df 2;
		// P(|T₂| > t) = 1 − t/√(2+t²).
		{"welch", func() (float64, bool) { p, _, ok := welch([]float64{2, 4}, []float64{0, 2}); return p, ok }, 1 - math.Sqrt2/math.Sqrt(4)},
		{"identical paired", func() (float64, bool) { p, _, ok := pairedT([]float64{1, 2}, []float64{1, 2}); return p, ok }, 1},
		{"deterministic equal", func() (float64, bool) {
			p, _, ok := welch([]float64{0.3, 0.3}, []float64{0.1 + 0.2, 0.1 + 0.2})
			return p, ok
		}, 1},
		{"deterministic moved", func() (float64, bool) { p, _, ok := welch([]float64{0.3, 0.3}, []float64{0.31, 0.31}); return p, ok }, 0},
		{"exact theory", func() (float64, bool) { p, _, ok := tTheory([]float64{2, 2, 2}, 2*(1+1e-12), false); return p, ok }, 1},
	}
	for _, c := range cases {
		got, ok := c.got()
		if !ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: p = %v (ok %t), want %v", c.name, got, ok, c.want)
		}
	}
	// Untestable: one trial that differs, a negative value for χ².
	if _, _, ok := pairedT([]float64{1}, []float64{2}); ok {
		t.Error("a paired test of one differing trial claimed a p-value")
	}
	if _, _, ok := chi2Theory([]float64{-1, 2}, 1); ok {
		t.Error("χ² test of a negative value claimed a p-value")
	}
}

// Holm's adjusted p-values by hand: sorted 0.01, 0.02, 0.04, 0.5 times 4,
// 3, 2, 1, made monotone. Catches Bonferroni (0.08 for the second) and a
// missing monotone step (0.5 → max(0.5, 0.08)).
func TestHolm(t *testing.T) {
	got := Holm([]float64{0.04, 0.5, 0.01, 0.02})
	want := []float64{0.08, 0.5, 0.04, 0.06}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("Holm = %v, want %v", got, want)
		}
	}
	if got := Holm([]float64{0.3, 0.3, 0.9}); math.Abs(got[2]-0.9) > 1e-12 || math.Abs(got[0]-0.9) > 1e-12 {
		t.Errorf("Holm(0.3, 0.3, 0.9) = %v, want [0.9 0.9 0.9]", got)
	}
	// The running maximum: 2 × 0.011 = 0.022 is below 3 × 0.01 = 0.03, and
	// the step-down raises it to 0.03.
	got = Holm([]float64{0.01, 0.011, 0.5})
	for i, want := range []float64{0.03, 0.03, 0.5} {
		if math.Abs(got[i]-want) > 1e-12 {
			t.Fatalf("Holm(0.01, 0.011, 0.5) = %v, want [0.03 0.03 0.5]", got)
		}
	}
}

// pmKind is the test's mean-estimation kind "pm-mean" on real mechanisms:
// each of n users reports x through the registered mechanism (method), the
// collector averages the unbiased estimates (mechanisms.Unbiased). For
// the method named by biased, each estimate is multiplied by factor: 1.01
// plants a 1 % bias in that mechanism's debiasing without touching package
// mechanisms. Metrics mse (theory (1/n²)Σ Var(x_i), exact for the
// unbiased estimator) and abs (no theory).
type pmKind struct {
	biased string
	factor float64
}

func (pmKind) Name() string                { return "pm-mean" }
func (pmKind) Metrics() []string           { return []string{"mse", "abs"} }
func (pmKind) Params() experiment.ParamSet { return nil }
func (pmKind) Check(c *experiment.CellSpec) error {
	_, err := mechanisms.New(c.Method, c.Eps)
	return err
}
func (k pmKind) Prepare(_ context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	m, err := mechanisms.New(c.Method, c.Eps)
	if err != nil {
		return nil, err
	}
	est, err := mechanisms.Unbiased(m)
	if err != nil {
		return nil, err
	}
	xs := c.Dataset.Values[:c.N]
	var truth, v float64
	for _, x := range xs {
		truth += x
		v += est.Variance(x)
	}
	n := float64(len(xs))
	factor := 1.0
	if c.Method == k.biased {
		factor = k.factor
	}
	return &pmRun{est: est, xs: xs, truth: truth / n, theory: v / (n * n), factor: factor, metrics: c.Metrics}, nil
}

type pmRun struct {
	est           mechanisms.Estimate
	xs            []float64
	truth, theory float64
	factor        float64
	metrics       []string
}

func (r *pmRun) Trial(_ context.Context, _ int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	ys := make([]float64, len(r.xs))
	if err := r.est.PerturbBatch(ys, r.xs, rng); err != nil {
		return nil, err
	}
	var sum float64
	for _, y := range ys {
		sum += r.factor * y
	}
	e := sum/float64(len(ys)) - r.truth
	for _, m := range r.metrics {
		v := math.Abs(e)
		if m == "mse" {
			v = e * e
		}
		out = append(out, experiment.Measurement{Metric: m, Value: v})
	}
	return out, nil
}

func (r *pmRun) Theory(metric string) (float64, bool) { return r.theory, metric == "mse" }

// pmSpec: pm and duchi at ε = 1, 2, 4 on data uniform on [0.8, 1] (mean
// 0.9, so that a 1 % bias, 0.009, is 0.6, 1.2 and 2.6 standard errors of
// pm's mean at n = 20,000 and ε = 1, 2, 4), 30 trials: about 0.1 s.
func pmSpec(kind string, seed uint64) *harness.Spec {
	return &harness.Spec{
		Name: "planted", Kind: kind, Seed: seed, Trials: 30, Metrics: []string{"mse", "abs"},
		Axes:     harness.Axes{Method: []string{"pm", "duchi"}, Eps: []float64{1, 2, 4}, N: []int{20000}},
		Datasets: []datasets.Spec{{Name: "u", Source: datasets.SourceUniform, Lo: 0.8, Hi: 1, Normalise: datasets.RuleNone}},
	}
}

func runRows(t *testing.T, kinds experiment.Registry, s *harness.Spec) (string, []results.Row) {
	t.Helper()
	dir := t.TempDir()
	if _, err := harness.Run(context.Background(), kinds, s, harness.Options{OutDir: dir, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, harness.RowsFile)
	rows, err := results.ReadRowsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	line, _, _ := strings.Cut(string(raw), "\n")
	return line, rows
}

// Power: a 1 % bias planted in pm's debiasing (pmKind with factor 1.01 on
// pm; duchi and everything else unchanged) is flagged at α = 0.001
// against the baseline drawn from the same seed (paired t), against the
// theory (χ² or t on the log-mean) and against a baseline of another seed
// (unpaired); on pm only, on the side "higher". The unchanged kind, same
// seed, is quiet, every baseline check exactly equal.
func TestRegressFlagsPlantedBias(t *testing.T) {
	const alpha = 0.001
	clean := experiment.Registry{pmKind{}}
	planted := experiment.Registry{pmKind{biased: "pm", factor: 1.01}}
	line, rows := runRows(t, clean, pmSpec("pm-mean", 1))
	base, err := NewBaseline("planted", line, rows, alpha, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := Regress("planted", line, rows, base, 0); len(r.Moved()) > 0 || !r.Paired {
		t.Fatalf("an unchanged run moved against its own baseline: %+v", r.Moved())
	}
	bline, brows := runRows(t, planted, pmSpec("pm-mean", 1))
	line2, rows2 := runRows(t, clean, pmSpec("pm-mean", 2))
	base2, _ := NewBaseline("planted", line2, rows2, alpha, "test", nil)
	for _, paired := range []bool{true, false} {
		b := base
		if !paired {
			b = base2
		}
		r := Regress("planted", bline, brows, b, 0)
		if r.Paired != paired {
			t.Fatalf("paired = %t, want %t", r.Paired, paired)
		}
		var sb strings.Builder
		r.Print(&sb)
		t.Log(sb.String())
		flagged := map[string]bool{}
		for _, c := range r.Moved() {
			if c.Cell.Method != "pm" {
				t.Errorf("%s %s moved against %s, but only pm is biased", cellLabel(c.Cell), c.Metric, c.Against)
			}
			flagged[c.Against] = true
			if c.Side() != "higher" {
				t.Errorf("%s: the biased %s moved %s", cellLabel(c.Cell), c.Metric, c.Side())
			}
		}
		if !flagged["baseline"] || !flagged["theory"] {
			t.Errorf("paired = %t: the planted 1 %% bias was not flagged against both the baseline and the theory: %v", paired, flagged)
		}
	}
}

// Calibration: 100 re-seeded pairs (a baseline and a run, each from its own
// seed, the tree unchanged) of a toy spec, 12 cells × 2 metrics, theory
// and baseline checks, at α = 0.05 family-wise. The number of pairs with
// any false alarm must be consistent with a rate ≤ α: P(X ≥ count) ≥ 1e-6
// for X ~ Binomial(100, α) (the test's false-failure probability); and
// over every individual check (about 4,800), the fraction of p ≤ 0.05 must
// be ≤ 0.05 + 4.75 SE. A Holm step that did not adjust, a one-sided
// p-value where two-sided is meant or a test of the wrong variance would
// raise either. Each pair has its own baseline because a single shared one
// makes the 100 runs' alarms dependent: the false-alarm rate is a
// probability over the baseline and the run together.
func TestRegressFalseAlarmRate(t *testing.T) {
	const alpha, pairs = 0.05, 100
	reg := experiment.Registry{gaussKind{}}
	alarms, small, checks := 0, 0, 0
	for i := 0; i < pairs; i++ {
		bline, brows := gaussRows(t, reg, uint64(1000+2*i))
		line, rows := gaussRows(t, reg, uint64(1001+2*i))
		base, err := NewBaseline("calib", bline, brows, alpha, "test", nil)
		if err != nil {
			t.Fatal(err)
		}
		r := Regress("calib", line, rows, base, 0)
		if r.Paired {
			t.Fatal("re-seeded run taken as paired")
		}
		if len(r.Moved()) > 0 {
			alarms++
		}
		for _, c := range r.Checks {
			checks++
			if c.P <= 0.05 {
				small++
			}
		}
	}
	bound := binomUpper(pairs, alpha, 1e-6)
	t.Logf("%d of %d re-seeded pairs raised a false alarm at α = %g (bound %d); %d of %d checks had p ≤ 0.05", alarms, pairs, alpha, bound, small, checks)
	if alarms > bound {
		t.Errorf("%d false alarms in %d pairs: more than Binomial(%d, %g) gives with probability 1e-6 (%d)", alarms, pairs, pairs, alpha, bound)
	}
	frac, se := float64(small)/float64(checks), math.Sqrt(0.05*0.95/float64(checks))
	if frac > 0.05+4.75*se {
		t.Errorf("%.4f of the checks had p ≤ 0.05 (SE %.4f): the tests are anti-conservative", frac, se)
	}
}

// binomUpper returns the smallest c with P(X > c) < q, X ~ Binomial(n, p).
func binomUpper(n int, p, q float64) int {
	b := distuv.Binomial{N: float64(n), P: p}
	for c := 0; c <= n; c++ {
		if 1-b.CDF(float64(c)) < q {
			return c
		}
	}
	return n
}

// gaussKind: n users' values plus N(0, σ²) noise, σ = 1/ε, averaged:
// normal errors, so mse has its exact χ² law (theory σ²/n) and abs its
// exact mean σ√(2/(πn)). Cheap enough for 200 runs.
type gaussKind struct{}

func (gaussKind) Name() string                       { return "gauss" }
func (gaussKind) Metrics() []string                  { return []string{"mse", "abs"} }
func (gaussKind) Params() experiment.ParamSet        { return nil }
func (gaussKind) AllMethods() []string               { return []string{"a", "b"} }
func (gaussKind) Check(c *experiment.CellSpec) error { return nil }
func (gaussKind) Prepare(_ context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	return &gaussRun{n: c.N, s: 1 / c.Eps, metrics: c.Metrics}, nil
}

type gaussRun struct {
	n       int
	s       float64
	metrics []string
}

func (r *gaussRun) Trial(_ context.Context, _ int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	var sum float64
	for i := 0; i < r.n; i++ {
		sum += r.s * rng.NormFloat64()
	}
	e := sum / float64(r.n)
	for _, m := range r.metrics {
		v := math.Abs(e)
		if m == "mse" {
			v = e * e
		}
		out = append(out, experiment.Measurement{Metric: m, Value: v})
	}
	return out, nil
}

func (r *gaussRun) Theory(metric string) (float64, bool) {
	v := r.s * r.s / float64(r.n)
	if metric == "mse" {
		return v, true
	}
	return math.Sqrt(2 * v / math.Pi), true
}

func gaussRows(t *testing.T, reg experiment.Registry, seed uint64) (string, []results.Row) {
	s := &harness.Spec{
		Name: "calib", Kind: "gauss", Seed: seed, Trials: 12, Metrics: []string{"mse", "abs"},
		Axes:     harness.Axes{Method: []string{"a", "b"}, Eps: []float64{0.5, 1, 2}, N: []int{50, 100}},
		Datasets: []datasets.Spec{{Name: "u", Source: datasets.SourceUniform}},
	}
	return runRows(t, reg, s)
}

// A baseline survives its file: written and read back, the same cells,
// values to 10 significant digits, α and reasons (newest first); a file cut short is
// refused.
func TestBaselineRoundTrip(t *testing.T) {
	reg := experiment.Registry{gaussKind{}}
	line, rows := gaussRows(t, reg, 3)
	b, err := NewBaseline("calib", line, rows, 0.01, "second\nline", []string{"first"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "calib.csv")
	if err := b.Write(path); err != nil {
		t.Fatal(err)
	}
	got, err := ReadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec != "calib" || got.Alpha != 0.01 || got.RowsLine != line || fmt.Sprint(got.Reasons) != "[second line first]" || len(got.Cells) != len(b.Cells) {
		t.Fatalf("read back %+v", got)
	}
	for i := range b.Cells {
		if got.Cells[i].Cell != b.Cells[i].Cell || len(got.Cells[i].Values) != len(b.Cells[i].Values) {
			t.Fatalf("cell %d read back differently", i)
		}
		for j, v := range b.Cells[i].Values {
			if w := got.Cells[i].Values[j]; !sameValue(v, w) || math.Abs(v-w) > 5e-10*math.Abs(v) {
				t.Fatalf("cell %d value %d: wrote %v, read %v (want 10 digits)", i, j, v, w)
			}
		}
	}
	raw, _ := os.ReadFile(path)
	os.WriteFile(path, raw[:len(raw)*2/3], 0o644)
	if _, err := ReadBaseline(path); err == nil {
		t.Error("a cut baseline was read")
	}
	if _, err := NewBaseline("calib", line, rows, 0.01, " ", nil); err == nil {
		t.Error("a baseline without a reason was accepted")
	}
}
