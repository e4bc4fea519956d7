package lp

import (
	"errors"
	"fmt"
	"math"
)

// Problem is the linear programme
//
//	minimise cᵀx  subject to  A·x = b,  G·x ≤ h,  x ≥ 0.
//
// A or G may be nil (no rows of that kind). Every variable is
// non-negative; a free variable is written as the difference of two.
type Problem struct {
	C []float64
	A *Sparse
	B []float64
	G *Sparse
	H []float64
}

// Options tune [Solve]; the zero value takes the defaults.
type Options struct {
	// MaxIter caps the interior-point iterations (default 200).
	MaxIter int
	// FeasTol is the largest violation of a row of A·x = b or G·x ≤ h,
	// relative to the row's scale (see [Certificate]), and the largest
	// absolute violation of x ≥ 0, z ≥ 0, w ≥ 0, that the certificate
	// accepts (default 1e-9).
	FeasTol float64
	// GapTol is the largest relative duality gap |p - d|/(1 + |p|) and
	// relative dual residual ‖c - Aᵀy + Gᵀz - w‖∞/(1 + ‖c‖∞) that the
	// certificate accepts (default 1e-8).
	GapTol float64
	// StepFraction is the fraction of the step to the boundary that is
	// taken (default 0.995). A smaller one keeps the iterates better
	// centred, which helps degenerate programmes that lose precision at
	// the default.
	StepFraction float64
}

func (o *Options) defaults() Options {
	r := Options{MaxIter: 200, FeasTol: 1e-9, GapTol: 1e-8, StepFraction: 0.995}
	if o == nil {
		return r
	}
	if o.MaxIter > 0 {
		r.MaxIter = o.MaxIter
	}
	if o.FeasTol > 0 {
		r.FeasTol = o.FeasTol
	}
	if o.GapTol > 0 {
		r.GapTol = o.GapTol
	}
	if o.StepFraction > 0 && o.StepFraction < 1 {
		r.StepFraction = o.StepFraction
	}
	return r
}

// Solution is a primal–dual pair with its checked certificate.
type Solution struct {
	X []float64 // primal, x ≥ 0
	Y []float64 // multipliers of A·x = b
	Z []float64 // multipliers of G·x ≤ h, z ≥ 0
	W []float64 // multipliers of x ≥ 0, w ≥ 0
	// Iterations is the number of interior-point iterations taken.
	Iterations int
	// Cert is the certificate recomputed from X, Y, Z, W by [Check].
	Cert Certificate
}

// Certificate is what [Check] measures of a primal–dual pair.
//
// Row violations are measured against the row's scale,
//
//	scale_i = max_j |a_ij|·max(1, |x_j|)   (1 for a row with no entries),
//
// the largest term the row holds at x (or its largest coefficient while
// x ≤ 1). The measure does not change when a row is multiplied by a
// positive constant, so a programme with rows of very different
// magnitudes (1e6·x0 + x1 = 2e6 beside x0 + x1 ≤ 4) is judged as if each
// row had been divided by its largest coefficient, and it is the
// precision double arithmetic can give: evaluating a row at x rounds by
// about 1e-16·(row length)·scale_i. While x ≤ 1 (and in every case in
// the ∞-norm of the row's coefficients), a violation v of row i means x
// lies within v (in every coordinate) of the row's hyperplane or
// half-space, since |a_i·x - b_i|/‖a_i‖₁ ≤ |a_i·x - b_i|/‖a_i‖∞.
//
// For any x feasible for the problem, cᵀx ≥ Dual - DualResidual1·‖x‖∞
// (weak duality with the residual r = c - Aᵀy + Gᵀz - w carried
// explicitly), so a small dual residual and gap prove that Primal is
// within the gap of the optimum.
type Certificate struct {
	Primal        float64 // cᵀx
	Dual          float64 // bᵀy - hᵀz
	EqViolation   float64 // max_i |A·x - b|_i / scale_i
	IneqViolation float64 // max_i (G·x - h)₊_i / scale_i
	NegViolation  float64 // max (-x)₊, and of z and w (absolute)
	DualResidual  float64 // ‖c - Aᵀy + Gᵀz - w‖∞ / (1 + ‖c‖∞)
	DualResidual1 float64 // ‖c - Aᵀy + Gᵀz - w‖₁
	RelGap        float64 // |Primal - Dual| / (1 + |Primal|)
}

