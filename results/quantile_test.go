package results

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSummariseQuantiles: summary.csv's min, q25, median, q75 and max
// against values computed by hand with the type-7 rule (h = (n−1)p,
// interpolate between x[⌊h⌋] and x[⌊h⌋+1]), through WriteSummaries and
// ReadSummaries. Each case names the bug it catches. The values are small
// binary fractions, so both sides are exact: the tolerance 1e-12 only
// absorbs a different order of the same operations.
func TestSummariseQuantiles(t *testing.T) {
	for _, c := range []struct {
		name, catches string
		values        []float64
		want          [5]float64 // min, q25, median, q75, max
	}{
		{"n=1", "an index past the end, or NaN for one trial", []float64{3}, [5]float64{3, 3, 3, 3, 3}},
		{"n=2", "nearest rank instead of interpolation (2, 2|10, 10)", []float64{10, 2}, [5]float64{2, 4, 6, 8, 10}},
		{"n=4", "type 6 ((n+1)p: 1.25, 3, 7) instead of type 7", []float64{8, 1, 4, 2}, [5]float64{1, 1.75, 3, 5, 8}},
		{"n=5 uneven", "quantiles of the unsorted values, type 6 (0.75, 2, 12), the mean (5.5) as the median", []float64{0.5, 8, 1, 16, 2}, [5]float64{0.5, 1, 2, 8, 16}},
		{"n=5 ties", "ties dropped (distinct values 3, 7 give q25 4)", []float64{7, 3, 3, 7, 3}, [5]float64{3, 3, 3, 7, 7}},
		{"n=6 ties", "interpolation across a tie at the wrong end (q25 5 or 2)", []float64{5, 2, 9, 5, 2, 5}, [5]float64{2, 2.75, 5, 5, 9}},
		{"negative", "an absolute value or a clamp at 0 (q25 −1.5, median −0.5)", []float64{4, -1, 0, -3}, [5]float64{-3, -1.5, -0.5, 1, 4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var rows []Row
			for i, v := range c.values {
				rows = append(rows, Row{Experiment: "e", Dataset: "d", Method: "m", Eps: 1, N: 10, Trial: i,
					Metric: "mean_diff", Value: Float(v), Theory: Float(math.NaN())})
			}
			var buf bytes.Buffer
			if err := WriteSummaries(&buf, Summarise(rows)); err != nil {
				t.Fatal(err)
			}
			s, err := ReadSummaries(&buf)
			if err != nil || len(s) != 1 {
				t.Fatalf("%d summaries, %v", len(s), err)
			}
			got := [5]Float{s[0].Min, s[0].Q25, s[0].Median, s[0].Q75, s[0].Max}
			for i, name := range []string{"min", "q25", "median", "q75", "max"} {
				if math.Abs(float64(got[i])-c.want[i]) > 1e-12 {
					t.Errorf("%s = %v, want %v (catches: %s)", name, got[i], c.want[i], c.catches)
				}
			}
		})
	}
}

// TestQuantileEdges: p = 0 and 1 are the extremes, p outside [0, 1] and
// no values are NaN, and an interpolation towards +Inf is +Inf (not NaN).
// Bugs caught: lo+1 read past the end at p = 1; a p of 25 (per cent) taken
// as a fraction.
func TestQuantileEdges(t *testing.T) {
	x := []float64{1, 2, 4, 8}
	inf := math.Inf(1)
	for _, c := range []struct {
		xs   []float64
		p    float64
		want float64
	}{
		{x, 0, 1}, {x, 1, 8}, {x, 1.0 / 3, 2}, {x, 0.9, 8 - 0.3*4},
		{[]float64{1, inf}, 0.5, inf}, {[]float64{inf, inf}, 0.5, inf},
	} {
		if got := Quantile(c.xs, c.p); math.Abs(got-c.want) > 1e-12 && got != c.want {
			t.Errorf("Quantile(%v, %v) = %v, want %v", c.xs, c.p, got, c.want)
		}
	}
	for _, p := range []float64{-0.1, 1.1, 25, math.NaN()} {
		if got := Quantile(x, p); !math.IsNaN(got) {
			t.Errorf("Quantile(p = %v) = %v, want NaN", p, got)
		}
	}
	if got := Quantile(nil, 0.5); !math.IsNaN(got) {
		t.Errorf("Quantile of nothing = %v, want NaN", got)
	}
}

