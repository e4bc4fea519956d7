package dist

// What a reader sees of the kind's methods: their descriptions
// (experiment.MethodDescriber) and their legend names
// (experiment.MethodLabeler).

import (
	"github.com/ldpbench/ldpbench/experiment"
)

// Methods implements experiment.MethodDescriber: Baek & Chung's
// distribution estimators (§5.2, Fig. 4) and the mechanisms beside them.
func (Kind) Methods() []experiment.MethodDoc {
	return []experiment.MethodDoc{
		{Name: "hm-np", Doc: "HM-NP reports, split into their PM-SUB and N-output parts, estimated by two-phase EM (2PEM: d = bins, the corrected d̃, τ = 1e-5, λ = 1)."},
		{Name: "de", Doc: "Direct encoding: generalised randomised response over the bins, then Norm-Sub."},
		{Name: "oue", Doc: "Optimised unary encoding over the bins, then Norm-Sub (the support counts drawn from their exact binomial law)."},
		{Name: "sw", Doc: "Square Wave on (x+1)/2, EM on its exact matrix with 1,024 output buckets (plain EM, E0.29; params.em = \"ems\" smooths)."},
		{Name: "<m>", Doc: "Any other registered mechanism with a bounded output and bucket probabilities (three-outputs, hm-tp, pm, pm-sub, n-output, ...): EM on its exact transition matrix, its input mapped onto its domain."},
	}
}

// methodLabels are Baek & Chung's names of the distribution estimators
// (§5, Fig. 4): HM-NP with its two-phase EM, and the frequency oracles.
var methodLabels = map[string]string{"hm-np": "HM-NP + 2PEM", "de": "DE", "oue": "OUE"}

// MethodLabel implements experiment.MethodLabeler; a method named after a
// registered mechanism keeps that mechanism's label.
func (Kind) MethodLabel(method string) (string, bool) {
	l, ok := methodLabels[method]
	return l, ok
}
