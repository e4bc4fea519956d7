package estimators

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// PosteriorNeeds is what the posterior (and so UWA) needs of every
// service: an unbiased report with a variance (for UWA's weights) and a
// likelihood, from a discrete law or a density.
var PosteriorNeeds = mechanisms.Needs{
	All: []mechanisms.Capability{mechanisms.CapVariance},
	Any: []mechanisms.Capability{mechanisms.CapDiscreteLaw, mechanisms.CapDensity},
}

// PosteriorBuckets is the number h of input buckets of the per-user posterior:
// the authors' code uses 100 (the paper leaves h open).
const PosteriorBuckets = 100

// PM bucket lookups of PosteriorOptions.PMLookup.
const (
	// PMLookupBucket takes the likelihood row of the output bucket of
	// [-C, C] that contains the report (eq. (5), Section 4.2): correct.
	PMLookupBucket = "bucket"
	// PMLookupAuthors takes the row whose index is that of the input
	// midpoint of [-1, 1] nearest to the report, as the authors' code does
	// (ERRATA E4.2): reports beyond ±1 fall into the first or last output
	// bucket. Compat only, for comparing with the paper's figures.
	PMLookupAuthors = "authors"
)

// PosteriorOptions configure the per-user posterior of Algorithm 1.
type PosteriorOptions struct {
	// Buckets is h, the number of equal input buckets of [-1, 1] whose
	// midpoints μ_k carry the posterior; 0 means PosteriorBuckets.
	Buckets int
	// OutBuckets is the number of equal output buckets into which the
	// output range of a bounded continuous mechanism (PM on [-C, C], SW on
	// [-b, 1+b]) is cut; 0 means Buckets (the authors' 100).
	OutBuckets int
	// PMLookup is PMLookupBucket (default, "") or PMLookupAuthors.
	PMLookup string
	// LaplaceClamp clamps a Laplace report to ±(2/ε)·ln 5 before its window
	// is formed, as the authors' code does (ERRATA E4.3); it changes the
	// posterior only for ε above those of the paper. Compat only.
	LaplaceClamp bool
}

func (o PosteriorOptions) resolved() (PosteriorOptions, error) {
	if o.Buckets == 0 {
		o.Buckets = PosteriorBuckets
	}
	if o.OutBuckets == 0 {
		o.OutBuckets = o.Buckets
	}
	if o.Buckets < 2 || o.Buckets > 1<<16 {
		return o, fmt.Errorf("posterior: buckets must be in [2, 65536], got %d", o.Buckets)
	}
	if o.OutBuckets < 1 || o.OutBuckets > 1<<16 {
		return o, fmt.Errorf("posterior: output buckets must be in [1, 65536], got %d", o.OutBuckets)
	}
	switch o.PMLookup {
	case "":
		o.PMLookup = PMLookupBucket
	case PMLookupBucket:
	case PMLookupAuthors:
		if o.OutBuckets != o.Buckets {
			return o, fmt.Errorf("posterior: the authors' PM lookup (E4.2) indexes output buckets by input midpoints, so it needs as many output buckets as input buckets (%d ≠ %d)", o.OutBuckets, o.Buckets)
		}
	default:
		return o, fmt.Errorf("posterior: unknown PM lookup %q (valid: %s, %s)", o.PMLookup, PMLookupBucket, PMLookupAuthors)
	}
	return o, nil
}

// postLikelihood gives, for one service, a vector over the h input buckets
// proportional to P(report | μ_k). Rows are scaled so that their largest
// entry is about 1: the posterior is invariant to a per-row factor, and for
// an ε-LDP mechanism every entry of such a row is then at least about
// e^{-ε}, so that products over services stay far from underflow.
type postLikelihood interface {
	// row returns the vector for report y; scratch (length h) may be used
	// and returned. ok is false for a report the mechanism cannot produce.
	row(y float64, scratch []float64) (r []float64, ok bool)
}

