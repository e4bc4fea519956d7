package mean

import (
	"context"
	"math"
	"testing"

	"github.com/ldpbench/ldpbench/experiment"
)

// TestNOutputTheorySpec runs runs/noutput-theory.toml and checks the rows
// against Baek & Chung's claims: Figure 2's sign pattern and -4 % bound,
// HM-NP never above any other method, the bits of Table 2 and of Sec. 4.1.
func TestNOutputTheorySpec(t *testing.T) {
	rows := runShipped(t, "noutput-theory")
	val := map[string]map[string]map[float64]float64{} // metric → method → ε
	for _, r := range rows {
		if val[r.Metric] == nil {
			val[r.Metric] = map[string]map[float64]float64{}
		}
		if val[r.Metric][r.Method] == nil {
			val[r.Metric][r.Method] = map[float64]float64{}
		}
		val[r.Metric][r.Method][float64(r.Eps)] = float64(r.Value)
		if r.Value != r.Theory {
			t.Errorf("%s %s ε=%v: value %v, theory %v", r.Metric, r.Method, r.Eps, r.Value, r.Theory)
		}
	}
	gain := val["worst_case_gain_pct"]["n-output"]
	ratio := val["worst_case_ratio"]["n-output"]
	if len(gain) != 160 {
		t.Fatalf("%d budgets", len(gain))
	}
	for eps, g := range gain {
		if math.Abs(g-100*(1/ratio[eps]-1)) > 1e-9 {
			t.Errorf("ε=%v: gain %v %%, ratio %v", eps, g, ratio[eps])
		}
		// Figure 2: positive on (0, 3.4995), (3.6888, 4.1796),
		// (4.5759, 4.6147); negative elsewhere, above -4 % (ε ≤ 8).
		pos := eps < 3.4995 || (eps > 3.6888 && eps < 4.1796) || (eps > 4.5759 && eps < 4.6147)
		if (g > 0) != pos || g < -4 {
			t.Errorf("ε=%v: N-output's gain over PM-SUB %v %%", eps, g)
		}
		if p := val["worst_case_gain_pct"]["pm-sub"][eps]; p != 0 {
			t.Errorf("ε=%v: PM-SUB against itself %v %%", eps, p)
		}
		w := val["worst_case_variance"]["hm-np"][eps]
		for m, vs := range val["worst_case_variance"] {
			if w > vs[eps]*(1+1e-12) {
				t.Errorf("ε=%v: HM-NP %v above %s %v", eps, w, m, vs[eps])
			}
		}
	}
	bits := val["bits"]
	for _, c := range []struct {
		method string
		eps    float64
		want   float64
	}{
		{"duchi", 4, 1}, {"three-outputs", 4, 2}, {"pm-sub", 4, 32},
		{"n-output", 0.5, 1}, {"n-output", 2.5, 2}, {"n-output", 3, 2}, {"n-output", 4, 3},
		{"n-output", 6, 4}, {"n-output", 8, 5},
	} {
		if got := bits[c.method][c.eps]; got != c.want {
			t.Errorf("%s ε=%v: %v bits, want %v", c.method, c.eps, got, c.want)
		}
	}
	if b := bits["hm-np"][4]; math.Abs(b-22.9433765257) > 1e-8 {
		t.Errorf("HM-NP at ε = 4: %v bits (Sec. 4.1: 23)", b)
	}
	if b := bits["hm-tp"][4]; math.Abs(b-26.870081938) > 1e-6 {
		t.Errorf("HM-TP at ε = 4: %v bits (Sec. 4.1 prints 28.12, E0.13)", b)
	}
}

// TestTheoryGainNeedsReference: the gain metric asks for the reference
// parameter like worst_case_ratio.
func TestTheoryGainNeedsReference(t *testing.T) {
	c := &experiment.CellSpec{Method: "n-output", Eps: 2, Metrics: []string{"worst_case_gain_pct"}}
	if _, err := (Theory{}).Prepare(context.Background(), c); err == nil {
		t.Error("worst_case_gain_pct without params.reference accepted")
	}
	c.Params = theoryParams.MustParse(map[string]string{"reference": "pm-sub"})
	run, err := Theory{}.Prepare(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	g, ok := run.Theory("worst_case_gain_pct")
	if !ok || math.Abs(g-10.4631497282) > 1e-8 {
		t.Errorf("gain at ε = 2: %v", g)
	}
}
