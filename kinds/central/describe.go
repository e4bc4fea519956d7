package central

// What a reader sees of the kind's methods: their descriptions
// (experiment.MethodDescriber) and their legend names
// (experiment.MethodLabeler).

import (
	"strings"

	"github.com/ldpbench/ldpbench/centraldp"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// Methods implements experiment.MethodDescriber: Kulesza et al.'s
// estimators (§3–4), the bound they are measured against, and the local
// mechanisms beside them. "*" is the central estimators and the bound.
func (Kind) Methods() []experiment.MethodDoc {
	return []experiment.MethodDoc{
		{Name: centraldp.NameAlg1, Doc: "Algorithm 1: Laplace noise on the count and on the sum, ε/2 each; the noisy sum over the noisy count, clipped to the range."},
		{Name: centraldp.NameAlg2, Doc: "Algorithm 2: as Algorithm 1 with the sum centred (of x − ½, sensitivity ½): its error has a quarter of the sum's variance."},
		{Name: centraldp.NameAlg3Lap, Doc: "Algorithm 3 with Laplace noise: the centred sum and the count released jointly (docs/central.md)."},
		{Name: centraldp.NameAlg3TwoD, Doc: "Algorithm 3 with the two-dimensional ℓ1 staircase noise (Geng et al. 2015)."},
		{Name: centraldp.NameAlg3HG, Doc: "Algorithm 3 with the paper's hourglass noise, whose marginals are staircases; a noisy count of 0 follows params.zero_denominator (E1.17)."},
		{Name: centraldp.NameSwapStair, Doc: "The swap-model staircase with n public, clipped as the others: App. H's reading (ii) of the lower bound (E1.16)."},
		{Name: LowerBound, Doc: "The minimax lower bound w²σ²(ε)/n², a closed form: App. H's reading (i) (E1.16)."},
		{Name: ldpPrefix + "<m>", Doc: "A registered unbiased ε-LDP mechanism run by every user on the same values, averaged: local against central error."},
	}
}

// methodLabels are Kulesza et al.'s names of the estimators: the
// algorithm's number, and for Algorithm 3 its noise (§4).
var methodLabels = map[string]string{
	centraldp.NameAlg1:      "Alg. 1",
	centraldp.NameAlg2:      "Alg. 2",
	centraldp.NameAlg3Lap:   "Alg. 3 (Laplace)",
	centraldp.NameAlg3TwoD:  "Alg. 3 (2-D staircase)",
	centraldp.NameAlg3HG:    "Alg. 3 (hourglass)",
	centraldp.NameSwapStair: "swap-model staircase",
	LowerBound:              "lower bound",
}

// MethodLabel implements experiment.MethodLabeler: the estimators by the
// paper's algorithm numbers, a local mechanism by its own label and
// "(local)".
func (Kind) MethodLabel(method string) (string, bool) {
	if m, ok := strings.CutPrefix(method, ldpPrefix); ok {
		return mechanisms.Label(m) + " (local)", true
	}
	l, ok := methodLabels[method]
	return l, ok
}