// Posterior is Algorithm 1 of Du et al. (Section 4.2): for every service,
// the likelihood of a report given each input-bucket midpoint μ_k
// (k = 0…h-1, μ_k = -1 + (k+½)·2/h), from which a user's posterior over the
// buckets is the normalised product of its reports' likelihoods under the
// uniform prior. Build it once per collection; it is read-only afterwards
// and safe for concurrent use.
//
// The likelihoods (Section 4.2; eq. (5) taken as an exact bucket
// probability, ERRATA E4.8):
//
//   - discrete mechanisms (SR = duchi, three-outputs, n-output, ...): the
//     exact probability of the reported output at μ_k;
//   - mechanisms with a density on an unbounded output (Laplace, and any
//     other): the probability of the window [y-τ, y+τ], τ = √|y|, given
//     μ_k, from the CDF (Du et al.'s Laplace rule, §4.2, eq. (7)), with the
//     point density at y = 0 where the window is empty (E4.3); Laplace's
//     in closed form;
//   - bounded continuous mechanisms (PM, SW, ...): the output range is cut
//     into OutBuckets equal buckets and the likelihood is the exact
//     probability of the report's bucket (BucketGivenBin). The input is
//     uniform over the input bin for Square Wave (Li et al.'s transform)
//     and at the bin's midpoint otherwise (PM): the authors' code's choice
//     (E4.13), and that of NewService. The report's bucket is the one that contains
//     it; PMLookupAuthors reproduces the authors' wrong lookup (E4.2).
//
// A service needs a discrete law or a density (PosteriorNeeds): mechanisms
// with atoms inside a continuous output (hm, hm-tp, hm-np) have neither.
type Posterior struct {
	h    int
	mu   []float64 // bucket midpoints on [-1, 1]
	mu2  []float64 // their squares
	ones []float64 // h ones
	lik  []postLikelihood
	// Variance tables: the variance on [-1, 1] of service j's unbiased
	// value at μ_k, as a quadratic α + βμ + γμ² when it is one (checked at
	// every midpoint), else tabulated.
	quad    []bool
	qa, qb  []float64
	qc      []float64
	varTab  [][]float64
	unb     []Unbiaser
	opt     PosteriorOptions
	allQuad bool
}

// NewPosterior builds the likelihood and variance tables of every service.
// Services with the same mechanism and budget share their tables.
func NewPosterior(services []mechanisms.Mechanism, opt PosteriorOptions) (*Posterior, error) {
	opt, err := opt.resolved()
	if err != nil {
		return nil, err
	}
	if len(services) == 0 {
		return nil, errors.New("posterior: no services")
	}
	h := opt.Buckets
	p := &Posterior{h: h, mu: make([]float64, h), mu2: make([]float64, h), ones: make([]float64, h), opt: opt}
	for k := range p.mu {
		p.mu[k] = postMidpoint(k, h)
		p.mu2[k] = p.mu[k] * p.mu[k]
		p.ones[k] = 1
	}
	type key struct {
		name string
		eps  float64
	}
	cache := map[key]postLikelihood{}
	p.unb, err = newUnbiasers(services)
	if err != nil {
		return nil, err
	}
	m := len(services)
	p.lik = make([]postLikelihood, m)
	p.quad = make([]bool, m)
	p.qa, p.qb, p.qc = make([]float64, m), make([]float64, m), make([]float64, m)
	p.varTab = make([][]float64, m)
	p.allQuad = true
	for j, s := range services {
		k := key{s.Name(), s.Epsilon()}
		l, ok := cache[k]
		if !ok {
			l, err = newPostLikelihood(s, p.mu, opt)
			if err != nil {
				return nil, fmt.Errorf("service %d (%s): %w", j+1, s.Name(), err)
			}
			cache[k] = l
		}
		p.lik[j] = l
		p.setVariance(j)
	}
	return p, nil
}

// midpoint returns μ_k = -1 + (k+½)·2/h.
func postMidpoint(k, h int) float64 { return -1 + (2*float64(k)+1)/float64(h) }

