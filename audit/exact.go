package audit

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Resolution sets the grids of the exact audits. Zero fields take the
// defaults.
type Resolution struct {
	// Inputs is the number of intervals of the input grid of a
	// one-dimensional mechanism (default 1000: 1001 points with both
	// endpoints, plus 0). Discrete laws are then refined around every
	// extremum to 1/1024 of a step, which finds the kinks of piecewise
	// linear probabilities (N-output) between grid points.
	Inputs int
	// JointInputs is the number of intervals of the value grid of a group
	// mechanism, per group (default 200).
	JointInputs int
	// Outputs is the number of cells of the output grid of a density
	// (default 4000; 2000 per output group for a group mechanism): the
	// density is evaluated at the cells' midpoints and at every
	// breakpoint the mechanism exposes (Window) ± a relative 1e-9 of the
	// window, never on a breakpoint itself, where the density's value is a
	// convention.
	Outputs int
	// Buckets is the number of equal buckets of the output window for
	// BucketGivenBin at point inputs (default 400); infinite tails are two
	// more buckets.
	Buckets int
}

func (r Resolution) withDefaults() Resolution {
	if r.Inputs <= 0 {
		r.Inputs = 1000
	}
	if r.JointInputs <= 0 {
		r.JointInputs = 200
	}
	if r.Outputs <= 0 {
		r.Outputs = 4000
	}
	if r.Buckets <= 0 {
		r.Buckets = 400
	}
	return r
}

// tailMass is the probability left outside the output window of a density
// with unbounded support, at every input: 1e-12 on each side.
const tailMass = 1e-12

// AuditLaw audits a one-dimensional mechanism through the law it exposes,
// never through its ε formula, and holds it to m.Epsilon():
//
//   - [mechanisms.Discrete]: the output probabilities at every point of the
//     input grid, refined around each output's extrema; the audited ε is
//     max over outputs of ln(max_x P[y|x] / min_x P[y|x]) ([MethodExact]).
//   - [mechanisms.Continuous]: the densities on the output grid (and, with
//     [mechanisms.Atoms], the point masses as a discrete law), and the
//     probabilities of fine buckets at point inputs; the audited ε is the
//     largest log ratio of any of them ([MethodDensity]). Every one of
//     these ratios is a lower bound on the privacy loss, and the largest
//     equals it when the log density ratio reaches its supremum on an
//     interval longer than the output step: that is so for the piecewise
//     densities (constant on windows whose ends move linearly with x, the
//     worst pair being the domain's endpoints, whose windows are disjoint
//     or far apart) and for Laplace (ratio constant beyond the domain).
//
// ok is false when m exposes no law; audit it with [MonteCarlo].
func AuditLaw(m mechanisms.Mechanism, res Resolution) (f Finding, ok bool, err error) {
	if err := checkEps(m.Name(), m.Epsilon()); err != nil {
		return Finding{}, false, err
	}
	res = res.withDefaults()
	lo, hi := m.Domain()
	xs := inputGrid(lo, hi, res.Inputs)
	if d, isD := m.(mechanisms.Discrete); isD {
		return auditDiscrete(d, xs), true, nil
	}
	c, isC := m.(mechanisms.Continuous)
	if !isC {
		return Finding{}, false, nil
	}
	if f, err = auditContinuous(m, c, lo, hi, xs, res); err != nil {
		return Finding{}, false, err
	}
	return f, true, nil
}

// auditDiscrete audits a discrete law by its output probabilities at the
// inputs xs, refined around each output's extrema.
func auditDiscrete(d mechanisms.Discrete, xs []float64) Finding {
	outs := d.Outputs()
	f, _ := law{
		cells:         len(outs),
		groups:        []int{-1},
		vs:            xs,
		eval:          func(in Input, dst []float64) { d.Probabilities(in.V, dst) },
		label:         func(c int) string { return "y=" + num(outs[c]) },
		probabilities: true, sumToOne: true, refine: true,
	}.scan()
	f.Method = MethodExact
	return f
}

