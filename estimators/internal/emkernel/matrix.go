package emkernel

import (
	"fmt"
	"math"
	"slices"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Matrix is one service's transition matrix as the kernels use it
// (Du et al. Section 5): T[r, t] = P(output bucket r | input bin t) over L
// equal input bins of the mechanism's domain and H output buckets, every
// column summing to 1; its rows compressed for the fast route; and the
// bucketing of raw reports. estimators.Service is its public face
// (NewService documents the discretisation and chooses the input rule). It
// is read-only after NewMatrix and safe for concurrent use.
type Matrix struct {
	// L is the number of input bins, H the number of output buckets.
	L, H int
	// Lo and Hi are the bucketed output range: H equal buckets of
	// [Lo, Hi], or, for a discrete mechanism, its first and last output.
	Lo, Hi float64
	// T is the matrix, row-major: T[r*L+t].
	T []float64

	outputs []float64 // discrete alphabet, nil for continuous
	width   float64   // bucket width (Hi-Lo)/H

	prof *trProfile // the rows compressed for the fast EM route
}

// NewMatrix builds the transition matrix of m over l input bins of
// m.Domain(): for a discrete mechanism one bucket per output, the law at
// the bin midpoint (midpoint must be true); for a continuous one with a
// bounded output range h equal buckets of it, each entry
// BucketGivenBin at the bin midpoint (midpoint) or averaged over the bin;
// then every column renormalised. The caller (estimators.NewService)
// checks l and h and that a continuous mechanism's output range is
// bounded (Laplace's is not) first.
func NewMatrix(m mechanisms.Mechanism, l, h int, midpoint bool) (*Matrix, error) {
	dlo, dhi := m.Domain()
	dw := (dhi - dlo) / float64(l)
	edge := func(t int) float64 {
		if t >= l {
			return dhi
		}
		return dlo + float64(t)*dw
	}
	mid := func(t int) float64 { return dlo + (float64(t)+0.5)*dw }

	s := &Matrix{L: l}
	switch mm := m.(type) {
	case mechanisms.Discrete:
		if !midpoint {
			return nil, fmt.Errorf("estimators: %s: a bin-averaged transition is not supported for a discrete mechanism", m.Name())
		}
		out := mm.Outputs()
		h = len(out)
		s.outputs = slices.Clone(out)
		s.Lo, s.Hi = out[0], out[h-1]
		s.H = h
		s.T = make([]float64, h*l)
		p := make([]float64, h)
		for t := range l {
			mm.Probabilities(mid(t), p)
			for r := range h {
				s.T[r*l+t] = p[r]
			}
		}
	case interface {
		mechanisms.OutputRanger
		mechanisms.Bucketer
	}:
		lo, hi := mm.OutputRange()
		s.Lo, s.Hi, s.H = lo, hi, h
		s.width = (hi - lo) / float64(h)
		yEdge := func(r int) float64 {
			if r >= h {
				return hi
			}
			return lo + float64(r)*s.width
		}
		s.T = make([]float64, h*l)
		for t := range l {
			xlo, xhi := mid(t), mid(t)
			if !midpoint {
				xlo, xhi = edge(t), edge(t+1)
			}
			for r := range h {
				s.T[r*l+t] = mm.BucketGivenBin(yEdge(r), yEdge(r+1), xlo, xhi)
			}
		}
	default:
		return nil, fmt.Errorf("estimators: %s has neither a discrete law nor an output range with bucket probabilities", m.Name())
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

// row returns row r of T.
func (s *Matrix) row(r int) []float64 { return s.T[r*s.L : (r+1)*s.L] }

// Bucket returns the output bucket of report y: for a continuous mechanism
// ⌊(y - Lo)/Δ⌋ clipped to [0, H-1], so y = Hi goes to the last bucket, as
// in the authors' code; for a discrete mechanism the index of the nearest
// output. NaN gives -1 (no report).
func (s *Matrix) Bucket(y float64) int {
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
	case v >= float64(s.H):
		return s.H - 1
	}
	return min(int(v), s.H-1)
}
