package groupmean

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/kinds/kindtest"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// TestGroupmeanValueNeeds: value:<m> refuses a registered mechanism
// without a variance and a biased one, naming the kind, the method and
// what is missing, and takes a registered unbiased one.
func TestGroupmeanValueNeeds(t *testing.T) {
	kindtest.Register(t, "test-gm-novar", "PM without its variance", kindtest.NewNoVariance)
	kindtest.Register(t, "test-gm-pm", "PM in a new type", kindtest.NewContinuousCopy)
	ds := placeholder(t)
	for _, c := range []struct{ method, want string }{
		{"value:test-gm-novar", "kind groupmean, method value:test-gm-novar: needs an unbiased report with a variance: test-gm-novar has no closed-form variance"},
		{"value:bernoulli", "kind groupmean, method value:bernoulli: the value mechanism must be unbiased"},
		{"value:sw", "kind groupmean, method value:sw: the value mechanism must take [-1, 1]"},
		{"value:test-gm-pm", ""},
	} {
		cell := &experiment.CellSpec{Dataset: ds, Method: c.method, Eps: 1, N: 100, Metrics: []string{"scaled_abs_error"}}
		err := kindtest.CheckRaw(Kind{}, cell, map[string]string{"shape": "normal"})
		var ne *experiment.NeedsError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.method, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &ne)):
			t.Errorf("%s: %v, want a NeedsError containing %q", c.method, err, c.want)
		}
	}
	for name, want := range map[string]bool{"test-gm-novar": false, "test-gm-pm": true, "bernoulli": false, "pm": true} {
		m, _ := mechanisms.New(name, 1)
		if got := slices.Contains(experiment.MethodsFor(Kind{}, m), "value:"+name); got != want {
			t.Errorf("MethodsFor(%s) has value:%s = %v, want %v", name, name, got, want)
		}
	}
}
