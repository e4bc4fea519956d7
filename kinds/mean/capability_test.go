package mean

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/kinds/kindtest"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// TestMeanKindsNeeds: every mean kind refuses a registered mechanism
// without a variance (PM in a new type without it), naming the kind, the
// method and the capability, and takes one with it (PM in a new type);
// mean-md's Algorithm 5 refuses an unbounded output by capability.
func TestMeanKindsNeeds(t *testing.T) {
	kindtest.Register(t, "test-mean-novar", "PM without its variance", kindtest.NewNoVariance)
	kindtest.Register(t, "test-mean-pm", "PM in a new type", kindtest.NewContinuousCopy)
	const want = "method test-mean-novar: needs an unbiased report with a variance: test-mean-novar has no closed-form variance"
	for _, c := range []struct {
		kind experiment.Kind
		cell func(method string) *experiment.CellSpec
	}{
		{Mean{}, func(m string) *experiment.CellSpec {
			c := htCell(t, m, 1, nil)
			c.Params = experiment.Params{}
			return c
		}},
		{HT{}, func(m string) *experiment.CellSpec { return htCell(t, m, 1, nil) }},
		{MD{}, func(m string) *experiment.CellSpec { return mdCell(t, m, 1, nil) }},
		{Theory{}, func(m string) *experiment.CellSpec {
			return &experiment.CellSpec{Method: m, Eps: 1, Metrics: []string{"worst_case_variance"}}
		}},
	} {
		err := c.kind.Check(c.cell("test-mean-novar"))
		var ne *experiment.NeedsError
		if err == nil || !strings.Contains(err.Error(), "kind "+c.kind.Name()+", "+want) || !errors.As(err, &ne) {
			t.Errorf("%s: %v, want %q", c.kind.Name(), err, "kind "+c.kind.Name()+", "+want)
		}
		if err := c.kind.Check(c.cell("test-mean-pm")); err != nil {
			t.Errorf("%s: a registered mechanism with a variance refused: %v", c.kind.Name(), err)
		}
		for _, name := range []string{"test-mean-novar", "test-mean-pm"} {
			m, _ := mechanisms.New(name, 1)
			got := experiment.MethodsFor(c.kind.(experiment.MechanismTaker), m)
			if taken := slices.Contains(got, name); taken != (name == "test-mean-pm") {
				t.Errorf("%s: MethodsFor(%s) = %v", c.kind.Name(), name, got)
			}
		}
		if l, ok := c.kind.(experiment.MethodLister); ok && slices.Contains(l.AllMethods(), "test-mean-novar") {
			t.Errorf("%s: AllMethods has a mechanism the kind refuses", c.kind.Name())
		}
	}
	for _, c := range []struct{ method, want string }{
		{"laplace", "kind mean-md, method laplace (params.levels or segments): needs a bounded output: laplace's output is unbounded"},
		{"duchi", "kind mean-md, method duchi (params.levels or segments): discretize(duchi,m=1): duchi is discrete already"},
		{"test-mean-pm", "kind mean-md, method test-mean-pm (params.levels or segments): discretize(test-mean-pm,m=1): test-mean-pm is neither"},
		{"pm", ""},
	} {
		err := MD{}.Check(mdCell(t, c.method, 1, map[string]string{"levels": "5"}))
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("mean-md %s with levels: %v, want %q", c.method, err, c.want)
		}
	}
}
