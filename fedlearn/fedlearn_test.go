package fedlearn

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// synth returns n rows of p features uniform on [-1, 1] and labels: the
// regression target θ*·x + 0.3 + N(0, 0.2²) (kind "linear"), or its sign
// flipped with probability σ(−|score|·3) (kind "binary"), so that the
// classes overlap and the logistic optimum is finite.
func synth(kind string, n, p int, seed uint64) (X, Y []float64) {
	rng := rand.New(rand.NewPCG(seed, 99))
	X = make([]float64, n*p)
	Y = make([]float64, n)
	for i := range n {
		s := 0.3
		for j := range p {
			x := 2*rng.Float64() - 1
			X[i*p+j] = x
			s += float64(j%3-1) * 0.8 * x
		}
		switch kind {
		case "linear":
			Y[i] = s + 0.2*rng.NormFloat64()
		default:
			Y[i] = 1
			if rng.Float64() < sigmoid(-3*s) {
				Y[i] = -1
			}
		}
	}
	return X, Y
}

// withBias returns the n×(p+1) design matrix (x, 1).
func withBias(X []float64, n, p int) *mat.Dense {
	a := mat.NewDense(n, p+1, nil)
	for i := range n {
		for j := range p {
			a.Set(i, j, X[i*p+j])
		}
		a.Set(i, p, 1)
	}
	return a
}

// TestNonPrivateRidgeOptimum: non-private LDP-FedSGD with the whole data as
// one group and many passes is gradient descent on the regularised risk
// (1/n)Σ(θ·x − y)² + (λ/2)‖θ‖²; it must reach the closed-form minimiser
// (2XᵀX/n + λI)θ = 2Xᵀy/n to 1e-9. Catches a gradient without its factor
// 2 (it converges to another point), λθ added as (λ/2)θ or twice, the
// intercept's gradient left out, and a group mean divided by the wrong
// count.
func TestNonPrivateRidgeOptimum(t *testing.T) {
	const n, p = 400, 5
	lambda := 0.05 // large enough that a wrong λ term moves the optimum well beyond 1e-9
	X, Y := synth("linear", n, p, 1)
	a := withBias(X, n, p)
	var lhs mat.Dense
	lhs.Mul(a.T(), a)
	lhs.Scale(2/float64(n), &lhs)
	for j := range p + 1 {
		lhs.Set(j, j, lhs.At(j, j)+lambda)
	}
	rhs := mat.NewVecDense(p+1, nil)
	rhs.MulVec(a.T(), mat.NewVecDense(n, Y))
	rhs.ScaleVec(2/float64(n), rhs)
	var want mat.VecDense
	if err := want.SolveVec(&lhs, rhs); err != nil {
		t.Fatal(err)
	}
	f := FedSGD{Model: NewLinear(p, true), Eta: 0.3, Group: n, Lambda: lambda, Clip: math.Inf(1), Epochs: 3000}
	theta := make([]float64, p+1)
	if err := f.Train(theta, X, Y, NewWorkspace(p+1), rand.New(rand.NewPCG(1, 1))); err != nil {
		t.Fatal(err)
	}
	for j := range theta {
		if math.Abs(theta[j]-want.AtVec(j)) > 1e-9 {
			t.Errorf("θ[%d] = %.12g, ridge closed form %.12g", j, theta[j], want.AtVec(j))
		}
	}
}

