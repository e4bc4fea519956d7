package fedlearn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestClientsOneStep: one round of one client, one epoch, one mini-batch
// holding all 3 rows (non-private, so the server adds the update as is)
// moves θ by exactly −LR·(ḡ + WeightDecay·θ), ḡ the mean over the rows of
// the cross-entropy gradient of the 2-class softmax, which the test
// computes itself from the logits: (softmax(Wx + b) − e_y)·x for class
// c's weights, softmax − e_y for its bias. Each coordinate to 1e-12 of
// its move (the update passes through θ_local − θ and back, a few ulps of
// θ). LR = 0.37 and 1.5, not the default 0.1 nor 1, so a step that
// ignores the learning rate (the final-accuracy bands of
// TestClientsFixture hold at LR 0.1 and 1) fails; a nonzero decay fails
// a decay added with the wrong sign, and the mean, not the sum, of the
// gradients is checked by the 3 rows. About 0.001 CPU-s.
func TestClientsOneStep(t *testing.T) {
	m, _ := NewMultinomial(2, 2)
	x := []float64{0.5, -1.2, 1.7, 0.3, -0.4, 0.9}
	y := []float64{0, 1, 1}
	theta0 := []float64{0.2, -0.7, 0.4, 0.1, 0.3, -0.5} // W row 0, W row 1, b0, b1
	for _, tc := range []struct {
		lr, decay float64
	}{
		{0.37, 0.05}, {1.5, 0}, {0.37, 0},
	} {
		// The mean gradient at θ₀, from the definition.
		want := make([]float64, m.Dim())
		for i, label := range y {
			row := x[2*i : 2*i+2]
			var z [2]float64
			for c := range 2 {
				z[c] = theta0[4+c] + theta0[2*c]*row[0] + theta0[2*c+1]*row[1]
			}
			p1 := 1 / (1 + math.Exp(z[0]-z[1])) // softmax of class 1
			for c, pc := range []float64{1 - p1, p1} {
				r := pc
				if c == int(label) {
					r--
				}
				want[2*c] += r * row[0] / 3
				want[2*c+1] += r * row[1] / 3
				want[4+c] += r / 3
			}
		}
		for j := range want {
			want[j] = -tc.lr * (want[j] + tc.decay*theta0[j])
		}
		c := Clients{Model: m, Clients: 1, Rounds: 1, PerRound: 1, Epochs: 1, Batch: 3, LR: tc.lr, WeightDecay: tc.decay}
		theta := append([]float64(nil), theta0...)
		acc := make([]float64, 1)
		if err := c.Train(theta, x, y, x, y, acc, NewClientWorkspace(m.Dim(), 3, 1), rand.New(rand.NewPCG(1, 2))); err != nil {
			t.Fatal(err)
		}
		for j := range theta {
			if got := theta[j] - theta0[j]; !(math.Abs(got-want[j]) <= 1e-12*math.Abs(want[j])) {
				t.Errorf("lr %v, decay %v: θ[%d] moved by %.15g, want −lr·(ḡ + decay·θ) = %.15g", tc.lr, tc.decay, j, got, want[j])
			}
		}
	}
}
