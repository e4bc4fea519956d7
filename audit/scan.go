package audit

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

// probTol is how far outside [0, 1] a computed probability may fall, or
// its sum from 1, before the law is declared invalid: rounding in a
// correct implementation stays far below it (the mechanisms' own tests
// hold 1e-12).
const probTol = 1e-9

// extremes keeps, for every output cell, the largest and the smallest
// probability (or density) seen over the inputs, and where.
type extremes struct {
	hi, lo     []float64
	hiAt, loAt []Input
}

func newExtremes(k int) *extremes {
	e := &extremes{
		hi: make([]float64, k), lo: make([]float64, k),
		hiAt: make([]Input, k), loAt: make([]Input, k),
	}
	for i := range e.hi {
		e.hi[i], e.lo[i] = math.Inf(-1), math.Inf(1)
	}
	return e
}

func (e *extremes) add(in Input, ps []float64) {
	for i, p := range ps {
		if p > e.hi[i] {
			e.hi[i], e.hiAt[i] = p, in
		}
		if p < e.lo[i] {
			e.lo[i], e.loAt[i] = p, in
		}
	}
}

// worst returns the output cell of the largest ratio hi/lo and that ratio's
// log: +Inf when some output is possible at one input and not at another.
// Cells impossible at every input (hi ≤ 0) do not count. It returns -1
// when every cell is impossible everywhere. Among cells whose ratios tie
// to rounding (a plateau, as for every tight mechanism) it picks the one
// whose input pair is furthest apart, the pair a reader recognises (the
// endpoints) and a sampler separates best.
func (e *extremes) worst() (cell int, logRatio float64) {
	cell, logRatio = -1, math.Inf(-1)
	ratio := func(i int) float64 {
		if !(e.hi[i] > 0) {
			return math.Inf(-1)
		}
		if !(e.lo[i] > 0) {
			return math.Inf(1)
		}
		return math.Log(e.hi[i] / e.lo[i])
	}
	for i := range e.hi {
		if r := ratio(i); r > logRatio {
			cell, logRatio = i, r
		}
	}
	if cell < 0 {
		return cell, logRatio
	}
	tie := func(r float64) bool {
		return r == logRatio || math.Abs(r-logRatio) <= 1e-12*math.Abs(logRatio)
	}
	for i := range e.hi {
		if tie(ratio(i)) && spread(e.hiAt[i], e.loAt[i]) > spread(e.hiAt[cell], e.loAt[cell]) {
			cell = i
		}
	}
	return cell, ratio(cell)
}

// spread is how far apart two inputs are: a change of group counts more
// than any change of value.
func spread(a, b Input) float64 {
	s := math.Abs(a.V - b.V)
	if a.G != b.G {
		s += 1e6
	}
	return s
}

// law is an output law over a finite set of output cells, evaluated at any
// input: the probabilities of a discrete mechanism (or of its atoms, or of
// buckets), or densities at fixed output points.
type law struct {
	cells int
	// groups are the input groups ({-1} for a one-dimensional mechanism);
	// vs the sorted input values, the same for every group.
	groups []int
	vs     []float64
	eval   func(in Input, dst []float64)
	label  func(cell int) string
	// probabilities: every value must lie in [0, 1]; sumToOne: and sum to 1.
	probabilities, sumToOne bool
	// refine: after the grid scan, search the neighbourhood of each
	// extremum on a finer grid (for laws that are continuous in the input
	// with extrema at kinks between grid points).
	refine bool
}

