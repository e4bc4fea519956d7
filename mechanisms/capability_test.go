package mechanisms_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
)

const (
	capV = mechanisms.CapVariance
	capL = mechanisms.CapDiscreteLaw
	capB = mechanisms.CapBuckets
	capO = mechanisms.CapBounded
	capD = mechanisms.CapDensity
)

// builtinCapabilities is the classification of the built-in mechanisms,
// written out by hand from their papers: a wrong interface assertion (or a
// wrong rule in CapabilitiesOf) shows up as a difference. A mechanism
// registered later and absent here is checked by the generic rules only.
var builtinCapabilities = map[string][]mechanisms.Capability{
	"laplace":       {capV, capB, capD},       // unbounded: neither ULE nor EMS
	"duchi":         {capV, capL, capB, capO}, // two outputs ±C
	"pm":            {capV, capB, capO, capD}, // density on [-C, C]
	"pm-sub":        {capV, capB, capO, capD}, //
	"pm-opt":        {capV, capB, capO, capD}, //
	"sw":            {capV, capB, capO, capD}, // biased, de-biased; [-b, 1+b]
	"three-outputs": {capV, capL, capB, capO}, //
	"n-output":      {capV, capL, capB, capO}, //
	"hm":            {capV, capB, capO},       // atoms: no density
	"hm-tp":         {capV, capB, capO},       //
	"hm-np":         {capV, capB, capO},       //
	"bernoulli":     {capV, capL, capB, capO}, // biased, de-biased
	"nprr":          {capV, capL, capB, capO}, // biased, de-biased
}

// TestCapabilitiesOfBuiltins: every built-in mechanism has exactly the
// capabilities of its paper; every registered one has capabilities that
// agree with its interfaces.
func TestCapabilitiesOfBuiltins(t *testing.T) {
	names := mechanisms.Names()
	for name := range builtinCapabilities {
		if !slices.Contains(names, name) {
			t.Errorf("%s is classified here but not registered", name)
		}
	}
	for _, name := range names {
		m, err := mechanisms.New(name, 1)
		if err != nil {
			t.Fatal(err)
		}
		got := mechanisms.CapabilitiesOf(m)
		if want, ok := builtinCapabilities[name]; ok && !slices.Equal(got, want) {
			t.Errorf("CapabilitiesOf(%s) = %v, want %v", name, got, want)
		}
		checkCapabilityRules(t, m, got)
	}
}

// checkCapabilityRules checks caps against m's interfaces directly.
func checkCapabilityRules(t *testing.T, m mechanisms.Mechanism, caps []mechanisms.Capability) {
	t.Helper()
	has := func(c mechanisms.Capability) bool { return slices.Contains(caps, c) }
	_, disc := m.(mechanisms.Discrete)
	_, vari := m.(mechanisms.Variancer)
	_, buck := m.(mechanisms.Bucketer)
	_, dens := m.(mechanisms.DensityCDF)
	_, atoms := m.(mechanisms.Atoms)
	bounded := disc
	if r, ok := m.(mechanisms.OutputRanger); ok && !disc {
		lo, hi := r.OutputRange()
		bounded = !math.IsInf(lo, 0) && !math.IsInf(hi, 0)
	}
	for _, c := range []struct {
		cap  mechanisms.Capability
		want bool
	}{{capV, vari}, {capL, disc}, {capB, disc || buck}, {capO, bounded}, {capD, dens && !atoms}} {
		if has(c.cap) != c.want {
			t.Errorf("%s: has %s = %v, want %v (its interfaces)", m.Name(), c.cap, has(c.cap), c.want)
		}
		if mechanisms.Has(m, c.cap) != c.want {
			t.Errorf("%s: Has(%s) = %v, want %v", m.Name(), c.cap, !c.want, c.want)
		}
	}
}

// bare is a mechanism with no optional interface at all.
type bare struct{}

func (bare) Name() string                            { return "bare" }
func (bare) Epsilon() float64                        { return 1 }
func (bare) Domain() (lo, hi float64)                { return -1, 1 }
func (bare) Perturb(x float64, _ *rand.Rand) float64 { return x }
func (bare) PerturbBatch(dst, xs []float64, _ *rand.Rand) error {
	copy(dst, xs)
	return nil
}

// densityOnly offers a density and a CDF (a standard logistic on an
// unbounded range) and nothing else: what an external program declaring a
// density alone looks like.
type densityOnly struct{ bare }

func (densityOnly) Name() string                  { return "logistic-only" }
func (densityOnly) OutputRange() (lo, hi float64) { return math.Inf(-1), math.Inf(1) }
func (densityOnly) Density(y, x float64) float64 {
	e := math.Exp(-math.Abs(y - x))
	return e / ((1 + e) * (1 + e))
}
func (densityOnly) CDF(y, x float64) float64 { return 1 / (1 + math.Exp(x-y)) }

