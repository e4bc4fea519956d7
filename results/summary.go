package results

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/gocarina/gocsv"

	"github.com/ldpbench/ldpbench/metrics"
)

// Summary describes one metric of one cell over its trials.
type Summary struct {
	Experiment    string `csv:"experiment"`
	Dataset       string `csv:"dataset"`
	Method        string `csv:"method"`
	Eps           Float  `csv:"eps"`
	N             int    `csv:"n"`
	Params        string `csv:"params"`
	Normalisation string `csv:"normalisation"`
	Metric        string `csv:"metric"`
	Count         int    `csv:"count"`
	Mean          Float  `csv:"mean"`
	SD            Float  `csv:"sd"`
	// Min, Q25, Median, Q75 and Max are quantiles of the trial values
	// (Quantile: type 7, numpy's default), for box plots and for metrics
	// whose mean a few wild trials dominate. NaN for a derived metric (an
	// RMSE is the root of a mean: no quantile of the trials gives it), for
	// a metric with a NaN trial value, and when read from a summary.csv
	// written before these columns existed.
	Min    Float `csv:"min"`
	Q25    Float `csv:"q25"`
	Median Float `csv:"median"`
	Q75    Float `csv:"q75"`
	Max    Float `csv:"max"`
	// WhiskerLo and WhiskerHi end a Tukey box plot's whiskers (Tukey):
	// the least and the greatest trial value within 1.5·IQR of the
	// quartiles (IQR = Q75 − Q25), or the quartile itself when no value
	// lies between it and its fence. Unknown (NaN) exactly when the
	// quantiles are, and when read from a summary.csv written before
	// these columns existed.
	WhiskerLo Float `csv:"whisker_lo"`
	WhiskerHi Float `csv:"whisker_hi"`
	SE        Float `csv:"se"`
	// CILo and CIHi bound the 95% confidence interval of the mean, of the
	// kind CIMethod names; NaN when Count < 2.
	CILo   Float `csv:"ci95_lo"`
	CIHi   Float `csv:"ci95_hi"`
	Theory Float `csv:"theory"`
	// CIMethod names the interval (metrics.Interval): "t" (Student's t,
	// symmetric), "chi2" (scaled χ² of a mean of squared errors) or
	// "t-logmean" (t on the log of the mean, positive); the metric's class
	// (metrics.IntervalOf), or "t" where a trial value contradicts it (a
	// negative value of a positive metric). A derived metric (rmse) has its
	// source's method, its bounds square-rooted. Empty when Count < 2.
	CIMethod string `csv:"ci_method"`
	// Quick is true when the rows were run at the spec's [quick] scale (a
	// pipeline check, not the paper's n and trials); the runner sets it.
	Quick bool `csv:"quick"`
	// Outliers are the trial values beyond the whiskers' fences
	// (Tukey), ascending: the points a box plot draws one by one, so
	// that a figure drawn from summary.csv alone shows them where they
	// are. Empty when no value is beyond the fences; meaningful only
	// when WhiskerLo is known (else not known, and empty too). The last
	// column, written as the values joined by ';': its length varies.
	Outliers Floats `csv:"outliers"`
}

// Cell returns the summary's cell.
func (s *Summary) Cell() Cell {
	return Cell{s.Experiment, s.Dataset, s.Method, s.Eps, s.N, s.Params}
}

// Summarise groups rows by cell and metric, in order of first appearance, and
// adds the derived metrics of metrics.Derived (rmse from mse, ...: mean, CI
// bounds and theory are square roots; sd and se by the delta method;
// quantiles unknown). Min, Q25, Median, Q75 and Max are the type-7
// quantiles of the trial values (Quantile), WhiskerLo, WhiskerHi and
// Outliers their Tukey box-plot statistics (Tukey). The
// confidence interval of each metric is the one metrics.IntervalOf names
// (CIMethod). Quick is left false: the caller knows the scale.
func Summarise(rows []Row) []Summary {
	type key struct {
		cell   Cell
		metric string
	}
	index := make(map[key]int)
	var out []Summary
	var values [][]float64
	for i := range rows {
		r := &rows[i]
		k := key{r.Cell(), r.Metric}
		j, ok := index[k]
		if !ok {
			j = len(out)
			index[k] = j
			out = append(out, Summary{
				Experiment: r.Experiment, Dataset: r.Dataset, Method: r.Method,
				Eps: r.Eps, N: r.N, Params: r.Params, Normalisation: r.Normalisation,
				Metric: r.Metric, Theory: r.Theory,
			})
			values = append(values, nil)
		}
		values[j] = append(values[j], float64(r.Value))
	}
	var all []Summary
	for j := range out {
		s := out[j]
		describe(&s, values[j])
		all = append(all, s)
		// Derived metrics (metrics.Derived) come from the summary of another
		// metric rather than from per-trial values: the RMSE is the square
		// root of the mean squared error, not a mean of per-trial roots.
		for _, d := range metrics.Derived {
			if s.Metric == d.From {
				all = append(all, sqrtSummary(s, d.Name))
			}
		}
	}
	return all
}

