package estimators

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ldpbench/ldpbench/estimators/internal/uletest"
	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/metrics"
)

// uleTruth is the histogram of v over l equal bins of [-1, 1], normalised.
func uleTruth(v []float64, l int) []float64 {
	h := make([]float64, l)
	metrics.Histogram(v, -1, 1, l, h)
	for i := range h {
		h[i] /= float64(len(v))
	}
	return h
}

func uleServices(tb testing.TB, mechs []mechanisms.Mechanism, bins int) []*Service {
	tb.Helper()
	svcs, err := NewServices(mechs, bins)
	if err != nil {
		tb.Fatal(err)
	}
	return svcs
}

func maxAbsDiff(a, b []float64) float64 {
	var d float64
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// TestULEStopsOnContext checks that a cancelled context stops the EM loop
// within one iteration and that the error says so, and that EMS and
// EMSHistogram, given a context already cancelled, stop before their first
// iteration.
func TestULEStopsOnContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	mechs := uletest.Mechs(t, 0.5, 0.5, 0.5)
	reports := uletest.Reports(t, uletest.BetaInputs(2000, 2, 5, rng), mechs, rng)
	svcs := uleServices(t, mechs, 64)
	ctx, cancel := context.WithCancel(t.Context())
	calls := 0
	opt := EMOptions{Stop: StopConverged, Trace: func(iter int, _ []float64, _ float64) {
		calls = iter
		if iter == 3 {
			cancel()
		}
	}}
	_, _, err := ULE(ctx, reports, svcs, opt)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("ULE with a context cancelled at iteration 3: err = %v, want context.Canceled", err)
	}
	if calls != 3 {
		t.Errorf("ULE ran %d iterations after cancellation at 3", calls-3)
	}

	calls = 0
	opt.Trace = func(iter int, _ []float64, _ float64) { calls = iter }
	if _, _, err := EMS(ctx, reports[1], svcs[1], opt); !errors.Is(err, context.Canceled) {
		t.Errorf("EMS with a cancelled context: err = %v, want context.Canceled", err)
	}
	if _, _, err := EMSHistogram(ctx, svcs[2].OutputHistogram(reports[2]), svcs[2], opt); !errors.Is(err, context.Canceled) {
		t.Errorf("EMSHistogram with a cancelled context: err = %v, want context.Canceled", err)
	}
	if calls != 0 {
		t.Errorf("%d iterations ran with a cancelled context", calls)
	}
}