// TestNonPrivateLogisticOptimum: the same for logistic regression against
// the minimiser of the regularised logistic risk found by Newton's method
// (IRLS) in the test, at λ = 1e-4 (Zhao et al.'s), to 1e-7. Catches a
// wrong sign or label convention in the gradient, σ(y·s) for σ(−y·s), and
// a missing λθ.
func TestNonPrivateLogisticOptimum(t *testing.T) {
	const n, p = 600, 4
	lambda := DefaultLambda
	X, Y := synth("binary", n, p, 2)
	a := withBias(X, n, p)
	d := p + 1
	want := mat.NewVecDense(d, nil)
	for range 50 {
		grad := mat.NewVecDense(d, nil)
		hess := mat.NewDense(d, d, nil)
		for i := range n {
			row := a.RawRowView(i)
			var s float64
			for j := range d {
				s += row[j] * want.AtVec(j)
			}
			y := Y[i]
			gi := -y * sigmoid(-y*s) / float64(n)
			w := sigmoid(s) * sigmoid(-s) / float64(n)
			for j := range d {
				grad.SetVec(j, grad.AtVec(j)+gi*row[j])
				for k := range d {
					hess.Set(j, k, hess.At(j, k)+w*row[j]*row[k])
				}
			}
		}
		for j := range d {
			grad.SetVec(j, grad.AtVec(j)+lambda*want.AtVec(j))
			hess.Set(j, j, hess.At(j, j)+lambda)
		}
		var step mat.VecDense
		if err := step.SolveVec(hess, grad); err != nil {
			t.Fatal(err)
		}
		want.SubVec(want, &step)
	}
	f := FedSGD{Model: NewLogistic(p, true), Eta: 2, Group: n, Lambda: lambda, Clip: math.Inf(1), Epochs: 20000}
	theta := make([]float64, d)
	if err := f.Train(theta, X, Y, NewWorkspace(d), rand.New(rand.NewPCG(1, 1))); err != nil {
		t.Fatal(err)
	}
	for j := range theta {
		if math.Abs(theta[j]-want.AtVec(j)) > 1e-7 {
			t.Errorf("θ[%d] = %.10g, Newton/IRLS %.10g", j, theta[j], want.AtVec(j))
		}
	}
	// And the optimum is one: the objective there is not above a nearby point's.
	if fo, fw := Objective(f.Model, theta, X, Y, lambda), Objective(f.Model, want.RawVector().Data, X, Y, lambda); fo > fw+1e-12 {
		t.Errorf("objective at the trained θ %v > at the Newton optimum %v", fo, fw)
	}
}

// TestGradients checks every model's Grad against central finite
// differences of its Loss, at points away from the hinge's kink, for
// linear, logistic, SVM (both sides of the margin) and multinomial
// (K = 3 and 7). Catches a transposed weight layout, a bias gradient in the
// wrong slot, and a softmax without the −e_y term.
func TestGradients(t *testing.T) {
	mn3, _ := NewMultinomial(4, 3)
	mn7, _ := NewMultinomial(3, 7)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		m Model
		y float64
	}{
		{NewLinear(4, true), 0.7}, {NewLinear(4, false), -0.2},
		{NewLogistic(4, true), 1}, {NewLogistic(4, true), -1},
		{NewSVM(4, true), 1}, {NewSVM(4, false), -1},
		{mn3, 2}, {mn7, 0}, {mn7, 6},
	} {
		d, p := tc.m.Dim(), tc.m.Features()
		for range 20 {
			theta := make([]float64, d)
			for j := range theta {
				theta[j] = rng.NormFloat64()
			}
			x := make([]float64, p)
			for j := range x {
				x[j] = 2*rng.Float64() - 1
			}
			if svm, ok := tc.m.(SVM); ok && math.Abs(1-tc.y*svm.score(theta, x)) < 1e-3 {
				continue // at the kink the loss has no derivative
			}
			g := make([]float64, d)
			tc.m.Grad(g, theta, x, tc.y)
			const h = 1e-6
			for j := range theta {
				t0 := theta[j]
				theta[j] = t0 + h
				up := tc.m.Loss(theta, x, tc.y)
				theta[j] = t0 - h
				dn := tc.m.Loss(theta, x, tc.y)
				theta[j] = t0
				if fd := (up - dn) / (2 * h); math.Abs(fd-g[j]) > 1e-6*max(1, math.Abs(fd)) {
					t.Fatalf("%s y=%v: ∂/∂θ[%d] = %v, finite difference %v", tc.m.Name(), tc.y, j, g[j], fd)
				}
			}
		}
	}
}