// TestDerivedAndNaNQuantiles: a derived metric (rmse, the root of the mean
// mse) has no quantiles, and a metric with a NaN trial value has none
// either. Bugs caught: the source's quantiles copied onto the rmse row
// (an "rmse median" of squared errors), their roots presented as quantiles
// of the RMSE, and NaN sorted to one end and read as a quartile.
func TestDerivedAndNaNQuantiles(t *testing.T) {
	var rows []Row
	for i, v := range []float64{4, 9, 16} {
		rows = append(rows, Row{Experiment: "e", Dataset: "d", Method: "m", Eps: 1, N: 10, Trial: i, Metric: "mse", Value: Float(v)})
		w := float64(i)
		if i == 1 {
			w = math.NaN()
		}
		rows = append(rows, Row{Experiment: "e", Dataset: "d", Method: "m", Eps: 1, N: 10, Trial: i, Metric: "abs", Value: Float(w)})
	}
	s := Summarise(rows)
	if len(s) != 3 || s[0].Metric != "mse" || s[1].Metric != "rmse" || s[2].Metric != "abs" {
		t.Fatalf("summaries %+v", s)
	}
	if s[0].Median != 9 || s[0].Min != 4 || s[0].Max != 16 {
		t.Errorf("mse quantiles %v %v %v, want 4 9 16", s[0].Min, s[0].Median, s[0].Max)
	}
	for _, x := range []Summary{s[1], s[2]} {
		for i, q := range []Float{x.Min, x.Q25, x.Median, x.Q75, x.Max} {
			if q.Known() {
				t.Errorf("%s: quantile %d = %v, want NaN", x.Metric, i, q)
			}
		}
	}
}

// TestReadOldSummaries: a summary.csv written before the quantile columns
// (the seed files, cut from real runs) reads with NaN quantiles, through
// both readers; a file that has the columns keeps a 0 as 0. The bug
// caught: gocsv leaves the field of an absent column at 0, so a box plot
// of an old file would draw every box at 0.
func TestReadOldSummaries(t *testing.T) {
	path := filepath.Join("testdata", "seeds", "mean-synthetic.summary.csv")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "median") {
		t.Fatalf("%s has quantile columns: not an old file any more", path)
	}
	fromStream, err := ReadSummaries(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	fromFile, err := ReadSummaryFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, sums := range [][]Summary{fromStream, fromFile} {
		if len(sums) == 0 {
			t.Fatal("no summaries")
		}
		for _, s := range sums {
			if s.Min.Known() || s.Q25.Known() || s.Median.Known() || s.Q75.Known() || s.Max.Known() || !s.Mean.Known() {
				t.Fatalf("old summary %+v: quantiles should be NaN, the mean known", s)
			}
		}
	}
	// Only some of the columns, one of them 0: that one is 0, the others NaN.
	some := "metric,mean,median,q75\nmse,1,0,\n"
	sums, err := ReadSummaries(strings.NewReader(some))
	if err != nil || len(sums) != 1 {
		t.Fatal(sums, err)
	}
	if s := sums[0]; s.Median != 0 || s.Min.Known() || s.Q25.Known() || s.Q75.Known() || s.Max.Known() {
		t.Errorf("%q read as min %v q25 %v median %v q75 %v max %v; want NaN NaN 0 NaN NaN", some, s.Min, s.Q25, s.Median, s.Q75, s.Max)
	}
}

