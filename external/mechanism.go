package external

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Info returns the registry entry of the program's mechanism: its name,
// a summary from the hello, and a constructor (Program.Mechanism).
func (p *Program) Info() mechanisms.Info {
	h := p.hello
	sum := h.Summary
	if sum == "" {
		sum = h.Name
	}
	caps := "perturb only"
	if len(h.Capabilities) > 0 {
		caps = strings.Join(h.Capabilities, ", ")
	}
	return mechanisms.Info{
		Name:    p.cfg.Name,
		Summary: fmt.Sprintf("external (%s): %s on [%v, %v]; %s", strings.Join(p.cfg.Command, " "), sum, h.Domain[0], h.Domain[1], caps),
		New:     p.Mechanism,
	}
}

// Mechanism returns the program's mechanism at budget eps. It implements
// mechanisms.Mechanism and exactly the optional interfaces the hello
// declares: mechanisms.Variancer ("variance"), mechanisms.Discrete
// ("discrete") or mechanisms.Continuous ("continuous"). It asks the program
// to describe itself at eps (once per eps) and checks the answer.
func (p *Program) Mechanism(eps float64) (mechanisms.Mechanism, error) {
	if math.IsNaN(eps) || math.IsInf(eps, 0) || eps <= 0 {
		return nil, &mechanisms.ParamError{Mechanism: p.cfg.Name, Param: "epsilon", Value: eps, Reason: "must be finite and > 0"}
	}
	d, err := p.describe(eps)
	if err != nil {
		return nil, err
	}
	c := &core{p: p, eps: eps, d: d, lo: p.hello.Domain[0], hi: p.hello.Domain[1]}
	v, dis, con := p.hello.Has(CapVariance), p.hello.Has(CapDiscrete), p.hello.Has(CapContinuous)
	switch {
	case v && dis:
		return &mechVD{c, vpart{c}, dpart{c}}, nil
	case v && con:
		return &mechVC{c, vpart{c}, cpart{c}}, nil
	case v:
		return &mechV{c, vpart{c}}, nil
	case dis:
		return &mechD{c, dpart{c}}, nil
	case con:
		return &mechC{c, cpart{c}}, nil
	}
	return &mechPlain{c}, nil
}

// The wrapper types, one per combination of capabilities, since a kind
// asks for a capability by a type assertion.
type (
	mechPlain struct{ *core }
	mechV     struct {
		*core
		vpart
	}
	mechD struct {
		*core
		dpart
	}
	mechC struct {
		*core
		cpart
	}
	mechVD struct {
		*core
		vpart
		dpart
	}
	mechVC struct {
		*core
		vpart
		cpart
	}
)

var (
	_ mechanisms.Mechanism = mechPlain{}
	_ mechanisms.Estimate  = mechV{}
	_ mechanisms.Discrete  = mechD{}
	_ interface {
		mechanisms.Continuous
		mechanisms.Mechanism
	} = mechC{}
	_ interface {
		mechanisms.Estimate
		mechanisms.Discrete
	} = mechVD{}
	_ interface {
		mechanisms.Estimate
		mechanisms.Continuous
	} = mechVC{}
)

func (p *Program) describe(eps float64) (*description, error) {
	p.descMu.Lock()
	d, ok := p.descs[eps]
	p.descMu.Unlock()
	if ok {
		return d, nil
	}
	v, st, err := p.call(OpDescribe, eps, 0, nil, -1, nil)
	if err != nil {
		return nil, err
	}
	if d, err = parseDescription(v, p.hello); err != nil {
		return nil, p.errorStderr("describe", eps, st, "%w", err)
	}
	p.descMu.Lock()
	p.descs[eps] = d
	p.descMu.Unlock()
	return d, nil
}

// core is the mechanism at one ε: what every wrapper type has.
type core struct {
	p      *Program
	eps    float64
	d      *description
	lo, hi float64

	memoMu sync.Mutex
	memo   map[float64]float64 // Variance by x
}

// Program returns the program the mechanism runs in.
func (c *core) Program() *Program { return c.p }

func (c *core) Name() string             { return c.p.cfg.Name }
func (c *core) Epsilon() float64         { return c.eps }
func (c *core) Domain() (lo, hi float64) { return c.lo, c.hi }

// Perturb returns one report of x: a request of one input, with a seed
// drawn from rng. It cannot return an error: when the request fails it
// returns NaN, and Program.Err (or the next PerturbBatch) says why.
func (c *core) Perturb(x float64, rng *rand.Rand) float64 {
	var out [1]float64
	if err := c.PerturbBatch(out[:], []float64{x}, rng); err != nil {
		c.p.fail(err)
		return math.NaN()
	}
	return out[0]
}

