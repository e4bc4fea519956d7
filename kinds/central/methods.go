package central

import (
	cdp "github.com/ldpbench/ldpbench/central"
	"github.com/ldpbench/ldpbench/experiment"
)

// Methods implements experiment.MethodDescriber: Kulesza et al.'s
// estimators (§3–4), the bound they are measured against, and the local
// mechanisms beside them. "*" is the central estimators and the bound.
func (Kind) Methods() []experiment.MethodDoc {
	return []experiment.MethodDoc{
		{Name: cdp.NameAlg1, Doc: "Algorithm 1: Laplace noise on the count and on the sum, ε/2 each; the noisy sum over the noisy count, clipped to the range."},
		{Name: cdp.NameAlg2, Doc: "Algorithm 2: as Algorithm 1 with the sum centred (of x − ½, sensitivity ½): its error has a quarter of the sum's variance."},
		{Name: cdp.NameAlg3Lap, Doc: "Algorithm 3 with Laplace noise: the centred sum and the count released jointly (docs/central.md)."},
		{Name: cdp.NameAlg3TwoD, Doc: "Algorithm 3 with the two-dimensional ℓ1 staircase noise (Geng et al. 2015)."},
		{Name: cdp.NameAlg3HG, Doc: "Algorithm 3 with the paper's hourglass noise, whose marginals are staircases; a noisy count of 0 follows params.zero_denominator (E1.17)."},
		{Name: cdp.NameSwapStair, Doc: "The swap-model staircase with n public, clipped as the others: App. H's reading (ii) of the lower bound (E1.16)."},
		{Name: LowerBound, Doc: "The minimax lower bound w²σ²(ε)/n², a closed form: App. H's reading (i) (E1.16)."},
		{Name: ldpPrefix + "<m>", Doc: "A registered unbiased ε-LDP mechanism run by every user on the same values, averaged: local against central error."},
	}
}
