package aaa

import (
	"errors"
	"fmt"
	"math"

	"github.com/ldpbench/ldpbench/internal/lp"
)

// Alignment chooses the input grid of the noise programme (ERRATA E0.23).
type Alignment int

const (
	// Corrected (the default) builds the programme on the data grid
	// itself: M points spaced 2/(M-1) on [-1, 1], noise values spaced the
	// same on [-a_max, a_max] with a_max = axRatio·2, and ratio rows that
	// pair the (grid point, noise) pairs with the same released report
	// y = x_i + a_l. Reports then lie on one lattice and the programme's
	// ratio rows are exactly the ε-LDP conditions of the released law.
	Corrected Alignment = iota
	// Authors reproduces the authors' a3m_dis.py: the input grid has half
	// the data bin width (M points spaced 1/(M-1) from -1, so spanning
	// [-1, 0]), a_max = axRatio·1, and its ratio rows pair noise index l
	// with grid index i at constant l - i (the report a_l - x_i rather than
	// x_i + a_l; the programme is symmetric under a → -a, so its optimum
	// value is unchanged by that). Reports are still formed on the data
	// grid, so the released law is not the one the programme certifies:
	// [Noise.AuditedEpsilon] measures what it spends.
	Authors
)

func (a Alignment) String() string {
	switch a {
	case Corrected:
		return "corrected"
	case Authors:
		return "authors"
	}
	return fmt.Sprintf("Alignment(%d)", int(a))
}

// ParseAlignment maps "corrected" and "authors" to their Alignment.
func ParseAlignment(s string) (Alignment, error) {
	switch s {
	case "corrected", "":
		return Corrected, nil
	case "authors":
		return Authors, nil
	}
	return 0, fmt.Errorf("alignment %q: want \"corrected\" or \"authors\"", s)
}

// NoiseConfig defines one noise programme.
type NoiseConfig struct {
	Eps   float64   // privacy budget, > 0
	Prior []float64 // x_P: weights of the M grid points (M ≥ 2; normalised here)
	// AxRatio is a_max over the span of the programme's input grid (the
	// paper's |Ω|/|X|; default 4).
	AxRatio int
	// R is the ratio of the geometric tails that stand for output
	// positions outside a grid point's noise grid (default 0.5).
	R         float64
	Alignment Alignment
}

// Noise is a solved noise programme and the released noise law.
type Noise struct {
	Cfg  NoiseConfig
	M, N int
	// Grid holds the data grid points G_i the reports are formed on
	// (spacing 2/(M-1) on [-1, 1] under either alignment).
	Grid []float64
	// A holds the noise values a_l.
	A []float64
	// P is the programme's solution, P[i][l] = Pr(a_l | grid point i), as
	// the solver returned it.
	P [][]float64
	// Law is the released noise law: P with negatives clipped, the output
	// positions where some grid point's noise would fall off its grid
	// emptied (they carry ≤ TailTol), each position's ratio made exact
	// (Corrected), and each row renormalised to sum 1.
	Law [][]float64
	// Objective is the programme's optimum Σ_i x_P[i]·Σ_l a_l²·P[i][l].
	Objective float64
	// Cert is the solver's certificate on the (reformulated) programme.
	Cert lp.Certificate
	// Iterations of the interior-point solver.
	Iterations int
	// MaxRatioViolation is max over the (M+N-1)·M·(M-1) ratio rows of the
	// authors' formulation, coef_i·P[i][l_i] - e^ε·coef_j·P[j][l_j], on P
	// (checked ≤ 1e-9).
	MaxRatioViolation float64
	// RatioRows is the number of those rows (39,440 at M = 17).
	RatioRows int
	// TailsClosed reports that the programme with tails put more than
	// TailTol on output positions that some grid point reaches only
	// through its tail (small ε), or could not be certified, so the
	// programme of the released law, with those positions closed, was
	// solved instead (Corrected only).
	TailsClosed bool
	// MaxBias is max_i |Σ_l a_l·Law[i][l]|, the released law's largest
	// noise mean.
	MaxBias float64
	// PriorFloor is 0, or the weight given to the prior's empty grid
	// points when the programme could not be solved with them at 0 (see
	// SolveNoise); Cfg.Prior is then the prior that was solved for.
	PriorFloor float64
}

// Tolerances of the checks every solution passes.
const (
	RatioTol = 1e-9  // ratio rows of P, absolute
	TailTol  = 1e-11 // mass the released law drops at tail positions (at |a| ≤ 8: a noise mean ≤ 1e-10)
)

