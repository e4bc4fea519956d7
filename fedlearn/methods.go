package fedlearn

import (
	"fmt"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// NonPrivate is the method name of the non-private baseline.
const NonPrivate = "non-private"

// NewMechanism returns the report mechanism of a method for gradients of d
// coordinates at budget eps (Zhao et al. §VII): "non-private" gives nil;
// "duchi" Duchi et al.'s multi-dimensional mechanism, "laplace" the
// Laplace split (ε/d per coordinate), any other registered 1-D mechanism
// Algorithm 6's k-of-d sampling over it (mechanisms.NewVector); grid > 0
// discretises the 1-D reports with Algorithm 5 (2·grid+1 levels).
func NewMechanism(method string, d int, eps float64, grid int) (mechanisms.Vector, error) {
	if method == NonPrivate {
		if grid != 0 {
			return nil, fmt.Errorf("method %s: no reports to discretise", method)
		}
		return nil, nil
	}
	return mechanisms.NewVectorDiscretized(method, d, eps, grid)
}

// BaekChungMechanism returns the update mechanism of Baek & Chung's FL
// experiment for a model m at budget eps, and the PostScale of [Clients].
//
// Paper intent (compat false): Algorithm 6 over the registered mechanism
// with k from eq. (3) (max{1, min{d, ⌊ε/2.5⌋}}, k = 2 at ε = 5) for every
// method, HM-NP with its optimal N and α, d counting every perturbed
// parameter (PostScale 1).
//
// Compat (ERRATA E0.27, the authors' train.py): "hm-np" is HM-NP with N
// fixed to 3 and k = 1; "pm-sub" has k = 1; other methods keep eq. (3)'s
// k; the d/k scaling counts only the K·p weights (PostScale = K·p/Dim), so
// every reported update is shrunk by p/(p+1) and the aggregate is biased
// towards 0. (The code's unseeded client selection is not reproduced: runs
// here are seeded.)
func BaekChungMechanism(method string, m Multinomial, eps float64, compat bool) (mechanisms.Vector, float64, error) {
	d := m.Dim()
	if method == NonPrivate {
		return nil, 1, nil
	}
	if !compat {
		v, err := mechanisms.NewVector(method, d, eps)
		return v, 1, err
	}
	post := float64(m.Weights()) / float64(d)
	switch method {
	case "hm-np":
		v, err := mechanisms.NewSampleKofDFixedK(method, func(e float64) (mechanisms.Mechanism, error) {
			return mechanisms.NewHMNPN(e, 3)
		}, d, 1, eps)
		return v, post, err
	case "pm-sub":
		v, err := mechanisms.NewSampleKofDFixedK(method, func(e float64) (mechanisms.Mechanism, error) {
			return mechanisms.NewPMSub(e)
		}, d, 1, eps)
		return v, post, err
	}
	v, err := mechanisms.NewVector(method, d, eps)
	return v, post, err
}
