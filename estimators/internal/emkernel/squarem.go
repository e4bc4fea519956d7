package emkernel

import (
	"context"
	"fmt"
	"math"
	"slices"
)

// SQUAREM (Varadhan and Roland, "Simple and globally convergent methods
// for accelerating the convergence of any EM algorithm", Scand. J. Stat.
// 35, 2008): an extrapolation of a fixed-point map F (here one EM or EMS
// step) that reaches F's fixed point in a fraction of the evaluations of
// F. One cycle from θ₀, with θ₁ = F(θ₀) known:
//
//	θ₂ = F(θ₁),  r = θ₁ − θ₀,  v = θ₂ − 2θ₁ + θ₀
//	α  = −‖r‖₂/‖v‖₂ (the scheme SqS3), clamped to α ≤ −1
//	θ' = θ₀ − 2αr + α²v       (α = −1 gives θ₂: the plain steps)
//	θ  = F(θ')                (the stabilising step)
//
// and, as the paper asks for global convergence, two safeguards:
//
//   - projection: an extrapolated θ' with an entry ≤ 0 leaves the
//     positive orthant, where F (an EM step on a probability vector) is
//     not defined or loses a bin for good; every entry below a floor,
//     10⁻³ of θ₂'s entry (θ₂ is positive), is raised to it and θ' renormalised
//     to θ₀'s sum. (Moving α back towards −1 until θ' is positive instead
//     was measured too: near the fixed point the bins of the tails, near
//     zero, then hold every step to α ≈ −1, and EMS at ε = 0.4 took 2.4
//     times the E-steps.) A NaN or infinite θ' takes the plain steps;
//   - monotonicity: if LL(θ) < LL(θ₀) − tol, α is moved halfway towards
//     −1 and the cycle redone, at most squaremMaxBacktracks times, after
//     which it falls back to α = −1, the plain steps θ = F(θ₂), accepted
//     whatever its LL (for plain EM it does not decrease LL; EMS's
//     smoothing has no such guarantee, so its plain step is accepted as
//     the plain EMS loop would).
//
// The step bound of the authors' R package (SQUAREM's squarem1: |α| ≤
// step.max, which starts at 1, grows fourfold each time α reaches it and
// shrinks fourfold when a step at it is rejected) keeps the first cycles,
// far from the fixed point, from extrapolating wildly; it is used here too.
//
// The map evaluates F and the log-likelihood at its argument in one pass
// (for EM, one E-step gives both), so LL(θ) comes with F(θ), the next
// cycle's θ₁: a cycle that accepts its extrapolation costs three
// evaluations of F, and each backtrack two more. Every evaluation is
// counted (SquaremInfo.Evals), so E-step counts compare honestly with the
// plain loop's.
//
// Stopping (the converged rule of estimators.StopConverged, applied to the
// accelerated sequence): stop when ‖F(θ₀) − θ₀‖₁ ≤ ThetaTol (θ₀ is
// returned), when two accepted cycles in a row change LL by less than
// LLTol·|LL| (the last θ is returned), or when MaxEvals evaluations have
// been made. The
// authors' rule is not offered: its stopping point depends on the path of
// the plain iteration (the |ΔLL| of one plain step at the absolute 1e-3),
// which an accelerated path does not follow.

// Map is one step of a fixed-point iteration with an objective: it writes
// F(theta) to next (len(theta), not overlapping theta) and returns the
// log-likelihood at theta. It must not keep either slice.
type Map func(theta, next []float64) float64

// SquaremOptions configures Squarem. Zero tolerances never stop.
type SquaremOptions struct {
	// MaxEvals caps the evaluations of the map (E-steps); ≤ 0 means
	// 100,000.
	MaxEvals int
	// LLTol: stop when two accepted cycles in a row change LL by less
	// than LLTol·|LL|; also the monotonicity safeguard's tolerance (a cycle is
	// rejected when LL falls by more than LLTol·|LL(θ₀)|).
	LLTol float64
	// LLAbsTol is an absolute tolerance added to LLTol·|LL| in both
	// (for a caller whose rule is absolute, as HistEM's Tau).
	LLAbsTol float64
	// ThetaTol: stop when the plain step's L1 length ‖F(θ) − θ‖₁ is at most
	// ThetaTol.
	ThetaTol float64
	// Trace, if not nil, is called after every accepted cycle with the
	// number of evaluations so far, the new θ (not to be kept or
	// modified) and LL(θ).
	Trace func(evals int, theta []float64, ll float64)

	// ResidualSafeguard makes the monotonicity safeguard compare the
	// plain step's length ‖F(θ) − θ‖₁ instead of LL: a cycle is rejected
	// when it is longer at the new θ than at θ₀ by more than a factor
	// squaremResidualSlack. For a map that does not increase LL, such as EMS
	// (whose smoothing makes LL rise past the fixed point's and then fall
	// to it, so that the LL safeguard rejects every step towards it).
	ResidualSafeguard bool

	// noSafeguard accepts every extrapolation whatever its LL (this
	// package's test that the safeguard is exercised).
	noSafeguard bool
}

// SquaremInfo describes one Squarem run.
type SquaremInfo struct {
	// Evals is the number of evaluations of the map (E-steps); Cycles the
	// accepted cycles.
	Evals, Cycles int
	// Extrapolated counts the accepted cycles whose α was below −1 (not
	// the plain steps); Projected the extrapolations moved back into the
	// positive orthant; Backtracks the halvings of α towards −1 after LL
	// fell; Fallbacks the cycles that fell back to the plain steps after
	// LL fell at every α tried.
	Extrapolated, Projected, Backtracks, Fallbacks int
	// LL is the log-likelihood at the returned θ; Stop why the run ended.
	LL   float64
	Stop Stop
}

