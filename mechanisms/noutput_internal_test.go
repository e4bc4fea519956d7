package mechanisms

import (
	"fmt"
	"math"
	"math/big"
	"testing"
)

// strictAlgorithm2 is Algorithm 2 as printed with the corrections of E0.7
// only: for N = 4, 5, … while Theorem 4 at p = 1/(e+N-1) is increasing,
// Theorem 4 when Var_n ≥ Var_1 (odd N: p0 from eq. (12), stopping when N is
// too large if stopOdd) and Theorem 5 otherwise; plus N = 2 and N = 3.
func strictAlgorithm2(eps float64, stopOdd bool) []noConfig {
	em1 := math.Expm1(eps)
	out := []noConfig{nOutputDuchi(em1), nOutputThree(em1)}
	for N := 4; N <= NOutputMaxN; N++ {
		p0 := 0.0
		if N%2 == 1 {
			p0 = 1 / (em1 + float64(N))
		}
		c0 := newConfig(em1, N, p0)
		c0.theorem4(nil)
		if !c0.valid() {
			break
		}
		switch {
		case c0.gap() >= 0 && N%2 == 0:
			c0.score()
			out = append(out, c0)
		case c0.gap() >= 0:
			c, ok := nOutputOddP0(em1, N, nil)
			if ok {
				out = append(out, c)
			} else if stopOdd {
				return out
			}
		default:
			c5 := newConfig(em1, N, p0)
			if c5.theorem5(nil) && c5.valid() {
				c5.score()
				out = append(out, c5)
			}
		}
	}
	return out
}

// TestAlgorithm2AsPrinted: the candidate set of NewNOutput (both theorems
// for every N, E0.7) selects the same N and worst case as Algorithm 2 read
// literally (with or without stopping at an odd N that is too large) on
// ε = 0.05, 0.1, …, 16.
func TestAlgorithm2AsPrinted(t *testing.T) {
	for k := 1; k <= 320; k++ {
		eps := 0.05 * float64(k)
		a := bestConfig(nOutputCandidates(eps, 0, NOutputMaxN))
		for _, stop := range []bool{false, true} {
			b := bestConfig(strictAlgorithm2(eps, stop))
			if a.N != b.N || math.Abs(a.worst/b.worst-1) > 1e-13 {
				t.Errorf("ε=%v (stop %v): candidates give N = %d (%s) worst %v; Algorithm 2 N = %d (%s) worst %v",
					eps, stop, a.N, a.how, a.worst, b.N, b.how, b.worst)
			}
		}
	}
}

