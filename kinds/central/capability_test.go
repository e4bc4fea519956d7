package central

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/kinds/kindtest"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// TestCentralLDPNeeds: ldp:<m> refuses a registered mechanism without a
// variance, naming the kind, the method and the capability, and takes a
// registered one with it.
func TestCentralLDPNeeds(t *testing.T) {
	kindtest.Register(t, "test-central-novar", "PM without its variance", kindtest.NewNoVariance)
	kindtest.Register(t, "test-central-pm", "PM in a new type", kindtest.NewContinuousCopy)
	for _, c := range []struct{ method, want string }{
		{"ldp:test-central-novar", "kind central-mean, method ldp:test-central-novar: needs an unbiased report with a variance: test-central-novar has no closed-form variance"},
		{"ldp:test-central-pm", ""},
	} {
		cell := &experiment.CellSpec{Experiment: "test", Dataset: placeholder(t), Method: c.method, Eps: 1, N: 100, Metrics: allMetrics, Seed: 7}
		err := kindtest.CheckRaw(Kind{}, cell, map[string]string{"mu": "0.1"})
		var ne *experiment.NeedsError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.method, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &ne)):
			t.Errorf("%s: %v, want a NeedsError containing %q", c.method, err, c.want)
		}
	}
	for name, want := range map[string]bool{"test-central-novar": false, "test-central-pm": true} {
		m, _ := mechanisms.New(name, 1)
		if got := slices.Contains(experiment.MethodsFor(Kind{}, m), "ldp:"+name); got != want {
			t.Errorf("MethodsFor(%s) = %v", name, experiment.MethodsFor(Kind{}, m))
		}
	}
}
