package groupmean

import "github.com/ldpbench/ldpbench/experiment"

// Methods implements experiment.MethodDescriber: Raab et al.'s group
// mechanisms (Algorithm 3 with its four instantiations, §4), options inline
// ("nprr(k=16)") or on the params axis.
func (Kind) Methods() []experiment.MethodDoc {
	return []experiment.MethodDoc{
		{Name: "laplace", Doc: "Group Laplace: the group and the value each with a share of ε, Laplace noise on the value."},
		{Name: "bernoulli", Doc: "Group Bernoulli (Algorithm 1 as the value mechanism): the value reported as ±1 and de-biased."},
		{Name: "nprr", Doc: "Group NPRR (Algorithm 2): the value rounded to k + 1 grid points and reported with the group by one randomised response; options k (default 8) and neutral (nprr0, the paper's, or uniform-grid, the correction of E2.1)."},
		{Name: "pw", Doc: "Group Piecewise: the piecewise mechanism on the value; option split (half, ratio:<r> or fitted) shares ε between group and value."},
		{Name: "value:<m>", Doc: "Any registered unbiased 1-D mechanism as the value mechanism with ε₁ = ratio·ε (option ratio)."},
	}
}
