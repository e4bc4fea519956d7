package fl

import "github.com/ldpbench/ldpbench/experiment"

// Methods implements experiment.MethodDescriber: the reports of Zhao et
// al.'s LDP-FedSGD (Algorithm 1) and of Baek & Chung's federated learning.
func (Kind) Methods() []experiment.MethodDoc {
	return []experiment.MethodDoc{
		{Name: "non-private", Doc: "The same training without perturbation: the baseline every private method is measured against."},
		{Name: "duchi", Doc: "Duchi et al.'s multi-dimensional mechanism on the whole gradient."},
		{Name: "laplace", Doc: "Laplace noise on every coordinate at ε/d (the Laplace split)."},
		{Name: "<m>", Doc: "Any registered 1-D mechanism through Algorithm 6 (k of d coordinates at ε/k each); params.levels or segments discretise its reports with Algorithm 5."},
	}
}
