package fedlearn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestAggregateUnbiasedAndVariance: over R = 4,000 independent groups of
// the same 50 users, the server's mean report of every coordinate must
// average to the exact mean clipped gradient within 4.5 SE (SE from the
// closed-form variance; false-failure probability about 7e-6 per check,
// ~1e-3 over the ~150 checks), and its sample variance must equal
// AggregateVariance's closed form within 5 of its own SEs (the SE of a
// sample variance of R near-normal values, σ²·√(2/(R−1)), widened by the
// measured kurtosis). Linear regression, whose gradients leave [−1, 1] and
// are clipped, at clip 1 and 0.5. Catches a report not rescaled by d/k or
// by the clip, a clip applied after the perturbation, a wrong budget
// split across coordinates (its variance is off by a factor k or d), and
// a discretisation that is not unbiased.
func TestAggregateUnbiasedAndVariance(t *testing.T) {
	const users, p, R = 50, 5, 4000
	X, Y := synth("linear", users, p, 3)
	Y[0], Y[1] = 5, -4 // large residuals: clipped coordinates
	theta := []float64{0.2, -0.1, 0.4, 0, 0.3, -0.2}
	for _, tc := range []struct {
		method string
		eps    float64
		grid   int
		clip   float64
	}{
		{"pm-sub", 1, 0, 1}, {"hm-tp", 6, 0, 1}, {"three-outputs", 2, 0, 0.5},
		{"duchi", 2, 0, 1}, {"laplace", 4, 0, 1}, {"pm", 4, 0, 1},
		{"pm-sub", 4, 3, 1}, {"hm-np", 5, 0, 1},
	} {
		t.Run(fmt.Sprintf("%s_eps%v_m%d_clip%v", tc.method, tc.eps, tc.grid, tc.clip), func(t *testing.T) {
			model := NewLinear(p, true)
			d := model.Dim()
			mech, err := NewMechanism(tc.method, d, tc.eps, tc.grid)
			if err != nil {
				t.Fatal(err)
			}
			f := FedSGD{Model: model, Mech: mech, Eta: 0.1, Group: users, Clip: tc.clip}
			exact := make([]float64, d)
			np := f
			np.Mech = nil
			ws := NewWorkspace(d)
			if err := np.Aggregate(exact, theta, X, Y, ws, nil); err != nil {
				t.Fatal(err)
			}
			v := make([]float64, d)
			f.AggregateVariance(v, theta, X, Y, ws)
			rng := rand.New(rand.NewPCG(7, uint64(tc.eps*10)))
			est := make([]float64, d)
			s1 := make([]float64, d)
			s2 := make([]float64, d)
			s4 := make([]float64, d)
			for range R {
				if err := f.Aggregate(est, theta, X, Y, ws, rng); err != nil {
					t.Fatal(err)
				}
				for j, e := range est {
					s1[j] += e
					dev := e - exact[j]
					s2[j] += dev * dev
					s4[j] += dev * dev * dev * dev
				}
			}
			for j := range d {
				mean := s1[j] / R
				se := math.Sqrt(v[j] / R)
				if math.Abs(mean-exact[j]) > 4.5*se {
					t.Errorf("coordinate %d: mean %v, exact %v: %.1f SE", j, mean, exact[j], (mean-exact[j])/se)
				}
				// Variance about the known mean (divisor R).
				sv := s2[j] / R
				kurt := (s4[j] / R) / (sv * sv)
				seV := v[j] * math.Sqrt((kurt-1)/R)
				if math.Abs(sv-v[j]) > 5*seV {
					t.Errorf("coordinate %d: variance %v, closed form %v: %.1f SE", j, sv, v[j], (sv-v[j])/seV)
				}
			}
		})
	}
}

// TestLDPApproachesNonPrivate: on 20,000 users, the regularised training
// risk of LDP-FedSGD's model minus that of the non-private run on the same
// users shrinks as ε grows (mean over 4 seeds at ε = 0.5, 2, 8, 32) and at
// ε = 32 is within 0.02 (the non-private risk itself is ~0.55). PM-SUB and
// HM-TP, whose noise vanishes as ε → ∞. Catches reports whose noise does
// not fall with ε (a budget not passed to the mechanism) and a bias that
// does not (unclipped or wrongly rescaled reports).
func TestLDPApproachesNonPrivate(t *testing.T) {
	const n, p = 20000, 4
	X, Y := synth("binary", n, p, 4)
	model := NewLogistic(p, true)
	d := model.Dim()
	ws := NewWorkspace(d)
	train := func(method string, eps float64, seed uint64) float64 {
		mech, err := NewMechanism(method, d, eps, 0)
		if err != nil {
			t.Fatal(err)
		}
		f := FedSGD{Model: model, Mech: mech, Eta: 0.2, Group: 100, Lambda: DefaultLambda, Clip: 1}
		theta := make([]float64, d)
		if err := f.Train(theta, X, Y, ws, rand.New(rand.NewPCG(seed, 8))); err != nil {
			t.Fatal(err)
		}
		return Objective(model, theta, X, Y, DefaultLambda)
	}
	base := train(NonPrivate, 1, 0)
	for _, method := range []string{"pm-sub", "hm-tp"} {
		var gaps []float64
		for _, eps := range []float64{0.5, 2, 8, 32} {
			var g float64
			for s := range uint64(4) {
				g += (train(method, eps, s) - base) / 4
			}
			gaps = append(gaps, g)
		}
		for i := 1; i < len(gaps); i++ {
			if !(gaps[i] < gaps[i-1]) {
				t.Errorf("%s: risk gap to non-private %v does not fall with ε (0.5, 2, 8, 32)", method, gaps)
			}
		}
		if last := gaps[len(gaps)-1]; !(last < 0.02) {
			t.Errorf("%s: risk gap at ε = 32 is %v, want < 0.02 (non-private risk %v)", method, last, base)
		}
	}
}

