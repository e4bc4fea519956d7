package central

import "math"

// law is one noise coordinate of an estimator, in count units (Δ = 1 for
// the count; the sum's noise in units of the range w), through the few
// numbers the validity rule (validity.go) and the batch sizing need: its
// absolute moments and its tail second moment.
type law struct {
	m2, m3, m4 float64 // E Z², E|Z|³, E Z⁴
	// tail returns E[Z²·1{|Z| > x}] for x ≥ 0, or an upper bound of it.
	tail func(x float64) float64
	// scale is the exponential scale of the tail (P(|Z| > x) falls like
	// e^{−x/scale}): the Laplace scale, 1/ε for the staircases. It splits
	// the distance to the boundary between the terms of a sum.
	scale float64
}

// laplaceLaw is Lap(β): E Z² = 2β², E|Z|³ = 6β³, E Z⁴ = 24β⁴ and
// E[Z²; |Z| > x] = e^{−x/β}(x² + 2xβ + 2β²).
func laplaceLaw(beta float64) law {
	return law{
		m2: 2 * beta * beta, m3: 6 * beta * beta * beta, m4: 24 * beta * beta * beta * beta,
		scale: beta,
		tail: func(x float64) float64 {
			return math.Exp(-x/beta) * (x*x + 2*x*beta + 2*beta*beta)
		},
	}
}

// geomSums returns S_m = Σ_{i≥0} i^m r^i for m = 0…6 with d = 1 − r
// (from expm1, so that small ε keeps its digits): S_0 = 1/d and
// S_m = r·A_m(r)/d^{m+1}, A_m the Eulerian polynomials. Every term is
// positive: no cancellation at any ε.
func geomSums(r, d float64) [7]float64 {
	eulerian := [7][]float64{
		{1}, {1}, {1, 1}, {1, 4, 1}, {1, 11, 11, 1}, {1, 26, 66, 26, 1}, {1, 57, 302, 302, 57, 1},
	}
	var s [7]float64
	s[0] = 1 / d
	for m := 1; m <= 6; m++ {
		var a, rk float64 = 0, 1
		for _, c := range eulerian[m] {
			a += c * rk
			rk *= r
		}
		s[m] = r * a / math.Pow(d, float64(m+1))
	}
	return s
}

// shiftedGeomSum returns Σ_{i≥0} r^i (i + c)^q for c ≥ 0 and q ≤ 6, from
// the sums S of geomSums (binomial expansion: positive terms).
func shiftedGeomSum(s *[7]float64, c float64, q int) float64 {
	var sum float64
	binom := 1.0
	for j := 0; j <= q; j++ {
		// C(q, j)·c^{q−j}·S_j
		sum += binom * math.Pow(c, float64(q-j)) * s[j]
		binom = binom * float64(q-j) / float64(j+1)
	}
	return sum
}

