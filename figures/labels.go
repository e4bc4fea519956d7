package figures

import (
	"fmt"
	"strings"

	"github.com/ldpbench/ldpbench/metrics"
)

// fieldName is how a field is written for a reader: ε for eps, else the
// field's own name.
func fieldName(field string) string {
	if field == "eps" {
		return "ε"
	}
	return field
}

// fieldLabel names a panel or series: the bare value for the fields whose
// values are names, "name = value" for the others (ε = 4, m = 8).
func fieldLabel(field, value string) string {
	switch field {
	case "", "experiment", "dataset", "method", "metric", "normalisation":
		return value
	}
	return fieldName(field) + " = " + value
}

// label names a value of field (a series or panel) for a reader: the
// spec's own label for it (Spec.Labels, keyed "field=value" where a value
// alone would name two fields' values, else by the value), else the caller's name of it
// (WithNames: a kind's name of its methods), else fieldLabel.
func (f *Figure) label(field, value string) string {
	if l, ok := f.Spec.Labels[field+"="+value]; ok {
		return l
	}
	if l, ok := f.Spec.Labels[value]; ok {
		return l
	}
	if f.names != nil && field != "" {
		if l, ok := f.names(field, value); ok {
			return l
		}
	}
	return fieldLabel(field, value)
}

// seriesLabel is the legend label of series i: its value's label, or the
// y label for the one series of a figure without a series field.
func (f *Figure) seriesLabel(i int) string {
	value := f.Series[i]
	if value == "" && f.Spec.Series == "" {
		return f.Spec.yLabel()
	}
	return f.label(f.Spec.Series, value)
}

// metricClause is the first clause of a per-trial metric's description
// (package metrics), without its "closed form: " prefix: what one value of
// the metric is. An unknown metric is its name.
func metricClause(metric string) string {
	d, ok := metrics.Describe(metric)
	if !ok {
		return metric
	}
	d = strings.TrimPrefix(d, "closed form: ")
	if i := strings.Index(d, ";"); i >= 0 {
		d = d[:i]
	}
	// A description may name another metric (worst_case_ratio names
	// worst_case_variance): in words, not as an identifier.
	for _, name := range metrics.Names {
		if strings.Contains(name, "_") {
			d = strings.ReplaceAll(d, name, strings.ReplaceAll(name, "_", " "))
		}
	}
	return strings.TrimSpace(d)
}

// derivedFrom returns the per-trial metric a derived metric (rmse) is the
// square root of the mean of.
func derivedFrom(metric string) (string, bool) {
	for _, d := range metrics.Derived {
		if d.Name == metric {
			return d.From, true
		}
	}
	return "", false
}

// metricLabel says what the y axis shows when the spec gives no ylabel.
func metricLabel(metric string) string {
	if from, ok := derivedFrom(metric); ok {
		return "√(mean " + metricClause(from) + ")"
	}
	return metricClause(metric)
}

// metricWhat says, for the caption, what one point is: the mean over the
// trials (trials reads "20 trials") of what the metric measures, or the
// square root of that mean for a derived metric (an RMSE is the square
// root of the mean squared error, not a mean of per-trial roots).
func metricWhat(metric, trials string) string {
	if from, ok := derivedFrom(metric); ok {
		return fmt.Sprintf("the square root of the mean over %s of %s", trials, metricClause(from))
	}
	return fmt.Sprintf("the mean over %s of %s", trials, metricClause(metric))
}
