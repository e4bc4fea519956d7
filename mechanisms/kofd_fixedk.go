package mechanisms

// NewSampleKofDFixedK is Algorithm 6 ([SampleKofD]) with a caller-given
// number k of reported coordinates instead of eq. (36)'s
// max{1, min{d, ⌊ε/2.5⌋}}: each reported coordinate gets ε/k and the report
// is scaled by d/k, so it stays unbiased and ε-LDP for any 1 ≤ k ≤ d. It
// exists for reproductions whose code fixes k (Baek & Chung's federated
// learning code sends one coordinate of HM-NP and PM-SUB at ε = 5, ERRATA
// E0.27); [NewSampleKofD] is the paper's rule.
func NewSampleKofDFixedK(name string, newInner func(eps float64) (Mechanism, error), d, k int, eps float64) (*SampleKofD, error) {
	if err := checkEpsilon(name, eps); err != nil {
		return nil, err
	}
	if err := checkDim(name, d); err != nil {
		return nil, err
	}
	if k < 1 || k > d {
		return nil, &ParamError{Mechanism: name, Param: "k", Value: float64(k), Reason: "must be in [1, d]"}
	}
	m, err := newInner(eps / float64(k))
	if err != nil {
		return nil, err
	}
	est, err := Unbiased(m)
	if err != nil {
		return nil, err
	}
	return &SampleKofD{name: name, eps: eps, d: d, k: k, scale: float64(d) / float64(k), inner: est}, nil
}
