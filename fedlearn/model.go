package fedlearn

import (
	"fmt"
	"math"
)

// Model is a parametric model trained by empirical risk minimisation: the
// loss of one tuple (x, y), its gradient in θ, and the test error of a
// tuple. The ℓ2 term (λ/2)‖θ‖² is not part of it: the server adds λθ
// after aggregation (it needs no privacy; where to add it is unstated,
// E3.17), and [Objective] adds it to the mean loss.
//
// A Model holds no per-call state, so one value may serve concurrent
// trainers; Grad writes into the caller's slice and does not allocate.
type Model interface {
	// Name is "linear", "logistic", "svm" or "multinomial".
	Name() string
	// Features is the number of features p of a tuple x.
	Features() int
	// Dim is the number of parameters, the length of θ and of a gradient.
	Dim() int
	// Loss returns ℓ(θ; x, y).
	Loss(theta, x []float64, y float64) float64
	// Grad writes ∇_θ ℓ(θ; x, y) to g[:Dim()] (a subgradient for the
	// hinge loss: 0 at the kink).
	Grad(g, theta, x []float64, y float64)
	// Error returns the test error of the tuple: the squared residual for
	// regression, 1 for a misclassified tuple and 0 otherwise.
	Error(theta, x []float64, y float64) float64
}

// linearPart is the affine score θ_w·x + θ_b shared by the three binary
// models. With Intercept the last parameter is a bias (a constant feature
// 1), so Dim = p + 1.
type linearPart struct {
	P         int
	Intercept bool
}

func (l linearPart) Features() int { return l.P }

func (l linearPart) Dim() int {
	if l.Intercept {
		return l.P + 1
	}
	return l.P
}

func (l linearPart) score(theta, x []float64) float64 {
	var s float64
	for j, xj := range x[:l.P] {
		s += theta[j] * xj
	}
	if l.Intercept {
		s += theta[l.P]
	}
	return s
}

// scaledX writes c·(x, 1) to g.
func (l linearPart) scaledX(g, x []float64, c float64) {
	for j, xj := range x[:l.P] {
		g[j] = c * xj
	}
	if l.Intercept {
		g[l.P] = c
	}
}

// Linear is linear regression with the squared loss ℓ = (θ·x − y)²
// (following Wang et al., whose protocol Zhao et al. follow; no 1/2), so
// that ∇ℓ = 2(θ·x − y)·x, unbounded: LDP-FedSGD clips it.
type Linear struct{ linearPart }

// NewLinear returns linear regression on p features, with a bias
// parameter if intercept.
func NewLinear(p int, intercept bool) Linear { return Linear{linearPart{p, intercept}} }

func (Linear) Name() string { return "linear" }

func (m Linear) Loss(theta, x []float64, y float64) float64 {
	r := m.score(theta, x) - y
	return r * r
}

func (m Linear) Grad(g, theta, x []float64, y float64) {
	m.scaledX(g, x, 2*(m.score(theta, x)-y))
}

func (m Linear) Error(theta, x []float64, y float64) float64 { return m.Loss(theta, x, y) }

// Logistic is logistic regression on labels y ∈ {−1, 1}:
// ℓ = log(1 + exp(−y·θ·x)), ∇ℓ = −y·σ(−y·θ·x)·x, every coordinate in
// [−|x_j|, |x_j|].
type Logistic struct{ linearPart }

// NewLogistic returns logistic regression on p features.
func NewLogistic(p int, intercept bool) Logistic { return Logistic{linearPart{p, intercept}} }

func (Logistic) Name() string { return "logistic" }

func (m Logistic) Loss(theta, x []float64, y float64) float64 {
	return softplus(-y * m.score(theta, x))
}

func (m Logistic) Grad(g, theta, x []float64, y float64) {
	m.scaledX(g, x, -y*sigmoid(-y*m.score(theta, x)))
}

func (m Logistic) Error(theta, x []float64, y float64) float64 {
	return misclassified(m.score(theta, x), y)
}

// SVM is the linear support vector machine with the hinge loss
// ℓ = max(0, 1 − y·θ·x) on labels y ∈ {−1, 1}; the subgradient is −y·x
// where the margin is below 1 and 0 elsewhere (0 at the kink).
type SVM struct{ linearPart }

// NewSVM returns the linear SVM on p features.
func NewSVM(p int, intercept bool) SVM { return SVM{linearPart{p, intercept}} }

func (SVM) Name() string { return "svm" }

func (m SVM) Loss(theta, x []float64, y float64) float64 {
	return max(0, 1-y*m.score(theta, x))
}

func (m SVM) Grad(g, theta, x []float64, y float64) {
	c := 0.0
	if y*m.score(theta, x) < 1 {
		c = -y
	}
	m.scaledX(g, x, c)
}

func (m SVM) Error(theta, x []float64, y float64) float64 {
	return misclassified(m.score(theta, x), y)
}

// misclassified is 1 when the sign of the score is not the label's; a
// score of exactly 0 counts as +1.
func misclassified(score, y float64) float64 {
	if (score >= 0) != (y > 0) {
		return 1
	}
	return 0
}

// MaxClasses bounds the classes of [Multinomial], whose Grad keeps the K
// scores on the stack.
const MaxClasses = 64

