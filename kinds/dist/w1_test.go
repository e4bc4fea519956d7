package dist

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/kinds/kindtest"
	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/metrics"
)

// TestW1Recomputed: the w1 row of a DE or OUE cell equals
// metrics.Wasserstein1(est, truth, 2/bins) to 1e-12 relative, where the
// test rebuilds both histograms itself: the truth by binning the records
// into bins equal bins of [-1, 1] (x = 1 in the last), the estimate by
// running the method's reports with the trial's generator PCG(seed,
// trial) (dim 1: every record reports, in dataset order, so the draws are
// the kind's). bins = 37 and 100 are not powers of two, so a width 1/bins
// (the domain taken as [0, 1]), 2/(bins+1), or a binning with bins+1
// bins, changes the value, which TestNearlyExactAtLargeEps (W1 ≈ 0) and
// the comparisons with DE and OUE in TestTrialsConverge cannot see. The
// kind's truth is compared bin for bin too, so a binning off by one fails
// by name. About 0.01 CPU-s.
func TestW1Recomputed(t *testing.T) {
	const n, eps, seed = 5000, 2.0, 41
	for _, tc := range []struct {
		method string
		bins   int
	}{
		{"de", 37}, {"de", 100}, {"oue", 37},
	} {
		c := betaCell(t, tc.method, eps, n, map[string]string{"bins": strconv.Itoa(tc.bins)})
		c.Metrics = []string{"w1"}
		run, err := Kind{}.Prepare(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		xs := c.Dataset.Values[:n]
		bin := make([]int, n)
		truth := make([]float64, tc.bins)
		for i, x := range xs {
			b := int(math.Floor((x + 1) / 2 * float64(tc.bins)))
			bin[i] = min(max(b, 0), tc.bins-1)
			truth[bin[i]] += 1.0 / n
		}
		if k := len(run.(*cell).truth); k != tc.bins {
			t.Errorf("%s bins = %d: the kind's truth has %d bins", tc.method, tc.bins, k)
			continue
		}
		for b, v := range run.(*cell).truth {
			if math.Abs(v-truth[b]) > 1e-12 {
				t.Errorf("%s bins = %d: the kind's truth[%d] = %v, want %v", tc.method, tc.bins, b, v, truth[b])
			}
		}
		w1 := kindtest.Trials(t, run, 2, seed)["w1"]
		for trial, got := range w1 {
			rng := rand.New(rand.NewPCG(seed, uint64(trial)))
			est := make([]float64, tc.bins)
			switch tc.method {
			case "de":
				g, _ := mechanisms.NewGRR(eps, tc.bins)
				counts := make([]float64, tc.bins)
				for _, b := range bin {
					counts[g.Perturb(b, rng)]++
				}
				if err := estimators.DEHistogram(est, counts, n, g); err != nil {
					t.Fatal(err)
				}
			case "oue":
				o, _ := mechanisms.NewOUE(eps, tc.bins)
				users := make([]int, tc.bins)
				for _, b := range bin {
					users[b]++
				}
				support := make([]float64, tc.bins)
				o.SupportCounts(users, rng, support)
				if err := estimators.OUEHistogram(est, support, n, o); err != nil {
					t.Fatal(err)
				}
			}
			want := metrics.Wasserstein1(est, truth, 2/float64(tc.bins))
			if !(want > 0) || math.Abs(got-want) > 1e-12*want {
				t.Errorf("%s bins = %d trial %d: w1 = %.15g, want Wasserstein1(est, truth, 2/%d) = %.15g (ratio %.6g)", tc.method, tc.bins, trial, got, tc.bins, want, got/want)
			}
		}
	}
}
