package compare

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/results"
)

func claimsTestSpec(claims ...Claim) *harness.Spec {
	return &harness.Spec{
		Name: "claims-test", Kind: "mean", Seed: 1, Trials: 3, Metrics: []string{"mse", "abs"},
		Axes: harness.Axes{
			Method: []string{"duchi", "pm", "sw"},
			Eps:    []float64{0.5, 1},
			N:      []int{100},
			Params: map[string][]string{"stop": {"authors", "converged"}},
		},
		Datasets: []datasets.Spec{{Name: "uniform", Source: "uniform", Lo: -1, Hi: 1}},
		Claims:   claims,
	}
}

func pf(x float64) *float64 { return &x }

func TestClaimsValidation(t *testing.T) {
	ok := func() Claim {
		return Claim{Source: "L1", Metric: "mse", Method: "pm", Against: harness.MethodList{"duchi"}, PaperMin: pf(10), PaperMax: pf(20)}
	}
	with := func(f func(c *Claim)) Claim { c := ok(); f(&c); return c }
	tests := []struct {
		name  string
		claim Claim
		want  string // "" for valid
	}{
		{"valid", ok(), ""},
		{"valid list and where", with(func(c *Claim) {
			c.Against = harness.MethodList{"duchi", "sw"}
			c.Where = map[string][]string{"eps": {"0.50"}, "stop": {"authors"}, "dataset": {"uniform"}, "n": {"100"}}
		}), ""},
		{"qualitative 0-100", with(func(c *Claim) { c.PaperMin, c.PaperMax = pf(0), pf(100) }), ""},
		{"negative min allowed", with(func(c *Claim) { c.PaperMin = pf(-5) }), ""},
		{"no source", with(func(c *Claim) { c.Source = "" }), `key "claims[1].source": is required`},
		{"no metric", with(func(c *Claim) { c.Metric = "" }), `key "claims[1].metric": is required`},
		{"unknown metric", with(func(c *Claim) { c.Metric = "js-div" }), `key "claims[1].metric": unknown metric "js-div"`},
		{"no method", with(func(c *Claim) { c.Method = "" }), `key "claims[1].method": is required`},
		{"unknown method", with(func(c *Claim) { c.Method = "ule" }), `key "claims[1].method": unknown method "ule": not in axes.method (duchi, pm, sw)`},
		{"no against", with(func(c *Claim) { c.Against = nil }), `key "claims[1].against": is required`},
		{"unknown against", with(func(c *Claim) { c.Against = harness.MethodList{"duchi", "ems-sr"} }), `key "claims[1].against[1]": unknown method "ems-sr"`},
		{"against itself", with(func(c *Claim) { c.Against = harness.MethodList{"pm"} }), `key "claims[1].against[0]": method "pm" is compared with itself`},
		{"duplicate against", with(func(c *Claim) { c.Against = harness.MethodList{"sw", "sw"} }), `key "claims[1].against[1]": duplicate method "sw"`},
		{"no paper_min", with(func(c *Claim) { c.PaperMin = nil }), `key "claims[1].paper_min": is required`},
		{"no paper_max", with(func(c *Claim) { c.PaperMax = nil }), `key "claims[1].paper_max": is required`},
		{"min > max", with(func(c *Claim) { c.PaperMin = pf(30) }), `key "claims[1].paper_min": 30 is greater than paper_max 20`},
		{"max > 100", with(func(c *Claim) { c.PaperMax = pf(120) }), `key "claims[1].paper_max": must be finite and ≤ 100`},
		{"NaN min", with(func(c *Claim) { c.PaperMin = pf(math.NaN()) }), `key "claims[1].paper_min": must be finite`},
		{"where unknown axis", with(func(c *Claim) { c.Where = map[string][]string{"m": {"3"}} }), `key "claims[1].where.m": unknown axis "m" (valid: dataset, eps, n, stop)`},
		{"where unknown value", with(func(c *Claim) { c.Where = map[string][]string{"stop": {"authors", "never"}} }), `key "claims[1].where.stop[1]": "never" is not a value of the stop axis`},
		{"where eps not on axis", with(func(c *Claim) { c.Where = map[string][]string{"eps": {"0.3"}} }), `key "claims[1].where.eps[0]": "0.3" is not a value`},
		{"where empty", with(func(c *Claim) { c.Where = map[string][]string{"dataset": {}} }), `key "claims[1].where.dataset": is empty`},
		{"where method", with(func(c *Claim) { c.Where = map[string][]string{"method": {"pm"}} }), `key "claims[1].where.method": cannot filter on method`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The claim under test is the second one, so that errors must
			// name the index.
			err := Validate(claimsTestSpec(ok(), tc.claim), nil)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestClaimsTOML(t *testing.T) {
	dir := t.TempDir()
	base := `name = "c"
kind = "mean"
trials = 2
metrics = ["mse"]
[axes]
method = ["duchi", "pm", "sw"]
eps = [1]
n = [10]
[[datasets]]
name = "u"
source = "uniform"
lo = -1.0
hi = 1.0
`
	write := func(claims string) string {
		p := filepath.Join(dir, "c.toml")
		if err := os.WriteFile(p, []byte(base+claims), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	s, err := harness.LoadSpec(write(`
[[claims]]
source = "L1"
metric = "mse"
method = "pm"
against = "duchi"
paper_min = 1
paper_max = 2.5

[[claims]]
source = "L2"
metric = "mse"
method = "pm"
against = ["duchi", "sw"]
against_best = true
paper_min = 0
paper_max = 100
note = "lowest everywhere"
`))
	if err == nil {
		err = Validate(s, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Claims) != 2 || strings.Join(s.Claims[0].Against, ",") != "duchi" ||
		strings.Join(s.Claims[1].Against, ",") != "duchi,sw" || !s.Claims[1].AgainstBest ||
		*s.Claims[0].PaperMax != 2.5 || s.Claims[1].Note != "lowest everywhere" {
		t.Fatalf("decoded %+v", s.Claims)
	}
	// Claims change no row, so the spec hash ignores them.
	h := s.Hash()
	s.Claims = nil
	if s.Hash() != h {
		t.Error("claims change the spec hash")
	}
	for _, tc := range []struct{ toml, want string }{
		{"[[claims]]\nsource = \"L1\"\nmetric = \"mse\"\nmethod = \"pm\"\nagainst = \"duchi\"\npaper_min = 1\npaper_max = 2\nwehre = { eps = [\"1\"] }\n", `unknown key "claims.wehre"`},
		{"[[claims]]\nsource = \"L1\"\nmetric = \"mse\"\nmethod = \"pm\"\nagainst = 3\npaper_min = 1\npaper_max = 2\n", "against"},
		{"[[claims]]\nsource = \"L1\"\nmetric = \"mse\"\nmethod = \"pm\"\nagainst = \"duchi\"\npaper_min = 3\npaper_max = 2\n", `key "claims[0].paper_min": 3 is greater than paper_max 2`},
	} {
		s, err := harness.LoadSpec(write(tc.toml))
		if err == nil {
			err = Validate(s, nil)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want it to contain %q", err, tc.want)
		}
	}
}

// synthRows builds rows of metric mse (and a distracting metric abs) for one
// method in one cell.
func synthRows(dataset string, eps float64, method string, trials []int, values []float64) []results.Row {
	var rows []results.Row
	for i, v := range values {
		c := results.Row{Experiment: "x", Dataset: dataset, Method: method, Eps: results.Float(eps), N: 10,
			Params: "stop=authors", Trial: trials[i], Metric: "mse", Value: results.Float(v)}
		rows = append(rows, c)
		c.Metric, c.Value = "abs", 1000
		rows = append(rows, c)
	}
	return rows
}

// Hand-computed improvements:
//
// Cell A (eps 1): pm = 1, 2, 3 (mean 2), duchi = 2, 4, 7 (mean 13/3), same
// trials 0-2, so paired: r = 6/13, improvement 100·7/13 = 53.846…; the
// residuals mₜ − r·aₜ are 1/13, 2/13, −3/13, sd = √7/13, and
// SE(r) = sd/(√3·13/3) = √21/169, SE = 100·√21/169 = 2.7116….
//
// Cell B (eps 0.5): pm = 1, 3 (trials 0-1, mean 2, var 2), duchi = 3, 4, 5
// (trials 0-2, mean 4, var 1), so unpaired: r = 1/2, improvement 50,
// SE = 100·(1/2)·√(2/2/4 + 1/3/16) = 50·√(13/48) = 26.0208…, not significant.
func TestEvaluateHandComputed(t *testing.T) {
	var rows []results.Row
	rows = append(rows, synthRows("d", 1, "pm", []int{0, 1, 2}, []float64{1, 2, 3})...)
	rows = append(rows, synthRows("d", 1, "duchi", []int{0, 1, 2}, []float64{2, 4, 7})...)
	rows = append(rows, synthRows("d", 1, "sw", []int{0, 1, 2}, []float64{3, 3, 3})...)
	rows = append(rows, synthRows("d", 0.5, "pm", []int{0, 1}, []float64{1, 3})...)
	rows = append(rows, synthRows("d", 0.5, "duchi", []int{0, 1, 2}, []float64{3, 4, 5})...)
	rows = append(rows, synthRows("other", 1, "pm", []int{0, 1}, []float64{1, 1})...) // no duchi: left out

	claims := []Claim{
		{Source: "S0", Metric: "mse", Method: "pm", Against: harness.MethodList{"duchi"}, PaperMin: pf(40), PaperMax: pf(52)},
		{Source: "S1", Metric: "mse", Method: "pm", Against: harness.MethodList{"duchi", "sw"}, AgainstBest: true, PaperMin: pf(0), PaperMax: pf(100)},
		{Source: "S2", Metric: "mse", Method: "pm", Against: harness.MethodList{"duchi", "sw"}, PaperMin: pf(0), PaperMax: pf(100),
			Where: map[string][]string{"eps": {"1.0"}}},
		{Source: "S3", Metric: "mse", Method: "pm", Against: harness.MethodList{"duchi"}, PaperMin: pf(0), PaperMax: pf(100),
			Where: map[string][]string{"dataset": {"none"}}},
	}
	got := Evaluate(claims, rows)
	type want struct {
		claim             int
		kind, against     string
		eps               float64
		imp, se           float64
		how, significant  string
		min, max          float64
		cells, sig, inRng string
	}
	nan := math.NaN()
	wants := []want{
		{0, "cell", "duchi", 1, 700.0 / 13, 100 * math.Sqrt(21) / 169, SEPaired, "true", nan, nan, "", "", ""},
		{0, "cell", "duchi", 0.5, 50, 50 * math.Sqrt(13.0/48), SEUnpaired, "false", nan, nan, "", "", ""},
		{0, "summary", "duchi", nan, nan, nan, "paired-delta,unpaired-delta", "", 50, 700.0 / 13, "2", "1", "1"},
		// Best of duchi (13/3) and sw (3) in cell A is sw: r = 2/3.
		// Paired residuals 1−2, 2−2, 3−2: sd 1, SE(r) = 1/(√3·3), SE =
		// 19.245 > 33.3/2, so not significant.
		{1, "cell", "sw", 1, 100.0 / 3, 100 / (3 * math.Sqrt(3)), SEPaired, "false", nan, nan, "", "", ""},
		{1, "cell", "duchi", 0.5, 50, 50 * math.Sqrt(13.0/48), SEUnpaired, "false", nan, nan, "", "", ""},
		{1, "summary", "best of duchi,sw", nan, nan, nan, "paired-delta,unpaired-delta", "", 100.0 / 3, 50, "2", "0", "2"},
		{2, "cell", "duchi", 1, 700.0 / 13, 100 * math.Sqrt(21) / 169, SEPaired, "true", nan, nan, "", "", ""},
		{2, "cell", "sw", 1, 100.0 / 3, 100 / (3 * math.Sqrt(3)), SEPaired, "false", nan, nan, "", "", ""},
		{2, "summary", "duchi,sw", nan, nan, nan, "paired-delta", "", 100.0 / 3, 700.0 / 13, "2", "1", "2"},
		{3, "summary", "duchi", nan, nan, nan, "", "", nan, nan, "0", "0", "0"},
	}
	if len(got) != len(wants) {
		t.Fatalf("got %d rows, want %d: %+v", len(got), len(wants), got)
	}
	close := func(a results.Float, b float64) bool {
		if math.IsNaN(b) {
			return !a.Known()
		}
		return math.Abs(float64(a)-b) <= 1e-12*math.Max(1, math.Abs(b))
	}
	for i, w := range wants {
		g := got[i]
		if g.Claim != w.claim || g.Kind != w.kind || g.Against != w.against || !close(g.Eps, w.eps) ||
			!close(g.Improvement, w.imp) || !close(g.SE, w.se) || g.SEMethod != w.how || g.Significant != w.significant ||
			!close(g.MeasuredMin, w.min) || !close(g.MeasuredMax, w.max) ||
			g.Cells != w.cells || g.SignificantCells != w.sig || g.InRangeCells != w.inRng {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	if got[0].MethodMean != 2 || !close(got[0].AgainstMean, 13.0/3) || got[0].Trials != "3" || got[0].Params != "stop=authors" {
		t.Errorf("row 0 means/trials/params: %+v", got[0])
	}

	var buf bytes.Buffer
	if err := Print(&buf, got); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"40.0 – 52.0", "50.0 – 53.8", "best of duchi,sw", "no cells"} {
		if !strings.Contains(buf.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, buf.String())
		}
	}
}

// Evaluate sets a paper's stated improvement range beside the measured
// one. Here PM's trial-mean MSE is 40% below Duchi's in both cells, trials
// paired by index, against a claim of 30–50%: with paired residuals
// −0.1, 0.1, 0 (times 1/ε) the SE of the ratio is 0.1/(√3·2), 2.9 points.
func ExampleEvaluate() {
	lo, hi := 30.0, 50.0
	claims := []Claim{{
		Source: "L1, Fig. 1", Metric: "mse", Method: "pm", Against: harness.MethodList{"duchi"},
		PaperMin: &lo, PaperMax: &hi,
	}}
	values := map[string][]float64{"duchi": {1, 2, 3}, "pm": {0.5, 1.3, 1.8}}
	var rows []results.Row
	for _, eps := range []results.Float{1, 2} {
		for _, method := range []string{"duchi", "pm"} {
			for trial, v := range values[method] {
				rows = append(rows, results.Row{Dataset: "d", Method: method, Eps: eps, N: 100,
					Trial: trial, Metric: "mse", Value: results.Float(v / float64(eps))})
			}
		}
	}
	out := Evaluate(claims, rows)
	for _, r := range out {
		if r.Kind == "cell" {
			fmt.Printf("eps %v: %.1f%% ± %.1f (%s)\n", r.Eps, r.Improvement, r.SE, r.SEMethod)
		}
	}
	Print(os.Stdout, out)
	// Output:
	// eps 1: 40.0% ± 2.9 (paired-delta)
	// eps 2: 40.0% ± 2.9 (paired-delta)
	// claim  source      metric  method  against  paper %      measured %   cells  >2SE  in range  SE
	// 0      L1, Fig. 1  mse     pm      duchi    30.0 – 50.0  40.0 – 40.0  2      2     2         paired-delta
	// improvement % = 100·(1 − method/against) of the metric's trial means per cell; SE by the delta method on the ratio of means (paired-delta: paired per-trial residuals)
}