// OK reports whether the certificate meets the tolerances of opt.
func (c Certificate) OK(opt *Options) error {
	o := opt.defaults()
	switch {
	case !(c.EqViolation <= o.FeasTol):
		return fmt.Errorf("lp: equality rows violated by %.3g > %g", c.EqViolation, o.FeasTol)
	case !(c.IneqViolation <= o.FeasTol):
		return fmt.Errorf("lp: inequality rows violated by %.3g > %g", c.IneqViolation, o.FeasTol)
	case !(c.NegViolation <= o.FeasTol):
		return fmt.Errorf("lp: sign constraints violated by %.3g > %g", c.NegViolation, o.FeasTol)
	case !(c.DualResidual <= o.GapTol):
		return fmt.Errorf("lp: relative dual residual %.3g > %g", c.DualResidual, o.GapTol)
	case !(c.RelGap <= o.GapTol):
		return fmt.Errorf("lp: relative duality gap %.3g > %g", c.RelGap, o.GapTol)
	}
	return nil
}

// Check recomputes the certificate of (x, y, z, w) for p from scratch,
// with nothing taken from the solver.
func Check(p *Problem, x, y, z, w []float64) Certificate {
	var c Certificate
	n := len(p.C)
	for j := 0; j < n; j++ {
		c.Primal += p.C[j] * x[j]
		c.NegViolation = math.Max(c.NegViolation, -x[j])
		c.NegViolation = math.Max(c.NegViolation, -w[j])
	}
	ma, _ := p.A.Dims()
	mg, _ := p.G.Dims()
	for i := 0; i < ma; i++ {
		c.EqViolation = math.Max(c.EqViolation, math.Abs(rowViolation(p.A, i, x, p.B[i])))
		c.Dual += p.B[i] * y[i]
	}
	for i := 0; i < mg; i++ {
		c.IneqViolation = math.Max(c.IneqViolation, rowViolation(p.G, i, x, p.H[i]))
		c.Dual -= p.H[i] * z[i]
		c.NegViolation = math.Max(c.NegViolation, -z[i])
	}
	r := make([]float64, n)
	copy(r, p.C)
	p.A.MulTransVecAdd(r, -1, y)
	p.G.MulTransVecAdd(r, 1, z)
	cmax := 0.0
	for j := range r {
		r[j] -= w[j]
		cmax = math.Max(cmax, math.Abs(p.C[j]))
		c.DualResidual = math.Max(c.DualResidual, math.Abs(r[j]))
		c.DualResidual1 += math.Abs(r[j])
	}
	c.DualResidual /= 1 + cmax
	c.RelGap = math.Abs(c.Primal-c.Dual) / (1 + math.Abs(c.Primal))
	return c
}

// rowViolation returns (m_i·x - rhs)/scale_i for row i of m, with the
// scale of [Certificate]. A NaN in x or in the row gives NaN, which no
// tolerance accepts.
func rowViolation(m *Sparse, i int, x []float64, rhs float64) float64 {
	cols, vals := m.Row(i)
	v, scale := 0.0, 0.0
	for k, j := range cols {
		v += vals[k] * x[j]
		scale = math.Max(scale, math.Abs(vals[k])*math.Max(1, math.Abs(x[j])))
	}
	if scale == 0 {
		scale = 1
	}
	return (v - rhs) / scale
}

func (p *Problem) validate() error {
	n := len(p.C)
	if n == 0 {
		return errors.New("lp: problem has no variables")
	}
	for j, v := range p.C {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("lp: c[%d] = %v: must be finite", j, v)
		}
	}
	check := func(name string, m *Sparse, rhs []float64) error {
		r, c := m.Dims()
		if m != nil && c != n {
			return fmt.Errorf("lp: %s has %d columns, c has %d", name, c, n)
		}
		if len(rhs) != r {
			return fmt.Errorf("lp: %s has %d rows but its right-hand side %d entries", name, r, len(rhs))
		}
		for i, v := range rhs {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("lp: right-hand side of %s row %d = %v: must be finite", name, i, v)
			}
		}
		return nil
	}
	if err := check("A", p.A, p.B); err != nil {
		return err
	}
	return check("G", p.G, p.H)
}