// TestTheoremsEqualise: Theorem 5 makes every piece's maximum equal
// (App. D), Theorem 4 those of pieces 2 … n (App. C) with a_{n-1}
// minimising Var_n(x_n*), and eq. (12) makes Var_1 = Var_n for odd N; in
// every case the last piece holds the worst case (Lemma 3).
func TestTheoremsEqualise(t *testing.T) {
	checked := 0
	for _, eps := range []float64{2.6, 3, 3.5, 4, 4.5, 6, 8, 12} {
		em1 := math.Expm1(eps)
		for _, c := range nOutputCandidates(eps, 0, NOutputMaxN) {
			if c.N < 4 {
				continue
			}
			name := fmt.Sprintf("ε=%v N=%d %s", eps, c.N, c.how)
			vn, xn := c.pieceMax(c.n)
			if xn != c.vertex(c.n) {
				continue // the vertex is outside the last piece: the theorems' premise fails
			}
			checked++
			first := 2
			if c.how == "theorem 5" || (c.odd && c.p0 < c.p) {
				first = 1
			}
			if c.how == "theorem 4" && c.gap() < 0 {
				// Var_1 > Var_n: Theorem 4's condition fails (Theorem 5's
				// case); only pieces 2 … n are equalised.
				vn = math.Inf(1)
			}
			vlast, _ := c.pieceMax(c.n)
			for i := first; i < c.n; i++ {
				if v, _ := c.pieceMax(i); math.Abs(v/vlast-1) > 1e-9 {
					t.Errorf("%s: piece %d maximum %v, last piece %v", name, i, v, vlast)
				}
			}
			if !(c.worst <= vn*(1+1e-12)) {
				t.Errorf("%s: worst %v above the last piece's %v", name, c.worst, vn)
			}
			if c.how == "theorem 4" && c.n >= 3 {
				// Var_n(x_n*) as a function of a_{n-1}, the rest by the
				// recurrence: a minimum at Theorem 4's a_{n-1}.
				at := func(f float64) float64 {
					d := newConfig(em1, c.N, c.p0)
					d.theorem4(nil)
					a := d.a
					a[c.n-2] *= f
					for i := c.n - 3; i >= 0; i-- {
						a[i] = (4*d.t-2)*a[i+1] - a[i+2]
					}
					d.setOutputs(a)
					return d.varPiece(c.n, d.vertex(c.n))
				}
				if v0 := at(1); !(v0 < at(1+1e-4) && v0 < at(1-1e-4)) {
					t.Errorf("%s: Theorem 4's a_{n-1} does not minimise Var_n(x_n*)", name)
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d configurations checked", checked)
	}
}

// bigTheorem5 returns C_1 … C_{n-1} of Theorem 5 computed with 300-bit
// floats.
func bigTheorem5(t float64, odd bool, n int) []float64 {
	const prec = 300
	f := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
	bt := f(t)
	c := new(big.Float).SetPrec(prec).Mul(f(4), bt)
	if odd {
		c.Sub(c, f(2))
	} else {
		c.Sub(c, f(1))
	}
	c.Quo(f(1), c)
	h := new(big.Float).SetPrec(prec).Mul(f(2), bt)
	h.Sub(h, f(1))
	var out []float64
	for range n - 1 {
		v, _ := c.Float64()
		out = append(out, v)
		k := new(big.Float).SetPrec(prec).Add(c, f(2))
		k.Sub(k, new(big.Float).SetPrec(prec).Mul(f(4), bt))
		k.Mul(k, c)
		d := new(big.Float).SetPrec(prec).Mul(h, h)
		d.Add(d, k)
		if d.Sign() < 0 {
			break
		}
		d.Sqrt(d)
		d.Add(d, h)
		c = new(big.Float).SetPrec(prec).Quo(f(1), d)
	}
	return out
}

// TestTheorem5Recurrence (ERRATA E0.9): the stable recurrence
// C_{i+1} = 1/((2t-1) + √((2t-1)² + K_i)) agrees with a 300-bit evaluation
// to 1e-11 relative on every valid configuration up to ε = 16 (the error
// grows along the recurrence; the printed form does the same there). The
// printed form (1 - 2t + √(K_i + (2t-1)²))/K_i is 0/0 where K_i = 0,
// e.g. K_1 = 0 at t = (3+√5)/8 for even N, where the stable form gives
// C_2 = 1/(2(2t-1)) = (1+√5)/2; there C_2 > 1 and the configuration is
// rejected anyway, so on valid configurations the printed form does not
// lose precision in practice.
func TestTheorem5Recurrence(t *testing.T) {
	worst := 0.0
	for _, eps := range []float64{3, 4, 6, 8, 12, 16} {
		em1 := math.Expm1(eps)
		for N := 4; N <= 300; N++ {
			p0 := 0.0
			if N%2 == 1 {
				p0 = 1 / (em1 + float64(N))
			}
			c := newConfig(em1, N, p0)
			if !c.theorem5(nil) || !c.valid() {
				continue
			}
			ref := bigTheorem5(c.t, c.odd, c.n)
			for i := 0; i+1 < c.n; i++ {
				got := c.a[i] / c.a[i+1]
				worst = max(worst, math.Abs(got/ref[i]-1))
			}
		}
	}
	if worst > 1e-11 {
		t.Errorf("stable Theorem 5 recurrence: worst relative error %v", worst)
	}
	ts := (3 + math.Sqrt(5)) / 8
	c1 := 1 / (4*ts - 1)
	k := c1*c1 + 2*c1 - 4*ts*c1
	h := 2*ts - 1
	printed := (1 - 2*ts + math.Sqrt(k+h*h)) / k
	stable := 1 / (h + math.Sqrt(h*h+c1*(c1+2-4*ts)))
	if !(math.Abs(stable/math.Phi-1) < 1e-9) || math.Abs(printed/math.Phi-1) < 1e-6 {
		t.Errorf("K_1 ≈ 0: printed C_2 = %v, stable %v, want φ = %v from the stable form only", printed, stable, math.Phi)
	}
}

// TestTheorem8ClampRedundant (ERRATA E0.10): with D ≤ 0 and γ1 > 0,
// α2 ≥ α1 always (β* < β1 reduces to Var_N(1) > Var_P(1), i.e. D > 0), so
// the clamp max(α1, α2) that the erratum adds never binds and the printed
// rule min(α2, 1) gives the same α. Checked on every candidate at
// ε = 0.05 … 16.
func TestTheorem8ClampRedundant(t *testing.T) {
	n := 0
	for k := 1; k <= 320; k++ {
		eps := 0.05 * float64(k)
		pm, _ := NewPMSub(eps)
		A := (pm.T() + 1) / math.Expm1(eps)
		B := pm.Variance(0)
		for _, c := range nOutputCandidates(eps, 0, NOutputMaxN) {
			xs := c.vertex(c.n)
			b := c.varPiece(c.n, xs) - xs*xs
			d := c.varPiece(c.n, 1) - (A + B)
			g1 := (xs*xs + (1+A)*(b-B)) / ((1 + A) * (1 + A))
			if d > 0 || g1 <= 0 || xs >= 1 {
				continue
			}
			n++
			g2 := math.Pow(A*xs/(1+A), 2)
			a1 := A / (A + 1 - xs)
			a2 := (math.Sqrt(g2/g1) + A) / (1 + A)
			if a2 < a1*(1-1e-12) {
				t.Errorf("ε=%v N=%d: α2 = %v < α1 = %v with D = %v", eps, c.N, a2, a1, d)
			}
			alpha, _ := hmnpAlpha(&c, A, B)
			if printed := min(a2, 1); math.Abs(printed-alpha) > 1e-12 {
				t.Errorf("ε=%v N=%d: printed α %v, corrected %v", eps, c.N, printed, alpha)
			}
		}
	}
	if n < 1000 {
		t.Errorf("only %d candidates in the interior case", n)
	}
}

// TestSamplerLaw checks the sampler exactly, without Monte Carlo: for
// every input of a grid, the uniforms u in [0, 1) that index maps to each
// output form the intervals the sampler is built on (the flat part
// [k·p, (k+1)·p), then the extra masses above 1-t), index returns that
// output at both ends and the middle of each interval, and the intervals'
// lengths add up to Probabilities. This covers large ε, where the flat
// part has probability ~1e-5 and a Monte Carlo check would need ~1e8
// reports.
func TestSamplerLaw(t *testing.T) {
	for _, eps := range []float64{0.5, 1, 3, 4, 8, 16} {
		m, _ := NewNOutput(eps)
		c := &m.cfg
		N, n := c.N, c.n
		ps := make([]float64, N)
		mass := make([]float64, N)
		xs := []float64{-1, -0.7, -1e-9, 0, 1e-9, 0.33, 1}
		for _, k := range m.knots {
			xs = append(xs, k, -k, math.Nextafter(k, 0), k/2)
		}
		for _, x := range xs {
			x = min(max(x, -1), 1)
			m.Probabilities(x, ps)
			clear(mass)
			// probe checks index on [lo, hi), a few ulps inside the ends,
			// where u - (1-t) and u·(1/p) may round across them.
			probe := func(lo, hi float64, want int) {
				mass[want] += hi - lo
				in := func(u, dir float64) float64 {
					for range 4 {
						u = math.Nextafter(u, dir)
					}
					return u
				}
				for _, u := range []float64{in(lo, 2), lo + (hi-lo)/2, in(hi, -1)} {
					if u < lo || u >= hi {
						continue
					}
					if got := m.index(x, u); got != want {
						t.Fatalf("ε=%v x=%v u=%v: index %d, want %d", eps, x, u, got, want)
					}
				}
			}
			// The flat part.
			for k := 0; k < 2*n; k++ {
				want := k
				if c.odd && k >= n {
					want = k + 1
				}
				lo, hi := float64(k)*c.p, float64(k+1)*c.p
				if k == 2*n-1 && !c.odd {
					hi = m.base
				}
				probe(lo, hi, want)
			}
			if c.odd {
				probe(float64(2*n)*c.p, m.base, n)
			}
			// The extra part.
			ax := math.Abs(x)
			j := m.piece(ax)
			mirror := func(i int) int {
				if x < 0 {
					return N - 1 - i
				}
				return i
			}
			if j == 1 && c.odd {
				r := m.knots[0] - ax
				o, z := m.cOpp*r, m.cZero*r
				probe(m.base, m.base+o, mirror(n-1))
				probe(m.base+o, m.base+o+z, mirror(n))
				probe(m.base+o+z, 1, mirror(n+1))
			} else {
				lowMass := (m.knots[j-1] - ax) * m.tw[j-1]
				probe(m.base, m.base+lowMass, mirror(m.off+j-1))
				probe(m.base+lowMass, 1, mirror(m.off+j))
			}
			for i := range ps {
				if math.Abs(mass[i]-ps[i]) > 1e-14 {
					t.Errorf("ε=%v x=%v: output %d has sampler mass %v, probability %v", eps, x, i, mass[i], ps[i])
				}
			}
		}
	}
}
