package audit

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"

	"golang.org/x/sync/errgroup"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Target is one mechanism configuration to audit: exactly one of Mech (a
// one-dimensional mechanism) and Joint (a group mechanism) is set.
type Target struct {
	// Name identifies the configuration: the registry name, or the group
	// method with its parameters, "group-nprr(d=2, k=8, neutral=nprr0)".
	Name string
	// Family groups configurations in the figure's legend (the name
	// without the parameters that do not change the privacy level).
	Family string
	// Eps is the ε the mechanism was built for.
	Eps float64
	// Claimed is the ε the mechanism claims, the one it is audited
	// against: Epsilon() or ClaimedEpsilon().
	Claimed float64
	// True is the ε the mechanism itself states as its actual level, NaN
	// when it states none. It is printed beside the audit as a cross-check
	// and never used for a verdict.
	True float64
	// KnownIssue names the erratum of a violation that is documented and
	// expected ("E2.1"); empty otherwise. --strict ignores such
	// violations.
	KnownIssue string
	Mech       mechanisms.Mechanism
	Joint      Joint
}

// MechanismTarget returns the target of a one-dimensional mechanism,
// claimed ε = m.Epsilon().
func MechanismTarget(m mechanisms.Mechanism) Target {
	return Target{Name: m.Name(), Family: m.Name(), Eps: m.Epsilon(), Claimed: m.Epsilon(), True: math.NaN(), Mech: m}
}

// trueEpsilon is implemented by mechanisms that state their actual privacy
// level beside the claimed one (the group mechanisms).
type trueEpsilon interface{ TrueEpsilon() float64 }

// JointTarget returns the target of a group mechanism built for eps,
// claimed ε = m.ClaimedEpsilon(), True = m.TrueEpsilon() when it has one.
func JointTarget(m Joint, name, family string, eps float64) Target {
	t := Target{Name: name, Family: family, Eps: eps, Claimed: m.ClaimedEpsilon(), True: math.NaN(), Joint: m}
	if te, ok := m.(trueEpsilon); ok {
		t.True = te.TrueEpsilon()
	}
	return t
}

// RegistryTargets builds every named registered mechanism at every ε
// (names nil: all of them, in mechanisms.Names() order).
func RegistryTargets(names []string, eps []float64) ([]Target, error) {
	if names == nil {
		names = mechanisms.Names()
	}
	var ts []Target
	for _, name := range names {
		for _, e := range eps {
			m, err := mechanisms.New(name, e)
			if err != nil {
				return nil, err
			}
			ts = append(ts, MechanismTarget(m))
		}
	}
	return ts, nil
}

// Row is one line of an audit report: a target and one finding about it.
type Row struct {
	Target
	Finding
	// Verdict is Finding.Verdict(Target.Claimed).
	Verdict string
}

// Options configure [Run].
type Options struct {
	Resolution Resolution
	// MC configures the Monte Carlo rows. MC.N = 0 gives no Monte Carlo
	// row for a target whose law is exposed (its exact row is the audit);
	// a target without one always gets a Monte Carlo row (at the default N
	// when MC.N = 0). MC.Alpha is the family-wise error probability of all
	// the Monte Carlo rows of the run together: each row uses
	// MC.Alpha / (number of Monte Carlo rows).
	MC MCConfig
	// Seed seeds the Monte Carlo rows: row r of target t draws from a PCG
	// seeded by (Seed, a hash of t's name and ε), so a row does not depend
	// on the other targets or on Workers.
	Seed uint64
	// Workers is the number of targets audited at once (default
	// GOMAXPROCS).
	Workers int
}

// Run audits every target: its law when it exposes one, and by Monte
// Carlo (see [Options.MC]). Rows come in target order, the law's row
// before the Monte Carlo one.
func Run(ctx context.Context, targets []Target, opt Options) ([]Row, error) {
	for i, t := range targets {
		if (t.Mech == nil) == (t.Joint == nil) {
			return nil, fmt.Errorf("audit: target %d (%q): want exactly one of Mech and Joint", i, t.Name)
		}
		if err := checkEps(t.Name, t.Claimed); err != nil {
			return nil, err
		}
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	outs := make([]targetOut, len(targets))
	// Pass 1: the exact audits (they decide which targets need a Monte
	// Carlo row, and so the per-row alpha).
	if err := auditLaws(ctx, targets, outs, opt, workers); err != nil {
		return nil, err
	}
	nMC := 0
	for _, o := range outs {
		if o.pending {
			nMC++
		}
	}
	mc := opt.MC.withDefaults()
	if nMC > 0 {
		mc.Alpha /= float64(nMC)
	}
	// Pass 2: the Monte Carlo rows.
	if err := auditMC(ctx, targets, outs, mc, opt.Seed, workers); err != nil {
		return nil, err
	}
	var rows []Row
	for i, t := range targets {
		for _, f := range []*Finding{outs[i].law, outs[i].mc} {
			if f != nil {
				rows = append(rows, Row{Target: t, Finding: *f, Verdict: f.Verdict(t.Claimed)})
			}
		}
	}
	return rows, nil
}

// A targetOut is what Run found about one target.
type targetOut struct {
	law     *Finding
	hasLaw  bool
	mc      *Finding
	pending bool // Monte Carlo still to run
}

// auditLaws audits the law of every target that exposes one, workers at a
// time, and marks the targets that need a Monte Carlo row: those without
// a law, and all of them when opt.MC.N > 0.
func auditLaws(ctx context.Context, targets []Target, outs []targetOut, opt Options, workers int) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i, t := range targets {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			var f Finding
			var ok bool
			var err error
			if t.Mech != nil {
				f, ok, err = AuditLaw(t.Mech, opt.Resolution)
			} else {
				f, ok, err = AuditJointLaw(t.Joint, opt.Resolution)
			}
			if err != nil {
				return fmt.Errorf("audit %s (ε = %v): %w", t.Name, t.Eps, err)
			}
			if ok {
				outs[i].law, outs[i].hasLaw = &f, true
			}
			outs[i].pending = !ok || opt.MC.N > 0
			return nil
		})
	}
	return g.Wait()
}

