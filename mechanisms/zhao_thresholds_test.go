package mechanisms_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Theory of Zhao et al. (Tables I and II, Fig. 1; ERRATA E3.13): the
// crossovers of the worst-case variances printed in Tables I and II,
// HM-TP's switch point, and where HM-TP is not the lowest. Every crossing
// is found by bisection of the difference of the registered mechanisms'
// WorstCaseVariance (exact closed forms), and compared with the printed
// value at the paper's precision (±0.01) and with the value of
// testdata/zhao_reference.py (mpmath, 50 digits, independent formulas) to
// 1e-6.

// worstOf returns the worst-case variance of the registered mechanism name
// at eps (all of these are unbiased on [-1, 1]).
func worstOf(t testing.TB, name string, eps float64) float64 {
	t.Helper()
	return mustNew(t, name, eps).(mechanisms.Variancer).WorstCaseVariance()
}

// crossing returns the budget in [lo, hi] where V_a - V_b changes sign, by
// bisection down to adjacent floats. A zero difference counts with the
// side of lo, so that a crossing out of a tie (Three-Outputs leaving Duchi
// at ln 2, HM-TP leaving Three-Outputs at ε*) is found where the
// difference first becomes non-zero.
func crossing(t testing.TB, a, b string, lo, hi float64) float64 {
	t.Helper()
	d := func(eps float64) float64 { return worstOf(t, a, eps) - worstOf(t, b, eps) }
	sLo := d(lo) > 0
	if sHi := d(hi) > 0; sLo == sHi {
		t.Fatalf("V_%s - V_%s has the same sign at %v and %v", a, b, lo, hi)
	}
	for {
		mid := lo + (hi-lo)/2
		if !(mid > lo && mid < hi) {
			return mid
		}
		if (d(mid) > 0) == sLo {
			lo = mid
		} else {
			hi = mid
		}
	}
}

// zhaoCrossings: every crossover of Tables I and II, ε* of eq. (151), and
// the crossings behind E3.13.
var zhaoCrossings = []struct {
	what    string
	a, b    string
	lo, hi  float64 // bracket
	printed float64 // as printed; NaN if the paper prints none
	exact   float64 // testdata/zhao_reference.py
}{
	{"Table I: Duchi = PM", "duchi", "pm", 1, 1.6, 1.29, 1.2897846828567635858},
	{"Table I: Duchi = Laplace", "duchi", "laplace", 2, 2.6, 2.32, 2.3241701219142872728},
	{"Table II: Three-Outputs leaves Duchi (ln 2)", "duchi", "three-outputs", 0.5, 1, 0.69, math.Ln2},
	{"Table II: Duchi = PM-SUB", "duchi", "pm-sub", 1, 1.4, 1.19, 1.1930481918358584458},
	{"Table II: Duchi = PM", "duchi", "pm", 1, 1.6, 1.29, 1.2897846828567635858},
	{"Table II: Three-Outputs = PM-SUB", "three-outputs", "pm-sub", 2.3, 2.8, 2.56, 2.5610893096392518449},
	{"Table II: Three-Outputs = PM", "three-outputs", "pm", 3, 3.5, 3.27, 3.2693584821112724352},
	{"eq. (151): HM-TP leaves Three-Outputs (ε*)", "three-outputs", "hm-tp", 0.5, 0.65, 0.610986, 0.61098633542002050216},
	{"E3.13: HM = HM-TP (1)", "hm", "hm-tp", 0.64, 0.66, math.NaN(), 0.65010029978172585961},
	{"E3.13: HM = HM-TP (2)", "hm", "hm-tp", 0.69, 0.70, math.NaN(), 0.69489055641485276648},
	{"E3.13: HM = HM-TP (3)", "hm", "hm-tp", 1.5, 1.7, math.NaN(), 1.5933777023360985362},
	{"E3.13: PM-OPT = HM-TP", "pm-opt", "hm-tp", 5, 5.6, math.NaN(), 5.4401115602134108614},
}

func TestZhaoCrossings(t *testing.T) {
	for _, c := range zhaoCrossings {
		got := crossing(t, c.a, c.b, c.lo, c.hi)
		if !math.IsNaN(c.printed) && math.Abs(got-c.printed) > 0.01 {
			t.Errorf("%s: crossing at %.10f, printed %v (±0.01)", c.what, got, c.printed)
		}
		if math.Abs(got-c.exact) > 1e-6 {
			t.Errorf("%s: crossing at %.10f, reference %.10f", c.what, got, c.exact)
		}
	}
	// The text's rounded variants (Section II's "≤ 2.3", Section V-B's
	// "3.2") and the introduction's ln 2: within their own precision.
	if got := crossing(t, "duchi", "laplace", 2, 2.6); math.Abs(got-2.3) > 0.05 {
		t.Errorf("Duchi = Laplace at %v, Section II says 2.3", got)
	}
	if got := crossing(t, "three-outputs", "pm", 3, 3.5); math.Abs(got-3.2) > 0.1 {
		t.Errorf("Three-Outputs = PM at %v, Section V-B says 3.2", got)
	}
	if got := mechanisms.HMTPEpsStar(); math.Abs(got-0.610986) > 1e-6 {
		t.Errorf("ε* = %v, eq. (151) prints 0.610986", got)
	}
}