// TestTrainDeterministicNoAlloc: the same seed gives the same θ bit for
// bit, and a training run allocates nothing once its workspace exists
// (nothing per user, per group or per report).
func TestTrainDeterministicNoAlloc(t *testing.T) {
	const n, p = 2000, 6
	X, Y := synth("binary", n, p, 5)
	for _, method := range []string{NonPrivate, "pm-sub", "duchi", "laplace"} {
		model := NewSVM(p, true)
		mech, _ := NewMechanism(method, model.Dim(), 2, 0)
		f := FedSGD{Model: model, Mech: mech, Eta: 0.1, Group: 100, Lambda: DefaultLambda, Clip: 1}
		ws := NewWorkspace(model.Dim())
		run := func(seed uint64) []float64 {
			theta := make([]float64, model.Dim())
			if err := f.Train(theta, X, Y, ws, rand.New(rand.NewPCG(seed, 1))); err != nil {
				t.Fatal(err)
			}
			return theta
		}
		a, b := run(3), run(3)
		for j := range a {
			if a[j] != b[j] {
				t.Fatalf("%s: θ differs between runs with one seed", method)
			}
		}
		theta := make([]float64, model.Dim())
		rng := rand.New(rand.NewPCG(1, 2))
		if allocs := testing.AllocsPerRun(3, func() {
			_ = f.Train(theta, X, Y, ws, rng)
		}); allocs != 0 {
			t.Errorf("%s: %v allocations per training run of %d users", method, allocs, n)
		}
	}
}

// TestFedSGDCheck: configurations that would silently misbehave are
// refused with an error naming the parameter.
func TestFedSGDCheck(t *testing.T) {
	m := NewLinear(3, true)
	mech, _ := NewMechanism("pm-sub", m.Dim(), 1, 0)
	wrongDim, _ := NewMechanism("pm-sub", 7, 1, 0)
	for _, f := range []FedSGD{
		{Model: m, Eta: 0, Group: 1, Clip: 1},
		{Model: m, Eta: 0.1, Group: 0, Clip: 1},
		{Model: m, Eta: 0.1, Group: 1, Clip: 0},
		{Model: m, Eta: 0.1, Group: 1, Clip: 1, Lambda: -1},
		{Model: m, Mech: mech, Eta: 0.1, Group: 1, Clip: 1, Epochs: 2},
		{Model: m, Mech: mech, Eta: 0.1, Group: 1, Clip: math.Inf(1)},
		{Model: m, Mech: wrongDim, Eta: 0.1, Group: 1, Clip: 1},
	} {
		if err := f.Check(); err == nil {
			t.Errorf("%+v accepted", f)
		}
	}
}

// TestTrainRowsEqualsGathered: training over row indices gives θ bit for
// bit equal to training over a copy of those rows in that order (the
// kind's folds rely on it); an out-of-range row is an error. Catches a
// group boundary or a row offset computed on the wrong index.
func TestTrainRowsEqualsGathered(t *testing.T) {
	const n, p = 3000, 5
	X, Y := synth("binary", n, p, 6)
	rows := rand.New(rand.NewPCG(1, 1)).Perm(n)[:2345]
	model := NewLogistic(p, true)
	mech, _ := NewMechanism("hm-tp", model.Dim(), 3, 0)
	f := FedSGD{Model: model, Mech: mech, Eta: 0.1, Group: 100, Lambda: DefaultLambda, Clip: 1}
	a := make([]float64, model.Dim())
	b := make([]float64, model.Dim())
	ws := NewWorkspace(model.Dim())
	if err := f.TrainRows(a, X, Y, rows, ws, rand.New(rand.NewPCG(2, 2))); err != nil {
		t.Fatal(err)
	}
	xg, yg := Gather(X, Y, p, rows)
	if err := f.Train(b, xg, yg, ws, rand.New(rand.NewPCG(2, 2))); err != nil {
		t.Fatal(err)
	}
	for j := range a {
		if a[j] != b[j] {
			t.Fatalf("θ[%d]: %v over rows, %v over the gathered copy", j, a[j], b[j])
		}
	}
	if TestErrorRows(model, a, X, Y, rows) != TestError(model, b, xg, yg) {
		t.Error("TestErrorRows differs from TestError on the gathered rows")
	}
	if err := f.TrainRows(a, X, Y, []int{0, n}, ws, rand.New(rand.NewPCG(2, 2))); err == nil {
		t.Error("row n accepted")
	}
}
