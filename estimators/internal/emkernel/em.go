package emkernel

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// EM and EMS for distribution estimation (Du et al. Section 5; ERRATA E4.4,
// E4.7).
//
// The estimate θ is a histogram over l equal bins of [-1, 1]. Users are
// grouped by their bucket vector W_k (one output bucket per service) with
// counts n_k; R_k[t] = Π_j T_j[W_k[j], t] is the likelihood of W_k given an
// input in bin t. One iteration, from θ:
//
//	E-step   P_t = θ_t · Σ_k n_k R_k[t] / Σ_s R_k[s] θ_s   (index-correct, E4.7)
//	M-step   θ_t = P_t / Σ P
//	EMS      θ ← Sθ, θ ← θ/Σθ, S the binomial [1, 2, 1] kernel of the code:
//	         interior rows (θ_{i-1} + 2θ_i + θ_{i+1})/4, first row
//	         (2θ_0 + θ_1)/3, last row θ_{l-1} unchanged (E4.4)
//
// and LL(θ) = Σ_k n_k ln((Rθ)_k) is evaluated at the new θ. Rows are scaled
// (each service's row by its maximum, or the whole row by its maximum in log
// space on the dense route) against underflow; EM does not depend on the
// scale of a row and LL is corrected by the logarithms of the scales. The
// clamp of (Rθ)_k at 1e-10 in the authors' GPU EMS (fusion_all.py) is not
// reproduced: an unscaled PM or SW factor is about 1e-3 (a 1024-bucket
// row), so with four or more PM/SW services (m ≥ 6 cycling [SR, PM, SW])
// every (Rθ)_k is below 1e-10 and that clamp replaces every denominator of
// the E-step by the constant.

// Options configures one EM run. The zero value is the authors' code:
// smoothing on, the authors' stopping rule, at most 10,000 iterations.
// estimators.EMOptions documents each field; it checks them (a known
// rule, no negative or NaN tolerance) before they get here.
type Options struct {
	// NoSmooth disables the EMS smoothing step (plain EM).
	NoSmooth bool
	// Converged selects the run-to-convergence rule (estimators.
	// StopConverged) instead of the authors' (estimators.StopAuthors).
	Converged bool
	// MaxIter caps the iterations; 0 means 10,000 (authors) or 100,000
	// (converged).
	MaxIter int
	// LLTol is the log-likelihood tolerance; 0 means 1e-3 (authors,
	// absolute) or 1e-10 (converged, relative to |LL|).
	LLTol float64
	// ThetaTol is the L1 tolerance of the converged rule; 0 means 1e-12.
	ThetaTol float64
	// Workers is the number of goroutines of an iteration; ≤ 0 means
	// GOMAXPROCS. The result does not depend on it.
	Workers int
	// Dense selects the dense route, the reference of the fast one.
	Dense bool
	// Trace, if not nil, is called after every iteration with its number,
	// the new θ (not to be kept or modified) and LL(θ); under SQUAREM after
	// every accepted cycle, with the number of E-steps so far.
	Trace func(iter int, theta []float64, ll float64)
	// Squarem accelerates the loop with SQUAREM (squarem.go): the map is
	// one EM (EMS) update, so the fixed point is EM's (EMS's). Only with
	// Converged (estimators checks); MaxIter then caps the E-steps.
	Squarem bool
	// Start, if not nil, is the initial θ (length l, entries > 0,
	// estimators checks) instead of the uniform one: with MaxIter = 1 the
	// plain loop returns one EM map F(Start), the check that an estimate
	// is a fixed point.
	Start []float64

	// kernel forces a kernel of the fast route (this package's tests and
	// benchmarks; see newULEFast).
	kernel string
}