// band is an interval of ε with the ordering of the worst cases inside it:
// groups in increasing order, the names within a group equal.
type band struct {
	lo, hi float64
	order  [][]string
}

// bandPoints returns points strictly inside (lo, hi): 2%, 25%, 50%, 75%
// and 98% of the way (geometrically for a wide band).
func bandPoints(lo, hi float64) []float64 {
	var ps []float64
	for _, f := range []float64{0.02, 0.25, 0.5, 0.75, 0.98} {
		if hi/lo > 4 {
			ps = append(ps, lo*math.Pow(hi/lo, f))
		} else {
			ps = append(ps, lo+(hi-lo)*f)
		}
	}
	return ps
}

// checkOrder checks the ordering of one band at eps: ties equal to 1e-12
// relative, consecutive groups strictly increasing.
func checkOrder(t *testing.T, label string, eps float64, order [][]string) {
	t.Helper()
	var prev float64
	var prevName string
	for i, group := range order {
		v := worstOf(t, group[0], eps)
		for _, name := range group[1:] {
			if w := worstOf(t, name, eps); !relClose(w, v, 1e-12) {
				t.Errorf("%s ε=%v: V_%s = %v, V_%s = %v, want equal", label, eps, group[0], v, name, w)
			}
		}
		if i > 0 && !(prev < v) {
			t.Errorf("%s ε=%v: V_%s = %v not below V_%s = %v", label, eps, prevName, prev, group[0], v)
		}
		prev, prevName = v, group[0]
	}
}

func orderString(order [][]string) string {
	parts := make([]string, len(order))
	for i, g := range order {
		parts[i] = strings.Join(g, " = ")
	}
	return strings.Join(parts, " < ")
}

// TestZhaoTableOrderings: every ordering of Tables I and II holds at five
// points inside its band (the bands end at the exact crossings; the last
// one runs to ε = 30), and the "for every ε" claims PM < Laplace (Table I)
// and PM-SUB < PM (Table II).
func TestZhaoTableOrderings(t *testing.T) {
	const (
		dPM    = 1.2897846828567635858
		dLap   = 2.3241701219142872728
		dSub   = 1.1930481918358584458
		toSub  = 2.5610893096392518449
		toPM   = 3.2693584821112724352
		first  = 0.01
		beyond = 30
	)
	tables := map[string][]band{
		"Table I": {
			{first, dPM, [][]string{{"duchi"}, {"pm"}, {"laplace"}}},
			{dPM, dLap, [][]string{{"pm"}, {"duchi"}, {"laplace"}}},
			{dLap, beyond, [][]string{{"pm"}, {"laplace"}, {"duchi"}}},
		},
		"Table II": {
			{first, math.Ln2, [][]string{{"duchi", "three-outputs"}, {"pm-sub"}, {"pm"}}},
			{math.Ln2, dSub, [][]string{{"three-outputs"}, {"duchi"}, {"pm-sub"}, {"pm"}}},
			{dSub, dPM, [][]string{{"three-outputs"}, {"pm-sub"}, {"duchi"}, {"pm"}}},
			{dPM, toSub, [][]string{{"three-outputs"}, {"pm-sub"}, {"pm"}, {"duchi"}}},
			{toSub, toPM, [][]string{{"pm-sub"}, {"three-outputs"}, {"pm"}, {"duchi"}}},
			{toPM, beyond, [][]string{{"pm-sub"}, {"pm"}, {"three-outputs"}, {"duchi"}}},
		},
	}
	for table, bands := range tables {
		for _, b := range bands {
			label := fmt.Sprintf("%s (%.4g, %.4g): %s", table, b.lo, b.hi, orderString(b.order))
			for _, eps := range bandPoints(b.lo, b.hi) {
				checkOrder(t, label, eps, b.order)
			}
		}
	}
	for eps := 0.01; eps <= 30; eps *= 1.1 {
		checkOrder(t, "PM < Laplace (Table I)", eps, [][]string{{"pm"}, {"laplace"}})
		checkOrder(t, "PM-SUB < PM (Table II)", eps, [][]string{{"pm-sub"}, {"pm"}})
	}
}