// ErrNotConverged is returned (wrapped, with the certificate's own
// complaint) when the iterations end before the certificate holds; the
// Solution returned beside it is the last iterate.
var ErrNotConverged = errors.New("lp: interior point did not converge")

// Solve solves p by a primal–dual interior-point method (Mehrotra's
// predictor–corrector) and returns the solution with its certificate,
// recomputed by [Check] on p as given (not on the equilibrated problem
// the iterations run on). The error is nil exactly when
// Solution.Cert.OK(opt) is: Solve iterates until its stopping rule and
// the certificate both hold, and when the iterations end first (the
// iteration cap, a loss of precision, a singular Newton system) it
// returns the best iterate that met the certificate, or the last iterate
// if it meets it, or else the last iterate with an error wrapping
// ErrNotConverged. Infeasible or unbounded problems end with
// ErrNotConverged.
//
// Each Newton system is solved through the structure described in the
// package documentation: variables that share no row of G with each
// other are eliminated first (their block of the normal matrix is
// diagonal), leaving a dense system in the remaining variables and the
// rows of A.
func Solve(p *Problem, opt *Options) (*Solution, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	o := opt.defaults()
	orig := p
	p, eq := equilibrate(orig)
	n := len(p.C)
	ma, _ := p.A.Dims()
	mg, _ := p.G.Dims()
	ns := newNewton(p)

	x, w := fill(n, 1), fill(n, 1)
	s, z := fill(mg, 1), fill(mg, 1)
	y := make([]float64, ma)
	{ // slack start: h - Gx where positive
		gx := make([]float64, mg)
		p.G.MulVec(gx, x)
		for i := range s {
			s[i] = math.Max(1, p.H[i]-gx[i])
		}
	}
	rp, rg, rd := make([]float64, ma), make([]float64, mg), make([]float64, n)
	rxw, rsz := make([]float64, n), make([]float64, mg)
	dx, dy, dz, dw, ds := make([]float64, n), make([]float64, ma), make([]float64, mg), make([]float64, n), make([]float64, mg)
	ax, gx := make([]float64, ma), make([]float64, mg)
	bmax, hmax, cmax := infNorm(p.B), infNorm(p.H), infNorm(p.C)

	var best *Solution // the best certified iterate
	bestMerit := math.Inf(1)
	// failed ends the iterations at the iterate (x, y, z, w): it returns
	// the best certified iterate if there is one, else the iterate, with
	// an error unless it meets the certificate. The iterate can meet the
	// tolerances of opt without having met the stopping rule's tighter
	// targets (a loose FeasTol or GapTol, a small MaxIter, or a loss of
	// precision in the step after it); it is returned as certified then,
	// so that the error always agrees with the certificate.
	failed := func(it int, why string, relP, relD, gap float64) (*Solution, error) {
		if best != nil {
			return best, nil
		}
		sol := eq.solution(orig, x, y, z, w, it)
		if err := sol.Cert.OK(&o); err != nil {
			return sol, fmt.Errorf("%w after %d iterations (%s; primal %.3g, dual %.3g, gap %.3g): %w", ErrNotConverged, it, why, relP, relD, gap, err)
		}
		return sol, nil
	}
	for it := 0; ; it++ {
		// Residuals.
		p.A.MulVec(ax, x)
		for i := range rp {
			rp[i] = p.B[i] - ax[i]
		}
		p.G.MulVec(gx, x)
		for i := range rg {
			rg[i] = p.H[i] - gx[i] - s[i]
		}
		copy(rd, p.C)
		p.A.MulTransVecAdd(rd, -1, y)
		p.G.MulTransVecAdd(rd, 1, z)
		for j := range rd {
			rd[j] -= w[j]
		}
		pobj, dobj := dot(p.C, x), dot(p.B, y)-dot(p.H, z)
		relP := math.Max(infNorm(rp)/(1+bmax), infNorm(rg)/(1+hmax))
		relD := infNorm(rd) / (1 + cmax)
		gap := math.Abs(pobj-dobj) / (1 + math.Abs(pobj))
		// The stopping rule aims a decade inside the certificate's
		// tolerances (the dual residual stalls near 1e-10 in double
		// precision on the AAA programme, whose multipliers of the ratio
		// rows grow large), but its primal test is global, relative to
		// the largest right-hand side, and on the equilibrated rows; the
		// certificate judges each row of the problem as given against
		// the row's own scale, with the tolerances of opt, and decides.
		// Where the rule is met and the certificate is not (a row far
		// smaller than the largest right-hand side, or a FeasTol below
		// the rule's 1e-11), the iterations go on and reduce the
		// residuals further.
		merit := math.Max(relD, gap)
		if relP <= 1e-11 && merit <= 0.5*o.GapTol && (merit <= 0.1*o.GapTol || merit < bestMerit) {
			if sol := eq.solution(orig, x, y, z, w, it); sol.Cert.OK(&o) == nil {
				if merit <= 0.1*o.GapTol {
					return sol, nil
				}
				// Keep the best certified iterate: in the last
				// iterations of a degenerate programme rounding can undo
				// the dual residual (see the package documentation).
				best, bestMerit = sol.clone(), merit
			}
		}
		why := ""
		switch {
		case it >= o.MaxIter:
			why = "iteration cap"
		case math.IsNaN(relP + relD + gap):
			why = "loss of precision"
		default:
			if err := ns.factor(x, w, s, z); err != nil {
				why = err.Error()
			}
		}
		if why != "" {
			return failed(it, why, relP, relD, gap)
		}
		mu := (dot(x, w) + dot(s, z)) / float64(n+mg)
		// Predictor (affine scaling).
		for j := range rxw {
			rxw[j] = -x[j] * w[j]
		}
		for i := range rsz {
			rsz[i] = -s[i] * z[i]
		}
		ns.direction(rp, rg, rd, rxw, rsz, x, w, s, z, dx, dy, dz, dw, ds)
		ap, ad := maxStep(x, dx, s, ds), maxStep(w, dw, z, dz)
		muAff := 0.0
		for j := range x {
			muAff += (x[j] + ap*dx[j]) * (w[j] + ad*dw[j])
		}
		for i := range s {
			muAff += (s[i] + ap*ds[i]) * (z[i] + ad*dz[i])
		}
		muAff /= float64(n + mg)
		sigma := math.Pow(muAff/mu, 3)
		// Corrector with centring.
		for j := range rxw {
			rxw[j] = sigma*mu - x[j]*w[j] - dx[j]*dw[j]
		}
		for i := range rsz {
			rsz[i] = sigma*mu - s[i]*z[i] - ds[i]*dz[i]
		}
		ns.direction(rp, rg, rd, rxw, rsz, x, w, s, z, dx, dy, dz, dw, ds)
		// Near the optimum of a degenerate programme the Schur
		// complement can be so nearly singular that the direction
		// overflows; the iterate is kept then rather than overwritten
		// with NaN (it may already meet the certificate).
		if !finite(dx, dy, dz, dw, ds) {
			return failed(it, "loss of precision in the Newton direction", relP, relD, gap)
		}
		eta := o.StepFraction
		ap, ad = eta*maxStep(x, dx, s, ds), eta*maxStep(w, dw, z, dz)
		for j := range x {
			x[j] += ap * dx[j]
			w[j] += ad * dw[j]
		}
		for i := range s {
			s[i] += ap * ds[i]
			z[i] += ad * dz[i]
		}
		for i := range y {
			y[i] += ad * dy[i]
		}
	}
}