func describe(s *Summary, xs []float64) {
	n := len(xs)
	s.Count = n
	var mean float64
	negative := false
	for _, x := range xs {
		mean += x
		negative = negative || x < 0
	}
	mean /= float64(n)
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	s.Mean = Float(mean)
	s.Min, s.Q25, s.Median, s.Q75, s.Max = quartiles(xs)
	s.WhiskerLo, s.WhiskerHi, s.Outliers = tukey(xs, s.Q25, s.Q75)
	s.SD, s.SE, s.CILo, s.CIHi = Float(math.NaN()), Float(math.NaN()), Float(math.NaN()), Float(math.NaN())
	if n < 2 {
		return
	}
	sd := math.Sqrt(ss / float64(n-1))
	se := sd / math.Sqrt(float64(n))
	s.SD, s.SE = Float(sd), Float(se)
	method := metrics.IntervalOf(s.Metric)
	if negative {
		method = metrics.IntervalT
	}
	lo, hi, used := interval(method, xs, mean, se)
	if min, max, ok := metrics.Range(s.Metric); ok {
		// A rate's mean lies in [0, 1]: the interval cut to it covers
		// the mean whenever the uncut one does, and a 2-trial t interval
		// of a rate would otherwise reach from -0.15 to 1.05.
		lo, hi = math.Max(lo, min), math.Min(hi, max)
	}
	s.CILo, s.CIHi, s.CIMethod = Float(lo), Float(hi), string(used)
}

func sqrtSummary(s Summary, name string) Summary {
	r := s
	r.Metric = name
	root := math.Sqrt(float64(s.Mean))
	r.Mean = Float(root)
	// d sqrt(m) = dm / (2 sqrt(m)); a metric that is 0 in every trial has
	// sd and se 0 (not 0/0).
	r.SD = Float(float64(s.SD) / (2 * root))
	r.SE = Float(float64(s.SE) / (2 * root))
	if s.SD == 0 {
		r.SD, r.SE = 0, 0
	}
	r.CILo = Float(math.Sqrt(math.Max(0, float64(s.CILo))))
	r.CIHi = Float(math.Sqrt(float64(s.CIHi)))
	r.Theory = Float(math.Sqrt(float64(s.Theory)))
	// √ is monotone, so √q would be a quantile of the per-trial roots; but
	// the metric is the root of the mean, which no trial quantile gives.
	nan := Float(math.NaN())
	r.Min, r.Q25, r.Median, r.Q75, r.Max = nan, nan, nan, nan, nan
	r.WhiskerLo, r.WhiskerHi, r.Outliers = nan, nan, nil
	return r
}

// WriteSummaries writes summaries as CSV with a header and the end line.
func WriteSummaries(w io.Writer, summaries []Summary) error {
	if err := writeCSV(w, func(b *bytes.Buffer) error { return gocsv.Marshal(summaries, b) }); err != nil {
		return err
	}
	return WriteEnd(w, len(summaries))
}

// ReadSummaries reads a summary file, skipping '#' lines. A file written
// before the quantile columns (min, q25, median, q75, max) or the Tukey
// columns (whisker_lo, whisker_hi, outliers) existed reads with those
// values NaN (and no outliers), not 0.
func ReadSummaries(r io.Reader) ([]Summary, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	out, err := readCSV[Summary](bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	return out, unknownAbsentQuantiles(raw, out)
}

// ReadSummaryFile reads a summary file, which must end with its end line
// (else the error wraps ErrIncomplete); errors name the file. Absent
// quantile columns read as NaN, as in ReadSummaries.
func ReadSummaryFile(path string) ([]Summary, error) {
	out, err := readCompleteFile[Summary](path)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(path)
	if err == nil {
		err = unknownAbsentQuantiles(raw, out)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// quantileColumns records which quantile and Tukey columns a record had:
// gocsv leaves a field whose column is absent at its zero value, and 0 is
// a quantile.
// Reading the same bytes into it matches the columns exactly as gocsv
// matched them for the Summary (its header matching trims spaces and
// zero-width characters).
type quantileColumns struct {
	Min    present `csv:"min"`
	Q25    present `csv:"q25"`
	Median present `csv:"median"`
	Q75    present `csv:"q75"`
	Max    present `csv:"max"`
	// The Tukey statistics are known only with all three columns: a
	// whisker without the outliers beyond it would draw a box plot that
	// hides them.
	WhiskerLo present `csv:"whisker_lo"`
	WhiskerHi present `csv:"whisker_hi"`
	Outliers  present `csv:"outliers"`
}

// present is true once gocsv has given it a cell, even an empty one.
type present bool

func (p *present) UnmarshalCSV(string) error { *p = true; return nil }

// unknownAbsentQuantiles sets to NaN the quantiles of the summaries read
// from raw whose column raw lacks, and the whiskers (with no outliers)
// when any of the Tukey columns is absent.
func unknownAbsentQuantiles(raw []byte, sums []Summary) error {
	if len(sums) == 0 {
		return nil
	}
	cols, err := readCSV[quantileColumns](bytes.NewReader(raw))
	if err != nil {
		return err
	}
	if len(cols) != len(sums) {
		return fmt.Errorf("read %d summaries but %d records of quantile columns", len(sums), len(cols))
	}
	nan := Float(math.NaN())
	for i := range sums {
		c, s := cols[i], &sums[i]
		for _, q := range []struct {
			seen present
			v    *Float
		}{{c.Min, &s.Min}, {c.Q25, &s.Q25}, {c.Median, &s.Median}, {c.Q75, &s.Q75}, {c.Max, &s.Max}} {
			if !q.seen {
				*q.v = nan
			}
		}
		if !c.WhiskerLo || !c.WhiskerHi || !c.Outliers {
			s.WhiskerLo, s.WhiskerHi, s.Outliers = nan, nan, nil
		}
	}
	return nil
}