// TestZhaoE313 states the true ordering behind E3.13. The paper claims
// that HM-TP has the lowest worst case of all (Section V-E, Fig. 1). Over
// ε ∈ [0.1, 8], on a grid of step 0.005:
//
//   - ε ≤ 0.61: HM = HM-TP = Three-Outputs = Duchi (all are Duchi's
//     mechanism), and the lowest;
//   - 0.61 < ε < 0.650100: HM < HM-TP (HM mixes in PM from 0.61, HM-TP
//     only from ε* = 0.610986);
//   - 0.650100 < ε < 0.694891: HM-TP < HM;
//   - 0.694891 < ε < 1.593378: HM < HM-TP (HM-TP is up to 3.12% higher,
//     at ε ≈ 1.085);
//   - 1.593378 < ε ≤ 8: HM-TP < HM;
//   - 5.440112 < ε ≤ 8: PM-OPT < HM-TP (HM-TP is 3.64% higher at ε = 8,
//     and the gap keeps growing beyond); HM-TP < PM-OPT below;
//   - HM-TP ≤ Laplace, Duchi, PM, PM-SUB and Three-Outputs everywhere.
//
// So the lowest of the eight is Duchi's mechanism (as HM, HM-TP and
// Three-Outputs) up to 0.61, HM on (0.61, 0.650100) and (0.694891,
// 1.593378), HM-TP on (0.650100, 0.694891) and (1.593378, 5.440112), and
// PM-OPT above 5.440112.
func TestZhaoE313(t *testing.T) {
	const (
		hmSwitch = 0.61
		c1       = 0.65010029978172585961
		c2       = 0.69489055641485276648
		c3       = 1.5933777023360985362
		c4       = 5.4401115602134108614
	)
	names := []string{"laplace", "duchi", "pm", "hm", "pm-sub", "pm-opt", "three-outputs", "hm-tp"}
	lowest := func(eps float64) string {
		switch {
		case eps <= hmSwitch:
			return "duchi"
		case eps < c1, eps > c2 && eps < c3:
			return "hm"
		case eps < c4:
			return "hm-tp"
		}
		return "pm-opt"
	}
	near := func(eps float64) bool {
		return slices.ContainsFunc([]float64{hmSwitch, c1, c2, c3, c4}, func(c float64) bool { return math.Abs(eps-c) < 1e-6 })
	}
	maxGapHM, maxGapOpt := 0.0, 0.0
	for i := 0; i <= 1580; i++ {
		eps := 0.1 + float64(i)*0.005
		if near(eps) {
			continue
		}
		v := map[string]float64{}
		for _, n := range names {
			v[n] = worstOf(t, n, eps)
		}
		want := lowest(eps)
		for _, n := range names {
			if n != want && v[n] < v[want]*(1-1e-12) {
				t.Errorf("ε=%v: V_%s = %v below V_%s = %v, the expected lowest", eps, n, v[n], want, v[want])
			}
		}
		hmtp := v["hm-tp"]
		for _, n := range []string{"laplace", "duchi", "pm", "pm-sub", "three-outputs"} {
			if hmtp > v[n]*(1+1e-12) {
				t.Errorf("ε=%v: V_hm-tp = %v above V_%s = %v", eps, hmtp, n, v[n])
			}
		}
		switch {
		case eps <= hmSwitch:
			if !relClose(v["hm"], hmtp, 1e-12) || !relClose(v["duchi"], hmtp, 1e-12) || !relClose(v["three-outputs"], hmtp, 1e-12) {
				t.Errorf("ε=%v: HM %v, HM-TP %v, Duchi %v, Three-Outputs %v, want equal", eps, v["hm"], hmtp, v["duchi"], v["three-outputs"])
			}
		case (eps < c1 || (eps > c2 && eps < c3)) != (v["hm"] < hmtp):
			t.Errorf("ε=%v: V_hm = %v, V_hm-tp = %v: wrong side of the E3.13 crossings", eps, v["hm"], hmtp)
		}
		if (eps > c4) != (v["pm-opt"] < hmtp) {
			t.Errorf("ε=%v: V_pm-opt = %v, V_hm-tp = %v: wrong side of %v", eps, v["pm-opt"], hmtp, c4)
		}
		maxGapHM = max(maxGapHM, hmtp/v["hm"]-1)
		maxGapOpt = max(maxGapOpt, hmtp/v["pm-opt"]-1)
	}
	// "The differences are a few percent at most" (E3.13).
	// testdata/zhao_reference.py: 3.1177% (at ε ≈ 1.085) and 3.6378% (ε = 8).
	if !(maxGapHM > 0.0311 && maxGapHM < 0.0312) || !(maxGapOpt > 0.0363 && maxGapOpt < 0.0364) {
		t.Errorf("HM-TP exceeds HM by up to %.5f and PM-OPT by up to %.5f, want 3.12%% and 3.64%%", maxGapHM, maxGapOpt)
	}
}
