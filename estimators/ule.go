package estimators

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/ldpbench/ldpbench/estimators/internal/emkernel"
)

// ULE (Du et al., Section 5, Algorithm 3) and the per-service EMS baseline:
// the checks of the input and the options. Bucketing, deduplication and the
// EM loop with its routes are in internal/emkernel (ule.go there describes
// them).

// ULE estimates the histogram over l = svcs[j].Bins bins of [-1, 1] from
// the linked reports of m services: reports[j][i] is user i's raw report to
// service j (SW's biased report on [-b, 1+b], PM's on [-C, C], SR's ±C).
// NaN means that user did not report to that service; users with no report
// at all are dropped. Every service must have the same Bins and every
// reports[j] the same length. It returns the estimate (a probability vector
// of length l) and a description of the run.
//
// ctx is checked once per EM iteration: when it is done, ULE stops and
// returns an error wrapping ctx.Err(), so that a cancelled run (a SIGTERM)
// does not wait for thousands of iterations. context.Background() is fine
// when there is nothing to cancel.
func ULE(ctx context.Context, reports [][]float64, svcs []*Service, opt EMOptions) ([]float64, EMInfo, error) {
	if len(svcs) == 0 || len(reports) != len(svcs) {
		return nil, EMInfo{}, fmt.Errorf("estimators: ULE needs one report slice per service (%d services, %d report slices)", len(svcs), len(reports))
	}
	n := len(reports[0])
	for j, s := range svcs {
		if s == nil {
			return nil, EMInfo{}, fmt.Errorf("estimators: service %d is nil", j)
		}
		if len(reports[j]) != n {
			return nil, EMInfo{}, fmt.Errorf("estimators: service %d has %d reports, service 0 has %d", j, len(reports[j]), n)
		}
	}
	mats := make([]*emkernel.Matrix, len(svcs))
	for j, s := range svcs {
		if s.Bins != svcs[0].Bins {
			return nil, EMInfo{}, fmt.Errorf("estimators: service %d has %d input bins, service 0 has %d", j, s.Bins, svcs[0].Bins)
		}
		mats[j] = s.mat
	}
	kopt, err := opt.kernelOptions()
	if err != nil {
		return nil, EMInfo{}, err
	}
	theta, info, err := emkernel.Linked(ctx, reports, mats, kopt)
	return theta, emInfo(info, opt.rule(), opt.Accel), err
}

// EMS estimates the histogram from one service's reports alone: EM (EMS by
// default) on the service's own output histogram with its own transition
// matrix, the per-service baseline of ULE. NaN reports are skipped. ctx is
// checked once per iteration, as by ULE.
func EMS(ctx context.Context, reports []float64, svc *Service, opt EMOptions) ([]float64, EMInfo, error) {
	return ULE(ctx, [][]float64{reports}, []*Service{svc}, opt)
}

// EMSHistogram is EMS from the counts of the service's output buckets
// (counts[r] reports in bucket r, as Service.OutputHistogram). ctx is
// checked once per iteration, as by ULE.
func EMSHistogram(ctx context.Context, counts []float64, svc *Service, opt EMOptions) ([]float64, EMInfo, error) {
	if svc == nil || len(counts) != svc.Buckets {
		return nil, EMInfo{}, errors.New("estimators: EMSHistogram needs one count per output bucket")
	}
	for r, c := range counts {
		if !(c >= 0) || math.IsInf(c, 0) {
			return nil, EMInfo{}, fmt.Errorf("estimators: count %d = %v is not finite and ≥ 0", r, c)
		}
	}
	kopt, err := opt.kernelOptions()
	if err != nil {
		return nil, EMInfo{}, err
	}
	theta, info, err := emkernel.Histogram(ctx, counts, svc.mat, kopt)
	return theta, emInfo(info, opt.rule(), opt.Accel), err
}
