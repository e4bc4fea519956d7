package harness

import (
	"context"
	"fmt"

	"github.com/ldpbench/ldpbench/results"
)

// Two optional capabilities of a kind that the runner consults (runCells).
// Kind multiservice is the first to need them; they are generic.

// pairedSeeding tags the rows of a trialKeyer kind (metadataLine); change
// it whenever a TrialKey changes, so that older rows are refused.
const pairedSeeding = "paired-v1"

// trialKeyer is implemented by a kind whose trials must see the same
// randomness across some axes of the plan (common random numbers): the
// runner seeds trial t's generator from (master seed, experiment,
// TrialKey(c), t) instead of the cell key. The key must still separate
// every cell whose randomness must differ; it must not depend on -j.
type trialKeyer interface {
	TrialKey(c *CellSpec) string
}

// contextPreparer is implemented by a kind whose trials can run long (EM
// for thousands of iterations): the runner prepares its cells with the
// run's context, which the cell's trials watch and return its error on,
// so that a cancelled run does not wait for them to finish.
type contextPreparer interface {
	PrepareContext(ctx context.Context, c *CellSpec) (CellRun, error)
}

// prepareCell prepares a cell with the run's context when the kind can
// use it.
func prepareCell(ctx context.Context, k Kind, c *CellSpec) (CellRun, error) {
	if p, ok := k.(contextPreparer); ok {
		return p.PrepareContext(ctx, c)
	}
	return k.Prepare(c)
}

// trialKey is the key a trial's generator is seeded from: the kind's, or
// the cell key.
func trialKey(k Kind, c *CellSpec, cellKey string) string {
	if tk, ok := k.(trialKeyer); ok {
		return tk.TrialKey(c)
	}
	return cellKey
}

// msParamRole says what a parameter of kind multiservice changes.
type msParamRole int

const (
	// msDraws: the data drawn or the reports (which services, their
	// budgets, which users report where, which users are scored).
	msDraws msParamRole = iota
	// msEstimates: the estimator or the metric alone, never the reports.
	msEstimates
)

// msParamRoles classifies every key of msParamKeys (a test checks that
// none is missing). Only the msDraws keys enter the trial key, so that
// every method and every estimator setting of a cell is compared on the
// same reports.
var msParamRoles = map[string]msParamRole{
	"services": msDraws,
	"config":   msDraws,
	"m":        msDraws,
	"groups":   msDraws,
	"group":    msDraws, // the scored users and the services drawn

	"bins":          msEstimates, // the histogram of estimate and truth
	"h":             msEstimates,
	"out_buckets":   msEstimates,
	"pm_lookup":     msEstimates,
	"laplace_clamp": msEstimates,
	"threads":       msEstimates, // results do not depend on it
	"smooth":        msEstimates,
	"stop":          msEstimates,
	"ll_tol":        msEstimates,
	"max_iter":      msEstimates,
	"theta_tol":     msEstimates,
	"v":             msEstimates, // the input of the closed-form variance
}

// TrialKey makes the methods of a cell paired (common random numbers): a
// trial's generator is seeded from the dataset, ε, n and the parameters
// that change the reports (msParamRoles), not from the method nor from
// estimator-only parameters, so ua, uwa, single-*, ule, ems-* of the same
// cell and trial estimate from bit-identical reports, and their difference
// is the estimators' alone. The "paired;" prefix keeps the key apart from
// every cell key (which starts "experiment=").
func (multiserviceKind) TrialKey(c *CellSpec) string {
	draw := make(map[string]string, len(c.Params))
	for k, v := range c.Params {
		// An unknown key (refused by Check) counts as drawing, to be safe.
		if role, ok := msParamRoles[k]; !ok || role == msDraws {
			draw[k] = v
		}
	}
	eps, _ := results.Float(c.Eps).MarshalCSV()
	return fmt.Sprintf("paired;dataset=%s;eps=%s;n=%d;%s", c.Dataset.Name, eps, c.N, results.FormatParams(draw))
}
