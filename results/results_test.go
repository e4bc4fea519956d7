package results

import (
	"bufio"
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFloatRoundTrip(t *testing.T) {
	for _, v := range []float64{0, -0.5, 1.0 / 3, 1e-300, 123456789.125, math.MaxFloat64, math.Inf(1)} {
		s, _ := Float(v).MarshalCSV()
		var back Float
		if err := back.UnmarshalCSV(s); err != nil || float64(back) != v {
			t.Errorf("%v -> %q -> %v, %v", v, s, back, err)
		}
	}
	if s, _ := Float(math.NaN()).MarshalCSV(); s != "" {
		t.Errorf("NaN written as %q, want an empty cell", s)
	}
	var f Float
	if err := f.UnmarshalCSV(""); err != nil || f.Known() {
		t.Errorf("empty cell read as %v, %v; want NaN", f, err)
	}
	if err := f.UnmarshalCSV("abc"); err == nil {
		t.Error("abc parsed as a float")
	}
}

func TestParams(t *testing.T) {
	p := map[string]string{"k": "2", "dim": "16"}
	s := FormatParams(p)
	if s != "dim=16;k=2" {
		t.Fatalf("FormatParams = %q, want sorted keys", s)
	}
	back := ParseParams(s)
	if len(back) != 2 || back["dim"] != "16" || back["k"] != "2" {
		t.Fatalf("ParseParams(%q) = %v", s, back)
	}
	c := Cell{Dataset: "d", Method: "pm", Eps: 0.5, N: 10, Params: s}
	for field, want := range map[string]string{"dataset": "d", "method": "pm", "eps": "0.5", "n": "10", "dim": "16"} {
		if got, ok := c.Field(field); !ok || got != want {
			t.Errorf("Field(%q) = %q, %v; want %q", field, got, ok, want)
		}
	}
	if _, ok := c.Field("nope"); ok {
		t.Error("Field(nope) found")
	}
}

// Summary statistics of 1, 2, 3 for a metric of each interval class
// (metrics.IntervalOf): mean 2, sd 1, se 1/√3, and the 95% CIs
//
//	t (reporting):      2 ± t(0.975, 2)/√3
//	chi2 (mse):         [3·2/χ²₃(0.975), 3·2/χ²₃(0.025)]
//	t-logmean (abs ×10): 20·exp(±t(0.975, 2)·(10/√3)/20)
//
// with t(0.975, 2) = 0.95·√(2/(4·0.975·0.025)) = 4.302652729749464 (closed
// form for 2 degrees of freedom) and the χ²₃ quantiles 0.215795282623898 and
// 9.348403604496138, found by bisection of the closed-form CDF
// erf(√(x/2)) − √(2x/π)·e^(−x/2) in double precision (agreeing with
// published tables, 0.2158 and 9.3484). gonum's numerical quantiles agree
// with these to about 1e-15; the 1e-12 relative tolerance allows that and
// the rounding of the summary's few operations.
func TestSummarise(t *testing.T) {
	var rows []Row
	for i, v := range []float64{1, 2, 3} {
		rows = append(rows, Row{Experiment: "e", Dataset: "d", Method: "m", Eps: 1, N: 5, Trial: i, Metric: "mse", Value: Float(v), Theory: 2.5})
		rows = append(rows, Row{Experiment: "e", Dataset: "d", Method: "m", Eps: 1, N: 5, Trial: i, Metric: "abs", Value: Float(v * 10), Theory: Float(math.NaN())})
		rows = append(rows, Row{Experiment: "e", Dataset: "d", Method: "m", Eps: 1, N: 5, Trial: i, Metric: "mean_diff", Value: Float(v), Theory: 2})
	}
	s := Summarise(rows)
	if len(s) != 4 || s[0].Metric != "mse" || s[1].Metric != "rmse" || s[2].Metric != "abs" || s[3].Metric != "mean_diff" {
		t.Fatalf("got metrics %v %v %v %v; want mse, rmse, abs, mean_diff in order", s[0].Metric, s[1].Metric, s[2].Metric, s[3].Metric)
	}
	const (
		t2    = 4.302652729749464 // t(0.975, 2)
		chiLo = 0.215795282623898 // χ²₃(0.025)
		chiHi = 9.348403604496138 // χ²₃(0.975)
	)
	if got := 0.95 * math.Sqrt(2/(4*0.975*0.025)); math.Abs(got-t2) > 1e-15*t2 {
		t.Fatalf("closed form t(0.975, 2) = %v, literal %v", got, t2)
	}
	half := t2 / math.Sqrt(3)
	close := func(name string, got Float, want float64) {
		t.Helper()
		if math.Abs(float64(got)-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	mse := s[0]
	if mse.Count != 3 || mse.CIMethod != "chi2" {
		t.Errorf("count %d, ci_method %q; want 3, chi2", mse.Count, mse.CIMethod)
	}
	close("mean", mse.Mean, 2)
	close("sd", mse.SD, 1)
	close("se", mse.SE, 1/math.Sqrt(3))
	close("ci lo", mse.CILo, 6/chiHi)
	close("ci hi", mse.CIHi, 6/chiLo)
	close("theory", mse.Theory, 2.5)
	rmse := s[1]
	if rmse.CIMethod != "chi2" {
		t.Errorf("rmse ci_method %q, want its source's, chi2", rmse.CIMethod)
	}
	close("rmse", rmse.Mean, math.Sqrt2)
	close("rmse theory", rmse.Theory, math.Sqrt(2.5))
	close("rmse ci lo", rmse.CILo, math.Sqrt(6/chiHi))
	close("rmse ci hi", rmse.CIHi, math.Sqrt(6/chiLo))
	abs := s[2]
	if abs.CIMethod != "t-logmean" {
		t.Errorf("abs ci_method %q, want t-logmean", abs.CIMethod)
	}
	close("abs mean", abs.Mean, 20)
	close("abs ci lo", abs.CILo, 20*math.Exp(-half*10/20))
	close("abs ci hi", abs.CIHi, 20*math.Exp(half*10/20))
	if abs.Theory.Known() {
		t.Error("unknown theory became known")
	}
	rep := s[3]
	if rep.CIMethod != "t" {
		t.Errorf("mean_diff ci_method %q, want t", rep.CIMethod)
	}
	close("mean_diff ci lo", rep.CILo, 2-half)
	close("mean_diff ci hi", rep.CIHi, 2+half)
	one := Summarise(rows[:1])
	if one[0].Count != 1 || one[0].CILo.Known() || one[0].SD.Known() || one[0].CIMethod != "" {
		t.Errorf("a single trial has no spread and no interval: %+v", one[0])
	}
}

func TestRowsRoundTrip(t *testing.T) {
	rows := []Row{
		{Experiment: "e", Dataset: "beta(3,2)", Method: "pm", Eps: 0.5, N: 100, Params: "k=1", Normalisation: "fixed[lo=0,hi=1]", Trial: 0, Metric: "mse", Value: 1.0 / 3, Theory: Float(math.NaN())},
		{Experiment: "e", Dataset: "beta(3,2)", Method: "pm", Eps: 0.5, N: 100, Params: "k=1", Normalisation: "fixed[lo=0,hi=1]", Trial: 1, Metric: "mse", Value: 2e-9, Theory: 0.25},
	}
	var buf bytes.Buffer
	buf.WriteString("# metadata line\n")
	if err := WriteRowsHeader(&buf); err != nil {
		t.Fatal(err)
	}
	if err := WriteRows(&buf, rows, false); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(strings.SplitN(buf.String(), "\n", 3)[1], "experiment,dataset,method,eps,n,params") {
		t.Fatalf("header: %q", buf.String())
	}
	back, err := ReadRows(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || back[0].Dataset != "beta(3,2)" || back[0].Value != rows[0].Value || back[0].Theory.Known() || back[1].Theory != 0.25 {
		t.Fatalf("round trip: %+v", back)
	}
}

func TestWriteFileAtomicLeavesNothingOnError(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.csv")
	boom := errors.New("boom")
	if err := WriteFileAtomic(p, func(w *bufio.Writer) error {
		w.WriteString("partial")
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
	if err := WriteFileAtomic(p, func(w *bufio.Writer) error {
		_, err := w.WriteString("whole")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "whole" {
		t.Fatalf("content %q", b)
	}
}

// An mse that is 0 in every trial (a deterministic cell) gives rmse 0 with
// sd and se 0, not the 0/0 of the delta method.
func TestSummariseZeroMSE(t *testing.T) {
	var rows []Row
	for i := range 3 {
		rows = append(rows, Row{Experiment: "e", Dataset: "d", Method: "m", Eps: 1, N: 5, Trial: i, Metric: "mse", Value: 0, Theory: 0})
	}
	s := Summarise(rows)
	if r := s[1]; r.Metric != "rmse" || r.Mean != 0 || r.SD != 0 || r.SE != 0 {
		t.Errorf("rmse of zeros: %+v", r)
	}
}
