package mean

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// MD is kind mean-md, multi-dimensional mean estimation (Zhao et al.
// Section VI, Figs 6, 7, 11, 14): every user holds a row of the dataset's
// Dim() attributes and sends one report of the whole vector through
// mechanisms.NewVector(method, d, ε) ("duchi": Duchi et al.'s
// multi-dimensional mechanism; "laplace": Lap(2d/ε) per attribute; any other
// registered mechanism: Algorithm 6, k = max{1, min{d, ⌊ε/2.5⌋}} coordinates
// at ε/k, scaled by d/k). The collector averages every attribute; the truth
// is the dataset's own per-attribute means over the cell's n rows.
//
// Metrics (the paper does not say how its MSE averages over attributes,
// ERRATA E3.17; this kind takes the mean over the d attributes):
//
//	mse   (1/d)·Σ_j (estimate_j - truth_j)²; theory, exact:
//	      (1/d)·Σ_j (1/n²)·Σ_i Var(Y_ij | x_ij)
//	abs   (1/d)·Σ_j |estimate_j - truth_j|; no theory
//	bits  the length of one user's message in a fixed-length code,
//	      ⌈log2 binom(d, k)⌉ bits for the sampled coordinates plus
//	      k·⌈log2(2m+1)⌉ for their values; discretised cells only; the theory
//	      is the same number
//
// Parameters (the spec's params axes; any other key is an error):
//
//	levels    the number of output possibilities 2m+1 of Algorithm 5
//	          (Section V-D, eq. (34)): an odd number ≥ 3; "0" = no
//	          discretisation
//	segments  the paper's "number of segments" 2m ("2000 segments" is
//	          m = 1000, Section VII-C): an even number ≥ 2; "0" = none
//
// At most one of them may be given. Discretisation rounds each sampled
// coordinate's 1-D report before the d/k scaling; it applies to the
// piecewise family (pm, pm-sub, pm-opt) and to mixtures with one (hm,
// hm-tp) and is an error for the other methods.
type MD struct{}

var mdMetrics = []string{"mse", "abs", "bits"}

// mdParams bounds levels and segments by the largest grid of Algorithm 5;
// parity is checked by mdGrid.
var mdParams = experiment.ParamSet{
	experiment.IntParam("levels", 0, 2*mechanisms.MaxDiscretizeM+1, "output possibilities 2m+1 of Algorithm 5: odd, ≥ 3; 0 = none (default)"),
	experiment.IntParam("segments", 0, 2*mechanisms.MaxDiscretizeM, `the paper's "number of segments" 2m: even, ≥ 2; 0 = none (default)`),
}

// Name implements experiment.Kind.
func (MD) Name() string { return "mean-md" }

// Metrics implements experiment.Kind.
func (MD) Metrics() []string { return mdMetrics }

// Params implements experiment.Kind.
func (MD) Params() experiment.ParamSet { return mdParams }

// AllMethods implements experiment.MethodLister: every registered mechanism.
func (MD) AllMethods() []string { return takers(estimateNeeds) }

// Check implements experiment.Kind.
func (MD) Check(c *experiment.CellSpec) error {
	if err := c.Dataset.Ungrouped(MD{}.Name()); err != nil {
		return err
	}
	_, _, err := mdVector(c)
	return err
}

// mdGrid returns the grid parameter m of Algorithm 5 from the cell's
// params, 0 for none.
func mdGrid(p experiment.Params) (int, error) {
	levels, segments := p.Int("levels", 0), p.Int("segments", 0)
	switch {
	case levels != 0 && segments != 0:
		return 0, mdParams.Errorf("segments", "give the grid once: axes.params.levels is given too")
	case levels != 0 && (levels < 3 || levels%2 == 0):
		return 0, mdParams.Errorf("levels", "%d: the number of output possibilities 2m+1 must be odd and ≥ 3 (or 0 for none)", levels)
	case segments != 0 && segments%2 == 1:
		return 0, mdParams.Errorf("segments", "%d: the number of segments 2m must be even and ≥ 2 (or 0 for none)", segments)
	case levels != 0:
		return (levels - 1) / 2, nil
	}
	return segments / 2, nil
}