// auditContinuous audits a continuous law, at the inputs xs, by the worst
// of its densities on the output grid, its point masses (Atoms) and the
// probabilities of fine buckets.
func auditContinuous(m mechanisms.Mechanism, c mechanisms.Continuous, lo, hi float64, xs []float64, res Resolution) (Finding, error) {
	// A mechanism whose law is cheaper in batches (an external program's)
	// answers each input's grid in one call; its first error ends the
	// audit.
	b := &lawBatch{}
	b.batch, _ = m.(mechanisms.LawBatcher)
	ya, yb := window1D(c, lo, hi)
	ys := outputPoints(ya, yb, res.Outputs, breakpoints(m, lo, hi))
	f, ext := law{
		cells:  len(ys),
		groups: []int{-1},
		vs:     xs,
		eval: func(in Input, dst []float64) {
			if b.batch != nil {
				b.keep(b.batch.DensitiesAt(dst, ys, in.V), dst)
				return
			}
			for j, y := range ys {
				dst[j] = c.Density(y, in.V)
			}
		},
		label: func(j int) string { return "density at y=" + num(ys[j]) },
	}.scan()
	if note := edgeNote(ys, ext, 0); note != "" && f.Note == "" {
		f.Note = note
	}
	if a, hasAtoms := m.(mechanisms.Atoms); hasAtoms {
		f = worse(f, auditAtoms(a, xs))
	}
	edges := bucketEdges(c, ya, yb, res.Buckets)
	fb, _ := law{
		cells:  len(edges) - 1,
		groups: []int{-1},
		vs:     xs,
		eval: func(in Input, dst []float64) {
			if b.batch != nil {
				b.keep(b.batch.BucketsAt(dst, edges, in.V, in.V), dst)
				return
			}
			for j := range dst {
				dst[j] = c.BucketGivenBin(edges[j], edges[j+1], in.V, in.V)
			}
		},
		label:         func(j int) string { return "bucket (" + num(edges[j]) + ", " + num(edges[j+1]) + "]" },
		probabilities: true, sumToOne: true,
	}.scan()
	if b.err != nil {
		return Finding{}, fmt.Errorf("audit %s at ε = %v: %w", m.Name(), m.Epsilon(), b.err)
	}
	f = worse(f, fb)
	f.Method = MethodDensity
	return f, nil
}

// auditAtoms audits the point masses of a continuous law as a discrete
// law.
func auditAtoms(a mechanisms.Atoms, xs []float64) Finding {
	outs := a.AtomOutputs()
	f, _ := law{
		cells:         len(outs),
		groups:        []int{-1},
		vs:            xs,
		eval:          func(in Input, dst []float64) { a.AtomProbabilities(in.V, dst) },
		label:         func(c int) string { return "atom y=" + num(outs[c]) },
		probabilities: true, refine: true,
	}.scan()
	return f
}

// A lawBatch is the batched law of a mechanism, if it has one, and the
// first error of its calls: an error leaves NaN in the values asked for,
// and ends the audit once the scan is over.
type lawBatch struct {
	batch mechanisms.LawBatcher
	err   error
}

func (b *lawBatch) keep(err error, dst []float64) {
	if err != nil {
		if b.err == nil {
			b.err = err
		}
		for j := range dst {
			dst[j] = math.NaN()
		}
	}
}

// window1D returns the output window of a continuous mechanism: its output
// range, with an infinite end replaced by the point beyond which every
// input in {lo, hi} leaves at most tailMass of probability.
func window1D(c mechanisms.Continuous, lo, hi float64) (a, b float64) {
	a, b = c.OutputRange()
	if math.IsInf(a, -1) {
		a = math.Min(quantile(c, lo, tailMass), quantile(c, hi, tailMass))
	}
	if math.IsInf(b, 1) {
		b = math.Max(quantile(c, lo, 1-tailMass), quantile(c, hi, 1-tailMass))
	}
	return a, b
}

