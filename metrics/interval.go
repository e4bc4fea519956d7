package metrics

// Interval names the 95% confidence interval that summaries (package
// results, summary.csv's column ci_method) give for a metric's mean over
// the trials of a cell. Which one a metric gets is decided here, once, by
// what the metric is (IntervalOf); package results computes it.
type Interval string

const (
	// IntervalT is Student's t: mean ± t(0.975, k−1)·sd/√k. For metrics
	// that may be negative or are bounded fractions (accuracy, reporting,
	// the proportions em_stop_*, worst_case_gain_pct), and the fallback when
	// a trial value contradicts a metric's class (a negative value of a
	// positive metric). A fraction's interval is cut to [0, 1] (Range).
	IntervalT Interval = "t"
	// IntervalChi2 is the scaled χ² interval of a mean of squared errors:
	// with k trials and mean m, [k·m/χ²_k(0.975), k·m/χ²_k(0.025)]. If
	// each trial's error is normal with mean 0 and variance σ², then
	// Σ err²/σ² ~ χ²_k and the interval covers σ² = E[mse] with probability
	// exactly 95%; it is positive whenever one trial's error is not 0. It
	// uses the mean alone: its relative width is the model's, fixed by k.
	//
	// A biased estimate (err ~ N(b, σ²)) or an average of several squared
	// errors per trial (the per-coordinate mse of a d-dimensional mean,
	// quantile-mse over the deciles) is less dispersed than σ²·χ²₁, and the
	// interval is then conservative, and for an average over d coordinates
	// needlessly wide (a factor 15 from end to end at 5 trials, whatever
	// d). So the summary first tests, at the 1% level, whether the trial
	// values are significantly less dispersed than k values of σ²·χ²₁ (the
	// log ratio of their arithmetic to their geometric mean, against its
	// exact cumulants under that law); if they are, it gives the t-logmean
	// interval (IntervalLogMean) instead and says so in ci_method. Under
	// the χ² model this costs at most the test's rate, about 1%: measured
	// coverage of E[mse] 94.8% at k = 5, 10, 20 and 50 trials (Student's t:
	// 86% at k = 10, 89% at k = 20); biased (b = σ/2, σ) 95.1–97.2%; the mean
	// of 16 squared errors 94.8–94.9%, with an interval 2.6–4 times
	// narrower (ratio of the bounds) than the χ²_k interval (package
	// results' coverage tests). Errors much heavier-tailed than normal
	// would make the χ² interval too narrow; every mse here is of a mean of
	// at least a thousand bounded or Laplace reports, normal to a good
	// approximation (measured kurtosis of the error 2.9–3.1 in
	// multiservice-fig7a at n = 20,000).
	IntervalChi2 Interval = "chi2"
	// IntervalLogMean is the t interval of the logarithm of the mean by the
	// delta method, transformed back: m·exp(±t(0.975, k−1)·se/m), with m the
	// arithmetic mean and se = sd/√k. It is an interval for the arithmetic
	// mean (not the geometric mean: no logarithm of a trial value is
	// taken, so trial values of 0 are allowed), always positive when m > 0,
	// the same as Student's t to first order when se/m is small, and
	// stretched upwards as a right-skewed metric's should be. For positive
	// metrics whose law has no model here: abs (half-normal when the error
	// is normal), divergences, times, iteration counts. Measured coverage
	// (package results' tests; 2e5 replicates): 94.4–94.9% for |N(0,1)|
	// and lognormal(0.3) at k = 10 and 20 trials (Student's t 93.3–94.4%),
	// 93.1–93.5% for an exponential law, 91.3–92.4% for σ²χ²₁ (Student's t
	// 86.1–89.4%).
	IntervalLogMean Interval = "t-logmean"
)

// intervals classifies every per-trial metric (Names): a metric that is
// not here gets Student's t. TestIntervalOfEveryName requires every name
// of Names to be listed, so that a new metric is classified when it is
// added.
var intervals = map[string]Interval{
	// Squared errors (est − truth)² of an estimate, or averages of such.
	"mse": IntervalChi2, "var-mse": IntervalChi2, "quantile-mse": IntervalChi2,
	"quantile-mse-centre": IntervalChi2, "scaled_abs_error_sq": IntervalChi2,
	// Batch MSEs of kind central-mean, scaled: the same class as mse, so
	// that their intervals are mse's, scaled (a batch of many runs is far
	// less dispersed than one squared error: the t-logmean switch).
	"mse_norm_sec6": IntervalChi2, "mse_norm_apph": IntervalChi2,

	// Positive by definition, no model of their law.
	"abs": IntervalLogMean, "scaled-abs": IntervalLogMean, "scaled_abs_error": IntervalLogMean,
	"w1": IntervalLogMean, "w1-authors": IntervalLogMean,
	"js-div": IntervalLogMean, "js-dist": IntervalLogMean, "kl": IntervalLogMean,
	"em_iterations": IntervalLogMean, "aggregation_seconds": IntervalLogMean,
	"bits": IntervalLogMean, "bits_table2": IntervalLogMean,
	// A mean of many squared residuals: positive, far less dispersed than
	// one squared normal error.
	"test_mse": IntervalLogMean,
	// Closed forms (one trial, no interval): positive by definition.
	"variance": IntervalLogMean, "worst_case_variance": IntervalLogMean,
	"variance_at_0": IntervalLogMean, "variance_at_1": IntervalLogMean,
	"worst_case_ratio": IntervalLogMean, "piecewise_t": IntervalLogMean,

	// May be negative, or are fractions in [0, 1] with a mean that may be
	// 0 or 1: Student's t.
	"accuracy": IntervalT, "reporting": IntervalT, "misclassification_rate": IntervalT,
	"em_stop_ll": IntervalT, "em_stop_max_iter": IntervalT,
	"worst_case_gain_pct": IntervalT, "p0_given_0": IntervalT,
	"group_error_ratio": IntervalT, "order_correct": IntervalT,
	"mean_diff": IntervalT, "group_mean": IntervalT,
}

// fractions are the metrics whose every value lies in [0, 1] (Range).
var fractions = map[string]bool{
	"accuracy": true, "reporting": true, "misclassification_rate": true,
	"em_stop_ll": true, "em_stop_max_iter": true, "order_correct": true,
	"p0_given_0": true,
}

// Range returns the interval [min, max] that every value of the per-trial
// metric name lies in, when it is bounded on both sides (the fractions:
// accuracy, misclassification_rate, order_correct, ...): summaries cut a
// mean's confidence interval to it, since the mean cannot leave it.
func Range(name string) (min, max float64, ok bool) {
	if fractions[name] {
		return 0, 1, true
	}
	return 0, 0, false
}

// IntervalOf returns the confidence interval that summaries use for the
// mean of the per-trial metric name (IntervalT for a name not classified).
// A derived metric (Derived) takes its source's interval, square-rooted.
func IntervalOf(name string) Interval {
	for _, d := range Derived {
		if d.Name == name {
			name = d.From
		}
	}
	if iv, ok := intervals[name]; ok {
		return iv
	}
	return IntervalT
}

// Positive reports whether the metric is ≥ 0 by definition, so that its
// mean's confidence interval must not reach below 0 (IntervalChi2 and
// IntervalLogMean are positive; IntervalT is not).
func Positive(name string) bool { return IntervalOf(name) != IntervalT }
