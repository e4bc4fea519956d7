package multiservice

import "github.com/ldpbench/ldpbench/experiment"

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