// quantile returns y with CDF(y | x) = p, by bracketing and bisection.
func quantile(c mechanisms.Continuous, x, p float64) float64 {
	lo, hi := x-1, x+1
	for step := 1.0; c.CDF(lo, x) > p && step < 1e300; step *= 2 {
		lo -= step
	}
	for step := 1.0; c.CDF(hi, x) < p && step < 1e300; step *= 2 {
		hi += step
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if c.CDF(mid, x) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// windower is implemented by the piecewise family: the report's density is
// high on [l, r] and low elsewhere.
type windower interface {
	Window(x float64) (l, r float64)
}

// breakpoints returns the density breakpoints m exposes at the inputs
// where the worst pair of a piecewise mechanism lies (the endpoints) and
// at 0: the ends of Window(x), of m itself or of a mixture's continuous
// component.
func breakpoints(m mechanisms.Mechanism, lo, hi float64) []float64 {
	var w windower
	switch v := m.(type) {
	case windower:
		w = v
	case mechanisms.Mixture:
		cont, _, _ := v.Components()
		w, _ = cont.(windower)
	}
	if w == nil {
		return nil
	}
	var bs []float64
	for _, x := range []float64{lo, (lo + hi) / 2, 0, hi} {
		if x < lo || x > hi {
			continue
		}
		l, r := w.Window(x)
		bs = append(bs, l, r)
	}
	return bs
}

// outputPoints returns the midpoints of n equal cells of [a, b], the
// points just inside a and b, and each breakpoint ± a relative 1e-9 of the
// window (when inside it), sorted and without duplicates.
func outputPoints(a, b float64, n int, bps []float64) []float64 {
	delta := 1e-9 * (b - a)
	ys := make([]float64, 0, n+2+2*len(bps))
	for i := range n {
		ys = append(ys, a+(b-a)*(float64(i)+0.5)/float64(n))
	}
	ys = append(ys, a+delta, b-delta)
	for _, p := range bps {
		for _, y := range []float64{p - delta, p + delta} {
			if y > a && y < b {
				ys = append(ys, y)
			}
		}
	}
	slices.Sort(ys)
	return slices.Compact(ys)
}

// bucketEdges returns n equal buckets of [a, b], with an infinite bucket
// on each side where the output range is unbounded.
func bucketEdges(c mechanisms.Continuous, a, b float64, n int) []float64 {
	lo, hi := c.OutputRange()
	edges := make([]float64, 0, n+3)
	if math.IsInf(lo, -1) {
		edges = append(edges, lo)
	}
	for i := 0; i <= n; i++ {
		edges = append(edges, a+(b-a)*float64(i)/float64(n))
	}
	edges[len(edges)-1] = b
	if math.IsInf(hi, 1) {
		edges = append(edges, hi)
	}
	return edges
}

// edgeNote reports a density ratio that still rises at either end of the
// output window above everything inside its inner 90 %: the privacy loss
// then grows with the window and may be unbounded (Juarez–Korolova's
// two-scale Laplace, Prop. 2). ys are the output points of one output
// group, whose cells start at offset in ext.
func edgeNote(ys []float64, ext *extremes, offset int) string {
	if len(ys) < 3 {
		return ""
	}
	a, b := ys[0], ys[len(ys)-1]
	w := b - a
	logR := func(j int) float64 {
		hi, lo := ext.hi[offset+j], ext.lo[offset+j]
		switch {
		case !(hi > 0):
			return math.Inf(-1)
		case !(lo > 0):
			return math.Inf(1)
		}
		return math.Log(hi / lo)
	}
	inner := math.Inf(-1)
	for j, y := range ys {
		if y >= a+0.05*w && y <= b-0.05*w {
			inner = max(inner, logR(j))
		}
	}
	edge := max(logR(0), logR(len(ys)-1))
	if edge > inner+1e-6 {
		return "the density ratio still rises at the edge of the output window [" + num(a) + ", " + num(b) +
			"] (ln ratio " + num(inner) + " inside, " + num(edge) + " at the edge): the privacy loss grows with the window and may be unbounded"
	}
	return ""
}

// num formats a number for a label.
func num(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
