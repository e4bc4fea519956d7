package multiservice

import (
	"fmt"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/results"
)

// Kind multiservice pairs its methods (experiment.TrialKeyer): the
// parameters that change the reports enter the trial key, the rest do not.

// msParamRole says what a parameter of kind multiservice changes.
type msParamRole int

const (
	// msDraws: the data drawn or the reports (which services, their
	// budgets, which users report where, which users are scored).
	msDraws msParamRole = iota
	// msEstimates: the estimator or the metric alone, never the reports.
	msEstimates
)

// msParamRoles classifies every key of msParams (a test checks that
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
	"accel":         msEstimates,
	"v":             msEstimates, // the input of the closed-form variance
}

// TrialKey makes the methods of a cell paired (common random numbers): a
// trial's generator is seeded from the dataset, ε, n and the parameters
// that change the reports (msParamRoles), not from the method nor from
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
		if role, ok := msParamRoles[k]; !ok || role == msDraws {
			draw[k] = v
		}
	}
	eps, _ := results.Float(c.Eps).MarshalCSV()
	return fmt.Sprintf("paired;dataset=%s;eps=%s;n=%d;%s", c.Dataset.Name, eps, c.N, results.FormatParams(draw))
}
