package aaa

import (
	"math"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Phase2 is the phase-2 randomiser of a solved noise law: x ∈ [-1, 1] is
// rounded stochastically to a neighbouring grid point G_i (unbiased) and
// G_i + a with a ~ Law[i] is reported. It implements mechanisms.Mechanism,
// mechanisms.Discrete and mechanisms.Variancer, so that the exact auditor
// (audit.AuditLaw) can measure its ε from its output law.
type Phase2 struct {
	nz      *Noise
	h       float64 // data grid spacing
	rho     int     // output index of (i, l) is rho·i + l
	outs    []float64
	alias   [][]aliasEntry
	worst   float64
	worstOK bool
}

type aliasEntry struct {
	prob  float64
	other int32
}

// NewPhase2 returns the phase-2 randomiser of nz.
func NewPhase2(nz *Noise) *Phase2 {
	g := newLayout(nz.Cfg)
	m := &Phase2{nz: nz, h: 2 / float64(nz.M-1), rho: int(math.Round(2 / float64(nz.M-1) / g.lpStep))}
	nOut := m.rho*(nz.M-1) + nz.N
	m.outs = make([]float64, nOut)
	for q := range m.outs {
		m.outs[q] = -1 - g.amax + float64(q)*g.lpStep
	}
	m.alias = make([][]aliasEntry, nz.M)
	for i := range m.alias {
		m.alias[i] = buildAlias(nz.Law[i])
	}
	return m
}

// buildAlias returns Walker's alias table of the distribution w (sums to 1).
func buildAlias(w []float64) []aliasEntry {
	n := len(w)
	t := make([]aliasEntry, n)
	scaled := make([]float64, n)
	var small, large []int
	for i, v := range w {
		scaled[i] = v * float64(n)
		if scaled[i] < 1 {
			small = append(small, i)
		} else {
			large = append(large, i)
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		t[s] = aliasEntry{prob: scaled[s], other: int32(l)}
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	for _, i := range append(small, large...) {
		t[i] = aliasEntry{prob: 1, other: int32(i)}
	}
	return t
}

// Noise returns the law the randomiser samples.
func (m *Phase2) Noise() *Noise { return m.nz }

// Name implements mechanisms.Mechanism.
func (m *Phase2) Name() string {
	if m.nz.Cfg.Alignment == Authors {
		return "aaa-phase2-authors"
	}
	return "aaa-phase2"
}

// Epsilon implements mechanisms.Mechanism: the budget the programme was
// solved for (what it spends is AuditedEpsilon).
func (m *Phase2) Epsilon() float64 { return m.nz.Cfg.Eps }

// Domain implements mechanisms.Mechanism.
func (m *Phase2) Domain() (lo, hi float64) { return -1, 1 }

// round returns the grid index of the lower neighbour of x and the
// probability of rounding up.
func (m *Phase2) round(x float64) (int, float64) {
	t := (x + 1) / m.h
	i := int(t)
	if i >= m.nz.M-1 {
		return m.nz.M - 2, 1
	}
	if i < 0 {
		return 0, 0
	}
	return i, t - float64(i)
}

// Round returns the stochastically rounded grid index of x (unbiased:
// E[G_i] = x), from one uniform.
func (m *Phase2) Round(x float64, rng *rand.Rand) int {
	i, f := m.round(x)
	if rng.Float64() < f {
		i++
	}
	return i
}

// NoiseIndex draws l ~ Law[i] from one uniform.
func (m *Phase2) NoiseIndex(i int, rng *rand.Rand) int {
	t := m.alias[i]
	u := rng.Float64() * float64(len(t))
	k := int(u)
	if k >= len(t) {
		k = len(t) - 1
	}
	if u-float64(k) < t[k].prob {
		return k
	}
	return int(t[k].other)
}

// Perturb implements mechanisms.Mechanism.
func (m *Phase2) Perturb(x float64, rng *rand.Rand) float64 {
	i := m.Round(x, rng)
	return m.nz.Grid[i] + m.nz.A[m.NoiseIndex(i, rng)]
}

// PerturbBatch implements mechanisms.Mechanism.
func (m *Phase2) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	for k, x := range xs {
		if !(x >= -1 && x <= 1) {
			return &mechanisms.InputError{Mechanism: m.Name(), Index: k, Value: x, Lo: -1, Hi: 1}
		}
	}
	_ = dst[:len(xs)]
	for k, x := range xs {
		dst[k] = m.Perturb(x, rng)
	}
	return nil
}

// Outputs implements mechanisms.Discrete: the lattice of reports G_i + a_l.
func (m *Phase2) Outputs() []float64 { return m.outs }

// Probabilities implements mechanisms.Discrete.
func (m *Phase2) Probabilities(x float64, dst []float64) {
	clear(dst[:len(m.outs)])
	i, f := m.round(x)
	for l, v := range m.nz.Law[i] {
		dst[m.rho*i+l] += (1 - f) * v
	}
	for l, v := range m.nz.Law[i+1] {
		dst[m.rho*(i+1)+l] += f * v
	}
}

// rowMoments returns E[G_i + a] and E[(G_i + a)²] at grid point i.
func (m *Phase2) rowMoments(i int) (m1, m2 float64) {
	g := m.nz.Grid[i]
	for l, v := range m.nz.Law[i] {
		y := g + m.nz.A[l]
		m1 += v * y
		m2 += v * y * y
	}
	return m1, m2
}

// Variance implements mechanisms.Variancer: Var[Y | x], the stochastic
// rounding included.
func (m *Phase2) Variance(x float64) float64 {
	i, f := m.round(x)
	a1, a2 := m.rowMoments(i)
	b1, b2 := m.rowMoments(i + 1)
	mean := (1-f)*a1 + f*b1
	return (1-f)*a2 + f*b2 - mean*mean
}

// WorstCaseVariance implements mechanisms.Variancer: on each grid cell the
// variance is E[Y²] (linear in x) minus E[Y]² (E[Y] linear in x), a
// concave quadratic, maximised at its vertex clamped to the cell.
func (m *Phase2) WorstCaseVariance() float64 {
	if m.worstOK {
		return m.worst
	}
	w := 0.0
	for i := 0; i+1 < m.nz.M; i++ {
		a1, a2 := m.rowMoments(i)
		b1, b2 := m.rowMoments(i + 1)
		// v(f) = a2 + f(b2-a2) - (a1 + f(b1-a1))², f ∈ [0, 1].
		d1, d2 := b1-a1, b2-a2
		f := 0.0
		if d1 != 0 {
			f = math.Min(1, math.Max(0, (d2-2*a1*d1)/(2*d1*d1)))
		}
		for _, ff := range []float64{0, f, 1} {
			mu := a1 + ff*d1
			w = math.Max(w, a2+ff*d2-mu*mu)
		}
	}
	m.worst, m.worstOK = w, true
	return w
}

// AuditedEpsilon returns the ε the released law spends, computed exactly:
// max over reports q of ln(max_i Pr[q | G_i] / min_i Pr[q | G_i]) over
// the grid points (the law at any other x is a mixture of two grid
// points' laws, so the grid holds the extremes); +Inf when some report
// has probability 0 at one grid point and not at another.
func (m *Phase2) AuditedEpsilon() float64 {
	worst := 0.0
	for q := range m.outs {
		lo, hi := math.Inf(1), 0.0
		for i := 0; i < m.nz.M; i++ {
			v := 0.0
			if l := q - m.rho*i; l >= 0 && l < m.nz.N {
				v = m.nz.Law[i][l]
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		if hi == 0 {
			continue
		}
		if lo == 0 {
			return math.Inf(1)
		}
		worst = math.Max(worst, math.Log(hi/lo))
	}
	return worst
}