// auditMC runs the Monte Carlo audit of every pending target, workers at
// a time, each from a PCG seeded by (seed, the target's hash), so that a
// row depends neither on the other targets nor on workers.
func auditMC(ctx context.Context, targets []Target, outs []targetOut, mc MCConfig, seed uint64, workers int) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i, t := range targets {
		if !outs[i].pending {
			continue
		}
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			rng := rand.New(rand.NewPCG(seed, targetHash(t)))
			x0, x1 := mcInputs(t, outs[i].law)
			var f Finding
			var err error
			if t.Mech != nil {
				f, err = MonteCarlo(t.Mech, x0.V, x1.V, mc, rng)
			} else {
				f, err = MonteCarloJoint(t.Joint, x0, x1, mc, rng)
			}
			if err != nil {
				return fmt.Errorf("audit %s (ε = %v): %w", t.Name, t.Eps, err)
			}
			outs[i].mc = &f
			return nil
		})
	}
	return g.Wait()
}

// mcInputs picks the two inputs of a Monte Carlo audit: the exact audit's
// worst pair when it found a (finite) violation, so that sampling confirms
// it; otherwise the ends of the domain, the worst pair of every mechanism
// whose output law is monotone in the input (and, for a group mechanism,
// two different groups at opposite ends: E2.1's worst case).
func mcInputs(t Target, law *Finding) (Input, Input) {
	if law != nil && law.Verdict(t.Claimed) == Violation && !math.IsInf(law.Epsilon, 0) && law.X0 != law.X1 {
		return law.X0, law.X1
	}
	if t.Mech != nil {
		lo, hi := t.Mech.Domain()
		return Input{-1, hi}, Input{-1, lo}
	}
	lo, hi := jointDomain(t.Joint)
	other := 0
	if t.Joint.D() > 1 {
		other = 1
	}
	return Input{0, hi}, Input{other, lo}
}

// targetHash is the second word of a target's Monte Carlo seed.
func targetHash(t Target) uint64 {
	h := fnv.New64a()
	h.Write([]byte(t.Name))
	h.Write([]byte{0})
	h.Write([]byte(strconv.FormatFloat(t.Eps, 'g', -1, 64)))
	return h.Sum64()
}