// setVariance tabulates Var_j(μ_k) and detects a quadratic in μ: the
// variances of SR (C² - x²), Laplace (8/ε²), the piecewise family (eq. (31))
// and unbiased SW are quadratics, so the posterior expectation of the
// variance (eq. (8)) needs only the posterior's first three moments.
func (p *Posterior) setVariance(j int) {
	u := p.unb[j]
	tab := make([]float64, p.h)
	for k, mu := range p.mu {
		tab[k] = u.Variance(mu)
	}
	p.varTab[j] = tab
	v0, vp, vm := u.Variance(0), u.Variance(1), u.Variance(-1)
	a, b, c := v0, (vp-vm)/2, (vp+vm)/2-v0
	quad := true
	for k, mu := range p.mu {
		q := a + b*mu + c*mu*mu
		if !(math.Abs(q-tab[k]) <= 1e-12*math.Abs(tab[k])) {
			quad = false
			break
		}
	}
	p.quad[j] = quad
	p.qa[j], p.qb[j], p.qc[j] = a, b, c
	if !quad {
		p.allQuad = false
	}
}

// Buckets returns h.
func (p *Posterior) Buckets() int { return p.h }

// Midpoints returns the bucket midpoints μ_k. The slice belongs to p.
func (p *Posterior) Midpoints() []float64 { return p.mu }

// ErrImpossible is returned for a user whose reports have zero likelihood
// at every bucket midpoint together.
var ErrImpossible = errors.New("posterior: the reports have zero likelihood at every bucket midpoint")

// User writes the posterior f_m of one user (Algorithm 1) to dst (length
// h): ys[j] is the user's raw report at service j, NaN if none. It follows
// the algorithm literally: a uniform prior, then for each service in order
// f_j^k ∝ P(A_j(v) | μ_k)·f_{j-1}^k, normalised after every service. A user
// without reports gets the uniform prior. scratch is h values of working
// space.
func (p *Posterior) User(ys, dst, scratch []float64) error {
	if len(ys) != len(p.lik) {
		return fmt.Errorf("posterior: %d reports for %d services", len(ys), len(p.lik))
	}
	dst = dst[:p.h]
	for k := range dst {
		dst[k] = 1 / float64(p.h)
	}
	for j, y := range ys {
		if y != y {
			continue
		}
		r, ok := p.lik[j].row(y, scratch)
		if !ok {
			return fmt.Errorf("posterior: service %d cannot report %v", j+1, y)
		}
		var s float64
		for k := range dst {
			dst[k] *= r[k]
			s += dst[k]
		}
		if !(s > 0) || math.IsInf(s, 0) {
			return ErrImpossible
		}
		for k := range dst {
			dst[k] /= s
		}
	}
	return nil
}

