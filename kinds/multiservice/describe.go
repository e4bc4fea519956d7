package multiservice

// What a reader sees of the kind's methods: their descriptions
// (experiment.MethodDescriber) and their legend names
// (experiment.MethodLabeler).

import (
	"strings"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// methodDocs are the collector's estimators, Du et al. §4 (mean) and §5
// (distribution), with the baselines beside them.
var methodDocs = []experiment.MethodDoc{
	{Name: "ua", Doc: "Unbiased averaging (eq. (2)): the mean of every service's de-biased reports, pooled over the services' users."},
	{Name: "uwa", Doc: "User-level weighted averaging (Algorithms 1–2): each user's posterior over h = 100 input buckets gives inverse-variance weights; every service needs a discrete law or a density (an unbounded one, as Laplace, through its CDF)."},
	{Name: "uwa-oracle", Doc: "A diagnostic, not an estimator: UWA with its weights computed from the users' true values (E4.14)."},
	{Name: "single-<s>", Doc: "One service's own average; <s> is a 1-based service number or a mechanism name (its first service)."},
	{Name: "single-best", Doc: "The single service with the lowest exact expected MSE on the cell's data: the paper's \"Single best\", an oracle choice of baseline."},
	{Name: "ule", Doc: "User-level Likelihood Estimation (Algorithm 3, EM with smoothing): the histogram from every service's reports; needs bounded outputs with bucket probabilities, so not Laplace (§6.1.1)."},
	{Name: "ems-<s>", Doc: "One service's own EM-with-smoothing histogram: the distribution baselines."},
	{Name: "ems-best", Doc: "The single service whose own histogram has the lowest JS divergence against the truth on the trial's reports: the \"Single best\" of Fig. 8d, an oracle choice per trial."},
	{Name: "raw-<s>", Doc: "With metric variance only: the variance of service s's raw (biased) report on the [-1, 1] scale (Square Wave's \"SW\" of Fig. 3)."},
}

// Methods implements experiment.MethodDescriber.
func (Kind) Methods() []experiment.MethodDoc { return methodDocs }

// Methods implements experiment.MethodDescriber: every method of Kind but
// ems-best, per attribute.
func (MD) Methods() []experiment.MethodDoc {
	var out []experiment.MethodDoc
	for _, d := range methodDocs {
		if d.Name != "ems-best" {
			out = append(out, d)
		}
	}
	return out
}

// methodLabels are Du et al.'s names of the aggregations (§4, §5, Fig. 8).
var methodLabels = map[string]string{
	"ua": "UA", "uwa": "UWA", "uwa-oracle": "UWA (oracle weights)",
	"ule": "ULE", "single-best": "Single best", "ems-best": "Single best",
}

// legendLabel is the legend name of a multiservice method: the paper's
// name of an aggregation; a service alone by its mechanism as the paper
// names it ("SR" for duchi) or by its number ("service 2"), its raw report
// marked as such.
func legendLabel(method string) (string, bool) {
	if l, ok := methodLabels[method]; ok {
		return l, true
	}
	for _, p := range []struct{ prefix, suffix string }{{"single-", ""}, {"ems-", ""}, {"raw-", " (raw report)"}} {
		ref, ok := strings.CutPrefix(method, p.prefix)
		if !ok || ref == "" {
			continue
		}
		if ref[0] >= '0' && ref[0] <= '9' {
			return "service " + ref + p.suffix, true
		}
		if a, ok := serviceAliases[ref]; ok {
			ref = a
		}
		if ref == "duchi" {
			return "SR" + p.suffix, true
		}
		return mechanisms.Label(ref) + p.suffix, true
	}
	return "", false
}

// MethodLabel implements experiment.MethodLabeler.
func (Kind) MethodLabel(method string) (string, bool) { return legendLabel(method) }

// MethodLabel implements experiment.MethodLabeler.
func (MD) MethodLabel(method string) (string, bool) { return legendLabel(method) }