// Multinomial is multinomial logistic regression (one linear layer and the
// cross-entropy, Baek & Chung's FL model): K classes, p features, θ holds
// the K×p weights row by row (class c's at θ[c·p : (c+1)·p]) and then the
// K biases; y is the class index 0…K−1. ∇ℓ = (softmax(Wx + b) − e_y) ⊗
// (x, 1).
type Multinomial struct {
	P, K int
}

// NewMultinomial returns the model for p features and k classes,
// 2 ≤ k ≤ MaxClasses.
func NewMultinomial(p, k int) (Multinomial, error) {
	if p < 1 || k < 2 || k > MaxClasses {
		return Multinomial{}, fmt.Errorf("multinomial: p = %d, k = %d: want p ≥ 1 and 2 ≤ k ≤ %d", p, k, MaxClasses)
	}
	return Multinomial{P: p, K: k}, nil
}

func (Multinomial) Name() string { return "multinomial" }

func (m Multinomial) Features() int { return m.P }

func (m Multinomial) Dim() int { return m.K*m.P + m.K }

// Weights returns the number of weight entries K·p (the parameters without
// the biases).
func (m Multinomial) Weights() int { return m.K * m.P }

// scores writes the K logits to s and returns their maximum.
func (m Multinomial) scores(s []float64, theta, x []float64) float64 {
	top := math.Inf(-1)
	for c := range m.K {
		w := theta[c*m.P : (c+1)*m.P]
		v := theta[m.K*m.P+c]
		for j, xj := range x[:m.P] {
			v += w[j] * xj
		}
		s[c] = v
		top = max(top, v)
	}
	return top
}

func (m Multinomial) Loss(theta, x []float64, y float64) float64 {
	var buf [MaxClasses]float64
	s := buf[:m.K]
	top := m.scores(s, theta, x)
	var z float64
	for _, v := range s {
		z += math.Exp(v - top)
	}
	return top + math.Log(z) - s[int(y)]
}

func (m Multinomial) Grad(g, theta, x []float64, y float64) {
	var buf [MaxClasses]float64
	s := buf[:m.K]
	top := m.scores(s, theta, x)
	var z float64
	for c, v := range s {
		s[c] = math.Exp(v - top)
		z += s[c]
	}
	label := int(y)
	for c := range m.K {
		r := s[c] / z
		if c == label {
			r--
		}
		gw := g[c*m.P : (c+1)*m.P]
		for j, xj := range x[:m.P] {
			gw[j] = r * xj
		}
		g[m.K*m.P+c] = r
	}
}

// Predict returns the class of the largest score (the first on ties).
func (m Multinomial) Predict(theta, x []float64) int {
	var buf [MaxClasses]float64
	s := buf[:m.K]
	m.scores(s, theta, x)
	best := 0
	for c, v := range s {
		if v > s[best] {
			best = c
		}
	}
	return best
}

func (m Multinomial) Error(theta, x []float64, y float64) float64 {
	if m.Predict(theta, x) != int(y) {
		return 1
	}
	return 0
}

// sigmoid is 1/(1 + e^{−t}), without overflow for large |t|.
func sigmoid(t float64) float64 {
	if t >= 0 {
		return 1 / (1 + math.Exp(-t))
	}
	e := math.Exp(t)
	return e / (1 + e)
}

// softplus is log(1 + e^t), without overflow for large t.
func softplus(t float64) float64 {
	if t > 0 {
		return t + math.Log1p(math.Exp(-t))
	}
	return math.Log1p(math.Exp(t))
}

// NewModel returns the model named name ("linear", "logistic", "svm",
// "multinomial") for p features; classes is used by multinomial only.
func NewModel(name string, p int, intercept bool, classes int) (Model, error) {
	if p < 1 {
		return nil, fmt.Errorf("model %s: %d features, want ≥ 1", name, p)
	}
	switch name {
	case "linear":
		return NewLinear(p, intercept), nil
	case "logistic":
		return NewLogistic(p, intercept), nil
	case "svm":
		return NewSVM(p, intercept), nil
	case "multinomial":
		return NewMultinomial(p, classes)
	}
	return nil, fmt.Errorf("unknown model %q (valid: linear, logistic, svm, multinomial)", name)
}

// Objective returns the regularised empirical risk
// (1/n)·Σ ℓ(θ; x_i, y_i) + (λ/2)‖θ‖² over the rows of X (row-major, p =
// m.Features() columns): the function LDP-FedSGD minimises.
func Objective(m Model, theta, X, Y []float64, lambda float64) float64 {
	p := m.Features()
	var s float64
	for i, y := range Y {
		s += m.Loss(theta, X[i*p:(i+1)*p], y)
	}
	var sq float64
	for _, t := range theta {
		sq += t * t
	}
	return s/float64(len(Y)) + lambda/2*sq
}

// TestError returns the mean of m.Error over the rows of X: the test MSE
// of a regression, the misclassification rate of a classifier.
func TestError(m Model, theta, X, Y []float64) float64 {
	if len(Y) == 0 {
		return math.NaN()
	}
	p := m.Features()
	var s float64
	for i, y := range Y {
		s += m.Error(theta, X[i*p:(i+1)*p], y)
	}
	return s / float64(len(Y))
}

// TestErrorRows is TestError over the rows of X and Y listed in rows.
func TestErrorRows(m Model, theta, X, Y []float64, rows []int) float64 {
	if len(rows) == 0 {
		return math.NaN()
	}
	p := m.Features()
	var s float64
	for _, i := range rows {
		s += m.Error(theta, X[i*p:(i+1)*p], Y[i])
	}
	return s / float64(len(rows))
}