// TestSummariseTukey: summary.csv's whisker_lo, whisker_hi and outliers
// against values computed by hand (type-7 quartiles, fences 1.5·IQR
// beyond them), through WriteSummaries and ReadSummaries. Each case names
// the bug it catches. Every value is a small binary fraction: both sides
// are exact, and compared exactly.
func TestSummariseTukey(t *testing.T) {
	for _, c := range []struct {
		name, catches string
		values        []float64
		lo, hi        float64
		outliers      []float64
	}{
		// q25 3.25, q75 7.75, IQR 4.5: fences −3.5 and 14.5.
		{"one wild run", "whiskers at min–max (the old rule: 100), or at the fence (14.5) instead of a trial value",
			[]float64{100, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, 9, []float64{100}},
		// q25 1.5, q75 6.5, IQR 5: fences −6 and 14.
		{"both sides", "outliers on one side only, or in the order of the trials (40 before 30)",
			[]float64{40, 0, 1, 2, 3, -50, 4, 5, 6, 7, 30}, 0, 7, []float64{-50, 30, 40}},
		// q25 2, q75 6, IQR 4: fence 12, which a value equals.
		{"at the fence", "a value on the fence taken as an outlier (strict >, not ≤)",
			[]float64{0, 2, 4, 6, 12}, 0, 12, nil},
		// q25 7.5 (between 0 and 10), q75 10, IQR 2.5: fence 3.75; the
		// least value above it, 10, is inside the box.
		{"empty whisker", "a low whisker ending inside the box (at 10, above q25 7.5)",
			[]float64{0, 10, 10, 10}, 7.5, 10, []float64{0}},
		// q25 = q75 = 5: IQR 0, every other value beyond a fence.
		{"IQR 0", "no outliers when the quartiles tie, or IQR 0 read as unknown",
			[]float64{5, 5, 9, 5, 5, 1, 5}, 5, 5, []float64{1, 9}},
		{"n=1", "one trial with unknown whiskers, or itself an outlier", []float64{3}, 3, 3, nil},
		{"negative", "an absolute value or a clamp at 0", []float64{-1, -2, -3, -4, -40}, -4, -1, []float64{-40}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var rows []Row
			for i, v := range c.values {
				rows = append(rows, Row{Experiment: "e", Dataset: "d", Method: "m", Eps: 1, N: 10, Trial: i,
					Metric: "mean_diff", Value: Float(v), Theory: Float(math.NaN())})
			}
			var buf bytes.Buffer
			if err := WriteSummaries(&buf, Summarise(rows)); err != nil {
				t.Fatal(err)
			}
			s, err := ReadSummaries(&buf)
			if err != nil || len(s) != 1 {
				t.Fatalf("%d summaries, %v", len(s), err)
			}
			got := s[0]
			if float64(got.WhiskerLo) != c.lo || float64(got.WhiskerHi) != c.hi || !slices.Equal(got.Outliers, c.outliers) {
				t.Errorf("whiskers %v, %v and outliers %v; want %v, %v and %v (catches: %s)",
					got.WhiskerLo, got.WhiskerHi, got.Outliers, c.lo, c.hi, c.outliers, c.catches)
			}
			if !(got.WhiskerLo <= got.Q25 && got.Q75 <= got.WhiskerHi) {
				t.Errorf("whiskers %v, %v inside the box [%v, %v]", got.WhiskerLo, got.WhiskerHi, got.Q25, got.Q75)
			}
		})
	}
}

// TestTukeyUnknown: a derived metric (rmse) and a metric with a NaN trial
// have no whiskers and no outliers, so a box plot of them is refused, not
// drawn with whiskers at 0; a pooled summary of several cells has none
// either (its quartiles are unknown). Bugs caught: the mse's whiskers
// copied onto its rmse, and a pool keeping its first cell's.
func TestTukeyUnknown(t *testing.T) {
	var rows []Row
	for i, v := range []float64{4, 9, 16, 100} {
		rows = append(rows, Row{Experiment: "e", Dataset: "d", Method: "m", Eps: 1, N: 10, Trial: i, Metric: "mse", Value: Float(v)})
		w := float64(i)
		if i == 1 {
			w = math.NaN()
		}
		rows = append(rows, Row{Experiment: "e", Dataset: "d", Method: "m", Eps: 1, N: 10, Trial: i, Metric: "abs", Value: Float(w)})
	}
	s := Summarise(rows)
	if len(s) != 3 || s[0].Metric != "mse" || !s[0].WhiskerHi.Known() {
		t.Fatalf("summaries %+v", s)
	}
	for _, x := range s[1:] {
		if x.WhiskerLo.Known() || x.WhiskerHi.Known() || x.Outliers != nil {
			t.Errorf("%s: whiskers %v, %v, outliers %v; want unknown", x.Metric, x.WhiskerLo, x.WhiskerHi, x.Outliers)
		}
	}
	other := s[0]
	other.Dataset = "d2"
	pooled, err := Pool([]Summary{s[0], other}, "mse", "", []string{"dataset"}, nil)
	if err != nil || len(pooled) != 1 {
		t.Fatal(pooled, err)
	}
	if p := pooled[0]; p.WhiskerLo.Known() || p.WhiskerHi.Known() || p.Outliers != nil {
		t.Errorf("pooled: whiskers %v, %v, outliers %v; want unknown", p.WhiskerLo, p.WhiskerHi, p.Outliers)
	}
}

