package central

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ldpbench/ldpbench/compare"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/harness"
)

// TestShippedSpecsQuick runs every runs/central-*.toml at its [quick]
// scale (2 batches of 10⁵ runs per point; figures left out) and checks
// that each [[claims]] block of the paper lands inside its transcribed
// range in every cell, and that at least 90 % of the cells with a theory
// hold it inside their 95 % CI. A regression check of the specs (a method
// or a where filter that stops matching: zero cells; a claim that flips)
// and of the kind end to end. About 4 s on 2 cores.
//
// Under -short only central-fig3a and central-fig3b run (about 0.5 s, 3 s
// under -race); the other four (about 3 s) are left to make test.
func TestShippedSpecsQuick(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "runs", "central-*.toml"))
	if err != nil || len(files) < 6 {
		t.Fatalf("%d central specs (%v), want 6", len(files), err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if b := filepath.Base(f); testing.Short() && b != "central-fig3a.toml" && b != "central-fig3b.toml" {
				t.Skip("skipped under -short (make test runs it)")
			}
			s, err := harness.LoadSpec(f)
			if err != nil {
				t.Fatal(err)
			}
			s.Figures = nil
			dir := t.TempDir()
			res, err := harness.Run(context.Background(), experiment.Registry{Kind{}}, s, harness.Options{OutDir: dir, Jobs: 2, Quick: true})
			if err != nil {
				t.Fatal(err)
			}
			inside, cells := 0, 0
			for _, sum := range res.Summaries {
				if sum.Metric != "mse" || !sum.Theory.Known() || !sum.CILo.Known() {
					continue
				}
				cells++
				if sum.CILo <= sum.Theory && sum.Theory <= sum.CIHi {
					inside++
				}
			}
			if cells > 0 && float64(inside) < 0.9*float64(cells) {
				t.Errorf("%d of %d cells hold their theory inside the 95 %% CI", inside, cells)
			}
			rows, err := compare.Report(s, dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				if r.Kind != "summary" {
					continue
				}
				if r.Cells == "0" || r.InRangeCells != r.Cells {
					t.Errorf("claim %d (%s, %s vs %s): %s of %s cells in the paper's range [%v, %v], measured %v – %v",
						r.Claim, r.Source, r.Method, r.Against, r.InRangeCells, r.Cells, r.PaperMin, r.PaperMax, r.MeasuredMin, r.MeasuredMax)
				}
			}
		})
	}
}
