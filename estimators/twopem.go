package estimators

import (
	"context"
	"fmt"
	"log"
	"math"
	"sync"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// 2PEM, Baek & Chung's two-phase EM for HM-NP's reports (Section 4.2,
// Algorithm 3):
//
//   - phase 1, MLE-EM on the PM-SUB reports: μ ← uniform, EM over d input
//     bins of [-1, 1] with the exact matrix Θ^P of PM-SUB's d̃ output
//     buckets of [-C, C] (d̃ from the corrected eq. (13), ERRATA E0.6);
//   - phase 2, MAP-EM on the N-output reports: π ← μ, then
//     π_i ← (Q_i + λμ_i)/(Σ_k Q_k + λ) with Q the E-step of Θ^N. This update
//     is the definition of 2PEM (ERRATA E0.21: it is not the exact
//     maximiser of the Gaussian-prior posterior the paper motivates it
//     with).
//
// Both phases stop when the data log-likelihood changes by at most τ (the
// prior term excluded in phase 2, as the authors' code), or at MaxIter
// updates, which is recorded (CapHit) and logged. The histograms are
// normalised before EM by default, as the authors' code (ERRATA E0.4): τ is
// then per report and λ = 1 weighs the prior like all the N-output data.
//
// Θ^P is a constant plus a band (PM-SUB's density is q outside a window
// that moves with x), so an E-step costs O(band·d) (HistTransition); Θ^N
// has N rows.

// TwoPEMConfig configures TwoPEM.
type TwoPEMConfig struct {
	// D is the number of equal input bins of [-1, 1] (1024 for Fig. 4, 17
	// inside NP-AAA).
	D int
	// Tau is the tolerance of both phases on |ΔLL| (default 1e-5); Lambda
	// the prior weight of phase 2 (default 1, Sec. 5.1); MaxIter the cap of
	// each phase (default 10,000).
	Tau, Lambda float64
	MaxIter     int
	// DTilde is the rule for the number of PM-SUB buckets: DTildeCeil (the
	// default, corrected eq. (13)) or DTildeFloorCompat (the authors' code,
	// ERRATA E0.6).
	DTilde DTildeRule
	// Counts runs both phases on raw counts (the paper's wording) instead
	// of normalised histograms (the default, the authors' code; E0.4).
	Counts bool
	// Logf, if not nil, receives the message when a phase hits MaxIter;
	// nil logs with the standard logger.
	Logf func(format string, args ...any)
	// Accel accelerates both phases (HistEMConfig.Accel).
	Accel Accel
}

// TwoPEMResult is the outcome of TwoPEM.
type TwoPEMResult struct {
	// Hist is the phase-2 estimate π̂ (length D, sums to 1); Phase1 the
	// phase-1 estimate μ.
	Hist, Phase1 []float64
	// Iter1 and Iter2 are the updates of each phase; CapHit is true if
	// either phase stopped at MaxIter (CapHit1, CapHit2 say which).
	Iter1, Iter2             int
	CapHit, CapHit1, CapHit2 bool
	// LL1 and LL2 are the data log-likelihoods at the end of each phase.
	LL1, LL2 float64
	// ESteps1, ESteps2: the E-steps of each phase under Accel.
	ESteps1, ESteps2 int
	// DTilde is the number of PM-SUB buckets used.
	DTilde int
	// NPMSub and NNOutput are the numbers of reports of each kind.
	NPMSub, NNOutput int
}

// TwoPEMMatrices holds the two transition matrices of 2PEM for one (ε, N,
// d, d̃ rule); building them costs O(d·d̃), so callers that run 2PEM many
// times at the same ε reuse them (TwoPEMCached does).
type TwoPEMMatrices struct {
	PM, NO *HistTransition
}

// NewTwoPEMMatrices builds Θ^P (PM-SUB at hm's ε, d̃ by rule) and Θ^N (hm's
// N-output component) over d bins.
func NewTwoPEMMatrices(hm *mechanisms.HMNP, d int, rule DTildeRule) (*TwoPEMMatrices, error) {
	if hm == nil {
		return nil, fmt.Errorf("estimators: NewTwoPEMMatrices: nil HM-NP")
	}
	pm, err := NewHistTransition(hm.PMSub(), d, TransitionOptions{DTilde: rule})
	if err != nil {
		return nil, err
	}
	no, err := NewHistTransition(hm.NOutput(), d, TransitionOptions{})
	if err != nil {
		return nil, err
	}
	return &TwoPEMMatrices{PM: pm, NO: no}, nil
}

// twoPEMKey identifies the matrices: ε, d, the d̃ rule and the N-output
// component itself (its outputs and p0: two HM-NP mechanisms at the same ε
// and N may use different Ω).
type twoPEMKey struct {
	eps  float64
	d    int
	rule DTildeRule
	no   string
}

var twoPEMCache sync.Map // twoPEMKey → *TwoPEMMatrices

// TwoPEMCached returns the matrices of (hm, d, rule), building them once
// per process and sharing them between goroutines.
func TwoPEMCached(hm *mechanisms.HMNP, d int, rule DTildeRule) (*TwoPEMMatrices, error) {
	if hm == nil {
		return nil, fmt.Errorf("estimators: TwoPEMCached: nil HM-NP")
	}
	k := twoPEMKey{eps: hm.Epsilon(), d: d, rule: rule, no: fmt.Sprint(hm.NOutput().Outputs(), hm.NOutput().P0(), hm.PMSub().T())}
	if v, ok := twoPEMCache.Load(k); ok {
		return v.(*TwoPEMMatrices), nil
	}
	m, err := NewTwoPEMMatrices(hm, d, rule)
	if err != nil {
		return nil, err
	}
	v, _ := twoPEMCache.LoadOrStore(k, m)
	return v.(*TwoPEMMatrices), nil
}

// TwoPEM runs 2PEM on the PM-SUB reports pmSub (values in [-C, C]) and the
// N-output reports nout (values of hm.NOutput().Outputs()) of HM-NP at
// budget eps. hm may be nil: then it is NewHMNP(eps). The matrices are
// cached per (ε, N-output component, d, d̃ rule).
func TwoPEM(ctx context.Context, pmSub, nout []float64, eps float64, hm *mechanisms.HMNP, cfg TwoPEMConfig) (TwoPEMResult, error) {
	if hm == nil {
		var err error
		if hm, err = mechanisms.NewHMNP(eps); err != nil {
			return TwoPEMResult{}, err
		}
	} else if hm.Epsilon() != eps {
		return TwoPEMResult{}, fmt.Errorf("estimators: TwoPEM: eps = %v but the HM-NP mechanism has ε = %v", eps, hm.Epsilon())
	}
	if cfg.D < 1 {
		return TwoPEMResult{}, fmt.Errorf("estimators: TwoPEM: d = %d must be ≥ 1", cfg.D)
	}
	mats, err := TwoPEMCached(hm, cfg.D, cfg.DTilde)
	if err != nil {
		return TwoPEMResult{}, err
	}
	return TwoPEMCounts(ctx, mats.PM.Counts(pmSub, nil), mats.NO.Counts(nout, nil), mats, cfg)
}

// TwoPEMCounts is TwoPEM from the counts of the PM-SUB buckets (length
// mats.PM.Rows) and of the N-output values (length mats.NO.Rows).
func TwoPEMCounts(ctx context.Context, pmCounts, noCounts []float64, mats *TwoPEMMatrices, cfg TwoPEMConfig) (TwoPEMResult, error) {
	if mats == nil || mats.PM == nil || mats.NO == nil {
		return TwoPEMResult{}, fmt.Errorf("estimators: TwoPEMCounts: nil matrices")
	}
	if cfg.D != 0 && cfg.D != mats.PM.D {
		return TwoPEMResult{}, fmt.Errorf("estimators: TwoPEMCounts: d = %d but the matrices have %d bins", cfg.D, mats.PM.D)
	}
	if cfg.Lambda == 0 {
		cfg.Lambda = 1
	}
	if cfg.MaxIter == 0 {
		cfg.MaxIter = 10000
	}
	if cfg.Tau == 0 {
		cfg.Tau = 1e-5
	}
	if !(cfg.Lambda > 0) || math.IsInf(cfg.Lambda, 0) {
		return TwoPEMResult{}, fmt.Errorf("estimators: TwoPEM: lambda = %v must be > 0 and finite", cfg.Lambda)
	}
	logf := cfg.Logf
	if logf == nil {
		logf = log.Printf
	}
	res := TwoPEMResult{DTilde: mats.PM.Rows, NPMSub: int(twoPEMTotal(pmCounts)), NNOutput: int(twoPEMTotal(noCounts))}
	r1, err := mats.PM.HistEM(ctx, pmCounts, HistEMConfig{Tau: cfg.Tau, MaxIter: cfg.MaxIter, Counts: cfg.Counts, Accel: cfg.Accel})
	if err != nil {
		return TwoPEMResult{}, fmt.Errorf("2PEM phase 1: %w", err)
	}
	if r1.CapHit {
		logf("estimators: 2PEM phase 1 hit the iteration cap %d (d = %d, d̃ = %d, %d PM-SUB reports)", cfg.MaxIter, mats.PM.D, mats.PM.Rows, res.NPMSub)
	}
	r2, err := mats.NO.HistEM(ctx, noCounts, HistEMConfig{Tau: cfg.Tau, MaxIter: cfg.MaxIter, Counts: cfg.Counts, Prior: r1.Hist, Lambda: cfg.Lambda, Accel: cfg.Accel})
	if err != nil {
		return TwoPEMResult{}, fmt.Errorf("2PEM phase 2: %w", err)
	}
	if r2.CapHit {
		logf("estimators: 2PEM phase 2 hit the iteration cap %d (d = %d, N = %d, %d N-output reports)", cfg.MaxIter, mats.NO.D, mats.NO.Rows, res.NNOutput)
	}
	res.Hist, res.Phase1 = r2.Hist, r1.Hist
	res.Iter1, res.Iter2 = r1.Iter, r2.Iter
	res.ESteps1, res.ESteps2 = r1.ESteps, r2.ESteps
	res.CapHit1, res.CapHit2 = r1.CapHit, r2.CapHit
	res.CapHit = r1.CapHit || r2.CapHit
	res.LL1, res.LL2 = r1.LL, r2.LL
	return res, nil
}

func twoPEMTotal(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}
