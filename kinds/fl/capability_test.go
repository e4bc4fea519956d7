package fl

import (
	"errors"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/kinds/kindtest"
)

// TestFLNeeds: a method named after a registered mechanism without a
// variance is refused naming the kind, the method and the capability;
// Algorithm 5 refuses an unbounded output by capability; a registered
// mechanism with a variance is taken.
func TestFLNeeds(t *testing.T) {
	useFixtures(t)
	kindtest.Register(t, "test-fl-novar", "PM without its variance", kindtest.NewNoVariance)
	kindtest.Register(t, "test-fl-pm", "PM in a new type", kindtest.NewContinuousCopy)
	for _, c := range []struct {
		method string
		raw    map[string]string
		want   string
	}{
		{"test-fl-novar", nil, "kind fl, method test-fl-novar: needs an unbiased report with a variance: test-fl-novar has no closed-form variance"},
		{"laplace", map[string]string{"levels": "5"}, "kind fl, method laplace (params.levels or segments): needs a bounded output: laplace's output is unbounded"},
		{"test-fl-pm", nil, ""},
		{"pm", map[string]string{"levels": "5"}, ""},
	} {
		cell := &experiment.CellSpec{Dataset: &datasets.Dataset{Name: "ipums-br-standin"}, Method: c.method, Eps: 1, N: 1, Metrics: []string{"misclassification_rate"}}
		err := kindtest.CheckRaw(Kind{}, cell, c.raw)
		var ne *experiment.NeedsError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.method, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &ne)):
			t.Errorf("%s: %v, want a NeedsError containing %q", c.method, err, c.want)
		}
	}
}
