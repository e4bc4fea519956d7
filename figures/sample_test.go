package figures

import (
	"os"
	"testing"

	"github.com/ldpbench/ldpbench/results"
)

// TestSample writes sample figures to $FIGURES_SAMPLE for a person to look at.
func TestSample(t *testing.T) {
	dir := os.Getenv("FIGURES_SAMPLE")
	if dir == "" {
		t.Skip("set FIGURES_SAMPLE to a directory to write sample figures")
	}
	for _, c := range []struct {
		spec Spec
		data func() []results.Summary
	}{
		{Spec{Name: "sample", Title: "MSE of the mean vs ε", Metric: "mse", X: "eps", Series: "method", Panel: "dataset", LogY: true, LogX: true, Theory: true}, sweep},
		{Spec{Name: "sample-band", Title: "MSE of the mean vs ε", Metric: "mse", X: "eps", Series: "method", Panel: "dataset", LogY: true, Theory: true, Band: true, Columns: 1}, sweep},
		{Spec{Name: "sample-guard", Title: "Log guard", Metric: "mse", X: "eps", Series: "method", LogX: true, LogY: true, Theory: true}, logSummaries},
		{tinySpec, tiny},
		{refSpec(), tiny},
		{decadesSpec, decades},
		{configsSpec, configs},
		{ratioSpec, ratioData},
		{Spec{Name: "sample-grid", Title: "Five panels in two columns", Metric: "mse", X: "eps", Series: "method", Panel: "dataset", Theory: true, Band: true, Columns: 2}, grid},
	} {
		c.spec.Formats = []string{"png", "svg"}
		files, err := Render(c.data(), c.spec, dir, WithWarnf(t.Logf))
		if err != nil {
			t.Fatal(err)
		}
		t.Log(files)
	}
}