// staircaseLaw is the univariate staircase (ε, γ, Δ = 1) of Definition 2,
// through its mixture form |Z| = G + U: G ~ Geometric(b) on {0, 1, …}
// (b = e^{−ε}) and, independently, U uniform on [0, γ) with probability
// p0 = γ/(γ + b(1 − γ)), else uniform on [γ, 1). Moments by binomial
// expansion over the geometric moments E G^m = (1 − b)·S_m; the tail by
// the memorylessness of G (given G ≥ k, G − k is G again).
func staircaseLaw(eps, gamma float64) law {
	b := math.Exp(-eps)
	d := -math.Expm1(-eps)
	s := geomSums(b, d)
	var eg [7]float64 // E G^m
	for m := range eg {
		eg[m] = d * s[m]
	}
	p0 := gamma / (gamma + b*(1-gamma))
	// E U^k for the two pieces: uniform on [lo, hi).
	eu := func(lo, hi float64, k int) float64 {
		if hi <= lo {
			return math.Pow(lo, float64(k))
		}
		return (math.Pow(hi, float64(k+1)) - math.Pow(lo, float64(k+1))) / (float64(k+1) * (hi - lo))
	}
	// E|Z|^p = Σ_k C(p,k) E G^{p−k} E U^k.
	moment := func(p int) float64 {
		var sum float64
		binom := 1.0
		for k := 0; k <= p; k++ {
			u := p0*eu(0, gamma, k) + (1-p0)*eu(gamma, 1, k)
			sum += binom * eg[p-k] * u
			binom = binom * float64(p-k) / float64(k+1)
		}
		return sum
	}
	m1, m2 := moment(1), moment(2)
	l := law{m2: m2, m3: moment(3), m4: moment(4), scale: 1 / eps}
	l.tail = func(x float64) float64 {
		if x <= 0 {
			return m2
		}
		k0 := math.Floor(x)
		if k0 > 1e15 || math.Pow(b, k0) == 0 {
			return 0
		}
		bk := math.Pow(b, k0)
		// G ≥ k0 + 1: b^{k0+1}·E[(k0 + 1 + |Z|)²].
		c := k0 + 1
		above := bk * b * (c*c + 2*c*m1 + m2)
		// G = k0: |Z| = k0 + U with U's piece laws, the part above x.
		y := x - k0
		part := func(lo, hi, p float64) float64 {
			lo = math.Max(lo, y)
			if hi <= lo || p == 0 {
				return 0
			}
			return p * (math.Pow(k0+hi, 3) - math.Pow(k0+lo, 3)) / 3
		}
		var within float64
		if gamma > 0 {
			within += part(0, gamma, p0/gamma)
		}
		if gamma < 1 {
			within += part(gamma, 1, (1-p0)/(1-gamma))
		}
		return above + d*bk*within
	}
	return l
}

// staircase2DLaw is one coordinate x of the two-dimensional ℓ1 staircase
// (ε, γ, Δ = 1) of Definition 3: density a·r^k on the ℓ1 ring [k, k+γ) and
// a·r^{k+1} on [k+γ, k+1), with the corrected normaliser of E1.2. On the
// ring of radius ρ (area element 4ρ dρ), ∫_{|x|+|y|<R} |x|^p = 4R^{p+2}/
// ((p+1)(p+2)), and the rings telescope:
//
//	E|x|^p = 4a(1 − r)/((p+1)(p+2)) · Σ_{k≥0} r^k (k + γ)^{p+2}.
//
// The tail is bounded through the radius R = |x| + |y| ≥ |x|:
// E[x²; |x| > t] ≤ E[R²; R > t].
func staircase2DLaw(eps, gamma float64) law {
	r := math.Exp(-eps)
	d := -math.Expm1(-eps)
	s := geomSums(r, d)
	a := d * d / (2 * (2*r*(r+d*gamma) + d*(r+d*gamma*gamma)))
	moment := func(p int) float64 {
		return 4 * a * d / float64((p+1)*(p+2)) * shiftedGeomSum(&s, gamma, p+2)
	}
	l := law{m2: moment(2), m3: moment(3), m4: moment(4), scale: 1 / eps}
	l.tail = func(t float64) float64 {
		if t < 0 {
			t = 0
		}
		k0 := math.Floor(t)
		if k0 > 1e15 || math.Pow(r, k0) == 0 {
			return 0
		}
		// ∫ ρ²·4ρ dρ over [lo, hi) = hi⁴ − lo⁴, at density a·r^level.
		ring := func(lo, hi, level float64) float64 {
			lo = math.Max(lo, t)
			if hi <= lo {
				return 0
			}
			return math.Pow(r, level) * (math.Pow(hi, 4) - math.Pow(lo, 4))
		}
		partial := ring(k0, k0+gamma, k0) + ring(k0+gamma, k0+1, k0+1)
		// Shells k ≥ K = k0 + 1 telescope to r^K[(1 − r)Σ_i r^i(i+K+γ)⁴ − K⁴].
		K := k0 + 1
		full := math.Pow(r, K) * (d*shiftedGeomSum(&s, K+gamma, 4) - math.Pow(K, 4))
		return a * (partial + math.Max(full, 0))
	}
	return l
}
