package mean

// What a reader sees of the kind's methods: their descriptions
// (experiment.MethodDescriber) and their legend names
// (experiment.MethodLabeler).

import (
	"github.com/ldpbench/ldpbench/experiment"
)

// mechanismDoc is the one method of the mean kinds: a registered mechanism.
var mechanismDoc = experiment.MethodDoc{Name: "<m>", Doc: "Any registered mechanism with an unbiased report and its variance (ldpbench list mechanisms -v), by its registry name: its reports averaged (the mean), or its closed forms (theory)."}

// Methods implements experiment.MethodDescriber.
func (Mean) Methods() []experiment.MethodDoc { return []experiment.MethodDoc{mechanismDoc} }

// Methods implements experiment.MethodDescriber.
func (Theory) Methods() []experiment.MethodDoc { return []experiment.MethodDoc{mechanismDoc} }

// Methods implements experiment.MethodDescriber: the mechanisms through
// Algorithm 6 (k of d attributes), with Algorithm 5's discretisation.
func (MD) Methods() []experiment.MethodDoc {
	return []experiment.MethodDoc{{Name: "<m>", Doc: "Any registered unbiased mechanism through Algorithm 6 (k of d attributes at ε/k); params.levels or segments discretise its reports with Algorithm 5."}}
}

// Methods implements experiment.MethodDescriber: per-record dimension
// sampling, and the two-phase protocols of package aaa (Baek & Chung §4.3).
func (HT) Methods() []experiment.MethodDoc {
	return []experiment.MethodDoc{
		{Name: "<m>", Doc: "Any registered unbiased mechanism; each record reports one sampled attribute at the full ε, the collector takes the subset (Horvitz–Thompson) mean."},
		{Name: "aaa", Doc: "AAA (Wei et al.), as Baek & Chung run it: a phase-1 histogram, then noise solved by a linear programme for it (docs/aaa.md)."},
		{Name: "np-aaa", Doc: "NP-AAA: AAA with HM-NP and 2PEM as its first phase (docs/aaa.md)."},
	}
}

// MethodLabel implements experiment.MethodLabeler for the mean-ht kind's
// two protocols (Baek & Chung §4.3); its other methods are registered
// mechanisms, labelled as such.
func (HT) MethodLabel(method string) (string, bool) {
	switch method {
	case "aaa":
		return "AAA", true
	case "np-aaa":
		return "NP-AAA", true
	}
	return "", false
}
