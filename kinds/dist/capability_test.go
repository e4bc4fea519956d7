package dist

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

// TestDistNeedsRefusals: a registered mechanism without a bounded output
// (Laplace, and an unbounded test-only one with a density) is refused
// naming the kind, the method and the capability, not as an unknown
// method; a name that is no mechanism is unknown.
func TestDistNeedsRefusals(t *testing.T) {
	kindtest.Register(t, "test-dist-unbounded", "Laplace without bucket probabilities", kindtest.NewDensityOnly)
	for _, c := range []struct{ method, want string }{
		{"laplace", "kind noutput-dist, method laplace: needs a bounded output: laplace's output is unbounded"},
		{"test-dist-unbounded", "kind noutput-dist, method test-dist-unbounded: needs a bounded output: test-dist-unbounded's output is unbounded"},
		{"gauss", `unknown method "gauss"`},
	} {
		err := kindtest.CheckRaw(Kind{}, &experiment.CellSpec{Method: c.method, Eps: 1}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.method, err, c.want)
		}
		var ne *experiment.NeedsError
		if c.method != "gauss" && !errors.As(err, &ne) {
			t.Errorf("%s: %v is not a NeedsError", c.method, err)
		}
	}
}

// TestDistTakesRegisteredBounded: registered bounded mechanisms with bucket
// probabilities that the old list did not name run: Three-Outputs in a new
// type (a discrete law, its matrix by quadrature) gives three-outputs' own
// estimate on the same reports, and PM in a new type (exact
// BucketGivenBin on equal buckets) a W1 near PM's. Both appear in
// AllMethods and MethodsFor.
func TestDistTakesRegisteredBounded(t *testing.T) {
	kindtest.Register(t, "test-dist-three", "Three-Outputs in a new type", kindtest.NewDiscreteCopy)
	kindtest.Register(t, "test-dist-pm", "PM in a new type", kindtest.NewContinuousCopy)
	w1 := func(method string) float64 {
		c := betaCell(t, method, 2, 20000, nil)
		run, err := Kind{}.Prepare(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		out, err := run.Trial(context.Background(), 0, rand.New(rand.NewPCG(3, 3)), nil)
		if err != nil {
			t.Fatal(err)
		}
		return out[0].Value
	}
	if a, b := w1("three-outputs"), w1("test-dist-three"); !(math.Abs(a-b) <= 1e-6*a) {
		t.Errorf("W1: three-outputs %v, its copy %v", a, b)
	}
	if a, b := w1("pm"), w1("test-dist-pm"); !(b > 0 && b < 2*a+0.01) {
		t.Errorf("W1: pm %v, its copy %v", a, b)
	}
	all := Kind{}.AllMethods()
	for _, name := range []string{"test-dist-three", "test-dist-pm"} {
		if !slices.Contains(all, name) {
			t.Errorf("AllMethods lacks %s: %v", name, all)
		}
		m, _ := mechanisms.New(name, 1)
		if got := experiment.MethodsFor(Kind{}, m); !slices.Equal(got, []string{name}) {
			t.Errorf("MethodsFor(%s) = %v", name, got)
		}
	}
	if slices.Contains(all, "laplace") {
		t.Errorf("AllMethods has laplace: %v", all)
	}
}

// TestDistRunsEveryTaker: every registered mechanism the kind takes beyond
// the paper's methods (computed, not listed: duchi, hm, pm-opt, bernoulli,
// nprr today) runs a trial whose W1 is finite and below 0.5 (a two-output
// mechanism identifies only the mean: duchi's and bernoulli's W1 are about
// 0.14 here, the same, one by the exact matrix, one by quadrature).
func TestDistRunsEveryTaker(t *testing.T) {
	for _, name := range (Kind{}).AllMethods() {
		if slices.Contains(ownMethods, name) || slices.Contains(paperMethods, name) {
			continue
		}
		c := betaCell(t, name, 4, 20000, map[string]string{"bins": "64"})
		run, err := Kind{}.Prepare(context.Background(), c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out, err := run.Trial(context.Background(), 0, rand.New(rand.NewPCG(5, 5)), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if w1 := out[0].Value; !(w1 >= 0 && w1 < 0.5) {
			t.Errorf("%s: W1 = %v", name, w1)
		}
	}
}
