package estimators

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Single-histogram EM on exact, structured transition matrices (Baek &
// Chung's 2PEM and the SW/PM/Three-Outputs/HM-TP distribution baselines,
// Sec. 4.2, Sec. 5.2; ERRATA E0.19).
//
// A HistTransition is the matrix Θ[j, i] = P(output row j | input uniform in
// bin i) of one mechanism over d equal input bins of its domain, stored as a
// stack of blocks (the rows of a hybrid are its continuous buckets, then its
// atoms):
//
//   - a window block, for a mechanism whose density is q outside a window
//     [lo(x), lo(x)+W] moving linearly with x and c inside it (PM, PM-SUB,
//     Square Wave): Θ[j, i] = q·w_j + B[j, i], the first term the same in
//     every column and B nonzero only on a band of rows per column (the
//     buckets that some window of the bin overlaps). An E-step costs
//     O(band·d) instead of O(d̃·d): a quarter to a half of the dense cost at
//     ε = 1 and ε^{ε/3}-fold less at large ε;
//   - a dense block of a few rows (the N-output, Three-Outputs, Duchi
//     atoms), stored in full.
//
// Every entry is an exact integral: the window's overlap with a bucket is
// piecewise linear in x, split at its four kinks and integrated by the
// trapezoid rule; a discrete output's probability is piecewise linear
// between the mechanism's knots (NOutput.AverageProbability, or the bin
// split at 0 for Three-Outputs and Duchi, whose law bends only there). The
// tests compare every entry with the mechanism's own BucketGivenBin and
// every column sum with 1.

// windowBlock is the rows of a window mechanism's buckets.
type windowBlock struct {
	rows  int
	lo, w float64   // bucket j is [lo + j·w, lo + (j+1)·w] (the last edge is hi)
	base  []float64 // q·w_j, scaled
	// Column i's band is rows bandLo[i] … bandLo[i]+bandLen[i]-1 with
	// values vals[bandOff[i]:bandOff[i]+bandLen[i]], scaled.
	bandLo, bandLen, bandOff []int32
	vals                     []float64
}

// denseBlock is a few rows stored in full, row-major (rows × d), scaled.
type denseBlock struct {
	rows int
	t    []float64
}

// HistTransition is a mechanism's exact transition matrix over D input bins
// in structured form, with the bucketing of its reports. It is read-only
// after construction and safe for concurrent use.
type HistTransition struct {
	// D is the number of equal input bins of the mechanism's domain.
	D int
	// Rows is the number of output rows: the window block's buckets, then
	// the atoms.
	Rows int
	// Name is the mechanism's registry name.
	Name string

	win   *windowBlock
	dense *denseBlock
	atoms []float64 // the atoms' values (the dense block's rows), sorted
	hiOut float64   // upper end of the bucketed range
}

// windowSpec describes a window mechanism on input domain [xlo, xhi]:
// density outer on [ylo, yhi], inner on [a + s·x, a + s·x + W].
type windowSpec struct {
	xlo, xhi, ylo, yhi float64
	a, s, W            float64
	inner, outer       float64
}

func pieceWindow(pw *mechanisms.Piecewise) windowSpec {
	lo, hi := pw.OutputRange()
	l0, r0 := pw.Window(0)
	l1, _ := pw.Window(1)
	// The inner density c and outer d: Density at a point inside / outside
	// the window of x = 1 (whose window is [L(1), A], so -A is outside).
	return windowSpec{xlo: -1, xhi: 1, ylo: lo, yhi: hi, a: l0, s: l1 - l0, W: r0 - l0,
		inner: pw.Density((l1+hi)/2, 1), outer: pw.Density(lo, 1)}
}

func squareWindow(sw *mechanisms.SquareWave) windowSpec {
	lo, hi := sw.OutputRange()
	b := sw.B()
	return windowSpec{xlo: 0, xhi: 1, ylo: lo, yhi: hi, a: -b, s: 1, W: 2 * b,
		inner: sw.Density(0, 0), outer: sw.Density(hi, 0)}
}

// DTildeRule chooses the number of output buckets d̃ of a PM-type window
// mechanism from the number d of input bins (Sec. 4.2, eq. (13)).
type DTildeRule int

const (
	// DTildeCeil is the corrected eq. (13) (ERRATA E0.6): the output range
	// 2C over the window's shift per input bin l̃, rounded up:
	// d̃ = ⌈d(1 + 1/t)⌉ (t = e^{ε/3} for PM-SUB).
	DTildeCeil DTildeRule = iota
	// DTildeFloorCompat is the authors' code (tpem.py): the same ratio
	// rounded down (an integer division inside the ceiling).
	DTildeFloorCompat
)

// DTilde returns d̃ for PM-type mechanism pw over d input bins by rule.
func DTilde(pw *mechanisms.Piecewise, d int, rule DTildeRule) int {
	// 2C/l̃ = 2r(t+1)/(r·t·2/d) = d(t+1)/t.
	ratio := float64(d) * (pw.T() + 1) / pw.T()
	if rule == DTildeFloorCompat {
		return int(math.Floor(ratio))
	}
	// The ratio is irrational for every ε the experiments use; guard an
	// integer value computed a few ulps high.
	c := math.Ceil(ratio)
	if c-ratio > 1-1e-9 {
		c--
	}
	return int(c)
}

// TransitionOptions configures NewHistTransition.
type TransitionOptions struct {
	// Buckets is the number of equal output buckets of a window mechanism.
	// 0 means: 1024 for Square Wave (the authors'), d̃ of eq. (13) by
	// DTilde (ceil) for the piecewise family.
	Buckets int
	// DTilde is the rule for the default Buckets of the piecewise family.
	DTilde DTildeRule
}

// HistTransitionNeeds is what NewHistTransition needs of a mechanism: a
// bounded output and bucket probabilities.
var HistTransitionNeeds = mechanisms.Needs{All: []mechanisms.Capability{mechanisms.CapBounded, mechanisms.CapBuckets}}

// NewHistTransition builds the exact structured transition matrix of m over
// d equal input bins of m.Domain(). Structured and exact: the piecewise
// family (pm, pm-sub, pm-opt), Square Wave, n-output, duchi, three-outputs
// and a hybrid of a piecewise mechanism with a discrete one (hm, hm-tp,
// hm-np). Any other mechanism with a bounded output and bucket
// probabilities (HistTransitionNeeds): a dense matrix, from BucketGivenBin
// over the input bins (exact), or for a discrete law from its probabilities
// averaged over each bin by quadrature. Laplace (unbounded output) is
// refused.
func NewHistTransition(m mechanisms.Mechanism, d int, opt TransitionOptions) (*HistTransition, error) {
	if m == nil {
		return nil, errors.New("estimators: NewHistTransition: nil mechanism")
	}
	if d < 1 || d > 1<<20 {
		return nil, fmt.Errorf("estimators: NewHistTransition(%s): d = %d must be in [1, 2^20]", m.Name(), d)
	}
	if opt.Buckets < 0 {
		return nil, fmt.Errorf("estimators: NewHistTransition(%s): buckets = %d must be ≥ 0", m.Name(), opt.Buckets)
	}
	t := &HistTransition{D: d, Name: m.Name()}
	buckets := func(pw *mechanisms.Piecewise) int {
		if opt.Buckets > 0 {
			return opt.Buckets
		}
		return DTilde(pw, d, opt.DTilde)
	}
	switch mm := m.(type) {
	case *mechanisms.Piecewise:
		t.win = newWindowBlock(pieceWindow(mm), d, buckets(mm), 1)
		t.hiOut = t.win.lo + float64(t.win.rows)*t.win.w
	case *mechanisms.SquareWave:
		h := opt.Buckets
		if h == 0 {
			h = 1024
		}
		t.win = newWindowBlock(squareWindow(mm), d, h, 1)
		_, t.hiOut = mm.OutputRange()
	case *mechanisms.NOutput:
		t.setDense(mm.Outputs(), func(k int, xlo, xhi float64) float64 { return mm.AverageProbability(k, xlo, xhi) }, 1)
	case *mechanisms.Duchi, *mechanisms.ThreeOutputs:
		// Duchi and Three-Outputs: the law is linear in x on each side of
		// 0 (it depends on |x| and x), so the average over a bin is the
		// length-weighted law at the midpoints of its parts left and right
		// of 0.
		dm := mm.(mechanisms.Discrete)
		t.setDense(dm.Outputs(), discreteAverage(dm), 1)
	case interface {
		Components() (continuous, discrete mechanisms.Mechanism, pContinuous float64)
	}:
		c, dm, pc := mm.Components()
		pw, ok := c.(*mechanisms.Piecewise)
		if !ok {
			return nil, fmt.Errorf("estimators: NewHistTransition(%s): continuous component %s is not a piecewise mechanism", m.Name(), c.Name())
		}
		if pc > 0 {
			t.win = newWindowBlock(pieceWindow(pw), d, buckets(pw), pc)
			t.hiOut = t.win.lo + float64(t.win.rows)*t.win.w
		}
		if pc < 1 {
			switch dd := dm.(type) {
			case *mechanisms.NOutput:
				t.setDense(dd.Outputs(), func(k int, xlo, xhi float64) float64 { return dd.AverageProbability(k, xlo, xhi) }, 1-pc)
			case mechanisms.Discrete:
				t.setDense(dd.Outputs(), discreteAverage(dd), 1-pc)
			default:
				return nil, fmt.Errorf("estimators: NewHistTransition(%s): discrete component %s has no output law", m.Name(), dm.Name())
			}
		}
	case mechanisms.Discrete:
		// Any other discrete law: the bin average of each output's
		// probability by quadrature on each side of 0 (quadratureAverage).
		t.setDense(mm.Outputs(), quadratureAverage(m, mm), 1)
	default:
		// Any other mechanism with a bounded output and exact bucket
		// probabilities (HistTransitionNeeds): equal output buckets, each
		// entry its BucketGivenBin over the input bin, stored as a window
		// block whose band is every nonzero row of the column.
		if err := HistTransitionNeeds.Check(m); err != nil {
			return nil, fmt.Errorf("estimators: NewHistTransition: %w", err)
		}
		h := opt.Buckets
		if h == 0 {
			h = 1024
		}
		t.win = newBucketBlock(m, d, h)
		t.hiOut = t.win.lo + float64(t.win.rows)*t.win.w
	}
	if t.win != nil {
		t.Rows += t.win.rows
	}
	if t.dense != nil {
		t.Rows += t.dense.rows
	}
	return t, nil
}

// quadratureAverage returns the bin average of output k's probability for
// a discrete law on m's domain, the bin given on [-1, 1]: 16-point
// Gauss–Legendre on the parts of the bin left and right of 0, exact for a
// law polynomial of degree ≤ 31 on each part (piecewise-linear laws whose
// kinks fall on bin edges, as NPRR's grid at d a multiple of k), and a
// quadrature otherwise.
func quadratureAverage(m mechanisms.Mechanism, dm mechanisms.Discrete) func(k int, xlo, xhi float64) float64 {
	lo, hi := m.Domain()
	half := (hi - lo) / 2
	buf := make([]float64, len(dm.Outputs()))
	at := func(k int, x float64) float64 {
		dm.Probabilities(lo+(x+1)*half, buf)
		return buf[k]
	}
	avg := func(k int, a, b float64) float64 {
		return gaussLegendre16(func(x float64) float64 { return at(k, x) }, a, b) / (b - a)
	}
	return func(k int, xlo, xhi float64) float64 {
		if xlo < 0 && xhi > 0 {
			return (-xlo*avg(k, xlo, 0) + xhi*avg(k, 0, xhi)) / (xhi - xlo)
		}
		return avg(k, xlo, xhi)
	}
}

// newBucketBlock returns the h equal output buckets of m's bounded output
// range over d input bins of its domain as a window block without base:
// entry (j, i) is BucketGivenBin(y_j, y_{j+1}, x_i, x_{i+1}), exact, and
// column i's band runs from its first to its last nonzero row.
func newBucketBlock(m mechanisms.Mechanism, d, h int) *windowBlock {
	ylo, yhi := m.(mechanisms.OutputRanger).OutputRange()
	bk := m.(mechanisms.Bucketer)
	xlo, xhi := m.Domain()
	w := (yhi - ylo) / float64(h)
	blk := &windowBlock{rows: h, lo: ylo, w: w, base: make([]float64, h),
		bandLo: make([]int32, d), bandLen: make([]int32, d), bandOff: make([]int32, d)}
	edge := func(j int) float64 {
		if j >= h {
			return yhi
		}
		return ylo + float64(j)*w
	}
	col := make([]float64, h)
	for i := range d {
		a, b := binEdges(xlo, xhi, d, i)
		j0, j1 := h, -1
		for j := range h {
			col[j] = bk.BucketGivenBin(edge(j), edge(j+1), a, b)
			if col[j] != 0 {
				j0, j1 = min(j0, j), j
			}
		}
		if j1 < 0 {
			j0, j1 = 0, 0
		}
		blk.bandLo[i] = int32(j0)
		blk.bandOff[i] = int32(len(blk.vals))
		blk.vals = append(blk.vals, col[j0:j1+1]...)
		blk.bandLen[i] = int32(j1 - j0 + 1)
	}
	return blk
}

// discreteAverage returns the bin average of output k's probability for a
// discrete mechanism whose law is linear in x on [-1, 0] and on [0, 1].
func discreteAverage(m mechanisms.Discrete) func(k int, xlo, xhi float64) float64 {
	buf := make([]float64, len(m.Outputs()))
	at := func(k int, x float64) float64 {
		m.Probabilities(x, buf)
		return buf[k]
	}
	return func(k int, xlo, xhi float64) float64 {
		if xlo < 0 && xhi > 0 {
			return (-xlo*at(k, xlo/2) + xhi*at(k, xhi/2)) / (xhi - xlo)
		}
		return at(k, (xlo+xhi)/2)
	}
}

func (t *HistTransition) setDense(outs []float64, avg func(k int, xlo, xhi float64) float64, scale float64) {
	d := t.D
	rows := len(outs)
	b := &denseBlock{rows: rows, t: make([]float64, rows*d)}
	for i := range d {
		xlo, xhi := binEdges(-1, 1, d, i)
		for k := range rows {
			b.t[k*d+i] = scale * avg(k, xlo, xhi)
		}
	}
	t.dense = b
	t.atoms = slices.Clone(outs)
}

// binEdges returns the edges of bin i of d equal bins of [lo, hi]; the last
// upper edge is hi exactly.
func binEdges(lo, hi float64, d, i int) (a, b float64) {
	w := (hi - lo) / float64(d)
	a = lo + float64(i)*w
	b = lo + float64(i+1)*w
	if i == d-1 {
		b = hi
	}
	return a, b
}

// overlapAvg returns (1/(b-a))∫_a^b |[u, v] ∩ [a0 + s·x, a0 + s·x + W]| dx,
// exactly: the integrand is piecewise linear in x with kinks where the
// window's ends cross u or v.
func overlapAvg(ws windowSpec, u, v, a, b float64) float64 {
	ov := func(x float64) float64 {
		l := ws.a + ws.s*x
		o := min(v, l+ws.W) - max(u, l)
		return max(o, 0)
	}
	ks := [4]float64{(u - ws.a) / ws.s, (v - ws.a) / ws.s, (u - ws.a - ws.W) / ws.s, (v - ws.a - ws.W) / ws.s}
	slices.Sort(ks[:])
	sum := 0.0
	x0, f0 := a, ov(a)
	for _, k := range ks {
		if !(k > x0 && k < b) {
			continue
		}
		fk := ov(k)
		sum += (f0 + fk) / 2 * (k - x0)
		x0, f0 = k, fk
	}
	fb := ov(b)
	sum += (f0 + fb) / 2 * (b - x0)
	return sum / (b - a)
}

func newWindowBlock(ws windowSpec, d, h int, scale float64) *windowBlock {
	w := (ws.yhi - ws.ylo) / float64(h)
	blk := &windowBlock{rows: h, lo: ws.ylo, w: w, base: make([]float64, h),
		bandLo: make([]int32, d), bandLen: make([]int32, d), bandOff: make([]int32, d)}
	edge := func(j int) float64 {
		if j >= h {
			return ws.yhi
		}
		return ws.ylo + float64(j)*w
	}
	for j := range h {
		blk.base[j] = scale * ws.outer * (edge(j+1) - edge(j))
	}
	kappa := scale * (ws.inner - ws.outer)
	for i := range d {
		a, b := binEdges(ws.xlo, ws.xhi, d, i)
		// Buckets that a window of the bin can touch, one spare each side
		// (their entries are computed exactly, so a spare row holds 0).
		j0 := int(math.Floor((ws.a+ws.s*a-ws.ylo)/w)) - 1
		j1 := int(math.Floor((ws.a+ws.s*b+ws.W-ws.ylo)/w)) + 1
		j0, j1 = max(j0, 0), min(j1, h-1)
		blk.bandLo[i] = int32(j0)
		blk.bandOff[i] = int32(len(blk.vals))
		for j := j0; j <= j1; j++ {
			blk.vals = append(blk.vals, kappa*overlapAvg(ws, edge(j), edge(j+1), a, b))
		}
		blk.bandLen[i] = int32(j1 - j0 + 1)
	}
	return blk
}

// Dense returns the matrix in full, row-major (Rows × D): the reference the
// structured E-step is tested against.
func (t *HistTransition) Dense() []float64 {
	d := t.D
	out := make([]float64, t.Rows*d)
	if w := t.win; w != nil {
		for j := range w.rows {
			for i := range d {
				out[j*d+i] = w.base[j]
			}
		}
		for i := range d {
			lo, off := int(w.bandLo[i]), int(w.bandOff[i])
			for k := range int(w.bandLen[i]) {
				out[(lo+k)*d+i] += w.vals[off+k]
			}
		}
	}
	if b := t.dense; b != nil {
		r0 := t.Rows - b.rows
		copy(out[r0*d:], b.t)
	}
	return out
}

// Row returns the output row of report y: an atom's row if y equals one of
// the atoms exactly, else its bucket of the window block (clipped to the
// range; y at the upper end goes to the last bucket). A discrete mechanism's
// report is matched to its nearest output. NaN gives -1.
func (t *HistTransition) Row(y float64) int {
	if y != y {
		return -1
	}
	if t.dense != nil {
		i, found := slices.BinarySearch(t.atoms, y)
		r0 := t.Rows - t.dense.rows
		if found {
			return r0 + i
		}
		if t.win == nil {
			switch {
			case i == 0:
				return r0
			case i == len(t.atoms):
				return r0 + i - 1
			case y-t.atoms[i-1] < t.atoms[i]-y:
				return r0 + i - 1
			}
			return r0 + i
		}
	}
	w := t.win
	v := (y - w.lo) / w.w
	switch {
	case !(v > 0):
		return 0
	case v >= float64(w.rows):
		return w.rows - 1
	}
	return min(int(v), w.rows-1)
}

// Counts adds the number of reports in each output row to dst (length
// Rows) and returns it; NaN reports are skipped. dst == nil allocates.
func (t *HistTransition) Counts(reports []float64, dst []float64) []float64 {
	if dst == nil {
		dst = make([]float64, t.Rows)
	}
	for _, y := range reports {
		if r := t.Row(y); r >= 0 {
			dst[r]++
		}
	}
	return dst
}

// forward writes D[j] = (Θμ)_j for every row.
func (t *HistTransition) forward(mu, D []float64) {
	d := t.D
	if w := t.win; w != nil {
		var s float64
		for _, v := range mu {
			s += v
		}
		Dw := D[:w.rows]
		for j := range Dw {
			Dw[j] = w.base[j] * s
		}
		for i, m := range mu {
			if m == 0 {
				continue
			}
			lo, off, n := int(w.bandLo[i]), int(w.bandOff[i]), int(w.bandLen[i])
			dst := Dw[lo : lo+n]
			src := w.vals[off : off+n]
			for k := range dst {
				dst[k] += src[k] * m
			}
		}
	}
	if b := t.dense; b != nil {
		r0 := t.Rows - b.rows
		for k := range b.rows {
			row := b.t[k*d : (k+1)*d]
			var s float64
			for i, m := range mu {
				s += row[i] * m
			}
			D[r0+k] = s
		}
	}
}

// backward writes a[i] = Σ_j r[j]·Θ[j, i].
func (t *HistTransition) backward(r, a []float64) {
	d := t.D
	for i := range a {
		a[i] = 0
	}
	if w := t.win; w != nil {
		var base float64
		for j, v := range r[:w.rows] {
			base += v * w.base[j]
		}
		for i := range a {
			lo, off, n := int(w.bandLo[i]), int(w.bandOff[i]), int(w.bandLen[i])
			rr := r[lo : lo+n]
			src := w.vals[off : off+n]
			s := base
			for k := range rr {
				s += rr[k] * src[k]
			}
			a[i] = s
		}
	}
	if b := t.dense; b != nil {
		r0 := t.Rows - b.rows
		for k := range b.rows {
			rk := r[r0+k]
			if rk == 0 {
				continue
			}
			row := b.t[k*d : (k+1)*d]
			for i := range a {
				a[i] += rk * row[i]
			}
		}
	}
}

// HistEMConfig configures HistEM.
type HistEMConfig struct {
	// Tau is the stopping tolerance on |LL_{t+1} - LL_t| (default 1e-5).
	Tau float64
	// MaxIter caps the iterations (default 10,000).
	MaxIter int
	// Counts runs EM on the raw counts instead of the normalised histogram
	// (ERRATA E0.4: the authors normalise, which makes Tau a per-report
	// tolerance and gives a MAP prior of weight Lambda the weight of all
	// the data). Default false: normalised, as the published figures.
	Counts bool
	// Prior, if not nil, makes the run MAP-EM (2PEM's phase 2): the update
	// is π_i ← (Q_i + Lambda·Prior_i)/(ΣQ + Lambda) and the start is Prior.
	Prior []float64
	// Lambda is the prior's weight (default 1 when Prior is set).
	Lambda float64
	// Smooth makes the run EMS: after every M-step θ ← Sθ/ΣSθ with S the
	// binomial [1, 2, 1] kernel of Li et al.'s code, as the EMS of package
	// emkernel (first row (2θ_0 + θ_1)/3, last row θ_{d-1}; ERRATA E4.4).
	// Default false: plain EM, as Baek & Chung use for SW (E0.29).
	Smooth bool
	// Start, if not nil, is the starting estimate (default: Prior, else
	// uniform).
	Start []float64
	// Trace, if not nil, is called after every iteration with its number
	// and the data log-likelihood at the new estimate.
	Trace func(iter int, ll float64)
	// Accel: "" or AccelNone (plain EM, the default: 2PEM's τ stops it at
	// a point of the plain path) or AccelSquarem (histem_accel.go; Trace
	// unused).
	Accel Accel
}

// HistEMResult describes one run of HistEM.
type HistEMResult struct {
	// Hist is the estimate, a probability vector over the D input bins.
	Hist []float64
	// Iter is the number of updates; CapHit is true if MaxIter stopped
	// the loop.
	Iter   int
	CapHit bool
	// ESteps counts the E-steps under Accel (0 for the plain loop).
	ESteps int
	// LL is the data log-likelihood Σ_j c_j ln(Θπ)_j at Hist (c normalised
	// unless Counts).
	LL float64
}

// HistEM estimates the input histogram from the counts of the output rows
// (length Rows) by EM: start uniform (or at Prior), E-step Q_i =
// π_i·Σ_j c_j Θ[j, i]/(Θπ)_j, M-step π = Q/ΣQ (MLE) or the MAP update of
// HistEMConfig.Prior; stop when |LL_{t+1} - LL_t| ≤ Tau (LL_0 at the start)
// or after MaxIter updates. All counts zero gives the start.
func (t *HistTransition) HistEM(ctx context.Context, counts []float64, cfg HistEMConfig) (HistEMResult, error) {
	if len(counts) != t.Rows {
		return HistEMResult{}, fmt.Errorf("estimators: HistEM(%s): %d counts for %d output rows", t.Name, len(counts), t.Rows)
	}
	if cfg.Tau == 0 {
		cfg.Tau = 1e-5
	}
	if cfg.MaxIter == 0 {
		cfg.MaxIter = 10000
	}
	if cfg.Lambda == 0 && cfg.Prior != nil {
		cfg.Lambda = 1
	}
	if !(cfg.Tau > 0) || cfg.MaxIter < 1 || !(cfg.Lambda >= 0) || math.IsInf(cfg.Lambda, 0) {
		return HistEMResult{}, fmt.Errorf("estimators: HistEM(%s): tau = %v must be > 0, max_iter = %d ≥ 1, lambda = %v ≥ 0 and finite", t.Name, cfg.Tau, cfg.MaxIter, cfg.Lambda)
	}
	if cfg.Prior != nil && len(cfg.Prior) != t.D {
		return HistEMResult{}, fmt.Errorf("estimators: HistEM(%s): prior has %d bins, want %d", t.Name, len(cfg.Prior), t.D)
	}
	var total float64
	for j, c := range counts {
		if !(c >= 0) || math.IsInf(c, 0) {
			return HistEMResult{}, fmt.Errorf("estimators: HistEM(%s): count %d = %v is not finite and ≥ 0", t.Name, j, c)
		}
		total += c
	}
	d := t.D
	pi := make([]float64, d)
	switch {
	case cfg.Start != nil:
		if len(cfg.Start) != d {
			return HistEMResult{}, fmt.Errorf("estimators: HistEM(%s): start has %d bins, want %d", t.Name, len(cfg.Start), d)
		}
		copy(pi, cfg.Start)
	case cfg.Prior != nil:
		copy(pi, cfg.Prior)
	default:
		for i := range pi {
			pi[i] = 1 / float64(d)
		}
	}
	if total == 0 {
		return HistEMResult{Hist: pi}, nil
	}
	c := counts
	if !cfg.Counts {
		c = make([]float64, len(counts))
		for j, v := range counts {
			c[j] = v / total
		}
	}
	D := make([]float64, t.Rows)
	r := make([]float64, t.Rows)
	a := make([]float64, d)
	var sm []float64
	if cfg.Smooth {
		sm = make([]float64, d)
	}
	// eval computes D at pi, r = c/D and LL.
	eval := func() float64 {
		t.forward(pi, D)
		var ll float64
		for j, cj := range c {
			if cj == 0 {
				r[j] = 0
				continue
			}
			// D_j = 0 with c_j > 0 is impossible for a report the
			// mechanism can make from some bin; it gives LL = -Inf.
			ll += cj * math.Log(D[j])
			r[j] = cj / D[j]
		}
		return ll
	}
	if cfg.Accel != "" && cfg.Accel != AccelNone {
		return t.histEMAccel(ctx, pi, c, cfg)
	}
	ll := eval()
	res := HistEMResult{}
	for {
		if res.Iter >= cfg.MaxIter {
			res.CapHit = true
			break
		}
		if err := ctx.Err(); err != nil {
			return HistEMResult{}, fmt.Errorf("estimators: HistEM(%s) stopped after %d iterations: %w", t.Name, res.Iter, err)
		}
		t.backward(r, a)
		var sq float64
		for i := range pi {
			pi[i] *= a[i]
			sq += pi[i]
		}
		cfg.mStep(pi, sm, sq)
		res.Iter++
		next := eval()
		if cfg.Trace != nil {
			cfg.Trace(res.Iter, next)
		}
		done := math.Abs(next-ll) <= cfg.Tau
		ll = next
		if done {
			break
		}
	}
	// Renormalise (the MAP update keeps the sum at 1 up to rounding).
	var s float64
	for _, v := range pi {
		s += v
	}
	for i := range pi {
		pi[i] /= s
	}
	res.Hist = pi
	res.LL = ll
	return res, nil
}

// mStep finishes an EM update of pi, which holds θ_i·a_i summing to sq:
// the M-step (MLE: pi/sq; MAP with the prior weight λ: (pi + λ·prior)/(sq
// + λ), the 2PEM phase-2 update, E0.21), then EMS's smoothing and
// renormalisation when cfg.Smooth. sm is scratch of len(pi). The plain
// loop and the SQUAREM map (histem_accel.go) share it, so that both
// iterate the same map.
func (cfg HistEMConfig) mStep(pi, sm []float64, sq float64) {
	if cfg.Prior != nil {
		den := sq + cfg.Lambda
		for i := range pi {
			pi[i] = (pi[i] + cfg.Lambda*cfg.Prior[i]) / den
		}
	} else {
		for i := range pi {
			pi[i] /= sq
		}
	}
	if cfg.Smooth {
		smoothEMS(sm, pi)
		var ss float64
		for _, v := range sm {
			ss += v
		}
		for i := range pi {
			pi[i] = sm[i] / ss
		}
	}
}

// smoothEMS writes Sθ to dst, S the authors' EMS kernel (see
// HistEMConfig.Smooth).
func smoothEMS(dst, theta []float64) {
	l := len(theta)
	if l == 1 {
		dst[0] = theta[0]
		return
	}
	dst[0] = (2*theta[0] + theta[1]) / 3
	for i := 1; i < l-1; i++ {
		dst[i] = (theta[i-1] + 2*theta[i] + theta[i+1]) / 4
	}
	dst[l-1] = theta[l-1]
}