// resolved returns o with its defaults filled in.
func (o Options) resolved() Options {
	if o.MaxIter == 0 {
		o.MaxIter = 10000
		if o.Converged {
			o.MaxIter = 100000
		}
	}
	if o.LLTol == 0 {
		o.LLTol = 1e-3
		if o.Converged {
			o.LLTol = 1e-10
		}
	}
	if o.ThetaTol == 0 {
		o.ThetaTol = 1e-12
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

// Stop says why the EM loop ended.
type Stop int

const (
	// StopLL: the |ΔLL| test broke the loop.
	StopLL Stop = iota + 1
	// StopTheta: ‖θ_old − θ‖₁ fell to the tolerance.
	StopTheta
	// StopMaxIter: the iteration cap was reached.
	StopMaxIter
)

// String returns the word of estimators.EMInfo.Stop for s (logs of this
// package's tests and benchmarks).
func (s Stop) String() string {
	switch s {
	case StopLL:
		return "loglik"
	case StopTheta:
		return "theta"
	case StopMaxIter:
		return "max-iter"
	}
	return ""
}

// Info describes one EM run (estimators.EMInfo, less the rule, which the
// caller knows).
type Info struct {
	// Iterations is the number of EM updates of θ performed (under
	// SQUAREM, the accepted cycles); Stop why the loop ended.
	Iterations int
	Stop       Stop
	// ESteps is the number of E-step passes (evaluations of the EM map,
	// the last one giving LL at the returned θ): Iterations + 1 for the
	// plain loop.
	ESteps int
	// Squarem is the accelerated run's description (zero for the plain
	// loop).
	Squarem SquaremInfo
	// LL is Σ_k n_k ln((Rθ)_k) at the returned θ, with the unscaled rows.
	LL float64
	// Users is N = Σ n_k; Distinct the number of distinct bucket vectors.
	Users, Distinct int
	// Route is "fast" or "dense".
	Route string
	// Setup is the time to bucket, deduplicate and prepare; Loop the time
	// of the iterations; PerIter is Loop over the E-step passes
	// (Iterations + 1).
	Setup, Loop, PerIter time.Duration
}

// engine evaluates one E-step: at θ it returns the scaled log-likelihood
// Σ_k n_k ln D'_k, D'_k = R'_k·θ with R'_k the scaled row of vector k, and
// writes a[t] = Σ_k n_k R'_k[t]/D'_k (a has length l).
type emEngine interface {
	eval(theta, a []float64) float64
}

// runEM runs the EM loop of the authors' code on engine e over l bins, N
// users, llConst the log-likelihood of the row scales. opt is resolved.
// ctx is checked once per iteration, so that a cancelled run (a SIGTERM)
// does not wait for thousands of iterations.
func runEM(ctx context.Context, e emEngine, l int, N, llConst float64, opt Options, info *Info) ([]float64, error) {
	start := time.Now()
	theta := make([]float64, l)
	if opt.Start != nil {
		if len(opt.Start) != l {
			return nil, fmt.Errorf("estimators: EM start has %d entries, want one per bin (%d)", len(opt.Start), l)
		}
		copy(theta, opt.Start)
	} else {
		for t := range theta {
			theta[t] = 1 / float64(l)
		}
	}
	next := make([]float64, l)
	a := make([]float64, l)
	sm := make([]float64, l)
	if opt.Squarem {
		return runSquarem(ctx, e, theta, llConst, opt, info, start)
	}

	thetaTol := 1 / N
	if opt.Converged {
		thetaTol = opt.ThetaTol
	}
	// The first pass: the E-step at the uniform start. (The authors do not
	// evaluate LL there: LL_old starts at 0.)
	ll := e.eval(theta, a) + llConst
	passes := 1
	dist := 1.0 // ‖θ_old − θ‖₁ with θ_old = 0
	oldLL := 0.0
	info.Stop = 0
	r := 0
	for {
		if !(dist > thetaTol) {
			info.Stop = StopTheta
			break
		}
		if r >= opt.MaxIter {
			info.Stop = StopMaxIter
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("estimators: EM stopped after %d iterations: %w", r, err)
		}
		emUpdate(next, theta, a, sm, !opt.NoSmooth)
		dist = 0
		for t := range next {
			dist += math.Abs(theta[t] - next[t])
		}
		theta, next = next, theta
		// E-step at the new θ: its LL, and the accumulation for the next
		// M-step (discarded if the loop stops here).
		scaled := e.eval(theta, a)
		passes++
		newLL := scaled + llConst
		ll = newLL
		if opt.Trace != nil {
			opt.Trace(r+1, theta, ll)
		}
		improve := newLL - oldLL // as the code: LL_old starts at 0
		if r > 1 {
			tol := opt.LLTol
			if opt.Converged {
				tol *= math.Abs(newLL)
			}
			if math.Abs(improve) < tol {
				r++
				info.Stop = StopLL
				break
			}
		}
		oldLL = newLL
		r++
	}
	info.Iterations = r
	info.ESteps = passes
	info.LL = ll
	info.Loop = time.Since(start)
	info.PerIter = info.Loop / time.Duration(passes)
	return theta, nil
}

// emUpdate writes the M-step (and, with smooth, the EMS smoothing) from θ
// and the E-step's accumulation a to next; sm is scratch.
func emUpdate(next, theta, a, sm []float64, smooth bool) {
	var sp float64
	for t := range next {
		next[t] = theta[t] * a[t]
		sp += next[t]
	}
	for t := range next {
		next[t] /= sp
	}
	if smooth {
		emSmooth(sm, next)
		var s float64
		for _, v := range sm {
			s += v
		}
		for t := range next {
			next[t] = sm[t] / s
		}
	}
}

// runSquarem is runEM under SQUAREM: the map is one E-step at θ (its LL)
// followed by the M-step and smoothing of runEM, and the converged rule's
// tolerances stop it (squarem.go).
func runSquarem(ctx context.Context, e emEngine, theta0 []float64, llConst float64, opt Options, info *Info, start time.Time) ([]float64, error) {
	l := len(theta0)
	a := make([]float64, l)
	sm := make([]float64, l)
	f := func(theta, next []float64) float64 {
		ll := e.eval(theta, a) + llConst
		emUpdate(next, theta, a, sm, !opt.NoSmooth)
		return ll
	}
	theta, sq, err := Squarem(ctx, theta0, f, SquaremOptions{
		MaxEvals: opt.MaxIter,
		LLTol:    opt.LLTol,
		ThetaTol: opt.ThetaTol,
		Trace:    opt.Trace,
		// EMS's smoothed step is not an ascent of LL.
		ResidualSafeguard: !opt.NoSmooth,
	})
	info.Squarem = sq
	info.Iterations = sq.Cycles
	info.ESteps = sq.Evals
	info.Stop = sq.Stop
	info.LL = sq.LL
	info.Loop = time.Since(start)
	if sq.Evals > 0 {
		info.PerIter = info.Loop / time.Duration(sq.Evals)
	}
	return theta, err
}

// smooth writes Sθ to dst: the authors' smoothing matrix, the binomial
// [1, 2, 1] kernel with rows normalised, whose first row is (2θ_0 + θ_1)/3
// and whose last row is θ_{l-1} alone (E4.4).
func emSmooth(dst, theta []float64) {
	l := len(theta)
	switch l {
	case 0:
		return
	case 1:
		dst[0] = theta[0]
		return
	}
	dst[0] = (2*theta[0] + theta[1]) / 3
	for i := 1; i < l-1; i++ {
		dst[i] = (theta[i-1] + 2*theta[i] + theta[i+1]) / 4
	}
	dst[l-1] = theta[l-1]
}

// forSlots runs f(slot) for every slot in [0, n) on up to workers
// goroutines. Each slot is run by one goroutine, so per-slot accumulators
// combined in slot order give a result that does not depend on workers.
func emForSlots(n, workers int, f func(slot int)) {
	if n <= 1 || workers <= 1 {
		for s := range n {
			f(s)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				s := int(next.Add(1)) - 1
				if s >= n {
					return
				}
				f(s)
			}
		}()
	}
	wg.Wait()
}

// emLLAcc accumulates Σ n·ln(D) cheaply: a small integer count multiplies D
// into a running product (rescaled by its binary exponent when it gets
// small), anything else takes a logarithm. The product's relative rounding
// error after N factors is about N·1.1e-16, far below what the |ΔLL| test
// needs.
type emLLAcc struct {
	prod   float64
	exp    int
	logSum float64
}

func newEMLLAcc() emLLAcc { return emLLAcc{prod: 1} }

func (a *emLLAcc) add(n, d float64) {
	if d < 1e-30 || n > 16 || n != math.Trunc(n) {
		a.logSum += n * math.Log(d)
		return
	}
	for i := 0; i < int(n); i++ {
		a.prod *= d
	}
	if a.prod < 1e-200 {
		f, e := math.Frexp(a.prod)
		a.prod, a.exp = f, a.exp+e
	}
}

func (a *emLLAcc) value() float64 {
	return a.logSum + math.Log(a.prod) + float64(a.exp)*math.Ln2
}