// scan evaluates l at every input and returns the worst cell's finding and
// the extremes of every cell.
func (l law) scan() (Finding, *extremes) {
	e := newExtremes(l.cells)
	ps := make([]float64, l.cells)
	visit := func(in Input) error {
		l.eval(in, ps)
		if err := l.check(in, ps); err != nil {
			return err
		}
		e.add(in, ps)
		return nil
	}
	for _, g := range l.groups {
		for _, v := range l.vs {
			if err := visit(Input{g, v}); err != nil {
				return l.invalid(err), e
			}
		}
	}
	if l.refine {
		for c := range l.cells {
			if !(e.hi[c] > 0) {
				continue
			}
			for _, top := range []bool{true, false} {
				if err := l.refineAround(e, c, top, visit); err != nil {
					return l.invalid(err), e
				}
			}
		}
	}
	c, r := e.worst()
	if c < 0 {
		return Finding{Epsilon: 0, X0: Input{G: l.groups[0]}, X1: Input{G: l.groups[0]}, Note: "every output cell has probability 0"}, e
	}
	return Finding{Epsilon: r, X0: e.hiAt[c], X1: e.loAt[c], Output: l.label(c)}, e
}

// refineAround evaluates the law on two nested grids of 64 steps around
// the extremum of cell (its maximum if top, else its minimum), within the
// group of that extremum: first between its two grid neighbours, then
// within one step of the first level's best point. The extremum of a
// piecewise linear probability lies at a kink, which the first level
// brackets to 1/32 of a grid step and the second to 1/1024 of one; the
// extremes then hold the best point found.
func (l law) refineAround(e *extremes, cell int, top bool, visit func(Input) error) error {
	at := func() Input {
		if top {
			return e.hiAt[cell]
		}
		return e.loAt[cell]
	}
	c := at()
	i := sort.SearchFloat64s(l.vs, c.V)
	a := l.vs[max(i-1, 0)]
	b := l.vs[min(i+1, len(l.vs)-1)]
	const steps = 64
	for range 2 {
		if !(b > a) {
			return nil
		}
		h := (b - a) / steps
		for s := 0; s <= steps; s++ {
			if err := visit(Input{c.G, a + h*float64(s)}); err != nil {
				return err
			}
		}
		c = at()
		a, b = max(a, c.V-h), min(b, c.V+h)
	}
	return nil
}

// lawError is an evaluation that is not a probability law.
type lawError struct {
	in   Input
	cell int // -1 for the sum
	msg  string
}

func (e *lawError) Error() string { return e.msg }

// check validates one evaluation.
func (l law) check(in Input, ps []float64) error {
	sum := 0.0
	for c, p := range ps {
		if math.IsNaN(p) {
			return &lawError{in, c, fmt.Sprintf("the value of %s at %v is NaN", l.label(c), in)}
		}
		if p < 0 && p > -probTol {
			ps[c] = 0 // rounding below zero
			p = 0
		}
		if p < 0 || (l.probabilities && p > 1+probTol) {
			return &lawError{in, c, fmt.Sprintf("Pr[%s | %v] = %.6g is not a probability", l.label(c), in, p)}
		}
		sum += p
	}
	if l.sumToOne && math.Abs(sum-1) > probTol {
		return &lawError{in, -1, fmt.Sprintf("the probabilities at %v sum to 1%+.3g", in, sum-1)}
	}
	return nil
}

// invalid is the finding of a law that is not a probability law: no ratio
// bound can hold for it (ε = +Inf), and the reports cannot follow the law
// it states. X0 = X1 is the offending input.
func (l law) invalid(err error) Finding {
	f := Finding{Epsilon: math.Inf(1), Note: "invalid law: " + err.Error()}
	var le *lawError
	if errors.As(err, &le) {
		f.X0, f.X1 = le.in, le.in
		if le.cell >= 0 {
			f.Output = l.label(le.cell)
		}
	}
	return f
}

// inputGrid returns n+1 equally spaced points from lo to hi, both included,
// and 0 when it lies strictly inside and is not a grid point already.
func inputGrid(lo, hi float64, n int) []float64 {
	g := make([]float64, n+1)
	for i := range g {
		g[i] = lo + (hi-lo)*float64(i)/float64(n)
	}
	g[n] = hi
	if lo < 0 && hi > 0 {
		g = append(g, 0)
	}
	slices.Sort(g)
	return slices.Compact(g)
}

// worse returns the finding with the larger audited ε (a, on ties).
func worse(a, b Finding) Finding {
	if b.Epsilon > a.Epsilon {
		return b
	}
	return a
}
