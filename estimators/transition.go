package estimators

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Transition matrices of the EM-type distribution estimators (p4 spec §5).
//
// A Service is one LDP service as the collector sees it: a mechanism, a
// discretisation of its input domain into l equal bins and of its output
// into h buckets, and the transition matrix T[r, t] = P(output bucket r |
// input bin t), each column summing to 1. The l input bins of every service
// are the same l bins of [-1, 1] (Square Wave's bins on [0, 1] map one to
// one onto them), so the histograms that EMS and ULE estimate are over l
// equal bins of [-1, 1].

// DefaultBins is the number of input bins l of the authors' code (p4 spec
// §5), and DefaultBuckets the number of output buckets of a continuous
// mechanism (PM, SW).
const (
	DefaultBins    = 1024
	DefaultBuckets = 1024
)

// InputRule says where a transition matrix puts the input within a bin.
type InputRule int

const (
	// InputDefault is the authors' choice (E4.13): the input averaged over
	// the bin for Square Wave (Li et al.'s transform), at the bin midpoint
	// for every other mechanism (PM's transform, SR's two-point law).
	InputDefault InputRule = iota
	// InputMidpoint evaluates the bucket probability at the bin midpoint.
	InputMidpoint
	// InputBinAverage averages it over an input uniform within the bin
	// (continuous mechanisms only).
	InputBinAverage
)

// ServiceOptions configures NewService. The zero value is the authors'
// discretisation.
type ServiceOptions struct {
	// Bins is the number l of equal input bins of the domain (default
	// DefaultBins).
	Bins int
	// Buckets is the number h of equal output buckets of a continuous
	// mechanism's output range (default DefaultBuckets). A discrete
	// mechanism has one bucket per output and ignores it.
	Buckets int
	// Input is where the input sits within a bin (default InputDefault).
	Input InputRule
}

// ErrUnboundedOutput is returned for a mechanism whose output range is
// infinite (Laplace): its reports cannot be cut into finitely many equal
// buckets without truncation, and the paper excludes it from ULE (L401).
var ErrUnboundedOutput = errors.New("estimators: mechanism has an unbounded output range; Laplace is excluded from ULE and EMS (p4 spec §5, paper L401)")

// Service is one LDP service of a multi-service collection: its mechanism
// and the exact transition matrix of its discretisation. It is read-only
// after NewService and safe for concurrent use.
type Service struct {
	// Mech is the service's mechanism.
	Mech mechanisms.Mechanism
	// Bins is the number l of input bins; Buckets the number h of output
	// buckets.
	Bins, Buckets int
	// Lo and Hi are the bucketed output range: h equal buckets of
	// [Lo, Hi], or, for a discrete mechanism, its first and last output.
	Lo, Hi float64
	// Midpoint is true if T is evaluated at the bin midpoints, false if
	// averaged over the bins.
	Midpoint bool
	// T is the transition matrix, row-major: T[r*Bins+t] = P(bucket r | bin
	// t). Every column sums to 1 (it is renormalised after the exact
	// integration, which leaves it unchanged up to rounding).
	T []float64

	outputs []float64 // discrete alphabet, nil for continuous
	width   float64   // bucket width (Hi-Lo)/Buckets

	prof *trProfile // the rows compressed for the fast EM route
}

// NewServices builds one Service per mechanism with l = bins input bins and
// the authors' other choices (ServiceOptions{Bins: bins}). bins ≤ 0 means
// DefaultBins.
func NewServices(mechs []mechanisms.Mechanism, bins int) ([]*Service, error) {
	svcs := make([]*Service, len(mechs))
	for j, m := range mechs {
		s, err := NewService(m, ServiceOptions{Bins: bins})
		if err != nil {
			return nil, fmt.Errorf("service %d: %w", j, err)
		}
		svcs[j] = s
	}
	return svcs, nil
}