// newPostLikelihood builds the likelihood of one mechanism on the midpoints mu.
func newPostLikelihood(m mechanisms.Mechanism, mu []float64, opt PosteriorOptions) (postLikelihood, error) {
	h := len(mu)
	lo, hi := m.Domain()
	// The input bin k of [-1, 1] maps one-to-one onto the mechanism's domain.
	in := func(x float64) float64 { return lo + (x+1)*(hi-lo)/2 }
	// What UWA's posterior needs of a service (besides its variance, for
	// the weights): a discrete law, or a density (PosteriorNeeds).
	if err := (mechanisms.Needs{Any: []mechanisms.Capability{mechanisms.CapDiscreteLaw, mechanisms.CapDensity}}).Check(m); err != nil {
		return nil, fmt.Errorf("no likelihood: %w", err)
	}
	switch mm := m.(type) {
	case *mechanisms.Laplace:
		// The window likelihood below (newPostWindow) in closed form: the
		// same rows up to a constant factor per row, which cancels in the
		// posterior, at three exponentials a row instead of 2h CDFs; and
		// the authors' clamp (E4.3). Not a condition of acceptance: any
		// unbounded mechanism with a density takes the generic path.
		return newPostLaplace(mm, mu, opt.LaplaceClamp), nil
	case mechanisms.Discrete:
		outs := mm.Outputs()
		t := &postDiscrete{outs: outs, rows: make([][]float64, len(outs))}
		for o := range outs {
			t.rows[o] = make([]float64, h)
		}
		probs := make([]float64, len(outs))
		for k, x := range mu {
			mm.Probabilities(in(x), probs)
			for o, pr := range probs {
				t.rows[o][k] = pr
			}
		}
		for _, r := range t.rows {
			postMaxNormalise(r)
		}
		return t, nil
	case mechanisms.DensityCDF:
		if !mechanisms.Has(m, mechanisms.CapBounded) {
			return newPostWindow(mm, in, mu), nil
		}
		ylo, yhi := mm.OutputRange()
		// The input at the bin midpoint, except for Square Wave, whose
		// transform averages over the bin (Li et al.; E4.13), as in
		// NewService. Without exact bucket probabilities a bucket's
		// probability at a point input is a difference of the CDF.
		bucket, exact := m.(mechanisms.Bucketer)
		if !exact {
			bucket = cdfBuckets{mm}
		}
		_, binAverage := m.(*mechanisms.SquareWave)
		binAverage = binAverage && exact
		nOut := opt.OutBuckets
		t := &postBucket{lo: ylo, hi: yhi, nOut: nOut, width: (yhi - ylo) / float64(nOut), rows: make([][]float64, nOut)}
		for r := range t.rows {
			t.rows[r] = make([]float64, h)
		}
		edge := func(r int) float64 {
			if r == nOut {
				return yhi
			}
			return ylo + float64(r)*t.width
		}
		for k, x := range mu {
			xlo, xhi := in(x), in(x)
			if binAverage {
				xlo, xhi = in(x-1/float64(h)), in(x+1/float64(h))
			}
			var col float64
			for r := range t.rows {
				v := bucket.BucketGivenBin(edge(r), edge(r+1), xlo, xhi)
				t.rows[r][k] = v
				col += v
			}
			// Each column is a distribution over the output buckets;
			// normalise away the rounding (and, for the piecewise family,
			// as the authors' code does).
			for r := range t.rows {
				t.rows[r][k] /= col
			}
		}
		for _, r := range t.rows {
			postMaxNormalise(r)
		}
		if _, ok := m.(*mechanisms.Piecewise); ok && opt.PMLookup == PMLookupAuthors {
			t.authors = true
		}
		return t, nil
	}
	return nil, fmt.Errorf("no likelihood for %s", m.Name()) // unreachable: the needs hold
}

// cdfBuckets gives the bucket probabilities of a mechanism with a CDF at a
// point input (xlo = xhi): Pr[ylo < Y ≤ yhi] = CDF(yhi) - CDF(ylo).
type cdfBuckets struct{ m mechanisms.DensityCDF }

func (c cdfBuckets) BucketGivenBin(ylo, yhi, xlo, xhi float64) float64 {
	x := (xlo + xhi) / 2
	return c.m.CDF(yhi, x) - c.m.CDF(ylo, x)
}

// postMaxNormalise scales r so that its largest entry is 1 (if it has a
// positive one).
func postMaxNormalise(r []float64) {
	var mx float64
	for _, v := range r {
		mx = max(mx, v)
	}
	if mx > 0 {
		for k := range r {
			r[k] /= mx
		}
	}
}

// postDiscrete is the likelihood of a mechanism with a finite alphabet: one
// row per output.
type postDiscrete struct {
	outs []float64
	rows [][]float64
}

func (t *postDiscrete) row(y float64, _ []float64) ([]float64, bool) {
	outs := t.outs
	if len(outs) == 2 { // SR: the two outputs ±C
		if y == outs[1] {
			return t.rows[1], true
		}
		if y == outs[0] {
			return t.rows[0], true
		}
		return nil, false
	}
	i := sort.SearchFloat64s(outs, y)
	if i < len(outs) && outs[i] == y {
		return t.rows[i], true
	}
	return nil, false
}

// postBucket is the likelihood of a bounded continuous mechanism: one row
// per output bucket.
type postBucket struct {
	lo, hi, width float64
	nOut          int
	rows          [][]float64
	authors       bool // E4.2 compat lookup
}

func (t *postBucket) row(y float64, _ []float64) ([]float64, bool) {
	if !(y >= t.lo && y <= t.hi) {
		return nil, false
	}
	var r int
	if t.authors {
		// The index of the input midpoint of [-1, 1] nearest to y, clipped:
		// that of the input bucket containing y (E4.2).
		h := float64(t.nOut)
		r = int(math.Floor((y + 1) * h / 2))
	} else {
		r = int((y - t.lo) / t.width)
	}
	return t.rows[min(max(r, 0), t.nOut-1)], true
}

