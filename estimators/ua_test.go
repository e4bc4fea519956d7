package estimators

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Unbiaser.Value of a raw report is mechanisms.Unbiased's report bit for
// bit (same generator state), for unbiased mechanisms and for Square Wave
// (de-biased, then 2u - 1); RawVariance of SW is 4·var_sw(s).
func TestUnbiaser(t *testing.T) {
	for _, name := range []string{"duchi", "laplace", "pm", "sw"} {
		m := mustMech(t, name, 0.7)
		est, _ := mechanisms.Unbiased(m)
		u, err := NewUnbiaser(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range []float64{-1, -0.3, 0, 0.8, 1} {
			a := rand.New(rand.NewPCG(1, uint64(100*x+200)))
			b := rand.New(rand.NewPCG(1, uint64(100*x+200)))
			for range 50 {
				want := est.Perturb(x, a)
				got := u.Value(m.Perturb(u.Input(x), b))
				if got != want {
					t.Fatalf("%s x=%v: Value(raw) %v, Unbiased report %v", name, x, got, want)
				}
			}
			if u.Variance(x) != est.Variance(x) {
				t.Errorf("%s: variance differs", name)
			}
		}
	}
	sw := mustMech(t, "sw", 0.7).(*mechanisms.SquareWave)
	u, _ := NewUnbiaser(sw)
	for _, x := range []float64{-1, 0.2, 1} {
		s := (x + 1) / 2
		if got, want := u.RawVariance(x), 4*sw.RawVariance(s); math.Abs(got-want) > 1e-12*want {
			t.Errorf("sw raw variance at %v: %v, want 4·var_sw = %v", x, got, want)
		}
	}
	pm := mustMech(t, "pm", 0.7)
	up, _ := NewUnbiaser(pm)
	if up.RawVariance(0.3) != up.Variance(0.3) {
		t.Error("pm: raw variance differs from the variance of an unbiased mechanism")
	}
}

// UA is the plain average of every available unbiased value; ServiceMean
// the average of one service's; both by hand on a small collection.
func TestUAByHand(t *testing.T) {
	sr := mustMech(t, "duchi", 1).(*mechanisms.Duchi)
	sw := mustMech(t, "sw", 1).(*mechanisms.SquareWave)
	c := sr.C()
	nan := math.NaN()
	reports := [][]float64{{c, -c, nan}, {0.2, nan, 1.1}}
	svcs := []mechanisms.Mechanism{sr, sw}
	v := func(y float64) float64 { return 2*sw.Debias(y) - 1 }
	want := (c - c + v(0.2) + v(1.1)) / 4
	got, err := UA(reports, svcs)
	if err != nil || math.Abs(got-want) > 1e-15*math.Abs(want) {
		t.Errorf("UA = %v, %v; want %v", got, err, want)
	}
	got, _ = ServiceMean(reports[1], sw)
	if want := (v(0.2) + v(1.1)) / 2; math.Abs(got-want) > 1e-15*math.Abs(want) {
		t.Errorf("ServiceMean = %v, want %v", got, want)
	}
	if _, err := ServiceMean([]float64{nan}, sw); err == nil {
		t.Error("a service without reports gives an estimate")
	}
}

// Without groups, UA's exact MSE is (1/(nm))²·Σ_i Σ_j Var_j(x_i), a single
// service's is ExpectedMeanMSE, and the oracle's is below both.
func TestMultiServiceTheory(t *testing.T) {
	xs := betaInputs(1000, rand.New(rand.NewPCG(9, 9)))
	svcs := paperServices(t, 0.3, 0.1, 0.4, 0.2)
	var s float64
	for _, m := range svcs {
		u, _ := NewUnbiaser(m)
		for _, x := range xs {
			s += u.Variance(x)
		}
	}
	want := s / (4000 * 4000)
	got, err := UAExpectedMSE(xs, svcs, nil)
	if err != nil || math.Abs(got-want) > 1e-12*want {
		t.Errorf("UAExpectedMSE = %v, %v; want %v", got, err, want)
	}
	or, _ := OracleUWAExpectedMSE(xs, svcs, nil)
	for j, m := range svcs {
		est, _ := mechanisms.Unbiased(m)
		single, _ := ServiceExpectedMSE(xs, svcs, nil, j)
		if w := ExpectedMeanMSE(est, xs); math.Abs(single-w) > 1e-12*w {
			t.Errorf("service %d: %v, want %v", j, single, w)
		}
		if or >= single {
			t.Errorf("oracle %v not below service %d's %v", or, j, single)
		}
	}
	if _, err := UAExpectedMSE(xs, svcs, []UserGroup{{0, 500, []int{0}}}); err == nil {
		t.Error("groups that do not cover the users accepted")
	}
	if _, err := UAExpectedMSE(xs, svcs, []UserGroup{{0, 1000, []int{2, 1}}}); err == nil {
		t.Error("unsorted services accepted")
	}
}
