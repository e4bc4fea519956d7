package estimators

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// batchPM is pm with a VarianceBatch that counts its calls, as an external
// program's mechanism has; fail makes every batch fail.
type batchPM struct {
	*mechanisms.Piecewise
	calls *int
	fail  error
}

func (b batchPM) VarianceBatch(dst, xs []float64) error {
	*b.calls++
	if b.fail != nil {
		return b.fail
	}
	for i, x := range xs {
		dst[i] = b.Variance(x)
	}
	return nil
}

// TestVarianceBatches: the exact expected MSEs of the mean, of UA, of one
// service and of the oracle UWA ask a mechanisms.VarianceBatcher in one
// call per 16,384 users and give, bit for bit, the point-wise loops' sums
// (written out here as they were before the batches); a failed batch is
// the result's error.
func TestVarianceBatches(t *testing.T) {
	const n = 40000 // three chunks, the last partial
	rng := rand.New(rand.NewPCG(3, 4))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = 2*rng.Float64() - 1
	}
	pm, _ := mechanisms.NewPM(1.5)
	pm2, _ := mechanisms.NewPM(0.7)
	duchi, _ := mechanisms.NewDuchi(1)
	var calls, calls2 int
	b, b2 := batchPM{pm, &calls, nil}, batchPM{pm2, &calls2, nil}
	batched := []mechanisms.Mechanism{b, duchi, b2}
	plain := []mechanisms.Mechanism{pm, duchi, pm2}
	groups := []UserGroup{{0, 15000, []int{0, 1}}, {15000, 31000, []int{0, 1, 2}}, {31000, n, []int{2}}}
	same := func(what string, got, want float64) {
		t.Helper()
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("%s = %v batched, %v point-wise", what, got, want)
		}
	}

	// The point-wise sums as the functions formed them before.
	var s float64
	for _, x := range xs {
		s += pm.Variance(x)
	}
	got, err := ExpectedMeanMSEErr(b, xs)
	if err != nil {
		t.Fatal(err)
	}
	same("ExpectedMeanMSE", got, s/(n*n))
	same("ExpectedMeanMSE, no batcher", ExpectedMeanMSE(pm, xs), s/(n*n))
	if calls != 3 {
		t.Errorf("ExpectedMeanMSE made %d batch calls for n = %d, want 3", calls, n)
	}

	for _, gr := range [][]UserGroup{nil, groups} {
		gs, _ := groupLayout(n, 3, gr)
		var wsum, vsum, count float64
		for _, g := range gs {
			c := float64(len(g.Services))
			for _, x := range xs[g.Lo:g.Hi] {
				wsum += c * x
				for _, j := range g.Services {
					vsum += plain[j].(mechanisms.Variancer).Variance(x)
				}
			}
			count += c * float64(g.Hi-g.Lo)
		}
		bias := wsum/count - TrueMean(xs)
		calls, calls2 = 0, 0
		got, err := UAExpectedMSE(xs, batched, gr)
		if err != nil {
			t.Fatal(err)
		}
		same("UAExpectedMSE", got, bias*bias+vsum/(count*count))
		if gr == nil && (calls != 3 || calls2 != 3) {
			t.Errorf("UAExpectedMSE made %d and %d batch calls, want 3 each", calls, calls2)
		}

		for j := range plain {
			var xsum, vsum float64
			cnt := 0
			for _, g := range gs {
				if !hasService(g.Services, j) {
					continue
				}
				for _, x := range xs[g.Lo:g.Hi] {
					xsum += x
					vsum += plain[j].(mechanisms.Variancer).Variance(x)
				}
				cnt += g.Hi - g.Lo
			}
			c := float64(cnt)
			bias := xsum/c - TrueMean(xs)
			got, err := ServiceExpectedMSE(xs, batched, gr, j)
			if err != nil {
				t.Fatal(err)
			}
			same("ServiceExpectedMSE", got, bias*bias+vsum/(c*c))
		}

		var v float64
		for _, g := range gs {
			for _, x := range xs[g.Lo:g.Hi] {
				var inv float64
				for _, j := range g.Services {
					inv += 1 / plain[j].(mechanisms.Variancer).Variance(x)
				}
				v += 1 / inv
			}
		}
		got, err = OracleUWAExpectedMSE(xs, batched, gr)
		if err != nil {
			t.Fatal(err)
		}
		same("OracleUWAExpectedMSE", got, v/(n*n))
	}

	boom := errors.New("the program refused")
	bad := batchPM{pm, &calls, boom}
	if _, err := ExpectedMeanMSEErr(bad, xs); !errors.Is(err, boom) {
		t.Errorf("ExpectedMeanMSEErr with a failing batch: %v", err)
	}
	if v := ExpectedMeanMSE(bad, xs); !math.IsNaN(v) {
		t.Errorf("ExpectedMeanMSE with a failing batch = %v, want NaN", v)
	}
	if _, err := UAExpectedMSE(xs, []mechanisms.Mechanism{bad, duchi}, nil); !errors.Is(err, boom) {
		t.Errorf("UAExpectedMSE with a failing batch: %v", err)
	}
	if _, err := ServiceExpectedMSE(xs, []mechanisms.Mechanism{duchi, bad}, nil, 1); !errors.Is(err, boom) {
		t.Errorf("ServiceExpectedMSE with a failing batch: %v", err)
	}
}