// NewService builds the transition matrix of m (p4 spec §5):
//
//   - a discrete mechanism (SR): one bucket per output, T[r, t] =
//     P(output r | μ_t) at the bin midpoint μ_t, exact (SR's law is
//     affine in the input, so this is also the bin average);
//   - a continuous mechanism with a bounded output range: h equal buckets
//     of the range, T[r, t] = BucketGivenBin(y_r, y_{r+1}, μ_t, μ_t) at the
//     midpoint (PM), or BucketGivenBin(y_r, y_{r+1}, x_t, x_{t+1}) averaged
//     over the bin (SW, Li et al.'s transform), both exact integrals (E4.8,
//     E4.13); every column is then renormalised, as the authors' code does
//     for PM;
//   - Laplace (unbounded output): ErrUnboundedOutput.
//
// Bins are on m.Domain(): [-1, 1], or [0, 1] for Square Wave.
func NewService(m mechanisms.Mechanism, opt ServiceOptions) (*Service, error) {
	if m == nil {
		return nil, errors.New("estimators: nil mechanism")
	}
	l, h := opt.Bins, opt.Buckets
	if l == 0 {
		l = DefaultBins
	}
	if h == 0 {
		h = DefaultBuckets
	}
	if l < 1 || h < 1 || l > math.MaxUint16 || h >= math.MaxUint16 {
		return nil, fmt.Errorf("estimators: %s: bins = %d and buckets = %d must be in [1, 65535)", m.Name(), l, h)
	}
	dlo, dhi := m.Domain()
	dw := (dhi - dlo) / float64(l)
	edge := func(t int) float64 {
		if t >= l {
			return dhi
		}
		return dlo + float64(t)*dw
	}
	mid := func(t int) float64 { return dlo + (float64(t)+0.5)*dw }

	s := &Service{Mech: m, Bins: l}
	switch mm := m.(type) {
	case mechanisms.Discrete:
		if opt.Input == InputBinAverage {
			return nil, fmt.Errorf("estimators: %s: a bin-averaged transition is not supported for a discrete mechanism", m.Name())
		}
		out := mm.Outputs()
		h = len(out)
		s.outputs = slices.Clone(out)
		s.Lo, s.Hi = out[0], out[h-1]
		s.Buckets, s.Midpoint = h, true
		s.T = make([]float64, h*l)
		p := make([]float64, h)
		for t := range l {
			mm.Probabilities(mid(t), p)
			for r := range h {
				s.T[r*l+t] = p[r]
			}
		}
	case mechanisms.Continuous:
		lo, hi := mm.OutputRange()
		if math.IsInf(lo, 0) || math.IsInf(hi, 0) || !(lo < hi) {
			return nil, fmt.Errorf("%w (%s)", ErrUnboundedOutput, m.Name())
		}
		s.Lo, s.Hi, s.Buckets = lo, hi, h
		s.width = (hi - lo) / float64(h)
		switch opt.Input {
		case InputMidpoint:
			s.Midpoint = true
		case InputBinAverage:
			s.Midpoint = false
		default:
			s.Midpoint = m.Name() != "sw"
		}
		yEdge := func(r int) float64 {
			if r >= h {
				return hi
			}
			return lo + float64(r)*s.width
		}
		s.T = make([]float64, h*l)
		for t := range l {
			xlo, xhi := mid(t), mid(t)
			if !s.Midpoint {
				xlo, xhi = edge(t), edge(t+1)
			}
			for r := range h {
				s.T[r*l+t] = mm.BucketGivenBin(yEdge(r), yEdge(r+1), xlo, xhi)
			}
		}
	default:
		return nil, fmt.Errorf("estimators: %s is neither discrete nor continuous", m.Name())
	}
	// Renormalise every column.
	for t := range l {
		var sum float64
		for r := range h {
			sum += s.T[r*l+t]
		}
		if !(sum > 0) || math.IsInf(sum, 0) {
			return nil, fmt.Errorf("estimators: %s: column %d of the transition matrix sums to %v", m.Name(), t, sum)
		}
		for r := range h {
			s.T[r*l+t] /= sum
		}
	}
	s.prof = buildTrProfile(s.T, h, l)
	return s, nil
}

// At returns T[r, t].
func (s *Service) At(r, t int) float64 { return s.T[r*s.Bins+t] }

// Row returns row r of T (do not modify it).
func (s *Service) Row(r int) []float64 { return s.T[r*s.Bins : (r+1)*s.Bins] }