// PerturbBatch writes a report of xs[i] to dst[i]: one perturb request,
// whose seed is rng.Uint64() (the only draw from rng). Every report is
// checked: finite, in the output range, and one of the outputs of a
// discrete mechanism.
func (c *core) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	if len(dst) < len(xs) {
		panic(fmt.Sprintf("external mechanism %s: PerturbBatch: len(dst) = %d < len(xs) = %d", c.Name(), len(dst), len(xs)))
	}
	if err := c.checkInputs(xs); err != nil {
		return err
	}
	if len(xs) == 0 {
		return nil
	}
	seed := rng.Uint64()
	out, st, err := c.p.call(OpPerturb, c.eps, seed, xs, len(xs), dst[:len(xs)])
	if err != nil {
		return err
	}
	if &out[0] != &dst[0] {
		copy(dst, out)
	}
	outs := c.d.outputs
	for i, y := range out {
		if !finite(y) || y < c.d.outLo || y > c.d.outHi {
			return c.p.errorStderr("perturb", c.eps, st, "report %d = %v (of input %v): want finite and in the output range [%v, %v] it described", i, y, xs[i], c.d.outLo, c.d.outHi)
		}
		if outs != nil {
			if _, ok := slices.BinarySearch(outs, y); !ok {
				return c.p.errorStderr("perturb", c.eps, st, "report %d = %v (of input %v) is not one of the outputs it described (%v)", i, y, xs[i], outs)
			}
		}
	}
	return nil
}

// checkInputs refuses an input outside the domain (or NaN), before
// anything is drawn.
func (c *core) checkInputs(xs []float64) error {
	for i, x := range xs {
		if !(x >= c.lo) || x > c.hi {
			return &mechanisms.InputError{Mechanism: c.Name(), Index: i, Value: x, Lo: c.lo, Hi: c.hi}
		}
	}
	return nil
}

// values sends a request of payload (groups of arity values), and checks
// each of the len(payload)/arity·per replies with ok.
func (c *core) values(op uint32, payload []float64, per int, dst []float64, ok func(v float64) bool, want string) ([]float64, *ring, error) {
	n := len(payload) / arityOf(op)
	out, st, err := c.p.call(op, c.eps, 0, payload, n*per, dst)
	if err != nil {
		return nil, nil, err
	}
	for i, v := range out {
		if !ok(v) {
			return nil, nil, c.p.errorStderr(opName(op), c.eps, st, "value %d = %v: want %s", i, v, want)
		}
	}
	return out, st, nil
}

func arityOf(op uint32) int {
	switch op {
	case OpDensity, OpCDF:
		return 2
	case OpBucket:
		return 4
	}
	return 1
}

func isProb(v float64) bool        { return v >= 0 && v <= 1 }
func isNonNegative(v float64) bool { return v >= 0 && !math.IsInf(v, 0) }

// VarianceBatch writes Var[Y | xs[i]] to dst[i] in one request.
func (c *core) VarianceBatch(dst, xs []float64) error {
	if !c.p.hello.Has(CapVariance) {
		return fmt.Errorf("external mechanism %s: no %q capability", c.Name(), CapVariance)
	}
	if err := c.checkInputs(xs); err != nil {
		return err
	}
	out, _, err := c.values(OpVariance, xs, 1, dst[:len(xs)], isNonNegative, "finite and ≥ 0")
	if err != nil {
		return err
	}
	copy(dst, out)
	return nil
}

// vpart implements mechanisms.Variancer.
type vpart struct{ c *core }

// Variance returns Var[Y | x]: a request of one input, remembered by x (a
// dataset of repeated values asks once per value). A failed request gives
// NaN, and Program.Err says why.
func (v vpart) Variance(x float64) float64 {
	c := v.c
	c.memoMu.Lock()
	if y, ok := c.memo[x]; ok {
		c.memoMu.Unlock()
		return y
	}
	c.memoMu.Unlock()
	var out [1]float64
	if err := c.VarianceBatch(out[:], []float64{x}); err != nil {
		c.p.fail(err)
		return math.NaN()
	}
	c.memoMu.Lock()
	if c.memo == nil || len(c.memo) >= 1<<20 {
		c.memo = map[float64]float64{}
	}
	c.memo[x] = out[0]
	c.memoMu.Unlock()
	return out[0]
}

// WorstCaseVariance returns the worst-case variance the program described.
func (v vpart) WorstCaseVariance() float64 { return v.c.d.worstVar }

// dpart implements mechanisms.Discrete.
type dpart struct{ c *core }

// Outputs returns the alphabet the program described.
func (d dpart) Outputs() []float64 { return d.c.d.outputs }

// Probabilities writes Pr[Y = Outputs()[i] | x] to dst[i]; they are
// checked to be in [0, 1] and to sum to 1 within 1e-9. A failed request
// writes NaN, and Program.Err says why.
func (d dpart) Probabilities(x float64, dst []float64) {
	if err := d.c.ProbabilitiesBatch(dst, []float64{x}); err != nil {
		d.c.p.fail(err)
		for i := range dst[:len(d.c.d.outputs)] {
			dst[i] = math.NaN()
		}
	}
}

