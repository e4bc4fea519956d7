package multiservice

import (
	"fmt"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/results"
)

// Kind multiservice pairs its methods (experiment.TrialKeyer): the
// parameters that change the reports enter the trial key, the rest do not.

// paramRole says what a parameter of kind multiservice changes.
type paramRole int

const (
	// reportDraws: the data drawn or the reports (which services, their
	// budgets, which users report where, which users are scored).
	reportDraws paramRole = iota
	// cellEstimates: the estimator or the metric alone, never the reports.
	cellEstimates
)

// paramRoles classifies every key of kindParams (a test checks that
// none is missing). Only the reportDraws keys enter the trial key, so that
// every method and every estimator setting of a cell is compared on the
// same reports.
var paramRoles = map[string]paramRole{
	"services": reportDraws,
	"config":   reportDraws,
	"m":        reportDraws,
	"groups":   reportDraws,
	"group":    reportDraws, // the scored users and the services drawn

	"bins":          cellEstimates, // the histogram of estimate and truth
	"h":             cellEstimates,
	"out_buckets":   cellEstimates,
	"pm_lookup":     cellEstimates,
	"laplace_clamp": cellEstimates,
	"threads":       cellEstimates, // results do not depend on it
	"smooth":        cellEstimates,
	"stop":          cellEstimates,
	"ll_tol":        cellEstimates,
	"max_iter":      cellEstimates,
	"theta_tol":     cellEstimates,
	"accel":         cellEstimates,
	"v":             cellEstimates, // the input of the closed-form variance
}

// TrialKey makes the methods of a cell paired (common random numbers): a
// trial's generator is seeded from the dataset, ε, n and the parameters
// that change the reports (paramRoles), not from the method nor from
// estimator-only parameters, so ua, uwa, single-*, ule, ems-* of the same
// cell and trial estimate from bit-identical reports, and their difference
// is the estimators' alone. The "paired;" prefix keeps the key apart from
// every cell key (which starts "experiment=").
func (Kind) TrialKey(c *experiment.CellSpec) string {
	return pairedKey(c, c.Params.Values())
}

// pairedKey is the trial key of a cell with parameter values params (as
// written): those that change the reports, with the dataset, ε and n.
func pairedKey(c *experiment.CellSpec, params map[string]string) string {
	draw := make(map[string]string, len(params))
	for k, v := range params {
		// An unknown key (refused by Check) counts as drawing, to be safe.
		if role, ok := paramRoles[k]; !ok || role == reportDraws {
			draw[k] = v
		}
	}
	eps, _ := results.Float(c.Eps).MarshalCSV()
	return fmt.Sprintf("paired;dataset=%s;eps=%s;n=%d;%s", c.Dataset.Name, eps, c.N, results.FormatParams(draw))
}