func (c *NoiseConfig) normalised() (NoiseConfig, error) {
	r := *c
	if !(c.Eps > 0) || math.IsInf(c.Eps, 0) {
		return r, fmt.Errorf("aaa: eps = %v: must be finite and > 0", c.Eps)
	}
	if len(c.Prior) < 2 {
		return r, fmt.Errorf("aaa: prior has %d grid points: need ≥ 2", len(c.Prior))
	}
	if r.AxRatio == 0 {
		r.AxRatio = 4
	}
	if r.AxRatio < 1 {
		return r, fmt.Errorf("aaa: axRatio = %d: must be ≥ 1", c.AxRatio)
	}
	if r.R == 0 {
		r.R = 0.5
	}
	if !(r.R > 0 && r.R < 1) {
		return r, fmt.Errorf("aaa: tail ratio r = %v: must be in (0, 1)", c.R)
	}
	if r.Alignment != Corrected && r.Alignment != Authors {
		return r, fmt.Errorf("aaa: unknown alignment %d", int(r.Alignment))
	}
	s := 0.0
	for i, v := range c.Prior {
		if !(v >= 0) || math.IsInf(v, 0) {
			return r, fmt.Errorf("aaa: prior[%d] = %v: must be finite and ≥ 0", i, v)
		}
		s += v
	}
	if !(s > 0) {
		return r, errors.New("aaa: prior sums to 0")
	}
	r.Prior = make([]float64, len(c.Prior))
	for i, v := range c.Prior {
		r.Prior[i] = v / s
	}
	return r, nil
}

// layout fixes the programme's grids and the pairing of (grid point,
// noise index) with output positions.
type layout struct {
	m, n     int
	lpStep   float64 // spacing of the programme's input grid and of the noise values
	amax     float64
	authors  bool
	r        float64
	expEps   float64
	nOutputs int // M + N - 1 output positions
}

func newLayout(c NoiseConfig) layout {
	m := len(c.Prior)
	step := 2 / float64(m-1)
	if c.Alignment == Authors {
		step /= 2 // a3m_dis.py: x_grid = xmin + range(M)·0.5·bin
	}
	n := c.AxRatio*(m-1)*2 + 1
	return layout{m: m, n: n, lpStep: step, amax: float64(c.AxRatio) * float64(m-1) * step,
		authors: c.Alignment == Authors, r: c.R, expEps: math.Exp(c.Eps), nOutputs: m + n - 1}
}

// cell returns the noise index that grid point i needs to reach output
// position p, clamped to the noise grid, and the tail coefficient r^d
// (d the distance beyond the grid; 1 inside it).
func (g layout) cell(i, p int) (l int, coef float64) {
	if g.authors {
		l = p - (g.m - 1) + i // the authors' pairing: l - i constant
	} else {
		l = p - i // y = x_i + a_l: i + l constant
	}
	switch {
	case l < 0:
		return 0, math.Pow(g.r, float64(-l))
	case l > g.n-1:
		return g.n - 1, math.Pow(g.r, float64(l-(g.n-1)))
	}
	return l, 1
}

// problem builds the programme in the form the solver takes. The
// M·(M-1) pairwise rows of output position p, coef_i·P_i ≤ e^ε·coef_j·P_j,
// are replaced by 2M rows L_p ≤ coef_i·P_i ≤ e^ε·L_p with one extra
// variable L_p ≥ 0: a pair of values satisfies every pairwise row iff
// max ≤ e^ε·min, iff such an L_p exists, so the two programmes have the
// same feasible P and the same optimum. The reformulation has 2,338
// variables and 4,930 rows instead of 39,440 at M = 17, and every row
// couples one P with one L, which is the structure lp.Solve eliminates.
//
// With closed set (Corrected only), the output positions that some grid
// point reaches only through its tail are closed: their P are fixed at 0
// (kept as variables with cost 1 and no rows, so the solver drives them to
// 0, and set to 0 exactly afterwards) and their rows dropped. This is the
// programme whose feasible set is exactly the ε-LDP noise laws without
// tails, the law that is released.
func (g layout) problem(prior []float64, closed bool) *lp.Problem {
	m, n := g.m, g.n
	nv := m*n + g.nOutputs
	c := make([]float64, nv)
	for i := 0; i < m; i++ {
		for l := 0; l < n; l++ {
			a := g.a(l)
			c[i*n+l] = prior[i] * a * a
			if closed && g.tailPosition(i+l) {
				c[i*n+l] = 1
			}
		}
	}
	var eq []lp.Triplet
	b := make([]float64, 2*m)
	for i := 0; i < m; i++ {
		for l := 0; l < n; l++ {
			if closed && g.tailPosition(i+l) {
				continue
			}
			eq = append(eq, lp.Triplet{Row: 2 * i, Col: i*n + l, Val: 1}, lp.Triplet{Row: 2*i + 1, Col: i*n + l, Val: g.a(l)})
		}
		b[2*i] = 1
	}
	var in []lp.Triplet
	row := 0
	for p := 0; p < g.nOutputs; p++ {
		lv := m*n + p
		if closed && g.tailPosition(p) {
			c[lv] = 1
			continue
		}
		for i := 0; i < m; i++ {
			l, coef := g.cell(i, p)
			in = append(in,
				lp.Triplet{Row: row, Col: i*n + l, Val: coef}, lp.Triplet{Row: row, Col: lv, Val: -g.expEps},
				lp.Triplet{Row: row + 1, Col: lv, Val: 1}, lp.Triplet{Row: row + 1, Col: i*n + l, Val: -coef})
			row += 2
		}
	}
	A, err := lp.NewSparse(2*m, nv, eq)
	if err != nil {
		panic(err)
	}
	G, err := lp.NewSparse(row, nv, in)
	if err != nil {
		panic(err)
	}
	return &lp.Problem{C: c, A: A, B: b, G: G, H: make([]float64, row)}
}

