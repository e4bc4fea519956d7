package audit_test

import (
	"math"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/audit"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// The deliberately broken mechanisms of the meta-tests, and a reference
// Group NPRR written from Raab et al.'s Algorithms 2 and 3 independently of
// package mechanisms/group. None of them is registered anywhere.

// doubledPM is Wang et al.'s PM run at 2ε while claiming ε: a budget
// applied twice (or a t computed from 2ε). Its reports are perfectly valid
// PM reports; only the claim is wrong, so only an audit of the law against
// the claim can catch it.
type doubledPM struct {
	*mechanisms.Piecewise
	claim float64
}

func newDoubledPM(eps float64) doubledPM {
	pm, err := mechanisms.NewPM(2 * eps)
	if err != nil {
		panic(err)
	}
	return doubledPM{pm, eps}
}

func (m doubledPM) Name() string     { return "pm-at-2eps" }
func (m doubledPM) Epsilon() float64 { return m.claim }

// grr draws generalised randomised response on {0, …, d-1}: keep x with
// probability e^ε/(e^ε + d - 1), else a uniform other value
// (the keep-or-offset sampler).
func grr(x, d int, eps float64, rng *rand.Rand) int {
	if d < 2 || rng.Float64() < math.Exp(eps)/(math.Exp(eps)+float64(d-1)) {
		return x
	}
	return (x + 1 + rng.IntN(d-1)) % d
}

// grrKeep returns (a, q): the probabilities of keeping the value and of
// each other value.
func grrKeep(d int, eps float64) (a, q float64) {
	e := math.Exp(eps)
	return e / (e + float64(d-1)), 1 / (e + float64(d-1))
}

func laplaceDensity(y, scale float64) float64 { return math.Exp(-math.Abs(y)/scale) / (2 * scale) }

// jkLaplace is Juarez and Korolova's Group Laplace variant that the p2
// paper's Prop. 2 refutes: the neutral value of a user whose group changed
// gets Laplace noise of scale k/ε2 instead of 2/ε2. With Theorem 1's
// allocation (ε1 = ε/2, ε2 = ε) it claims ε. For k = 2 it is the correct
// Group Laplace and is ε-LDP; for k ≠ 2 the density ratio is unbounded in
// the report (a lighter tail over a heavier one).
type jkLaplace struct {
	d             int
	eps           float64
	eps1, eps2    float64
	k             float64
	a, q          float64
	scale, scale0 float64
}

func newJKLaplace(d int, eps, k float64) *jkLaplace {
	m := &jkLaplace{d: d, eps: eps, eps1: eps / 2, eps2: eps, k: k}
	m.a, m.q = grrKeep(d, m.eps1)
	m.scale, m.scale0 = 2/m.eps2, k/m.eps2
	return m
}

var _ audit.JointContinuous = (*jkLaplace)(nil)

func (m *jkLaplace) Name() string { return "group-laplace-jk" }
func (m *jkLaplace) D() int       { return m.d }

// ClaimedEpsilon is Theorem 1's max{ε2, ε1 + ε2/2} = ε.
func (m *jkLaplace) ClaimedEpsilon() float64 { return max(m.eps2, m.eps1+m.eps2/2) }

func (m *jkLaplace) Perturb(g int, v float64, rng *rand.Rand) (int, float64) {
	h := grr(g, m.d, m.eps1, rng)
	noise := rng.ExpFloat64()
	if rng.Uint64()&1 == 1 {
		noise = -noise
	}
	if h == g {
		return h, v + m.scale*noise
	}
	return h, m.scale0 * noise
}

func (m *jkLaplace) JointDensity(h int, y float64, g int, v float64) float64 {
	if h == g {
		return m.a * laplaceDensity(y-v, m.scale)
	}
	return m.q * laplaceDensity(y, m.scale0)
}

// refNPRR is Group NPRR (Algorithms 2 and 3, Theorem 3's allocation ε2 = ε,
// ε1 = ln((e^ε + k)/(k + 1))): GRR on the group, then stochastic rounding
// of the value (or of the neutral value when the group changed) to
// {0, …, k} and GRR on k + 1 values. neutral0 is the paper's mechanism
// (the neutral 0 goes through NPRR, E2.1); otherwise the neutral report is
// uniform on the grid (the fix).
type refNPRR struct {
	d, k       int
	eps        float64
	eps1, eps2 float64
	neutral0   bool
	outs       []float64
}

func newRefNPRR(d, k int, eps float64, neutral0 bool) *refNPRR {
	m := &refNPRR{d: d, k: k, eps: eps, eps2: eps, neutral0: neutral0}
	m.eps1 = math.Log((math.Exp(eps) + float64(k)) / float64(k+1))
	for j := 0; j <= k; j++ {
		m.outs = append(m.outs, 2*float64(j)/float64(k)-1)
	}
	return m
}

var _ audit.JointDiscrete = (*refNPRR)(nil)

func (m *refNPRR) Name() string            { return "ref-group-nprr" }
func (m *refNPRR) D() int                  { return m.d }
func (m *refNPRR) ClaimedEpsilon() float64 { return m.eps }
func (m *refNPRR) ValueOutputs() []float64 { return m.outs }
func (m *refNPRR) TrueEpsilon() float64 {
	if m.neutral0 && m.k >= 2 {
		return m.eps1 + m.eps2
	}
	return m.eps
}

// round is stochastic rounding of v ∈ [-1, 1] to f or f+1 on {0, …, k}.
func (m *refNPRR) round(v float64) (f int, theta float64) {
	u := (v + 1) / 2 * float64(m.k)
	ff := math.Floor(u)
	theta = min(max(u-ff, 0), 1)
	f = int(ff)
	if f >= m.k {
		f, theta = m.k, 0
	}
	return f, theta
}

func (m *refNPRR) Perturb(g int, v float64, rng *rand.Rand) (int, float64) {
	h := grr(g, m.d, m.eps1, rng)
	var y int
	switch {
	case h == g:
		f, theta := m.round(v)
		y = f
		if rng.Float64() < theta {
			y++
		}
		y = grr(y, m.k+1, m.eps2, rng)
	case m.neutral0:
		f, theta := m.round(0)
		y = f
		if rng.Float64() < theta {
			y++
		}
		y = grr(y, m.k+1, m.eps2, rng)
	default:
		y = rng.IntN(m.k + 1)
	}
	return h, m.outs[y]
}

// valueLaw writes Pr[v′ = outs[j] | NPRR input v] to dst.
func (m *refNPRR) valueLaw(v float64, dst []float64) {
	p, q := grrKeep(m.k+1, m.eps2)
	f, theta := m.round(v)
	for j := range dst {
		dst[j] = q
	}
	dst[f] += (1 - theta) * (p - q)
	if theta > 0 {
		dst[f+1] += theta * (p - q)
	}
}

func (m *refNPRR) JointProbabilities(g int, v float64, dst []float64) {
	a, q := grrKeep(m.d, m.eps1)
	n := m.k + 1
	for h := range m.d {
		row := dst[h*n : (h+1)*n]
		switch {
		case h == g:
			m.valueLaw(v, row)
		case m.neutral0:
			m.valueLaw(0, row)
		default:
			for j := range row {
				row[j] = 1 / float64(n)
			}
		}
		w := q
		if h == g {
			w = a
		}
		for j := range row {
			row[j] *= w
		}
	}
}