// maxStep returns the largest α ≤ 1 with u + α·du ≥ 0 and v + α·dv ≥ 0.
func maxStep(u, du, v, dv []float64) float64 {
	a := 1.0
	for i := range u {
		if du[i] < 0 {
			a = math.Min(a, -u[i]/du[i])
		}
	}
	for i := range v {
		if dv[i] < 0 {
			a = math.Min(a, -v[i]/dv[i])
		}
	}
	return a
}

// finite reports whether every entry of the vectors is finite.
func finite(vs ...[]float64) bool {
	for _, v := range vs {
		for _, e := range v {
			if math.IsNaN(e) || math.IsInf(e, 0) {
				return false
			}
		}
	}
	return true
}

func fill(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func infNorm(a []float64) float64 {
	m := 0.0
	for _, v := range a {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// rowScales holds the powers of two by which [equilibrate] multiplied the
// rows of A and of G (nil when it left the problem as given).
type rowScales struct {
	a, g []float64
}

// Rows whose largest coefficient lies in [1/equilibrateRange,
// equilibrateRange] are left as they are.
const equilibrateRange = 1 << 10

// equilibrate returns the problem with each row of A and G whose largest
// coefficient lies outside [2⁻¹⁰, 2¹⁰] multiplied (with its right-hand
// side) by the power of two that brings that coefficient into [½, 1).
//
// The interior point starts from x = w = z = 1 and s ≥ 1, which fits rows
// of unit scale: a row 1e6 times larger puts 1e6 into its
// complementarity s·z from the start and dominates μ, one 1e6 times
// smaller needs a multiplier 1e6 times larger, and both spread the
// diagonal of the Newton systems by the square of the factor. Dividing a
// row by a constant changes neither the feasible set nor the optimum nor
// the certificate (which judges every row against its own scale); the
// multiplier of a scaled row is the original one divided by the factor,
// and [rowScales.solution] multiplies it back. A power of two makes the
// scaling exact, and rows within a factor 2¹⁰ of unit scale are left as
// they are, so that a programme with no badly scaled row is solved
// exactly as written: the rows of the AAA programme have largest
// coefficient 1, max|a_l| ≤ 2·AxRatio or e^ε, and are left as they are
// for ε ≤ 10·ln 2 ≈ 6.9 and AxRatio ≤ 512.
func equilibrate(p *Problem) (*Problem, rowScales) {
	var r rowScales
	scaleRows := func(m *Sparse, rhs []float64) (*Sparse, []float64, []float64) {
		rows, _ := m.Dims()
		var f []float64
		for i := 0; i < rows; i++ {
			_, vals := m.Row(i)
			nrm := infNorm(vals)
			if nrm == 0 || (nrm >= 1.0/equilibrateRange && nrm <= equilibrateRange) {
				continue
			}
			if f == nil {
				f = fill(rows, 1)
			}
			_, e := math.Frexp(nrm) // nrm = φ·2^e, φ ∈ [½, 1)
			f[i] = math.Ldexp(1, -e)
		}
		if f == nil {
			return m, rhs, nil
		}
		s := &Sparse{rows: m.rows, cols: m.cols, rowPtr: m.rowPtr, colIdx: m.colIdx, val: make([]float64, len(m.val))}
		b := make([]float64, rows)
		for i := 0; i < rows; i++ {
			for k := m.rowPtr[i]; k < m.rowPtr[i+1]; k++ {
				s.val[k] = m.val[k] * f[i]
			}
			b[i] = rhs[i] * f[i]
		}
		return s, b, f
	}
	q := *p
	q.A, q.B, r.a = scaleRows(p.A, p.B)
	q.G, q.H, r.g = scaleRows(p.G, p.H)
	if r.a == nil && r.g == nil {
		return p, r
	}
	return &q, r
}

// solution returns the iterate (x, y, z, w) of the equilibrated problem
// as a solution of p, the problem as given, with its certificate
// recomputed on p. When no row was scaled it shares the iterate's
// slices.
func (r rowScales) solution(p *Problem, x, y, z, w []float64, it int) *Solution {
	if r.a != nil {
		y = append([]float64(nil), y...)
		for i := range y {
			y[i] *= r.a[i]
		}
	}
	if r.g != nil {
		z = append([]float64(nil), z...)
		for i := range z {
			z[i] *= r.g[i]
		}
	}
	return &Solution{X: x, Y: y, Z: z, W: w, Iterations: it, Cert: Check(p, x, y, z, w)}
}

// clone returns a copy of s that shares no slice with it.
func (s *Solution) clone() *Solution {
	c := *s
	c.X = append([]float64(nil), s.X...)
	c.Y = append([]float64(nil), s.Y...)
	c.Z = append([]float64(nil), s.Z...)
	c.W = append([]float64(nil), s.W...)
	return &c
}
