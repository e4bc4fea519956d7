package multiservice

import (
	"context"
	"fmt"
	"math"

	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/metrics"
)

// emEstimator is what kind multiservice asks of a distribution
// estimator: from the linked raw reports of the active services
// (reports[t][i], NaN = not reported), the histogram over the cell's bins
// equal bins of [-1, 1] (summing to 1), and the EM run's description
// (iterations, stop reason). The transition matrices are built once per
// cell, outside the timed call (Table 1 times "bucket vector deduplication
// plus EMS").
type emEstimator func(ctx context.Context, reports [][]float64) (hist []float64, info estimators.EMInfo, err error)

// newMSEMEstimator binds a distribution method to the estimators of
// package estimators (ULE and EMS, Du et al. Section 5): ule over every
// active service, ems-<s> over service s alone, ems-best over each active
// service alone, keeping the estimate nearest truth. local maps a service
// to its index among the active services. Every EM run watches the context
// it is called with, so it stops when the run is cancelled.
func newMSEMEstimator(m methodSpec, local func(int) int, mechs []mechanisms.Mechanism, bins int, em estimators.EMOptions, truth []float64) (emEstimator, error) {
	switch m.name {
	case "ule":
		svcs, err := estimators.NewServices(mechs, bins)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, reports [][]float64) ([]float64, estimators.EMInfo, error) {
			return estimators.ULE(ctx, reports, svcs, em)
		}, nil
	case "ems":
		t := local(m.service)
		svc, err := estimators.NewService(mechs[t], estimators.ServiceOptions{Bins: bins})
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, reports [][]float64) ([]float64, estimators.EMInfo, error) {
			return estimators.EMS(ctx, reports[t], svc, em)
		}, nil
	case "ems-best":
		return newMSEMSBest(mechs, bins, em, truth)
	}
	return nil, fmt.Errorf("method %s: no distribution estimator", m.name)
}

// newMSEMSBest is ems-best, the distribution analogue of single-best: EMS
// on each active service alone, keeping the estimate with the lowest JS
// divergence from the truth on these very reports. It is an ORACLE choice
// of baseline (it looks at the truth), the paper's "Single best" of Fig.
// 8d: the best a collector could do with one service had it known which.
// The choice is by js-div, hence also by js-dist (its root); kl,
// em_iterations and the stop metrics are the chosen run's, so a row's
// metrics describe one estimate. Ties go to the lowest service index.
func newMSEMSBest(mechs []mechanisms.Mechanism, bins int, em estimators.EMOptions, truth []float64) (emEstimator, error) {
	if truth == nil {
		return nil, fmt.Errorf("method ems-best chooses by the truth: no truth histogram given")
	}
	svcs := make([]*estimators.Service, len(mechs))
	for t, mech := range mechs {
		svc, err := estimators.NewService(mech, estimators.ServiceOptions{Bins: bins})
		if err != nil {
			return nil, fmt.Errorf("service %d: %w", t+1, err)
		}
		svcs[t] = svc
	}
	return func(ctx context.Context, reports [][]float64) ([]float64, estimators.EMInfo, error) {
		var best []float64
		var bestInfo estimators.EMInfo
		bestJS := math.Inf(1)
		for t, svc := range svcs {
			h, info, err := estimators.EMS(ctx, reports[t], svc, em)
			if err != nil {
				return nil, estimators.EMInfo{}, err
			}
			js := metrics.JSDivergence(h, truth)
			if math.IsNaN(js) {
				js = math.Inf(1) // never preferred to a finite one
			}
			if best == nil || js < bestJS {
				best, bestInfo, bestJS = h, info, js
			}
		}
		return best, bestInfo, nil
	}, nil
}
