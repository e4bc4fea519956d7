package multiservice

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/kinds/kindtest"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// TestMultiserviceNeedsRefusals: a method refuses a mechanism that lacks
// what it needs, naming the kind, the method and the capability; the test
// mechanisms are new types, so that only their capabilities decide.
func TestMultiserviceNeedsRefusals(t *testing.T) {
	kindtest.Register(t, "test-ms-density-only", "Laplace without bucket probabilities", kindtest.NewDensityOnly)
	kindtest.Register(t, "test-ms-no-variance", "PM without its variance", kindtest.NewNoVariance)
	for _, c := range []struct {
		method, services string
		metrics          []string
		want             string // "" = taken
	}{
		{"ule", "sr,test-ms-density-only", []string{"js-div"}, "kind multiservice, method ule: needs a bounded output: test-ms-density-only's output is unbounded"},
		{"ems-2", "sr,test-ms-density-only", []string{"js-div"}, "kind multiservice, method ems-2: needs a bounded output: test-ms-density-only's output is unbounded"},
		{"ems-1", "sr,test-ms-density-only", []string{"js-div"}, ""},
		{"uwa", "sr,test-ms-density-only", nil, ""},
		{"ua", "sr,test-ms-density-only", nil, ""},
		{"single-2", "sr,test-ms-density-only", nil, ""},
		{"uwa", "sr,hm", nil, "kind multiservice, method uwa: needs a discrete law or a density: hm has neither"},
		{"ua", "sr,test-ms-no-variance", nil, "kind multiservice, method ua: needs an unbiased report with a variance: test-ms-no-variance has no closed-form variance"},
		{"ule", "sr,test-ms-no-variance", []string{"js-div"}, "kind multiservice, method ule: needs an unbiased report with a variance"},
	} {
		cell := cellSpec(t, c.method, 1, 1000, map[string]string{"services": c.services}, c.metrics...)
		err := Kind{}.Check(cell)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s over %s: refused: %v", c.method, c.services, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s over %s: %v, want an error containing %q", c.method, c.services, err, c.want)
		case c.want != "":
			var ne *experiment.NeedsError
			var me *mechanisms.NeedError
			if !errors.As(err, &ne) || !errors.As(err, &me) {
				t.Errorf("%s over %s: %v is not a NeedsError wrapping a NeedError", c.method, c.services, err)
			}
		}
	}
}

// TestMultiserviceUWAUnboundedDensity: UWA takes an unbounded mechanism
// with a density that is not *mechanisms.Laplace (Laplace in a new type,
// without bucket probabilities) through its CDF, and its estimate on the
// same reports is Laplace's own (closed-form window) to rounding.
func TestMultiserviceUWAUnboundedDensity(t *testing.T) {
	kindtest.Register(t, "test-ms-lap-copy", "Laplace in a new type", kindtest.NewDensityOnly)
	run := func(services string) (*cellRun, float64) {
		cell := cellSpec(t, "uwa", 1, 4000, map[string]string{"services": services})
		if err := (Kind{}).Check(cell); err != nil {
			t.Fatalf("%s: %v", services, err)
		}
		cr, err := Kind{}.Prepare(context.Background(), cell)
		if err != nil {
			t.Fatal(err)
		}
		r := cr.(*cellRun)
		out, err := r.Trial(context.Background(), 0, rand.New(rand.NewPCG(7, 7)), nil)
		if err != nil {
			t.Fatal(err)
		}
		return r, out[0].Value
	}
	_, lap := run("sr,lap,pm")
	_, cp := run("sr,test-ms-lap-copy,pm")
	// The reports are bit-identical (the copy perturbs as Laplace does);
	// the rows differ by a factor per row and by rounding only.
	if !(math.Abs(lap-cp) <= 1e-9*math.Max(lap, 1e-12)) || math.IsNaN(cp) {
		t.Errorf("UWA squared error: laplace %v, its copy %v", lap, cp)
	}
	m, _ := mechanisms.New("test-ms-lap-copy", 1)
	if got := experiment.MethodsFor(Kind{}, m); !slices.Contains(got, "uwa") || slices.Contains(got, "ule") {
		t.Errorf("MethodsFor(copy) = %v, want uwa and not ule", got)
	}
}
