package external

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// ProtocolVersion is the version of the protocol this package speaks; a
// program's hello must state it. docs/external.md describes the protocol.
const ProtocolVersion = 1

// The operations of a request (its first header field).
const (
	OpDescribe      uint32 = 1 // ε → out_lo, out_hi, worst-case variance, outputs...
	OpPerturb       uint32 = 2 // xs, ε, seed → one report per x
	OpVariance      uint32 = 3 // xs, ε → Var[Y | x] per x
	OpProbabilities uint32 = 4 // xs, ε → k probabilities per x (k outputs)
	OpDensity       uint32 = 5 // (y, x) pairs, ε → density per pair
	OpCDF           uint32 = 6 // (y, x) pairs, ε → Pr[Y ≤ y | x] per pair
	OpBucket        uint32 = 7 // (ylo, yhi, xlo, xhi) quadruples, ε → probability per quadruple
)

var opNames = map[uint32]string{
	OpDescribe: "describe", OpPerturb: "perturb", OpVariance: "variance",
	OpProbabilities: "probabilities", OpDensity: "density", OpCDF: "cdf", OpBucket: "bucket",
}

func opName(op uint32) string {
	if s, ok := opNames[op]; ok {
		return s
	}
	return fmt.Sprintf("op %d", op)
}

// Header sizes and the reply's magic.
const (
	requestHeader = 24 // op u32, count u32, eps f64, seed u64
	replyHeader   = 16 // magic "LDPR", op u32, status u32, count u32
	replyMagic    = "LDPR"
	// maxReplyValues bounds what a reply may announce (2^28 float64s,
	// 2 GiB): a corrupt header must not make ldpbench allocate without
	// limit. A request never asks for more.
	maxReplyValues = 1 << 28
	// maxErrorText bounds a refusal's message.
	maxErrorText = 64 << 10
	// maxHello bounds the hello line.
	maxHello = 64 << 10
)

// Capability names a program may list in its hello.
const (
	CapVariance   = "variance"   // op variance, and the worst case in describe: mechanisms.Variancer
	CapDiscrete   = "discrete"   // outputs in describe, op probabilities: mechanisms.Discrete
	CapContinuous = "continuous" // ops density, cdf and bucket: mechanisms.Continuous
)

var knownCaps = []string{CapVariance, CapDiscrete, CapContinuous}

// Hello is the first line a program writes: one JSON object.
type Hello struct {
	// Protocol must be ProtocolVersion.
	Protocol int `json:"protocol"`
	// Name is the program's own name for its mechanism (shown in errors
	// and summaries; the spec's name is the registry name).
	Name string `json:"name"`
	// Summary is an optional line for `ldpbench list mechanisms -v`.
	Summary string `json:"summary,omitempty"`
	// Domain is the closed input interval [lo, hi].
	Domain [2]float64 `json:"domain"`
	// Capabilities lists what the program answers beyond perturb and
	// describe: "variance", "discrete", "continuous".
	Capabilities []string `json:"capabilities"`
}

// Has reports whether the hello lists capability c.
func (h *Hello) Has(c string) bool { return slices.Contains(h.Capabilities, c) }

// parseHello decodes and checks a hello line.
func parseHello(line []byte) (*Hello, error) {
	var h Hello
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("%q is not the JSON object the protocol wants (%v); a program must write its hello line first, and nothing else to stdout but replies (diagnostics go to stderr)", clip(line, 200), err)
	}
	if h.Protocol != ProtocolVersion {
		return nil, fmt.Errorf("protocol version %d, but this ldpbench speaks version %d (docs/external.md)", h.Protocol, ProtocolVersion)
	}
	if h.Name == "" {
		return nil, fmt.Errorf("no name")
	}
	lo, hi := h.Domain[0], h.Domain[1]
	if !finite(lo) || !finite(hi) || !(lo < hi) {
		return nil, fmt.Errorf("domain [%v, %v]: want finite lo < hi", lo, hi)
	}
	for _, c := range h.Capabilities {
		if !slices.Contains(knownCaps, c) {
			return nil, fmt.Errorf("unknown capability %q (known: %v)", c, knownCaps)
		}
	}
	if h.Has(CapDiscrete) && h.Has(CapContinuous) {
		return nil, fmt.Errorf("a mechanism is %q or %q, not both", CapDiscrete, CapContinuous)
	}
	return &h, nil
}

// description is a describe reply: what the mechanism is at one ε.
type description struct {
	outLo, outHi float64
	worstVar     float64   // NaN without the variance capability
	outputs      []float64 // the alphabet of a discrete mechanism
}

// parseDescription checks a describe reply against the hello.
func parseDescription(v []float64, h *Hello) (*description, error) {
	if len(v) < 3 {
		return nil, fmt.Errorf("%d values, want at least 3 (out_lo, out_hi, worst-case variance)", len(v))
	}
	d := &description{outLo: v[0], outHi: v[1], worstVar: v[2]}
	if math.IsNaN(d.outLo) || math.IsNaN(d.outHi) || !(d.outLo < d.outHi) {
		return nil, fmt.Errorf("output range [%v, %v]: want lo < hi (either may be infinite)", d.outLo, d.outHi)
	}
	if h.Has(CapVariance) {
		if !finite(d.worstVar) || d.worstVar < 0 {
			return nil, fmt.Errorf("worst-case variance %v: want finite and ≥ 0", d.worstVar)
		}
	} else {
		d.worstVar = math.NaN()
	}
	rest := v[3:]
	if h.Has(CapDiscrete) {
		if len(rest) == 0 {
			return nil, fmt.Errorf("a discrete mechanism gives its outputs after the first 3 values; got none")
		}
		for i, y := range rest {
			if !finite(y) || y < d.outLo || y > d.outHi {
				return nil, fmt.Errorf("output %d = %v: want finite and in the output range [%v, %v]", i, y, d.outLo, d.outHi)
			}
			if i > 0 && !(rest[i-1] < y) {
				return nil, fmt.Errorf("outputs %d and %d (%v, %v): want strictly increasing", i-1, i, rest[i-1], y)
			}
		}
		d.outputs = slices.Clone(rest)
	} else if len(rest) > 0 {
		return nil, fmt.Errorf("%d values, want 3 for a mechanism that is not discrete", len(v))
	}
	return d, nil
}

func putRequestHeader(b []byte, op uint32, count int, eps float64, seed uint64) {
	binary.LittleEndian.PutUint32(b[0:], op)
	binary.LittleEndian.PutUint32(b[4:], uint32(count))
	binary.LittleEndian.PutUint64(b[8:], math.Float64bits(eps))
	binary.LittleEndian.PutUint64(b[16:], seed)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
