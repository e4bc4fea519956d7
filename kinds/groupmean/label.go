package groupmean

import (
	"slices"
	"strings"

	"github.com/ldpbench/ldpbench/mechanisms"
)

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
