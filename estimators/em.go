package estimators

import (
	"fmt"
	"math"
	"time"

	"github.com/ldpbench/ldpbench/estimators/internal/emkernel"
)

// EM and EMS for distribution estimation (Du et al. Section 5; ERRATA E4.4,
// E4.7): the options and the description of a run. The EM loop and its
// E-step kernels are in internal/emkernel (em.go there gives the
// iteration).

// StopRule names a stopping rule of the EM loop.
type StopRule string

const (
	// StopAuthors is the authors' rule (fusion_all.py, sw.py): iterate
	// while ‖θ_old − θ‖₁ > 1/N and fewer than MaxIter (10,000) iterations
	// have run; after an iteration, break if |LL − LL_old| < LLTol (1e-3,
	// absolute, nats) from the third iteration on.
	StopAuthors StopRule = "authors"
	// StopConverged runs to convergence: iterate while ‖θ_old − θ‖₁ >
	// ThetaTol (1e-12) and fewer than MaxIter (100,000) iterations have
	// run; break when |LL − LL_old| < LLTol·|LL| (relative, 1e-10) from the
	// third iteration on. |LL| is about 14.5 nats per user for [SR, PM, SW]
	// at small ε, so the relative test is about 1.5e-9 nats per user: the
	// authors' absolute 1e-3 is stricter than it for n above about 7·10⁵
	// (set LLTol, MaxIter for a tighter run).
	StopConverged StopRule = "converged"
)

// Accel names an acceleration of the EM loop.
type Accel string

// AccelSquarem is SQUAREM (Varadhan and Roland, Scand. J. Stat. 35, 2008;
// the scheme SqS3, step length α = −‖r‖/‖v‖ clamped to α ≤ −1, with the
// stabilising EM step after each extrapolation, the extrapolated θ moved
// back towards the plain step until positive, and the monotonicity
// safeguard: a cycle whose LL falls by more than LLTol·|LL| is redone with
// α halfway to −1, falling back to the plain EM steps). Its map is one EM
// update, or one EMS update with smoothing, so it reaches the same fixed
// point as the plain loop, in a fraction of the E-steps (docs/
// multiservice.md gives the counts). Only with StopConverged: the
// authors' rule stops where one plain step changes LL by less than 1e-3,
// a point of the plain path that an accelerated path does not visit, so
// EMOptions refuses it there. EMOptions' default is plain EM; kind
// multiservice makes SQUAREM the default of its stop = converged.
const AccelSquarem Accel = "squarem"

// AccelNone is plain EM, as "": the name a spec writes to ask for it
// where its default is SQUAREM (kind multiservice under stop =
// converged).
const AccelNone Accel = "none"

// Stop reasons recorded in EMInfo.Stop.
const (
	StopReasonLL      = "loglik"   // the |ΔLL| test broke the loop
	StopReasonTheta   = "theta"    // ‖θ_old − θ‖₁ fell to the tolerance
	StopReasonMaxIter = "max-iter" // the iteration cap was reached
)

// EMOptions configures EMS and ULE. The zero value is the authors' code:
// smoothing on, the authors' stopping rule, at most 10,000 iterations.
type EMOptions struct {
	// NoSmooth disables the EMS smoothing step: plain EM, as the paper's
	// Algorithm 3. The zero value smooths, as the authors' code (E4.4).
	NoSmooth bool
	// Stop is the stopping rule; "" means StopAuthors.
	Stop StopRule
	// MaxIter caps the iterations; 0 means 10,000 (authors) or 100,000
	// (converged).
	MaxIter int
	// LLTol is the log-likelihood tolerance; 0 means 1e-3 (authors,
	// absolute) or 1e-10 (converged, relative to |LL|).
	LLTol float64
	// ThetaTol is the L1 tolerance of the converged rule; 0 means 1e-12.
	// The authors' rule always uses 1/N.
	ThetaTol float64
	// Workers is the number of goroutines of an iteration; 0 means
	// GOMAXPROCS. The result does not depend on it.
	Workers int
	// Dense selects the dense route (every distinct bucket vector's row
	// stored over all l bins, computed in log space): the reference the
	// fast route is tested against, O(distinct × l) per iteration and in
	// memory. It refuses more than 2^27 row entries.
	Dense bool
	// Trace, if not nil, is called after every iteration with its number
	// (1, 2, ...), the new θ (do not keep or modify it) and LL(θ); under
	// SQUAREM after every accepted cycle, with the E-steps so far.
	Trace func(iter int, theta []float64, ll float64)
	// Accel accelerates the loop: "" or AccelNone (plain EM, the default)
	// or AccelSquarem, which needs Stop = StopConverged. Under SQUAREM,
	// MaxIter caps the E-steps (EMInfo.ESteps), LLTol and ThetaTol apply
	// to the accelerated sequence (an accepted cycle's |ΔLL|, the plain
	// step's ‖F(θ) − θ‖₁) and the LL tolerance is also the safeguard's.
	Accel Accel
	// Start, if not nil, is the initial θ instead of the uniform one (the
	// authors'): one entry per bin, each > 0 (EM keeps a zero bin at zero),
	// not necessarily normalised. With MaxIter = 1 under StopConverged the
	// plain loop returns one EM (EMS) update of Start: the check that an
	// estimate is a fixed point.
	Start []float64
}