// postLaplace is the window likelihood of the Laplace mechanism (Du et al. §4.2, eq. (7)):
// P(Y ∈ [y-τ, y+τ] | μ_k), τ = √|y|, exactly, from the Laplace CDF with
// scale b = 2/ε. With a = y-τ, c = y+τ, m = 1 - e^{-2τ/b} and the tabulated
// P_k = e^{(μ_k - μ_max)/b}, M_k = e^{(μ_min - μ_k)/b} (both in (0, 1]):
//
//	μ_k ≤ a:      ½·m·e^{(μ_max - a)/b}·P_k
//	μ_k ≥ c:      ½·m·e^{(c - μ_min)/b}·M_k
//	a < μ_k < c:  1 - ½·e^{(a - μ_min)/b}·M_k - ½·e^{(μ_max - c)/b}·P_k
//
// so a row costs three exponentials, none per bucket. When the window lies
// wholly on one side of the midpoints the row is proportional to P or M and
// is returned as it is (the factor cancels in the posterior). At y = 0 the
// window is empty and the point density ∝ e^{-|μ_k|/b} is used (E4.3).
// The factors stay below e^{2.6ε} (a window meets the midpoints only for
// |y| < φ² + 1); for ε > 200 each entry is computed from its own
// exponential instead.
type postLaplace struct {
	b      float64
	mu     []float64
	pk, mk []float64 // P_k, M_k
	point  []float64 // e^{-|μ_k|/b}
	clamp  float64   // > 0: clamp |y| to this (E4.3 compat)
	direct bool      // ε > 200
}

func newPostLaplace(m *mechanisms.Laplace, mu []float64, clamp bool) *postLaplace {
	b := m.Scale()
	h := len(mu)
	t := &postLaplace{b: b, mu: mu, pk: make([]float64, h), mk: make([]float64, h), point: make([]float64, h), direct: m.Epsilon() > 200}
	for k, x := range mu {
		t.pk[k] = math.Exp((x - mu[h-1]) / b)
		t.mk[k] = math.Exp((mu[0] - x) / b)
		t.point[k] = math.Exp(-math.Abs(x) / b)
	}
	postMaxNormalise(t.point)
	if clamp {
		t.clamp = b * math.Log(5)
	}
	return t
}

func (t *postLaplace) row(y float64, scratch []float64) ([]float64, bool) {
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return nil, false
	}
	if t.clamp > 0 {
		y = min(max(y, -t.clamp), t.clamp)
	}
	if y == 0 {
		return t.point, true
	}
	tau := math.Sqrt(math.Abs(y))
	a, c := y-tau, y+tau
	mu := t.mu
	h := len(mu)
	lo, hi := mu[0], mu[h-1]
	if a >= hi {
		return t.pk, true
	}
	if c <= lo {
		return t.mk, true
	}
	b := t.b
	r := scratch[:h]
	mass := -math.Expm1(-2 * tau / b) // 1 - e^{-2τ/b}
	if t.direct {
		for k, x := range mu {
			switch {
			case x <= a:
				r[k] = 0.5 * math.Exp((x-a)/b) * mass
			case x >= c:
				r[k] = 0.5 * math.Exp((c-x)/b) * mass
			default:
				r[k] = 1 - 0.5*math.Exp((a-x)/b) - 0.5*math.Exp((x-c)/b)
			}
		}
		return r, true
	}
	// The first index with μ_k > a and the first with μ_k ≥ c; the grid is
	// uniform, so these are found by arithmetic and then fixed by the
	// comparisons that decide (the formulas agree at the boundaries).
	ka := laplaceCount(a, h, mu, false)
	kc := laplaceCount(c, h, mu, true)
	below := 0.5 * mass * math.Exp((hi-a)/b)
	above := 0.5 * mass * math.Exp((c-lo)/b)
	ea, ec := 0.5*math.Exp((a-lo)/b), 0.5*math.Exp((hi-c)/b)
	pk, mk := t.pk[:h], t.mk[:h]
	for k := 0; k < ka; k++ {
		r[k] = below * pk[k]
	}
	for k := ka; k < kc; k++ {
		r[k] = 1 - ea*mk[k] - ec*pk[k]
	}
	for k := kc; k < h; k++ {
		r[k] = above * mk[k]
	}
	return r, true
}