// TestReadSummariesWithoutTukey: a summary.csv written before the Tukey
// columns reads with unknown whiskers and no outliers, and so does one
// that has some of the three columns but not all (a whisker without the
// outliers beyond it would hide them); one with all three keeps a 0 as 0.
// The bug caught: gocsv leaves the field of an absent column at 0, so a
// box plot of an old file would draw every whisker to 0.
func TestReadSummariesWithoutTukey(t *testing.T) {
	for _, c := range []struct {
		csv   string
		known bool
	}{
		{"metric,mean,min,q25,median,q75,max\nmse,1,0,0,0,0,0\n", false},
		{"metric,mean,q25,q75,whisker_lo,whisker_hi\nmse,1,0,0,0,0\n", false},
		{"metric,mean,q25,q75,whisker_lo,outliers\nmse,1,0,0,0,5\n", false},
		{"metric,mean,q25,q75,whisker_lo,whisker_hi,outliers\nmse,1,0,0,0,0,\n", true},
	} {
		sums, err := ReadSummaries(strings.NewReader(c.csv))
		if err != nil || len(sums) != 1 {
			t.Fatal(sums, err)
		}
		s := sums[0]
		if c.known {
			if s.WhiskerLo != 0 || s.WhiskerHi != 0 || s.Outliers != nil {
				t.Errorf("%q: whiskers %v, %v, outliers %v; want 0, 0 and none", c.csv, s.WhiskerLo, s.WhiskerHi, s.Outliers)
			}
			continue
		}
		if s.WhiskerLo.Known() || s.WhiskerHi.Known() || s.Outliers != nil || s.Q25 != 0 {
			t.Errorf("%q: whiskers %v, %v, outliers %v, q25 %v; want unknown whiskers, no outliers, q25 0", c.csv, s.WhiskerLo, s.WhiskerHi, s.Outliers, s.Q25)
		}
	}
}

// TestFloatsCSV: a list of outliers is written losslessly (-0, the least
// subnormal, ±Inf) and read back the same; a NaN, an empty item or a word
// is refused with an error rather than read as 0.
func TestFloatsCSV(t *testing.T) {
	in := Floats{math.Inf(-1), -2.5e300, math.Copysign(0, -1), 5e-324, 0.1, math.Inf(1)}
	s, err := in.MarshalCSV()
	if err != nil {
		t.Fatal(err)
	}
	var back Floats
	if err := back.UnmarshalCSV(s); err != nil {
		t.Fatal(err)
	}
	if len(back) != len(in) {
		t.Fatalf("%q read as %v", s, back)
	}
	for i := range in {
		if math.Float64bits(in[i]) != math.Float64bits(back[i]) {
			t.Errorf("%q: item %d read as %v, want %v", s, i, back[i], in[i])
		}
	}
	if _, err := (Floats{1, math.NaN()}).MarshalCSV(); err == nil {
		t.Error("a NaN written")
	}
	for _, bad := range []string{"NaN", "1;;2", "1;x", "1,2", ";"} {
		if err := back.UnmarshalCSV(bad); err == nil {
			t.Errorf("%q read as %v", bad, back)
		}
	}
}
