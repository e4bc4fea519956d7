package figures_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/ldpbench/ldpbench/figures"
	"github.com/ldpbench/ldpbench/results"
)

func ExampleRender() {
	// Normally: summaries, err := results.ReadSummaryFile("out/demo/summary.csv")
	var summaries []results.Summary
	for _, method := range []string{"duchi", "pm"} {
		for _, eps := range []float64{0.5, 1, 2} {
			mse := 0.01 / (eps * eps)
			summaries = append(summaries, results.Summary{
				Experiment: "demo", Dataset: "uniform", Method: method, Eps: results.Float(eps), N: 1000,
				Metric: "mse", Count: 20, Mean: results.Float(mse),
				CILo: results.Float(0.9 * mse), CIHi: results.Float(1.1 * mse), Theory: results.Float(mse),
			})
		}
	}
	spec := figures.Spec{
		Name: "mse-vs-eps", Title: "MSE of the mean", Metric: "mse",
		X: "eps", Series: "method", Panel: "dataset",
		LogY: true, Theory: true, Formats: []string{"svg", "png"},
	}
	dir, err := os.MkdirTemp("", "figures")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	files, err := figures.Render(summaries, spec, dir, figures.WithWarnf(log.Printf))
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range files {
		fmt.Println(filepath.Base(f))
	}
	// Output:
	// mse-vs-eps.svg
	// mse-vs-eps.png
}

func ExampleReference() {
	// Two services' aggregation times, measured at n = 1000 and 2000.
	var summaries []results.Summary
	for _, m := range []string{"4", "8"} {
		for _, n := range []int{1000, 2000} {
			sec := 0.001 * float64(n) * float64(len(m))
			summaries = append(summaries, results.Summary{
				Experiment: "demo", Dataset: "beta", Method: "uwa", Eps: 0.1, N: n, Params: "m=" + m,
				Metric: "seconds", Count: 3, Mean: results.Float(sec),
				CILo: results.Float(0.9 * sec), CIHi: results.Float(1.1 * sec),
			})
		}
	}
	spec := figures.Spec{
		Name: "seconds-vs-n", Metric: "seconds", X: "n", Series: "m", LogX: true, LogY: true,
		References: []figures.Reference{
			// The paper's printed times of m = 4, drawn in that series' colour.
			{Label: "paper, m=4", Series: "4", X: []float64{1000, 2000}, Y: []float64{0.5, 1.1}},
			// A series this run does not have: drawn in black, with a warning.
			{Label: "paper, m=12", Series: "12", X: []float64{1000}, Y: []float64{3}},
		},
	}
	fig, err := figures.Project(summaries, spec)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range fig.References {
		fmt.Printf("%s: style %d, %v\n", r.Label, r.Style, r.Points)
	}
	fmt.Println(fig.Warnings[0])
	// Output:
	// paper, m=4: style 0, [{1000 0.5} {2000 1.1}]
	// paper, m=12: style -1, [{1000 3}]
	// figure "seconds-vs-n": reference[1] "paper, m=12": series "12" is not in the summaries (m: "4", "8"); drawn in black
}
