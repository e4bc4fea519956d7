package main

import (
	"path/filepath"
	"testing"

	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/metrics"
	"github.com/ldpbench/ldpbench/results"
)

// theoryCoverage returns how many of the summaries with a theory and an
// interval hold the theory within their 95% CI, and how many there are.
// Derived metrics (rmse from mse) are left out: they repeat their source.
func theoryCoverage(sums []results.Summary) (inside, cells int) {
	for _, s := range sums {
		if isDerived(s.Metric) || !s.Theory.Known() || !s.CILo.Known() || !s.CIHi.Known() {
			continue
		}
		cells++
		if s.CILo <= s.Theory && s.Theory <= s.CIHi {
			inside++
		}
	}
	return inside, cells
}

// isDerived reports whether a summary's metric is derived (metrics.Derived).
func isDerived(metric string) bool {
	for _, d := range metrics.Derived {
		if d.Name == metric {
			return true
		}
	}
	return false
}

// A quick run is a pipeline check, but it must still be one in which the
// theory line can be read: at the shipped [quick] scale, at least 90% of
// the cells with a theory hold it inside their 95% CI. Three representative
// specs, run as `ldpbench run SPEC --quick`: mean-synthetic (kind mean, 220
// cells with a theory, the χ² interval of scalar squared errors),
// multiservice-fig4 (72 cells, paired methods) and multiservice-fig7a
// (24 cells). Every summary row must say quick = true, and every row with
// an interval its ci_method.
//
// Each run is deterministic (fixed seeds), so this is a regression check,
// not a random one; but it is also a fair one: with exact 95% intervals
// and independent cells the number of misses is Binomial(N, 0.05), and the
// probability of falling below 90% by chance alone is about 1e-3 for N =
// 220, 0.03 for N = 72 and 0.12 for N = 24 (paired cells, which share
// reports, make misses cluster and these somewhat larger), so a failure
// after a change of seeds or scale is rarely chance in the first spec and
// may be in the last; look at which cells miss, and by how much, before
// anything else. About 10 s on 2 cores.
func TestQuickTheoryCoverage(t *testing.T) {
	// One spec or more of every kind with theory: central's batch MSEs
	// (fig3c, and the local mechanisms beside them), fl's mean task,
	// groupmean's errors and group means on stand-ins.
	specs := []string{"mean-synthetic", "multiservice-fig4", "multiservice-fig7a",
		"central-fig3c", "central-vs-local", "fl-zhao-fig6", "groupmean-aquila-disease"}
	if testing.Short() {
		// The others take about 15 s of the 16; make test runs them.
		specs = specs[:1]
	}
	for _, name := range specs {
		dir := quickRun(t, name)
		sums, err := results.ReadSummaryFile(filepath.Join(dir, harness.SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		spec, err := harness.LoadSpec(filepath.Join(dir, harness.SpecFile))
		if err != nil {
			t.Fatal(err)
		}
		// A spec without a [quick] block (central's: its paper scale
		// takes seconds) runs its full scale under --quick, unmarked.
		reduced := spec.Reduced(true)
		for _, s := range sums {
			if s.Quick != reduced {
				t.Fatalf("%s: summary row %s %s %s has quick = %v after --quick, want %v", name, s.Method, s.Params, s.Metric, s.Quick, reduced)
			}
			if s.CILo.Known() && s.CIMethod == "" {
				t.Fatalf("%s: summary row %s %s %s has an interval and no ci_method", name, s.Method, s.Params, s.Metric)
			}
		}
		inside, cells := theoryCoverage(sums)
		frac := float64(inside) / float64(cells)
		t.Logf("%s: theory inside the 95%% CI in %d of %d cells (%.1f%%)", name, inside, cells, 100*frac)
		if cells == 0 || frac < 0.9 {
			t.Errorf("%s at quick scale: theory inside the CI in %d of %d cells (%.1f%%), want ≥ 90%%", name, inside, cells, 100*frac)
			for _, s := range sums {
				if !isDerived(s.Metric) && s.Theory.Known() && s.CILo.Known() && !(s.CILo <= s.Theory && s.Theory <= s.CIHi) {
					t.Logf("  miss: %s %s ε=%v n=%d %s %s: mean %.4g, CI [%.4g, %.4g] (%s), theory %.4g",
						s.Dataset, s.Method, s.Eps, s.N, s.Params, s.Metric, float64(s.Mean), float64(s.CILo), float64(s.CIHi), s.CIMethod, float64(s.Theory))
				}
			}
		}
	}
}
