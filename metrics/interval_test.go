package metrics

import "testing"

// Every per-trial metric is classified for its confidence interval, so that
// a new metric gets one on purpose; the derived metrics take their
// source's; the metrics positive by definition have a positive interval.
func TestIntervalOfEveryName(t *testing.T) {
	for _, name := range Names {
		if _, ok := intervals[name]; !ok {
			t.Errorf("metric %q has no interval class in metrics/interval.go", name)
		}
	}
	for _, d := range Derived {
		if IntervalOf(d.Name) != IntervalOf(d.From) {
			t.Errorf("derived %q: interval %q, its source %q has %q", d.Name, IntervalOf(d.Name), d.From, IntervalOf(d.From))
		}
	}
	for name, want := range map[string]Interval{
		"mse": IntervalChi2, "rmse": IntervalChi2, "var-mse": IntervalChi2,
		"abs": IntervalLogMean, "js-div": IntervalLogMean, "js-dist": IntervalLogMean, "kl": IntervalLogMean,
		"aggregation_seconds": IntervalLogMean, "variance": IntervalLogMean,
		"accuracy": IntervalT, "reporting": IntervalT, "em_stop_ll": IntervalT, "worst_case_gain_pct": IntervalT,
		"no-such-metric": IntervalT,
	} {
		if got := IntervalOf(name); got != want {
			t.Errorf("IntervalOf(%q) = %q, want %q", name, got, want)
		}
		if Positive(name) != (want != IntervalT) {
			t.Errorf("Positive(%q) = %v", name, Positive(name))
		}
	}
}