// boundedNoVariance: a bounded density with exact buckets, no variance.
type boundedNoVariance struct{ bare }

func (boundedNoVariance) Name() string                  { return "uniform-novar" }
func (boundedNoVariance) OutputRange() (lo, hi float64) { return -2, 2 }
func (boundedNoVariance) Density(y, _ float64) float64  { return 0.25 }
func (boundedNoVariance) CDF(y, _ float64) float64      { return min(max((y+2)/4, 0), 1) }
func (boundedNoVariance) BucketGivenBin(a, b, _, _ float64) float64 {
	return min(max((b+2)/4, 0), 1) - min(max((a+2)/4, 0), 1)
}

// withAtoms is boundedNoVariance with a point mass declared.
type withAtoms struct{ boundedNoVariance }

func (withAtoms) Name() string                             { return "with-atoms" }
func (withAtoms) AtomOutputs() []float64                   { return []float64{0} }
func (withAtoms) AtomProbabilities(_ float64, d []float64) { d[0] = 0 }

// TestCapabilitiesOfWrappers: a type has the capabilities of the
// interfaces it implements, nothing more.
func TestCapabilitiesOfWrappers(t *testing.T) {
	for _, c := range []struct {
		m    mechanisms.Mechanism
		want []mechanisms.Capability
	}{
		{bare{}, nil},
		{densityOnly{}, []mechanisms.Capability{capD}},
		{boundedNoVariance{}, []mechanisms.Capability{capB, capO, capD}},
		{withAtoms{}, []mechanisms.Capability{capB, capO}},
	} {
		got := mechanisms.CapabilitiesOf(c.m)
		if !slices.Equal(got, c.want) {
			t.Errorf("CapabilitiesOf(%s) = %v, want %v", c.m.Name(), got, c.want)
		}
		checkCapabilityRules(t, c.m, got)
	}
}

// TestNeedMessages: a refusal names the capability and says why.
func TestNeedMessages(t *testing.T) {
	lap, _ := mechanisms.NewLaplace(1)
	hm, _ := mechanisms.NewHM(1)
	pm, _ := mechanisms.NewPM(1)
	for _, c := range []struct {
		m    mechanisms.Mechanism
		need mechanisms.Needs
		want string // "" = met
	}{
		{lap, mechanisms.Needs{All: []mechanisms.Capability{capO}}, "needs a bounded output: laplace's output is unbounded"},
		{lap, mechanisms.Needs{All: []mechanisms.Capability{capO, capB}}, "needs a bounded output: laplace's output is unbounded"},
		{pm, mechanisms.Needs{All: []mechanisms.Capability{capO, capB}}, ""},
		{densityOnly{}, mechanisms.Needs{All: []mechanisms.Capability{capB}}, "needs bucket probabilities: logistic-only has neither a discrete law nor exact bucket probabilities"},
		{boundedNoVariance{}, mechanisms.Needs{All: []mechanisms.Capability{capV}}, "needs an unbiased report with a variance: uniform-novar has no closed-form variance"},
		{hm, mechanisms.Needs{All: []mechanisms.Capability{capV}, Any: []mechanisms.Capability{capL, capD}}, "needs a discrete law or a density: hm has neither (hm's output is not a finite alphabet with exact probabilities; hm's output mixes point masses with a density)"},
		{lap, mechanisms.Needs{All: []mechanisms.Capability{capV}, Any: []mechanisms.Capability{capL, capD}}, ""},
		{bare{}, mechanisms.Needs{}, ""},
	} {
		err := c.need.Check(c.m)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s, needs %s: %v", c.m.Name(), c.need, err)
		case c.want != "" && (err == nil || err.Error() != c.want):
			t.Errorf("%s, needs %s: %v, want %q", c.m.Name(), c.need, err, c.want)
		}
		var ne *mechanisms.NeedError
		if err != nil && (!errors.As(err, &ne) || ne.Mechanism != c.m.Name()) {
			t.Errorf("%s: error %v is not a NeedError naming the mechanism", c.m.Name(), err)
		}
	}
	if err := mechanisms.Need(lap, capV, capD); err != nil {
		t.Error(err)
	}
	if err := mechanisms.Need(lap, capV, capO); err == nil || !strings.Contains(err.Error(), "bounded output") {
		t.Errorf("Need(laplace, variance, bounded) = %v", err)
	}
	if got := (mechanisms.Needs{All: []mechanisms.Capability{capV}, Any: []mechanisms.Capability{capL, capD}}).String(); got != "variance, discrete-law|density" {
		t.Errorf("Needs.String = %q", got)
	}
}
