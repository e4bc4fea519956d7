package mechanisms

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Capability is one thing a kind or an estimator may need of a mechanism.
// A mechanism has it or does not, decided by the interfaces it implements
// alone ([CapabilitiesOf]), never by its name: a kind states its needs as
// capabilities ([Needs]) and takes every registered mechanism that has
// them, a wrapper (an external program's mechanism) has exactly the
// capabilities of the interfaces it implements.
type Capability string

const (
	// CapVariance: an unbiased report with a closed-form variance, that
	// is, [Unbiased] accepts the mechanism ([Variancer]; a biased one is
	// de-biased by its [Debiaser]).
	CapVariance Capability = "variance"
	// CapDiscreteLaw: a finite output alphabet with exact probabilities
	// ([Discrete]).
	CapDiscreteLaw Capability = "discrete-law"
	// CapBuckets: the exact probability of an output bucket given an input
	// bin, the entries of an EM transition matrix: a [Discrete] law, or
	// the BucketGivenBin of a [Bucketer] ([Continuous]).
	CapBuckets Capability = "bucket-probabilities"
	// CapBounded: a bounded output, so that the reports can be cut into
	// finitely many buckets: a [Discrete] alphabet, or a finite
	// OutputRange ([OutputRanger]).
	CapBounded Capability = "bounded-output"
	// CapDensity: the report has a density with its CDF ([DensityCDF]) and
	// no point masses ([Atoms]: a point mass has no density).
	CapDensity Capability = "density"
)

// AllCapabilities lists the capabilities in their canonical order.
var AllCapabilities = []Capability{CapVariance, CapDiscreteLaw, CapBuckets, CapBounded, CapDensity}

// The parts of [Continuous], each a capability on its own: a mechanism
// (a wrapper of an external program, say) may offer a density without
// exact bucket probabilities.
type (
	// OutputRanger is implemented by mechanisms that state the support of
	// their report; it may be infinite.
	OutputRanger interface {
		OutputRange() (lo, hi float64)
	}
	// DensityCDF is implemented by mechanisms whose report has a density
	// and a CDF (see [Continuous]).
	DensityCDF interface {
		OutputRanger
		Density(y, x float64) float64
		CDF(y, x float64) float64
	}
	// Bucketer is implemented by mechanisms with exact bucket-given-bin
	// probabilities (see [Continuous]).
	Bucketer interface {
		BucketGivenBin(ylo, yhi, xlo, xhi float64) float64
	}
)

// Has reports whether m has capability c.
func Has(m Mechanism, c Capability) bool { return whyNot(m, c) == "" }

// CapabilitiesOf returns m's capabilities in canonical order.
func CapabilitiesOf(m Mechanism) []Capability {
	var out []Capability
	for _, c := range AllCapabilities {
		if Has(m, c) {
			out = append(out, c)
		}
	}
	return out
}

// Describe returns what c means, as a refusal says it ("needs <Describe>").
func (c Capability) Describe() string {
	switch c {
	case CapVariance:
		return "an unbiased report with a variance"
	case CapDiscreteLaw:
		return "a discrete law"
	case CapBuckets:
		return "bucket probabilities"
	case CapBounded:
		return "a bounded output"
	case CapDensity:
		return "a density"
	}
	return string(c)
}

// whyNot returns "" if m has c, else why not, a clause naming m.
func whyNot(m Mechanism, c Capability) string {
	name := m.Name()
	_, discrete := m.(Discrete)
	switch c {
	case CapVariance:
		if _, ok := m.(Variancer); !ok {
			return name + " has no closed-form variance"
		}
		if _, err := Unbiased(m); err != nil {
			return err.Error()
		}
		return ""
	case CapDiscreteLaw:
		if !discrete {
			return name + "'s output is not a finite alphabet with exact probabilities"
		}
		return ""
	case CapBuckets:
		if _, ok := m.(Bucketer); !ok && !discrete {
			return name + " has neither a discrete law nor exact bucket probabilities"
		}
		return ""
	case CapBounded:
		if discrete {
			return ""
		}
		r, ok := m.(OutputRanger)
		if !ok {
			return name + " states no output range"
		}
		lo, hi := r.OutputRange()
		if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
			return name + "'s output is unbounded"
		}
		return ""
	case CapDensity:
		if _, ok := m.(DensityCDF); !ok {
			if discrete {
				return name + "'s output is a discrete law"
			}
			return name + " has no density"
		}
		if _, ok := m.(Atoms); ok {
			return name + "'s output mixes point masses with a density"
		}
		return ""
	}
	return fmt.Sprintf("unknown capability %q", string(c))
}

// Needs is what a kind or a method needs of a mechanism: every capability
// of All, and, if Any is not empty, at least one of Any.
type Needs struct {
	All []Capability
	Any []Capability
}

// Need returns nil if m has every one of caps, else an error naming the
// first that it lacks: "needs a bounded output: laplace's output is
// unbounded".
func Need(m Mechanism, caps ...Capability) error { return Needs{All: caps}.Check(m) }

// Check returns nil if m meets n, else an error naming the first missing
// capability and why m lacks it.
func (n Needs) Check(m Mechanism) error {
	if m == nil {
		return fmt.Errorf("no mechanism")
	}
	for _, c := range n.All {
		if why := whyNot(m, c); why != "" {
			return &NeedError{Mechanism: m.Name(), Missing: []Capability{c}, Reason: why}
		}
	}
	if len(n.Any) == 0 {
		return nil
	}
	var whys []string
	for _, c := range n.Any {
		why := whyNot(m, c)
		if why == "" {
			return nil
		}
		whys = append(whys, why)
	}
	reason := whys[0]
	if len(whys) > 1 {
		reason = m.Name() + " has neither (" + strings.Join(whys, "; ") + ")"
	}
	return &NeedError{Mechanism: m.Name(), Missing: slices.Clone(n.Any), Reason: reason}
}

// Met reports whether m meets n.
func (n Needs) Met(m Mechanism) bool { return n.Check(m) == nil }

// String writes n as "variance, discrete-law|density" (none: "-").
func (n Needs) String() string {
	parts := make([]string, 0, len(n.All)+1)
	for _, c := range n.All {
		parts = append(parts, string(c))
	}
	if len(n.Any) > 0 {
		alt := make([]string, len(n.Any))
		for i, c := range n.Any {
			alt[i] = string(c)
		}
		parts = append(parts, strings.Join(alt, "|"))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// NeedError is the error of [Needs.Check]: the mechanism lacks a
// capability (or every one of a set of alternatives).
type NeedError struct {
	Mechanism string
	// Missing is the capability lacked, or the alternatives none of which
	// the mechanism has.
	Missing []Capability
	// Reason says why, naming the mechanism.
	Reason string
}

func (e *NeedError) Error() string {
	d := make([]string, len(e.Missing))
	for i, c := range e.Missing {
		d[i] = c.Describe()
	}
	return "needs " + strings.Join(d, " or ") + ": " + e.Reason
}