// ProbabilitiesBatch writes the law of each xs[i] to
// dst[i·k : (i+1)·k], k = len(Outputs()), in one request.
func (c *core) ProbabilitiesBatch(dst, xs []float64) error {
	k := len(c.d.outputs)
	if k == 0 {
		return fmt.Errorf("external mechanism %s: no %q capability", c.Name(), CapDiscrete)
	}
	if err := c.checkInputs(xs); err != nil {
		return err
	}
	out, st, err := c.values(OpProbabilities, xs, k, dst[:k*len(xs)], isProb, "in [0, 1]")
	if err != nil {
		return err
	}
	for i := range xs {
		var s float64
		for _, q := range out[i*k : (i+1)*k] {
			s += q
		}
		if math.Abs(s-1) > 1e-9 {
			return c.p.errorStderr("probabilities", c.eps, st, "the law of input %v sums to %v, not 1 (within 1e-9)", xs[i], s)
		}
	}
	copy(dst, out)
	return nil
}

// cpart implements mechanisms.Continuous.
type cpart struct{ c *core }

// OutputRange returns the output range the program described.
func (p cpart) OutputRange() (lo, hi float64) { return p.c.d.outLo, p.c.d.outHi }

// Density returns the density at y given x (one request; NaN on failure,
// and Program.Err says why).
func (p cpart) Density(y, x float64) float64 { return p.c.scalar(OpDensity, y, x) }

// CDF returns Pr[Y ≤ y | x] (one request; NaN on failure).
func (p cpart) CDF(y, x float64) float64 { return p.c.scalar(OpCDF, y, x) }

// BucketGivenBin returns Pr[ylo < Y ≤ yhi] for x uniform on [xlo, xhi]
// (one request; NaN on failure).
func (p cpart) BucketGivenBin(ylo, yhi, xlo, xhi float64) float64 {
	return p.c.scalar(OpBucket, ylo, yhi, xlo, xhi)
}

func (c *core) scalar(op uint32, args ...float64) float64 {
	var out [1]float64
	if err := c.Batch(op, out[:], args); err != nil {
		c.p.fail(err)
		return math.NaN()
	}
	return out[0]
}

// Batch answers many density, cdf or bucket questions in one request:
// args holds (y, x) pairs for OpDensity and OpCDF, (ylo, yhi, xlo, xhi)
// quadruples for OpBucket; dst receives one value per group.
func (c *core) Batch(op uint32, dst, args []float64) error {
	if !c.p.hello.Has(CapContinuous) {
		return fmt.Errorf("external mechanism %s: no %q capability", c.Name(), CapContinuous)
	}
	a := arityOf(op)
	if a == 1 || len(args)%a != 0 {
		return fmt.Errorf("external mechanism %s: Batch(%s): want density, cdf or bucket with groups of %d values", c.Name(), opName(op), a)
	}
	for i := 0; i < len(args); i += a {
		for j, v := range args[i : i+a] {
			if math.IsNaN(v) {
				return fmt.Errorf("external mechanism %s: %s: argument %d is NaN", c.Name(), opName(op), i+j)
			}
		}
		x := args[i+1]
		if a == 4 {
			x = args[i+2]
			if err := c.checkInputs(args[i+3 : i+4]); err != nil {
				return err
			}
		}
		if err := c.checkInputs([]float64{x}); err != nil {
			return err
		}
	}
	ok, want := isProb, "in [0, 1]"
	if op == OpDensity {
		ok, want = isNonNegative, "finite and ≥ 0"
	}
	out, _, err := c.values(op, args, 1, dst[:len(args)/a], ok, want)
	if err != nil {
		return err
	}
	copy(dst, out)
	return nil
}

// DensitiesAt writes the density at ys[i] given x to dst[i], in one
// request (mechanisms.LawBatcher).
func (p cpart) DensitiesAt(dst, ys []float64, x float64) error {
	args := make([]float64, 0, 2*len(ys))
	for _, y := range ys {
		args = append(args, y, x)
	}
	return p.c.Batch(OpDensity, dst[:len(ys)], args)
}

// BucketsAt writes Pr[edges[i] < Y ≤ edges[i+1]] for x uniform on
// [xlo, xhi] to dst[i], in one request (mechanisms.LawBatcher).
func (p cpart) BucketsAt(dst, edges []float64, xlo, xhi float64) error {
	if len(edges) < 2 {
		return nil
	}
	args := make([]float64, 0, 4*(len(edges)-1))
	for i := 0; i+1 < len(edges); i++ {
		args = append(args, edges[i], edges[i+1], xlo, xhi)
	}
	return p.c.Batch(OpBucket, dst[:len(edges)-1], args)
}

// Err returns the program's failure, nil while it works
// (mechanisms.Failer): Perturb returns NaN when its request fails.
func (c *core) Err() error { return c.p.Err() }