// laplaceCount returns the number of midpoints μ_k ≤ z (strict = false) or
// < z (strict = true).
func laplaceCount(z float64, h int, mu []float64, strict bool) int {
	// μ_k = -1 + (2k+1)/h ≤ z  ⇔  k ≤ ((z+1)h - 1)/2.
	k := int(math.Floor(((z+1)*float64(h)-1)/2)) + 1
	k = min(max(k, 0), h)
	in := func(k int) bool { // is μ_k counted?
		if strict {
			return mu[k] < z
		}
		return mu[k] <= z
	}
	for k > 0 && !in(k-1) {
		k--
	}
	for k < h && in(k) {
		k++
	}
	return k
}

// postWindow is the window likelihood of a mechanism with a density on an
// unbounded output, from its CDF: P(Y ∈ [y-τ, y+τ] | μ_k), τ = √|y| (the
// rule of Du et al.'s Laplace likelihood, §4.2, eq. (7)), and at y = 0, where
// the window is empty, the point density (E4.3). Where the window's
// probability is so small that the difference of two CDF values near 0 or
// 1 loses its digits (all below 1e-3), it is the integral of the density
// over the window by 16-point Gauss–Legendre instead; where the density
// underflows at every midpoint too, the row is uniform. A row costs 2h CDF
// (or 16h density) evaluations.
type postWindow struct {
	m     mechanisms.DensityCDF
	xs    []float64 // the midpoints on the mechanism's domain
	point []float64 // the density at 0, max-normalised
}

func newPostWindow(m mechanisms.DensityCDF, in func(float64) float64, mu []float64) *postWindow {
	t := &postWindow{m: m, xs: make([]float64, len(mu)), point: make([]float64, len(mu))}
	for k, x := range mu {
		t.xs[k] = in(x)
		t.point[k] = m.Density(0, t.xs[k])
	}
	postMaxNormalise(t.point)
	return t
}

func (t *postWindow) row(y float64, scratch []float64) ([]float64, bool) {
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return nil, false
	}
	if y == 0 {
		return t.point, true
	}
	tau := math.Sqrt(math.Abs(y))
	a, c := y-tau, y+tau
	r := scratch[:len(t.xs)]
	var mx float64
	for k, x := range t.xs {
		r[k] = t.m.CDF(c, x) - t.m.CDF(a, x)
		mx = max(mx, r[k])
	}
	if !(mx >= 1e-3) {
		mx = 0
		for k, x := range t.xs {
			r[k] = gaussLegendre16(func(z float64) float64 { return t.m.Density(z, x) }, a, c)
			mx = max(mx, r[k])
		}
	}
	if !(mx > 0) || math.IsInf(mx, 0) {
		// So far in the tail that the density underflows at every
		// midpoint: the report says nothing the arithmetic can hold.
		for k := range r {
			r[k] = 1
		}
		return r, true
	}
	for k := range r {
		r[k] /= mx
	}
	return r, true
}

// gl16x and gl16w are the nodes (positive half) and weights of 16-point
// Gauss–Legendre quadrature on [-1, 1].
var gl16x = [8]float64{0.0950125098376374, 0.2816035507792589, 0.4580167776572274, 0.6178762444026438, 0.7554044083550030, 0.8656312023878318, 0.9445750230732326, 0.9894009349916499}
var gl16w = [8]float64{0.1894506104550685, 0.1826034150449236, 0.1691565193950025, 0.1495959888165767, 0.1246289712555339, 0.0951585116824928, 0.0622535239386479, 0.0271524594117541}

// gaussLegendre16 returns the 16-point Gauss–Legendre estimate of the
// integral of f over [a, b].
func gaussLegendre16(f func(float64) float64, a, b float64) float64 {
	h, m := (b-a)/2, (a+b)/2
	var s float64
	for i, x := range gl16x {
		s += gl16w[i] * (f(m-h*x) + f(m+h*x))
	}
	return s * h
}