// EMInfo describes one EM run.
type EMInfo struct {
	// Iterations is the number of EM updates of θ (E-, M- and smoothing
	// steps) performed; under SQUAREM the accepted cycles.
	Iterations int
	// ESteps is the number of E-step passes over the distinct vectors,
	// the work of the run: Iterations + 1 for plain EM (the last pass
	// evaluates LL at the final θ); under SQUAREM every evaluation of the
	// EM map, those of rejected extrapolations included.
	ESteps int
	// Accel is the acceleration applied ("" for plain EM).
	Accel Accel
	// Stop is why the loop ended: StopReasonLL, StopReasonTheta or
	// StopReasonMaxIter.
	Stop string
	// Rule is the stopping rule that was applied.
	Rule StopRule
	// LL is Σ_k n_k ln((Rθ)_k) at the returned θ, with the unscaled rows.
	LL float64
	// Users is N = Σ n_k (reports with at least one bucket); Distinct the
	// number of distinct bucket vectors.
	Users    int
	Distinct int
	// Route is "fast" or "dense".
	Route string
	// Setup is the time to bucket, deduplicate and prepare; Loop the time
	// of the EM iterations; PerIter is Loop over ESteps.
	Setup, Loop, PerIter time.Duration
}

// kernelOptions checks o and returns it as the kernel's options. The
// kernel fills in the same defaults that EMOptions documents.
func (o EMOptions) kernelOptions() (emkernel.Options, error) {
	switch o.Stop {
	case "", StopAuthors, StopConverged:
	default:
		return emkernel.Options{}, fmt.Errorf("estimators: unknown stopping rule %q (want %q or %q)", o.Stop, StopAuthors, StopConverged)
	}
	switch o.Accel {
	case "", AccelNone:
	case AccelSquarem:
		if o.Stop != StopConverged {
			return emkernel.Options{}, fmt.Errorf("estimators: acceleration %q needs stopping rule %q: the authors' rule stops at a point of the plain EM path (stop %q)", o.Accel, StopConverged, o.rule())
		}
	default:
		return emkernel.Options{}, fmt.Errorf("estimators: unknown EM acceleration %q (want \"\", %q or %q)", o.Accel, AccelNone, AccelSquarem)
	}
	if o.MaxIter < 0 || o.LLTol < 0 || o.ThetaTol < 0 || math.IsNaN(o.LLTol) || math.IsNaN(o.ThetaTol) {
		return emkernel.Options{}, fmt.Errorf("estimators: negative or NaN EM option (MaxIter %d, LLTol %v, ThetaTol %v)", o.MaxIter, o.LLTol, o.ThetaTol)
	}
	var start []float64
	if o.Start != nil {
		var sum float64
		for t, v := range o.Start {
			if !(v > 0) || math.IsInf(v, 0) {
				return emkernel.Options{}, fmt.Errorf("estimators: EM start θ[%d] = %v, want finite and > 0", t, v)
			}
			sum += v
		}
		start = make([]float64, len(o.Start))
		for t, v := range o.Start {
			start[t] = v / sum
		}
	}
	return emkernel.Options{
		Start:     start,
		NoSmooth:  o.NoSmooth,
		Converged: o.Stop == StopConverged,
		MaxIter:   o.MaxIter,
		LLTol:     o.LLTol,
		ThetaTol:  o.ThetaTol,
		Workers:   o.Workers,
		Dense:     o.Dense,
		Trace:     o.Trace,
		Squarem:   o.Accel == AccelSquarem,
	}, nil
}

// rule returns the stopping rule o applies.
func (o EMOptions) rule() StopRule {
	if o.Stop == "" {
		return StopAuthors
	}
	return o.Stop
}

// emInfo returns the kernel's description of a run as an EMInfo; rule is
// the rule and accel the acceleration applied. A run that failed before
// its EM loop started (no route chosen) records neither, as it records no
// iterations.
func emInfo(k emkernel.Info, rule StopRule, accel Accel) EMInfo {
	if k.Route == "" || accel == AccelNone {
		// AccelNone is plain EM, recorded as "".
		accel = ""
	}
	if k.Route == "" {
		rule = ""
	}
	info := EMInfo{
		Iterations: k.Iterations,
		ESteps:     k.ESteps,
		Accel:      accel,
		Rule:       rule,
		LL:         k.LL,
		Users:      k.Users,
		Distinct:   k.Distinct,
		Route:      k.Route,
		Setup:      k.Setup,
		Loop:       k.Loop,
		PerIter:    k.PerIter,
	}
	switch k.Stop {
	case emkernel.StopLL:
		info.Stop = StopReasonLL
	case emkernel.StopTheta:
		info.Stop = StopReasonTheta
	case emkernel.StopMaxIter:
		info.Stop = StopReasonMaxIter
	}
	return info
}
