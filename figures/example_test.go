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