// mdVector builds the cell's vector mechanism and returns it with the grid
// parameter m (0 without discretisation).
func mdVector(c *experiment.CellSpec) (mechanisms.Vector, int, error) {
	m, err := mdGrid(c.Params)
	if err != nil {
		return nil, 0, err
	}
	if m == 0 && slices.Contains(c.Metrics, "bits") {
		return nil, 0, fmt.Errorf("metric bits: defined for discretised cells only (give params.levels or params.segments)")
	}
	d := c.Dataset.Dim()
	need := estimateNeeds
	if m != 0 {
		need = gridNeeds
	}
	// The capabilities do not depend on ε: checked on the mechanism at the
	// cell's ε (a budget it refuses is reported below, at the ε it runs).
	if m1, err := mechanisms.New(c.Method, c.Eps); err == nil {
		if err := need.Check(MD{}.Name(), m1); err != nil {
			return nil, 0, err
		}
	}
	if m == 0 {
		v, err := mechanisms.NewVector(c.Method, d, c.Eps)
		return v, 0, err
	}
	info, ok := mechanisms.Lookup(c.Method)
	if !ok {
		return nil, 0, fmt.Errorf("unknown mechanism %q (valid: %s)", c.Method, strings.Join(mechanisms.Names(), ", "))
	}
	inner := func(eps float64) (mechanisms.Mechanism, error) {
		m1, err := info.New(eps)
		if err != nil {
			return nil, err
		}
		return mechanisms.NewDiscretized(m1, m)
	}
	v, err := mechanisms.NewSampleKofD(c.Method, inner, d, c.Eps)
	return v, m, err
}

// Prepare implements experiment.Kind.
func (MD) Prepare(_ context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	v, m, err := mdVector(c)
	if err != nil {
		return nil, err
	}
	d := c.Dataset.Dim()
	n := c.N
	xs := c.Dataset.Values[:n*d]
	// CoordinateVariance depends on the coordinate's own input only, so
	// the theory is one sum over all n·d values.
	var s float64
	for _, x := range xs {
		s += v.CoordinateVariance(x)
	}
	fn := float64(n)
	r := &mdRun{
		v:       v,
		d:       d,
		xs:      xs,
		truth:   c.Dataset.AttributeMeans(n),
		mse:     s / (float64(d) * fn * fn),
		bits:    math.NaN(),
		metrics: c.Metrics,
	}
	if m > 0 {
		if kd, ok := v.(*mechanisms.SampleKofD); ok {
			if z, ok := kd.Inner().(*mechanisms.Discretized); ok {
				r.bits = float64(subsetBits(d, kd.K()) + kd.K()*z.Bits())
			}
		}
	}
	return r, nil
}

// subsetBits returns ⌈log2 binom(d, k)⌉, the bits that name k of d
// coordinates.
func subsetBits(d, k int) int {
	c := new(big.Int).Binomial(int64(d), int64(k))
	return c.Sub(c, big.NewInt(1)).BitLen()
}

type mdRun struct {
	v       mechanisms.Vector
	d       int
	xs      []float64 // n rows of d values, row-major
	truth   []float64
	mse     float64
	bits    float64
	metrics []string
}

// Trial simulates every user once. The two d-vectors are the trial's
// scratch; nothing is allocated per report.
func (r *mdRun) Trial(_ context.Context, _ int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	d := r.d
	sums := make([]float64, 2*d)
	sums, dst := sums[:d], sums[d:]
	for i := 0; i < len(r.xs); i += d {
		if err := r.v.PerturbVector(dst, r.xs[i:i+d], rng); err != nil {
			return out, err
		}
		for j, y := range dst {
			sums[j] += y
		}
	}
	n := float64(len(r.xs) / d)
	var sq, abs float64
	for j, s := range sums {
		e := s/n - r.truth[j]
		sq += e * e
		abs += math.Abs(e)
	}
	for _, m := range r.metrics {
		var v float64
		switch m {
		case "mse":
			v = sq / float64(d)
		case "abs":
			v = abs / float64(d)
		case "bits":
			v = r.bits
		}
		out = append(out, experiment.Measurement{Metric: m, Value: v})
	}
	return out, nil
}

func (r *mdRun) Theory(metric string) (float64, bool) {
	switch metric {
	case "mse":
		return r.mse, true
	case "bits":
		return r.bits, !math.IsNaN(r.bits)
	}
	return 0, false
}
