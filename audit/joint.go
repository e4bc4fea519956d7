package audit

import (
	"fmt"
	"math"
)

// AuditJointLaw audits a group mechanism over (g, v) through the law it
// exposes and holds it to ClaimedEpsilon() (never to a true ε it may also
// state):
//
//   - [JointDiscrete] with ValueOutputs() != nil: Pr[g′, v′ | g, v] for every
//     group g and every v on the input grid (Resolution.Inputs intervals
//     with the endpoints and 0), refined around each extremum, over every
//     output (g′, v′): [MethodExact]. The probabilities of stochastic
//     rounding are piecewise linear in v with kinks on the k-grid, which
//     the refinement finds wherever they fall.
//   - [JointContinuous]: the joint density at every group g′ and every
//     point of an output grid (Resolution.Outputs/2 cells per group) for
//     every g and v on a grid of Resolution.JointInputs intervals (200:
//     coarser than for one dimension, as the cost is d² times larger):
//     [MethodDensity]. A group mechanism's joint density is a·f(y|v) in
//     the reported group and q·f(y|neutral) in the others (Algorithm 3), so
//     its extremes over v are the value density's, which for Laplace and
//     the piecewise family lie at the domain's ends, on every grid. The
//     output window is found from the density itself: where it falls below
//     1e-12 of its peak at every probed input (the support edge for a
//     bounded report). A ratio still rising at the window's edge is
//     reported in the note (the loss may be unbounded).
//
// ok is false when m exposes neither law.
func AuditJointLaw(m Joint, res Resolution) (f Finding, ok bool, err error) {
	if err := checkEps(m.Name(), m.ClaimedEpsilon()); err != nil {
		return Finding{}, false, err
	}
	d := m.D()
	if d < 1 {
		return Finding{}, false, fmt.Errorf("%s: D() = %d: must be ≥ 1", m.Name(), d)
	}
	res = res.withDefaults()
	lo, hi := jointDomain(m)
	groups := make([]int, d)
	for g := range groups {
		groups[g] = g
	}
	if jd, isD := m.(JointDiscrete); isD {
		if outs := jd.ValueOutputs(); outs != nil {
			k := len(outs)
			f, _ := law{
				cells:  d * k,
				groups: groups,
				vs:     inputGrid(lo, hi, res.Inputs),
				eval:   func(in Input, dst []float64) { jd.JointProbabilities(in.G, in.V, dst) },
				label: func(c int) string {
					return fmt.Sprintf("(g'=%d, v'=%s)", c/k, num(outs[c%k]))
				},
				probabilities: true, sumToOne: true, refine: true,
			}.scan()
			f.Method = MethodExact
			return f, true, nil
		}
	}
	jc, isC := m.(JointContinuous)
	if !isC {
		return Finding{}, false, nil
	}
	vs := inputGrid(lo, hi, res.JointInputs)
	a, b := jointWindow(jc, d, lo, hi)
	ys := outputPoints(a, b, max(res.Outputs/2, 1), nil)
	n := len(ys)
	f, ext := law{
		cells:  d * n,
		groups: groups,
		vs:     vs,
		eval: func(in Input, dst []float64) {
			for h := range d {
				row := dst[h*n : (h+1)*n]
				for j, y := range ys {
					row[j] = jc.JointDensity(h, y, in.G, in.V)
				}
			}
		},
		label: func(c int) string { return fmt.Sprintf("density at (g'=%d, v'=%s)", c/n, num(ys[c%n])) },
	}.scan()
	if f.Note == "" {
		for h := range d {
			if note := edgeNote(ys, ext, h*n); note != "" {
				f.Note = fmt.Sprintf("g'=%d: %s", h, note)
				break
			}
		}
	}
	f.Method = MethodDensity
	return f, true, nil
}

// jointWindow returns the output window of a group mechanism's value
// report: beyond it, on each side, the joint density at every probed input
// (every group, v at both ends and the middle of the domain) and every
// output group is at most tailMass times its peak over the domain. The
// edge is found by doubling and bisection (the densities of the value
// mechanisms decrease away from the domain).
func jointWindow(m JointContinuous, d int, lo, hi float64) (a, b float64) {
	probe := func(y float64) float64 {
		top := 0.0
		for g := range d {
			for _, v := range []float64{lo, (lo + hi) / 2, hi} {
				for h := range d {
					top = max(top, m.JointDensity(h, y, g, v))
				}
			}
		}
		return top
	}
	peak := 0.0
	for i := 0; i <= 64; i++ {
		peak = max(peak, probe(lo+(hi-lo)*float64(i)/64))
	}
	if !(peak > 0) {
		return lo, hi
	}
	tiny := tailMass * peak
	edge := func(from, dir float64) float64 {
		// Find a distance s with probe(from + dir·s) ≤ tiny, then bisect.
		s := 1.0
		for probe(from+dir*s) > tiny && s < 1e12 {
			s *= 2
		}
		inside, outside := 0.0, s
		for range 100 {
			mid := (inside + outside) / 2
			if !(mid > inside && mid < outside) {
				break
			}
			if probe(from+dir*mid) > tiny {
				inside = mid
			} else {
				outside = mid
			}
		}
		return from + dir*outside
	}
	a, b = edge(lo, -1), edge(hi, 1)
	if math.IsNaN(a) || math.IsNaN(b) {
		return lo, hi
	}
	return a, b
}
