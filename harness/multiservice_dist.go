package harness

import (
	"fmt"

	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// msDistEstimator is what kind multiservice asks of a distribution
// estimator: from the linked raw reports of the active services
// (reports[t][i], NaN = not reported), the histogram over the cell's bins
// equal bins of [-1, 1] (summing to 1), and the number of EM updates it ran.
// The transition matrices are built once per cell, outside the timed call
// (Table 1 times "bucket vector deduplication plus EMS").
type msDistEstimator func(reports [][]float64) (hist []float64, iterations int, err error)

// newMSDistEstimator binds a distribution method to the estimators of
// package estimators (ULE and EMS, p4 spec §5): ule over every active
// service, ems-<s> over service s alone. local maps a service to its index
// among the active services.
func newMSDistEstimator(m msMethod, local func(int) int, mechs []mechanisms.Mechanism, cfg *msConfig) (msDistEstimator, error) {
	switch m.name {
	case "ule":
		svcs, err := estimators.NewServices(mechs, cfg.bins)
		if err != nil {
			return nil, err
		}
		return func(reports [][]float64) ([]float64, int, error) {
			h, info, err := estimators.ULE(reports, svcs, cfg.em)
			return h, info.Iterations, err
		}, nil
	case "ems":
		t := local(m.service)
		svc, err := estimators.NewService(mechs[t], estimators.ServiceOptions{Bins: cfg.bins})
		if err != nil {
			return nil, err
		}
		return func(reports [][]float64) ([]float64, int, error) {
			h, info, err := estimators.EMS(reports[t], svc, cfg.em)
			return h, info.Iterations, err
		}, nil
	}
	return nil, fmt.Errorf("method %s: no distribution estimator", m.name)
}
