package estimators

import (
	"context"
	"fmt"
	"math"

	"github.com/ldpbench/ldpbench/estimators/internal/emkernel"
)

// histEMAccel is HistEM under HistEMConfig.Accel (SQUAREM, AccelSquarem):
// the map is one HistEM update (E-step, M-step or 2PEM's MAP update, EMS
// smoothing if set) with the objective it ascends, so the fixed point is
// the plain loop's. pi is the start (overwritten), c the counts as the
// plain loop uses them (normalised unless cfg.Counts). Tau stops the
// accelerated sequence when two accepted cycles in a row change the
// objective by at most Tau (absolute, as the plain rule); MaxIter caps the
// E-steps (HistEMResult.ESteps). The plain rule stops where one plain step
// changes LL by less than Tau, a point of the plain path: use a small Tau
// (run to convergence) for the two to reach the same estimate.
func (t *HistTransition) histEMAccel(ctx context.Context, pi, c []float64, cfg HistEMConfig) (HistEMResult, error) {
	if cfg.Accel != AccelSquarem {
		return HistEMResult{}, fmt.Errorf("estimators: HistEM(%s): unknown acceleration %q (want \"\", %q or %q)", t.Name, cfg.Accel, AccelNone, AccelSquarem)
	}
	d := t.D
	D := make([]float64, t.Rows)
	r := make([]float64, t.Rows)
	a := make([]float64, d)
	sm := make([]float64, d)
	// dataLL is the data log-likelihood at the last θ the map was given.
	var dataLL float64
	f := func(theta, next []float64) float64 {
		t.forward(theta, D)
		var ll float64
		for j, cj := range c {
			if cj == 0 {
				r[j] = 0
				continue
			}
			ll += cj * math.Log(D[j])
			r[j] = cj / D[j]
		}
		dataLL = ll
		t.backward(r, a)
		var sq float64
		for i := range next {
			next[i] = theta[i] * a[i]
			sq += next[i]
		}
		obj := ll
		if cfg.Prior != nil {
			// MAP-EM ascends LL + λ·Σ prior_i ln θ_i.
			for i, p := range cfg.Prior {
				if p > 0 {
					obj += cfg.Lambda * p * math.Log(theta[i])
				}
			}
		}
		cfg.mStep(next, sm, sq)
		return obj
	}
	theta, info, err := emkernel.Squarem(ctx, pi, f, emkernel.SquaremOptions{
		MaxEvals:          cfg.MaxIter,
		LLAbsTol:          cfg.Tau,
		ResidualSafeguard: cfg.Smooth, // EMS's smoothed step is not an ascent
	})
	if err != nil {
		return HistEMResult{}, fmt.Errorf("estimators: HistEM(%s): %w", t.Name, err)
	}
	// The data LL at the returned θ (the map's objective may include the
	// prior): one more forward pass, counted.
	var s float64
	for _, v := range theta {
		s += v
	}
	for i := range theta {
		theta[i] /= s
	}
	f(theta, make([]float64, d))
	return HistEMResult{
		Hist:   theta,
		Iter:   info.Cycles,
		CapHit: info.Stop == emkernel.StopMaxIter,
		LL:     dataLL,
		ESteps: info.Evals + 1,
	}, nil
}
