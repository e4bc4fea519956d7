package fedlearn_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/fedlearn"
)

// ExampleFedSGD trains logistic regression by LDP-FedSGD (Algorithm 1):
// 20,000 users, each holding one tuple, in groups of 1,000; every user's
// gradient is clipped to [−1, 1] and reported once through Algorithm 6
// over PM-SUB at ε = 4.
func ExampleFedSGD() {
	const n, p = 20000, 3
	rng := rand.New(rand.NewPCG(1, 2))
	X := make([]float64, n*p)
	Y := make([]float64, n)
	for i := range n {
		for j := range p {
			X[i*p+j] = 2*rng.Float64() - 1
		}
		Y[i] = -1
		if X[i*p]+0.5*X[i*p+1] > 0 {
			Y[i] = 1
		}
	}
	model := fedlearn.NewLogistic(p, true)
	mech, err := fedlearn.NewMechanism("pm-sub", model.Dim(), 4, 0)
	if err != nil {
		panic(err)
	}
	f := fedlearn.FedSGD{Model: model, Mech: mech, Eta: 0.5, Group: 1000, Lambda: fedlearn.DefaultLambda, Clip: 1}
	theta := make([]float64, model.Dim())
	if err := f.Train(theta, X, Y, fedlearn.NewWorkspace(model.Dim()), rng); err != nil {
		panic(err)
	}
	fmt.Printf("training error below 0.15: %v\n", fedlearn.TestError(model, theta, X, Y) < 0.15)
	// Output: training error below 0.15: true
}