// Bucket returns the output bucket of report y: for a continuous mechanism
// ⌊(y - Lo)/Δ⌋ clipped to [0, h-1], so y = Hi goes to the last bucket (p4
// spec §5); for a discrete mechanism the index of the nearest output. NaN
// gives -1 (no report).
func (s *Service) Bucket(y float64) int {
	if y != y {
		return -1
	}
	if s.outputs != nil {
		// Nearest output; the alphabet is sorted.
		i, _ := slices.BinarySearch(s.outputs, y)
		switch {
		case i == 0:
			return 0
		case i == len(s.outputs):
			return i - 1
		case y-s.outputs[i-1] < s.outputs[i]-y:
			return i - 1
		}
		return i
	}
	v := (y - s.Lo) / s.width
	switch {
	case !(v > 0): // also y at or below Lo
		return 0
	case v >= float64(s.Buckets):
		return s.Buckets - 1
	}
	return min(int(v), s.Buckets-1)
}

// OutputHistogram returns the counts of the reports in each output bucket
// (NaN reports are skipped).
func (s *Service) OutputHistogram(reports []float64) []float64 {
	c := make([]float64, s.Buckets)
	for _, y := range reports {
		if r := s.Bucket(y); r >= 0 {
			c[r]++
		}
	}
	return c
}

// trProfile is a service's transition matrix compressed for the fast EM route
// (ule_fast.go). Every row r, divided by its maximum (EM does not depend
// on a row's scale; the logarithm of the scale is kept for the
// log-likelihood), is cut into pieces of consecutive input bins: a
// constant piece, where the row is constant (to a relative 1e-13), or an
// explicit piece, whose values are stored. A row of PM or SW is constant
// away from the bins where an edge of the inner window [L(x), R(x)] or
// [s-b, s+b] crosses the bucket, so it has at most five pieces, two of them
// explicit ramps of a few bins. A row with no structure is one explicit
// piece.
//
// Row h (one past the last bucket) is the row of a missing report: all
// ones, one constant piece.
type trProfile struct {
	l          int
	rowOff     []int32   // pieces of row r are pieces[rowOff[r]:rowOff[r+1]]
	pieces     []trPiece // in order of start within a row
	vals       []float64 // values of the explicit pieces
	lnMax      []float64 // ln of each row's maximum (0 for the missing row)
	norm       []float64 // rows divided by their maxima, row-major, (h+1)×l
	band       *trBand   // the rows in band form, or nil
	explPerRow float64   // mean number of explicit bins per row
}

// trBand is a profile whose every normalised row r has the band form
//
//	F_r(t) = base_r + delta_r·[a_r ≤ t < b_r] + left_r(t) + right_r(t),
//
// a plateau [a_r, b_r) over a base, with ramps of eh bins on each side:
// left_r is nonzero only on the bins a_r-eh … a_r-1 and right_r only on
// b_r … b_r+eh-1 (bins outside [0, l) carry 0). PM and SW rows have this
// form with eh of 1 to 4 (the window's edge crossing the bucket), which
// lets the fast route handle a row in a fixed number of operations.
type trBand struct {
	eh          int
	a, b        []int32
	base, delta []float64
	ramp        []float64 // per row, 2·eh values: the left ramp, then the right ramp
}

// trBandMaxEh is the longest ramp of the band form.
const trBandMaxEh = 8

// trPiece is a run [start, end) of input bins of a row: constant with value
// val if off < 0, else explicit with values vals[off : off+end-start].
type trPiece struct {
	start, end int32
	off        int32
	val        float64
}

// trConstTol is the relative tolerance within which consecutive normalised
// entries of a row count as one constant piece; it only absorbs the
// rounding of the exact integrals (a few ulps), so the fast route
// reproduces the dense one to about this relative accuracy.
const trConstTol = 1e-13

// trMinConstRun is the shortest run of equal entries kept as a constant
// piece; shorter runs are explicit.
const trMinConstRun = 3