// tailPosition reports whether some grid point reaches output position p
// (Corrected pairing, p = i + l) only through its geometric tail.
func (g layout) tailPosition(p int) bool { return p < g.m-1 || p > g.n-1 }

func (g layout) a(l int) float64 { return -g.amax + float64(l)*g.lpStep }

// SolveNoise solves the noise programme of cfg and returns the solution
// with its checks: the solver's certificate (equality and ratio rows
// within 1e-9, relative dual residual and duality gap ≤ 1e-8), every one
// of the authors' pairwise ratio rows within RatioTol, and the released
// law's tail positions below TailTol. It returns an error when any check
// fails.
func SolveNoise(cfg NoiseConfig) (*Noise, error) {
	c, err := cfg.normalised()
	if err != nil {
		return nil, err
	}
	g := newLayout(c)
	solve := func(c NoiseConfig) (*Noise, error) {
		nz, err := solveNoise(c, g, false)
		if err != nil && !g.authors {
			// The optimum uses the tails (small ε), or the solver could
			// not certify the programme with tails: solve the programme
			// of the law that is released, with the tail positions
			// closed.
			nz, err = solveNoise(c, g, true)
		}
		return nz, err
	}
	nz, err := solve(c)
	// An empty grid point has no weight in the objective, so its row of
	// the law is free on a whole face of optima, and the programme with
	// the tails closed can then fail to converge (seen once at ε = 1, in
	// an AAA phase-1 estimate with two empty bins side by side;
	// TestNoiseEmptyBins). Those points are given a small weight instead,
	// the least of priorFloors that solves: the law is still checked
	// exactly, and optimal for a prior within the floor of the one asked.
	// Programmes that solve as they are never reach this.
	empty := countZeros(c.Prior)
	for _, floor := range priorFloors {
		if err == nil || empty == 0 {
			break
		}
		fc := c
		fc.Prior = make([]float64, len(c.Prior))
		for i, v := range c.Prior {
			fc.Prior[i] = max(v, floor) / (1 + floor*float64(empty)) // still sums to 1
		}
		if fnz, ferr := solve(fc); ferr == nil {
			nz, err = fnz, nil
			nz.PriorFloor = floor
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w (prior %v)", err, c.Prior)
	}
	return nz, nil
}

// priorFloors are the weights SolveNoise tries in turn for a prior's empty
// grid points when the programme does not solve with them at 0. (On the
// one prior known to need it, 1e-12, 1e-11 and 1e-5 to 1e-2 solve, 1e-10
// to 1e-6 do not; a floor well above the solver's tolerances is the safe
// side, and 1e-5 moves the optimum by 1e-6 relative.)
var priorFloors = []float64{1e-5, 1e-4, 1e-3}

func countZeros(x []float64) int {
	n := 0
	for _, v := range x {
		if v == 0 {
			n++
		}
	}
	return n
}

var errTailMass = errors.New("aaa: tail mass")

func solveNoise(c NoiseConfig, g layout, closed bool) (nz *Noise, err error) {
	prob := g.problem(c.Prior, closed)
	// The interior point can lose precision before it certifies a
	// degenerate instance; a shorter step keeps it centred. Every answer
	// is certified, whichever step found it.
	var sol *lp.Solution
	for _, eta := range []float64{0.995, 0.9, 0.5, 0.3} {
		if sol, err = lp.Solve(prob, &lp.Options{StepFraction: eta}); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("aaa: noise programme at ε = %g: %w", c.Eps, err)
	}
	if closed {
		for i := 0; i < g.m; i++ {
			for l := 0; l < g.n; l++ {
				if g.tailPosition(i + l) {
					sol.X[i*g.n+l] = 0
				}
			}
		}
	}
	nz = &Noise{Cfg: c, M: g.m, N: g.n, Cert: sol.Cert, Iterations: sol.Iterations, Objective: sol.Cert.Primal, TailsClosed: closed}
	if closed {
		nz.Objective = 0
		for i := 0; i < g.m; i++ {
			for l := 0; l < g.n; l++ {
				a := g.a(l)
				nz.Objective += c.Prior[i] * a * a * sol.X[i*g.n+l]
			}
		}
	}
	nz.Grid = make([]float64, g.m)
	for i := range nz.Grid {
		nz.Grid[i] = -1 + float64(i)*2/float64(g.m-1)
	}
	nz.A = make([]float64, g.n)
	for l := range nz.A {
		nz.A[l] = g.a(l)
	}
	nz.P = make([][]float64, g.m)
	for i := range nz.P {
		nz.P[i] = append([]float64(nil), sol.X[i*g.n:(i+1)*g.n]...)
	}
	nz.MaxRatioViolation, nz.RatioRows = ratioViolation(g, nz.P)
	if !(nz.MaxRatioViolation <= RatioTol) {
		return nil, fmt.Errorf("aaa: noise programme at ε = %g: a ratio row is violated by %.3g > %g", c.Eps, nz.MaxRatioViolation, RatioTol)
	}
	if err := nz.release(g); err != nil {
		return nil, err
	}
	return nz, nil
}

// ratioViolation evaluates the authors' (M+N-1)·M·(M-1) pairwise rows
// coef_i·P[i][l_i] - e^ε·coef_j·P[j][l_j] ≤ 0 one by one and returns the
// largest left-hand side (0 if none is positive) and the number of rows.
func ratioViolation(g layout, P [][]float64) (worst float64, rows int) {
	v := make([]float64, g.m)
	for p := 0; p < g.nOutputs; p++ {
		for i := range v {
			l, coef := g.cell(i, p)
			v[i] = coef * P[i][l]
		}
		for i := range v {
			for j := range v {
				if i == j {
					continue
				}
				rows++
				worst = math.Max(worst, v[i]-g.expEps*v[j])
			}
		}
	}
	return worst, rows
}

// release forms Law from P.
func (nz *Noise) release(g layout) error {
	m, n := g.m, g.n
	law := make([][]float64, m)
	for i := range law {
		law[i] = make([]float64, n)
		for l, v := range nz.P[i] {
			law[i][l] = math.Max(v, 0)
		}
	}
	if !g.authors {
		// Output positions p = i + l that some grid point reaches only
		// through its geometric tail: the released law has no tails, so
		// they must be empty for every grid point.
		for p := 0; p < g.nOutputs; p++ {
			tail, most := false, 0.0
			for i := 0; i < m; i++ {
				l := p - i
				if l < 0 || l >= n {
					tail = true
				} else {
					most = math.Max(most, law[i][l])
				}
			}
			if !tail {
				continue
			}
			if most > TailTol {
				if !nz.TailsClosed {
					return errTailMass
				}
				return fmt.Errorf("aaa: noise programme at ε = %g puts mass %.3g on output position %d, which some grid point reaches only through the geometric tail the released law does not have", nz.Cfg.Eps, most, p)
			}
			for i := 0; i < m; i++ {
				if l := p - i; l >= 0 && l < n {
					law[i][l] = 0
				}
			}
		}
		// Exact ratio per position: lift the values below max/e^ε (each by
		// at most the ratio rows' violation, ≤ RatioTol).
		for p := 0; p < g.nOutputs; p++ {
			hi := 0.0
			for i := 0; i < m; i++ {
				if l := p - i; l >= 0 && l < n {
					hi = math.Max(hi, law[i][l])
				}
			}
			lo := hi / g.expEps
			for i := 0; i < m; i++ {
				if l := p - i; l >= 0 && l < n && law[i][l] < lo {
					law[i][l] = lo
				}
			}
		}
	}
	for i := range law {
		s := 0.0
		for _, v := range law[i] {
			s += v
		}
		mean := 0.0
		for l := range law[i] {
			law[i][l] /= s
			mean += nz.A[l] * law[i][l]
		}
		nz.MaxBias = math.Max(nz.MaxBias, math.Abs(mean))
	}
	nz.Law = law
	return nil
}

// RowVariance returns Σ_l a_l²·Law[i][l], the released noise's second
// moment at grid point i.
func (nz *Noise) RowVariance(i int) float64 {
	s := 0.0
	for l, v := range nz.Law[i] {
		s += nz.A[l] * nz.A[l] * v
	}
	return s
}
