package mechanisms

import (
	"math"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/internal/binomial"
)

// OUE is optimised unary encoding over the categories {0, …, d-1} (Wang et
// al., USENIX Security 2017; the OUE baseline of Baek & Chung's Fig. 4,
// Sec. 5.2): a user's category is one-hot encoded and each of the d bits is
// reported independently, the true category's bit as 1 with probability
// p = 1/2, every other bit as 1 with probability q = 1/(e^ε+1). A report's
// probability given x is Π over bits, and changing x changes two factors,
// by (p/q)·((1-q)/(1-p)) = e^ε at most: ε-LDP.
//
// Like GRR it is not a [Mechanism]: its input is a category and its report
// d bits. Besides the per-user report (PerturbBits), SupportCounts draws the
// collector's aggregate (the number of reports with bit v set, for every v)
// directly: the bits of different users and different positions are
// independent, so the count of bit v is Binomial(n_v, p) + Binomial(n −
// n_v, q) exactly, n_v the users in category v. This makes a run O(d)
// binomial draws instead of n·d uniforms.
type OUE struct {
	eps  float64
	d    int
	p, q float64
	qc   float64 // 1 − q, computed as 1/(1+e^{−ε}), for the binomial draws
}

// NewOUE returns OUE over d ≥ 2 categories at budget eps.
func NewOUE(eps float64, d int) (*OUE, error) {
	if err := checkEpsilon("oue", eps); err != nil {
		return nil, err
	}
	if d < 2 {
		return nil, &ParamError{Mechanism: "oue", Param: "d", Value: float64(d), Reason: "must be ≥ 2"}
	}
	// q = 1/(e^ε+1) as e^{-ε}/(1+e^{-ε}): no overflow at large ε.
	em := math.Exp(-eps)
	return &OUE{eps: eps, d: d, p: 0.5, q: em / (1 + em), qc: 1 / (1 + em)}, nil
}

// Epsilon returns the privacy budget.
func (m *OUE) Epsilon() float64 { return m.eps }

// D returns the number of categories.
func (m *OUE) D() int { return m.d }

// P returns the probability that the true category's bit is 1 (1/2).
func (m *OUE) P() float64 { return m.p }

// Q returns the probability that another category's bit is 1.
func (m *OUE) Q() float64 { return m.q }

// PerturbBits writes one user's report of category x to dst (length ≥ d):
// dst[v] is 1 or 0. One uniform per bit.
func (m *OUE) PerturbBits(x int, rng *rand.Rand, dst []uint8) {
	dst = dst[:m.d]
	for v := range dst {
		pr := m.q
		if v == x {
			pr = m.p
		}
		dst[v] = b2u8(rng.Float64() < pr)
	}
}

func b2u8(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// ReportProbability returns Pr[report = bits | x], the product over the d
// bits (the exact law, for the ε-LDP check).
func (m *OUE) ReportProbability(bits []uint8, x int) float64 {
	pr := 1.0
	for v, b := range bits[:m.d] {
		p1 := m.q
		if v == x {
			p1 = m.p
		}
		if b == 1 {
			pr *= p1
		} else {
			pr *= 1 - p1
		}
	}
	return pr
}

// SupportCounts writes to dst[v] (length ≥ d) the number of the users'
// reports with bit v set, drawn exactly from its law given counts[v], the
// number of users in category v: Binomial(counts[v], p) + Binomial(n −
// counts[v], q) with n = Σ counts, independent across v. The binomials are
// internal/binomial's, whose law is the binomial's to rounding; two draws
// per category, about 2.3 words each where the count is large, and no
// allocation.
func (m *OUE) SupportCounts(counts []int, rng *rand.Rand, dst []float64) {
	n := 0
	for _, c := range counts[:m.d] {
		n += c
	}
	for v, c := range counts[:m.d] {
		dst[v] = float64(binomial.Sample(rng, c, m.p, 1-m.p) + binomial.Sample(rng, n-c, m.q, m.qc))
	}
}
