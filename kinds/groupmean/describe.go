package groupmean

// What a reader sees of the kind's methods: their descriptions
// (experiment.MethodDescriber) and their legend names
// (experiment.MethodLabeler).

import (
	"slices"
	"strings"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/mechanisms"
)

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

// methodLabels are Raab et al.'s names of the group mechanisms (§4).
var methodLabels = map[string]string{
	"laplace": "Laplace", "bernoulli": "Bernoulli", "nprr": "NPRR", "pw": "Piecewise",
}

// MethodLabel implements experiment.MethodLabeler: the paper's name of the
// mechanism, its inline options as "k = 8" ("NPRR (k = 8)"), and for a
// value method the registered mechanism's label ("PM-SUB (value, ratio =
// 0.4)").
func (Kind) MethodLabel(method string) (string, bool) {
	name, inline, err := splitMethod(method)
	if err != nil {
		return "", false
	}
	label, ok := methodLabels[name]
	var opts []string
	if v, isValue := strings.CutPrefix(name, "value:"); isValue {
		label, ok = mechanisms.Label(v), true
		opts = append(opts, "value")
	}
	if !ok {
		return "", false
	}
	keys := make([]string, 0, len(inline))
	for k := range inline {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return slices.Index(optionKeys, a) - slices.Index(optionKeys, b) })
	for _, k := range keys {
		opts = append(opts, k+" = "+inline[k])
	}
	if len(opts) > 0 {
		label += " (" + strings.Join(opts, ", ") + ")"
	}
	return label, true
}