func buildTrProfile(T []float64, h, l int) *trProfile {
	p := &trProfile{l: l, rowOff: make([]int32, h+2), lnMax: make([]float64, h+1), norm: make([]float64, (h+1)*l)}
	for r := 0; r <= h; r++ {
		p.rowOff[r] = int32(len(p.pieces))
		v := p.norm[r*l : (r+1)*l]
		if r == h {
			for t := range v {
				v[t] = 1
			}
		} else {
			mx := 0.0
			for _, x := range T[r*l : (r+1)*l] {
				mx = max(mx, x)
			}
			if mx > 0 {
				p.lnMax[r] = math.Log(mx)
				for t, x := range T[r*l : (r+1)*l] {
					v[t] = x / mx
				}
			} else {
				p.lnMax[r] = math.Inf(-1) // an empty bucket: never observed
			}
		}
		explStart := -1 // start of the open explicit piece, or -1
		flush := func(end int) {
			if explStart >= 0 {
				p.pieces = append(p.pieces, trPiece{start: int32(explStart), end: int32(end), off: int32(len(p.vals))})
				p.vals = append(p.vals, v[explStart:end]...)
				explStart = -1
			}
		}
		for t := 0; t < l; {
			e := t + 1
			for e < l && math.Abs(v[e]-v[t]) <= trConstTol*math.Abs(v[t]) {
				e++
			}
			if e-t >= trMinConstRun {
				flush(t)
				p.pieces = append(p.pieces, trPiece{start: int32(t), end: int32(e), off: -1, val: v[t]})
			} else if explStart < 0 {
				explStart = t
			}
			t = e
		}
		flush(l)
	}
	p.rowOff[h+1] = int32(len(p.pieces))
	expl := 0
	for _, q := range p.pieces {
		if q.off >= 0 {
			expl += int(q.end - q.start)
		}
	}
	p.explPerRow = float64(expl) / float64(h+1)
	p.band = buildTrBand(p.norm, h+1, l)
	return p
}

// trEqual reports whether x and y agree to the relative tolerance of a
// constant piece.
func trEqual(x, y float64) bool {
	return math.Abs(x-y) <= trConstTol*max(math.Abs(x), math.Abs(y))
}

// buildTrBand fits the band form to every row of norm (rows×l), or
// returns nil if some row needs ramps longer than trBandMaxEh.
//
// For a row v, the base β is v[0] or v[l-1] (whichever gives the shorter
// ramps); the bins where v ≠ β span [s, e); the plateau [a, b) is the
// longest run of equal values within [s, e) that differs from β (empty, at
// s, if there is none); the ramps are [s, a) and [b, e), their values
// v[t] - β.
func buildTrBand(norm []float64, rows, l int) *trBand {
	type fit struct {
		base, delta float64
		a, b, s, e  int
	}
	fits := make([]fit, rows)
	eh := 0
	for r := range rows {
		v := norm[r*l : (r+1)*l]
		best, bestEh := fit{}, -1
		for _, base := range []float64{v[0], v[l-1]} {
			s, e := -1, -1
			for t, x := range v {
				if !trEqual(x, base) {
					if s < 0 {
						s = t
					}
					e = t + 1
				}
			}
			f := fit{base: base}
			if s < 0 {
				f.s, f.e = 0, 0
			} else {
				f.s, f.e, f.a, f.b = s, e, s, s
				// The longest constant run within [s, e) that differs from base.
				for t := s; t < e; {
					u := t + 1
					for u < e && trEqual(v[u], v[t]) {
						u++
					}
					if u-t >= trMinConstRun && u-t > f.b-f.a && !trEqual(v[t], base) {
						f.a, f.b, f.delta = t, u, v[t]-base
					}
					t = u
				}
			}
			rowEh := max(f.a-f.s, f.e-f.b)
			if bestEh < 0 || rowEh < bestEh {
				best, bestEh = f, rowEh
			}
		}
		if bestEh > trBandMaxEh {
			return nil
		}
		fits[r] = best
		eh = max(eh, bestEh)
	}
	bd := &trBand{
		eh: eh, a: make([]int32, rows), b: make([]int32, rows),
		base: make([]float64, rows), delta: make([]float64, rows),
		ramp: make([]float64, rows*2*eh),
	}
	for r, f := range fits {
		v := norm[r*l : (r+1)*l]
		bd.a[r], bd.b[r], bd.base[r], bd.delta[r] = int32(f.a), int32(f.b), f.base, f.delta
		rp := bd.ramp[r*2*eh : (r+1)*2*eh]
		for i := range eh {
			if t := f.a - eh + i; t >= f.s && t < f.a {
				rp[i] = v[t] - f.base
			}
			if t := f.b + i; t < f.e {
				rp[eh+i] = v[t] - f.base
			}
		}
	}
	return bd
}
