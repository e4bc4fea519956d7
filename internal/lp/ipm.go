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
	// FeasTol is the largest absolute violation of a row of A·x = b or
	// G·x ≤ h, or of x ≥ 0, that the certificate accepts (default 1e-9).
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
// For any x feasible for the problem, cᵀx ≥ Dual - DualResidual1·‖x‖∞
// (weak duality with the residual r = c - Aᵀy + Gᵀz - w carried
// explicitly), so a small dual residual and gap prove that Primal is
// within the gap of the optimum.
type Certificate struct {
	Primal        float64 // cᵀx
	Dual          float64 // bᵀy - hᵀz
	EqViolation   float64 // max |A·x - b|
	IneqViolation float64 // max (G·x - h)₊
	NegViolation  float64 // max (-x)₊, and of z and w
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
	ax := make([]float64, ma)
	p.A.MulVec(ax, x)
	for i := range ax {
		c.EqViolation = math.Max(c.EqViolation, math.Abs(ax[i]-p.B[i]))
		c.Dual += p.B[i] * y[i]
	}
	gx := make([]float64, mg)
	p.G.MulVec(gx, x)
	for i := range gx {
		c.IneqViolation = math.Max(c.IneqViolation, gx[i]-p.H[i])
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

// ErrNotConverged is returned (wrapped) when the iterations end before the
// certificate holds; the Solution returned beside it is the last iterate.

var ErrNotConverged = errors.New("lp: interior point did not converge")

// Solve solves p by a primal–dual interior-point method (Mehrotra's
// predictor–corrector) and returns the solution with its certificate
// (recomputed by [Check]); it returns an error, beside the last iterate,
// when the certificate fails the tolerances of opt. Infeasible or
// unbounded problems end with ErrNotConverged.
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

	sol := &Solution{X: x, Y: y, Z: z, W: w}
	best := iterate{merit: math.Inf(1)}
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
		sol.Iterations = it
		// Stop a decade inside the certificate's tolerances (the dual
		// residual stalls near 1e-10 in double precision on the AAA
		// programme, whose multipliers of the ratio rows grow large).
		if relP <= 1e-11 && relD <= 0.1*o.GapTol && gap <= 0.1*o.GapTol {
			break
		}
		// Keep the best iterate that would pass the certificate: in the
		// last iterations of a degenerate programme rounding can undo
		// the dual residual (see the package documentation).
		if merit := math.Max(relD, gap); relP <= 1e-11 && merit <= 0.5*o.GapTol && merit < best.merit {
			best.save(x, y, z, w, it, merit)
		}
		failed := func(why string) (*Solution, error) {
			if best.x != nil {
				sol = &Solution{X: best.x, Y: best.y, Z: best.z, W: best.w, Iterations: best.it}
				sol.Cert = Check(p, best.x, best.y, best.z, best.w)
				if sol.Cert.OK(&o) == nil {
					return sol, nil
				}
			}
			sol.Cert = Check(p, x, y, z, w)
			return sol, fmt.Errorf("%w after %d iterations (primal %.3g, dual %.3g, gap %.3g): %s", ErrNotConverged, it, relP, relD, gap, why)
		}
		if it >= o.MaxIter || math.IsNaN(relP+relD+gap) {
			return failed("iteration cap or loss of precision")
		}
		mu := (dot(x, w) + dot(s, z)) / float64(n+mg)
		if err := ns.factor(x, w, s, z); err != nil {
			return failed(err.Error())
		}
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
	sol.Cert = Check(p, x, y, z, w)
	return sol, sol.Cert.OK(&o)
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

// iterate is a saved primal–dual point.
type iterate struct {
	x, y, z, w []float64
	it         int
	merit      float64
}

func (b *iterate) save(x, y, z, w []float64, it int, merit float64) {
	b.x = append(b.x[:0], x...)
	b.y = append(b.y[:0], y...)
	b.z = append(b.z[:0], z...)
	b.w = append(b.w[:0], w...)
	b.it, b.merit = it, merit
}