const (
	// squaremMaxBacktracks bounds the monotonicity backtracks of a cycle
	// before it falls back to the plain steps.
	squaremMaxBacktracks = 4
	// squaremStepGrow is the authors' R package's mstep.
	squaremStepGrow = 4
	// squaremFloor is the projection's floor, a fraction of the plain
	// point θ₂'s entry: an EM step keeps a zero entry at zero, so the
	// projection must not set one to 0, and the floor keeps the entry's
	// scale.
	squaremFloor = 1e-3
	// squaremResidualSlack is the growth of the plain step's length that
	// the residual safeguard allows in one cycle.
	squaremResidualSlack = 1.0
)

// Squarem runs SQUAREM on f from theta0 (not modified) and returns the
// last accepted θ. ctx is checked once per cycle.
func Squarem(ctx context.Context, theta0 []float64, f Map, opt SquaremOptions) ([]float64, SquaremInfo, error) {
	if opt.MaxEvals <= 0 {
		opt.MaxEvals = 100000
	}
	l := len(theta0)
	var info SquaremInfo
	p := slices.Clone(theta0) // θ₀
	p1 := make([]float64, l)  // F(θ₀)
	p2 := make([]float64, l)  // F(θ₁)
	q := make([]float64, l)   // θ'
	pn := make([]float64, l)  // F(θ')
	pn1 := make([]float64, l) // F(F(θ'))
	eval := func(theta, next []float64) float64 {
		info.Evals++
		return f(theta, next)
	}
	llP := eval(p, p1)
	stepMax := 1.0 // the R package's step.max0
	quiet := 0     // cycles in a row that met the LL test
	for {
		if err := ctx.Err(); err != nil {
			return nil, info, fmt.Errorf("estimators: SQUAREM stopped after %d E-steps: %w", info.Evals, err)
		}
		var rn1, sr2 float64
		for t := range p {
			d := p1[t] - p[t]
			rn1 += math.Abs(d)
			sr2 += d * d
		}
		if rn1 <= opt.ThetaTol {
			info.Stop = StopTheta
			break
		}
		if info.Evals+2 > opt.MaxEvals {
			info.Stop = StopMaxIter
			break
		}
		eval(p1, p2)
		var sv2 float64
		for t := range p {
			d := p2[t] - 2*p1[t] + p[t]
			sv2 += d * d
		}
		alpha := -1.0
		if sv2 > 0 {
			alpha = min(-math.Sqrt(sr2/sv2), -1)
		}
		alpha = max(alpha, -stepMax)
		tol := opt.LLTol*math.Abs(llP) + opt.LLAbsTol
		var llN float64
		backtracks := 0
		accepted := false
		for !accepted && alpha < -1 {
			// θ' = θ₀ − 2αr + α²v, projected back into the positive
			// orthant: an entry below squaremFloor·θ₂ is raised to it and
			// θ' renormalised to θ₀'s sum.
			projected := false
			var sum, sum0 float64
			for t := range q {
				r := p1[t] - p[t]
				v := p2[t] - 2*p1[t] + p[t]
				q[t] = p[t] - 2*alpha*r + alpha*alpha*v
				if !(q[t] >= squaremFloor*p2[t]) {
					q[t] = squaremFloor * p2[t]
					projected = true
				}
				sum += q[t]
				sum0 += p[t]
			}
			if math.IsNaN(sum) || math.IsInf(sum, 0) {
				alpha = -1
				break
			}
			if projected {
				info.Projected++
				for t := range q {
					q[t] *= sum0 / sum
				}
			}
			if info.Evals+2 > opt.MaxEvals {
				break
			}
			eval(q, pn)
			llN = eval(pn, pn1)
			ok := llN >= llP-tol
			if opt.ResidualSafeguard {
				var rn float64
				for t := range pn {
					rn += math.Abs(pn1[t] - pn[t])
				}
				ok = ok || rn <= squaremResidualSlack*rn1
			}
			if opt.noSafeguard || ok {
				accepted = true
				break
			}
			// LL fell: a shorter step, and a smaller bound if this one
			// was at it.
			if alpha == -stepMax {
				stepMax = max(1, stepMax/squaremStepGrow)
			}
			info.Backtracks++
			backtracks++
			if backtracks >= squaremMaxBacktracks {
				info.Fallbacks++
				break
			}
			alpha = squaremTowardsOne(alpha)
		}
		if accepted {
			info.Extrapolated++
		} else {
			// The plain steps: θ = F(θ₂).
			if info.Evals+2 > opt.MaxEvals {
				info.Stop = StopMaxIter
				break
			}
			eval(p2, pn)
			llN = eval(pn, pn1)
			alpha = -1
		}
		// A step at the bound widens it (from 1, the plain steps, on).
		if alpha == -stepMax {
			stepMax *= squaremStepGrow
		}
		info.Cycles++
		llOld := llP
		p, pn = pn, p
		p1, pn1 = pn1, p1
		llP = llN
		if opt.Trace != nil {
			opt.Trace(info.Evals, p, llP)
		}
		// Two cycles in a row: one cycle can stall (a short step at the
		// step bound) with the sequence still moving.
		if math.Abs(llP-llOld) < opt.LLTol*math.Abs(llP)+opt.LLAbsTol {
			if quiet++; quiet == 2 {
				info.Stop = StopLL
				break
			}
		} else {
			quiet = 0
		}
	}
	info.LL = llP
	return p, info, nil
}

// squaremTowardsOne moves α halfway towards −1, and to −1 itself once
// within 1 % of it (the plain steps, which need no extrapolation).
func squaremTowardsOne(alpha float64) float64 {
	alpha = (alpha - 1) / 2
	if alpha > -1.01 {
		return -1
	}
	return alpha
}
