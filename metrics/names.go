package metrics

// Names lists the per-trial metrics the harness records, in a fixed order:
// the one list that the command line and the experiment-spec validation
// accept. Describe gives a one-line description of each. Do not modify.
var Names = []string{
	"mse", "abs", "scaled-abs",
	"w1", "js-div", "js-dist", "kl",
	"var-mse", "quantile-mse",
	"w1-authors", "quantile-mse-centre",
	"accuracy",
}

// DerivedMetric is a metric formed at summary time from the per-trial values
// of another: Name = sqrt(mean over trials of From). Package results computes
// it; it is never recorded per trial.
type DerivedMetric struct {
	Name, From string
}

// Derived lists the summary-time metrics. Do not modify.
var Derived = []DerivedMetric{
	{"rmse", "mse"},
	{"var-rmse", "var-mse"},
	{"quantile-rmse", "quantile-mse"},
	{"quantile-rmse-centre", "quantile-mse-centre"},
}

var descriptions = map[string]string{
	"mse":                 "squared error (est − truth)² of a scalar estimate; its mean over trials is the MSE",
	"abs":                 "absolute error |est − truth| of a scalar estimate",
	"scaled-abs":          "absolute error divided by a recorded scale (domain width or |truth|)",
	"w1":                  "Wasserstein-1 on the data domain: Σ |CDF_est − CDF_true| · bin width",
	"js-div":              "Jensen–Shannon divergence, natural log, no square root, in [0, ln 2]",
	"js-dist":             "Jensen–Shannon distance: square root of js-div, natural log",
	"kl":                  "Kullback–Leibler divergence KL(true ‖ est), natural log, may be +Inf",
	"var-mse":             "squared error of the variance (bin midpoints) of the estimated histogram",
	"quantile-mse":        "squared error of interpolated histogram quantiles, averaged over the levels (deciles)",
	"w1-authors":          "compat only (ERRATA E0.2): mean |difference| of sorted bin probabilities, not a distance between distributions",
	"quantile-mse-centre": "as quantile-mse with quantiles at bin centres, the N-output paper's convention",
	"accuracy":            "fraction of test examples classified correctly",

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
