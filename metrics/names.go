package metrics

// Names lists every per-trial metric a kind may record, in a fixed order:
// the vocabulary of the runner's spec validation (harness.Spec.Check
// refuses a metric that is not described here, whichever kind measures it),
// so that every metric of every kind is defined once, with its unit and
// convention. Describe gives a one-line description of each. A new kind's
// new metric is added here, with its description.
var Names = []string{
	"mse", "abs", "scaled-abs",
	"w1", "js-div", "js-dist", "kl",
	"var-mse", "quantile-mse",
	"w1-authors", "quantile-mse-centre",
	"accuracy",
	// Federated learning (Zhao et al., Baek & Chung; kind fl).
	"misclassification_rate", "test_mse",
	// Group means (Raab et al.; kind groupmean).
	"scaled_abs_error", "scaled_abs_error_sq", "group_error_ratio",
	"order_correct", "mean_diff", "group_mean",
	// Central DP in the add-remove model (Kulesza et al.; kind central-mean).
	"mse_norm_sec6", "mse_norm_apph",
	// Estimator diagnostics and costs.
	"em_iterations", "em_stop_ll", "em_stop_max_iter", "aggregation_seconds",
	"reporting", "bits",
	// Closed forms (no sampling).
	"variance", "worst_case_variance", "variance_at_0", "variance_at_1",
	"worst_case_ratio", "worst_case_gain_pct",
	"bits_table2", "p0_given_0", "piecewise_t",
}

// DerivedMetric is a metric formed at summary time from the per-trial values
// of another: Name = sqrt(mean over trials of From). Package results computes
// it; it is never recorded per trial.
type DerivedMetric struct {
	Name, From string
}

// Derived lists the summary-time metrics.
var Derived = []DerivedMetric{
	{"rmse", "mse"},
	{"var-rmse", "var-mse"},
	{"quantile-rmse", "quantile-mse"},
	{"quantile-rmse-centre", "quantile-mse-centre"},
}

var descriptions = map[string]string{
	"mse":                 "squared error (est − truth)² of the estimate; its mean over trials is the MSE (mean-md averages it over the d coordinates, central-mean over a batch of runs)",
	"abs":                 "absolute error |est − truth| of the estimate; mean-md averages it over the d coordinates",
	"scaled-abs":          "absolute error divided by a recorded scale (domain width or |truth|)",
	"w1":                  "Wasserstein-1 on the data domain: Σ |CDF_est − CDF_true| · bin width",
	"js-div":              "Jensen–Shannon divergence, natural log, no square root, in [0, ln 2]",
	"js-dist":             "Jensen–Shannon distance: square root of js-div, natural log",
	"kl":                  "Kullback–Leibler divergence KL(true ‖ est), natural log, may be +Inf",
	"var-mse":             "squared error of the variance (bin midpoints) of the estimated histogram",
	"quantile-mse":        "squared error of interpolated histogram quantiles, averaged over the levels (deciles)",
	"w1-authors":          "mean |difference| of the sorted bin probabilities, the authors' code's W1 (compat only, erratum E0.2), not a distance between distributions",
	"quantile-mse-centre": "squared error of histogram quantiles taken at bin centres (the N-output paper's convention), averaged over the levels (deciles)",
	"accuracy":            "fraction of test examples classified correctly",

	"misclassification_rate": "fraction of test examples a trained model misclassifies (1 − accuracy), Zhao et al.'s metric",
	"test_mse":               "mean over the test examples of the squared residual (θ·x − y)² of a trained regression, responses on [−1, 1]",

	"scaled_abs_error":    "the groups' mean of |m̂_g − m_g|/(hi − lo), a group mean's absolute error in units of the input range (Raab et al. §5)",
	"scaled_abs_error_sq": "mean over the groups of (|m̂_g − m_g|/(hi − lo))²: with scaled_abs_error, the SD over runs × groups (the paper's bands, Tables 8–10)",
	"group_error_ratio":   "fraction of users whose reported group is not their own, #{g′ ≠ g}/n",
	"order_correct":       "1 if m̂_0 − m̂_1 has the sign of m_0 − m_1, else 0 (its mean is the order accuracy)",
	"mean_diff":           "m̂₀ − m̂₁, the difference of the two groups' estimated means in original units (the paper's violin plots)",
	"group_mean":          "the estimated mean m̂_g of one group, in original units",

	"mse_norm_sec6": "a batch's MSE times n²ε²/(2w²), Kulesza et al.'s normalisation of §6 (multiplied, not divided, erratum E1.15, and divided by w² to be the value on [0, 1]); ≈ 1 for Laplace noise at small ε",
	"mse_norm_apph": "a batch's MSE times ε²/(2w²), Kulesza et al.'s normalisation of App. H (erratum E1.15, divided by w² to be the value on [0, 1]), which falls like 1/n²",

	"em_iterations":       "the EM updates of one estimator run",
	"em_stop_ll":          "1 if the |ΔLL| test stopped the EM loop, else 0 (its mean is a proportion)",
	"em_stop_max_iter":    "1 if the iteration cap stopped the EM loop, else 0 (its mean is a proportion)",
	"aggregation_seconds": "wall time of the estimator call alone, in seconds; NOT deterministic",
	"reporting":           "fraction of records that report in the trial (attribute sampling)",
	"bits":                "mean length of one user's report in a fixed-length code, in bits (a float counts 32)",

	"variance":            "closed form: the variance of one report at a given input, on [-1, 1]",
	"worst_case_variance": "closed form: the largest variance of one unbiased report over inputs in [-1, 1]",
	"variance_at_0":       "closed form: the variance of one unbiased report at input 0",
	"variance_at_1":       "closed form: the variance of one unbiased report at input 1",
	"worst_case_ratio":    "closed form: worst_case_variance over that of a reference mechanism at the same ε",
	"worst_case_gain_pct": "closed form: (V_ref/V − 1)·100, V the worst-case variance; positive where better than the reference",
	"bits_table2":         "bits of one report as Baek & Chung's Table 2 counts K outputs, ⌊log2 K⌋+1, which is 1 for K = 2 (compat only, erratum E0.14); floats 32",
	"p0_given_0":          "closed form: the probability that Three-Outputs reports exactly 0 at input 0 (its P₀←₀)",
	"piecewise_t":         "closed form: the width parameter t of the piecewise family (PM e^{ε/2}, PM-SUB e^{ε/3}, PM-OPT the root of (58))",

	"rmse":                 "derived: sqrt of the mean of mse over trials",
	"var-rmse":             "derived: sqrt of the mean of var-mse over trials",
	"quantile-rmse":        "derived: sqrt of the mean of quantile-mse over trials",
	"quantile-rmse-centre": "derived: sqrt of the mean of quantile-mse-centre over trials",
}

// Describe returns a one-line description of the metric name, which may be a
// per-trial metric (Names) or a derived one (Derived), and whether the name is
// known.
func Describe(name string) (string, bool) {
	d, ok := descriptions[name]
	return d, ok
}

// MayBeInfinite reports whether a per-trial metric may legitimately be +Inf
// (KL divergence where the estimate gives a zero to a bin of positive true
// mass); the runner refuses any other non-finite value.
func MayBeInfinite(name string) bool { return name == "kl" }
