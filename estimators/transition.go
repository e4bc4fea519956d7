package estimators

import (
	"errors"
	"fmt"
	"math"

	"github.com/ldpbench/ldpbench/estimators/internal/emkernel"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// Transition matrices of the EM-type distribution estimators
// (Du et al. Section 5).
//
// A Service is one LDP service as the collector sees it: a mechanism, a
// discretisation of its input domain into l equal bins and of its output
// into h buckets, and the transition matrix T[r, t] = P(output bucket r |
// input bin t), each column summing to 1. The l input bins of every service
// are the same l bins of [-1, 1] (Square Wave's bins on [0, 1] map one to
// one onto them), so the histograms that EMS and ULE estimate are over l
// equal bins of [-1, 1].

// DefaultBins is the number of input bins l of the authors' code, and
// DefaultBuckets the number of output buckets of a continuous mechanism
// (PM, SW).
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

// ErrUnboundedOutput is wrapped by NewService's error for a mechanism
// without a bounded output (Laplace): its reports cannot be cut into
// finitely many equal buckets without truncation (the paper excludes
// Laplace from ULE, §6.1.1).
var ErrUnboundedOutput = errors.New("estimators: no transition matrix")

// ServiceNeeds is what a transition matrix (and so ULE and EMS) needs of a
// mechanism: a bounded output and exact bucket probabilities.
var ServiceNeeds = mechanisms.Needs{All: []mechanisms.Capability{mechanisms.CapBounded, mechanisms.CapBuckets}}

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

	mat *emkernel.Matrix // T as the EM kernels use it, and the bucketing
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

// NewService builds the transition matrix of m (Du et al. Section 5):
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
//   - a mechanism without a bounded output (Laplace): an error wrapping
//     ErrUnboundedOutput; one without bucket probabilities: an error.
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
	if err := ServiceNeeds.Check(m); err != nil {
		if !mechanisms.Has(m, mechanisms.CapBounded) {
			return nil, fmt.Errorf("%w: %w", ErrUnboundedOutput, err)
		}
		return nil, fmt.Errorf("estimators: no transition matrix: %w", err)
	}
	_, discrete := m.(mechanisms.Discrete)
	_, sw := m.(*mechanisms.SquareWave)
	midpoint := true
	switch opt.Input {
	case InputMidpoint:
	case InputBinAverage:
		midpoint = false
	default:
		midpoint = discrete || !sw
	}
	if c, ok := m.(mechanisms.OutputRanger); ok && !discrete {
		lo, hi := c.OutputRange()
		if !(lo < hi) {
			return nil, fmt.Errorf("estimators: %s: empty output range [%v, %v]", m.Name(), lo, hi)
		}
	}
	mat, err := emkernel.NewMatrix(m, l, h, midpoint)
	if err != nil {
		return nil, err
	}
	return &Service{Mech: m, Bins: l, Buckets: mat.H, Lo: mat.Lo, Hi: mat.Hi, Midpoint: midpoint, T: mat.T, mat: mat}, nil
}

// At returns T[r, t].
func (s *Service) At(r, t int) float64 { return s.T[r*s.Bins+t] }

// Row returns row r of T (do not modify it).
func (s *Service) Row(r int) []float64 { return s.T[r*s.Bins : (r+1)*s.Bins] }

// Bucket returns the output bucket of report y: for a continuous mechanism
// ⌊(y - Lo)/Δ⌋ clipped to [0, h-1], so y = Hi goes to the last bucket, as
// in the authors' code; for a discrete mechanism the index of the nearest
// output. NaN gives -1 (no report).
func (s *Service) Bucket(y float64) int { return s.mat.Bucket(y) }

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
