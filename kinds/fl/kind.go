package fl

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/fedlearn"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// Kind is kind fl; see the package documentation.
type Kind struct{}

// Tasks, the values of params.task.
const (
	TaskERM     = "erm"
	TaskClients = "clients"
	TaskMean    = "mean"
)

// Defaults of the parameters the papers leave unstated (ERRATA E3.17):
// recorded in every row through the params columns when a spec sets them,
// and in docs/fl.md.
const (
	DefaultEta     = 0.1
	DefaultGroup   = 1000
	DefaultClip    = 1.0
	DefaultFolds   = 10
	DefaultRepeats = 5
)

var params = experiment.ParamSet{
	experiment.EnumParam("task", []string{TaskERM, TaskClients, TaskMean}, "erm (default: Zhao et al.'s LDP-FedSGD with cross-validation), clients (Baek & Chung's federated averaging, accuracy per round), mean (Zhao et al. Fig. 6: mean of the numeric attributes)"),
	experiment.EnumParam("model", []string{"linear", "logistic", "svm", "multinomial"}, "erm: linear (squared loss; metric test_mse), logistic (default) or svm on labels ±1; clients: multinomial (the only one)"),
	experiment.PositiveParam("eta", "erm: learning rate η (default 0.1; unstated by the paper, E3.17)"),
	experiment.IntParam("group", 1, 1<<30, "erm: users per round |G| (default 1,000; unstated, E3.17)"),
	experiment.PositiveParam("clip", "erm: every gradient coordinate clipped to [−clip, clip] and divided by clip before perturbation (default 1: clip to [−1, 1]; unstated, E3.17)"),
	experiment.FloatParam("lambda", 0, 1, "erm: ℓ2 coefficient λ, added on the server (default 1e-4, Zhao et al. §VII-B)"),
	experiment.FloatParam("theta0", -1, 1, "erm: every coordinate of the initial θ₀ (default 0; unstated, E3.17)"),
	experiment.BoolParam("intercept", "erm: a bias parameter beside the feature weights (default true)"),
	experiment.IntParam("folds", 2, 100, "erm: k of k-fold cross-validation (default 10); trial t is fold t mod k of repeat ⌊t/k⌋"),
	experiment.IntParam("repeats", 1, 100, "erm: repetitions of the cross-validation with fresh permutations (default 5); trials must be ≤ folds·repeats"),
	experiment.IntParam("levels", 0, 2*mechanisms.MaxDiscretizeM+1, "erm/mean: output levels 2m+1 of Algorithm 5 (odd, ≥ 3); 0 = none (default)"),
	experiment.IntParam("segments", 0, 2*mechanisms.MaxDiscretizeM, `erm/mean: the paper's "number of segments" 2m (even); 0 = none (default)`),
	experiment.IntParam("round", 1, 10_000, "clients: the round whose test accuracy is recorded (default the last); cells differing only in round share their runs"),
	experiment.IntParam("rounds", 1, 10_000, "clients: rounds of training (default 50)"),
	experiment.BoolParam("compat", "clients: the authors' code's mechanisms (E0.27: HM-NP with N = 3 and k = 1, PM-SUB with k = 1, d/k counting weights only); default false, the paper's intent"),
}

// Name implements experiment.Kind.
func (Kind) Name() string { return "fl" }

// Metrics implements experiment.Kind.
func (Kind) Metrics() []string {
	return []string{"misclassification_rate", "test_mse", "accuracy", "mse"}
}

// Params implements experiment.Kind.
func (Kind) Params() experiment.ParamSet { return params }

// AllMethods implements experiment.MethodLister: the non-private baseline,
// Duchi's multi-dimensional mechanism, the Laplace split and every
// registered mechanism (through Algorithm 6).
func (Kind) AllMethods() []string {
	out := []string{fedlearn.NonPrivate}
	for _, name := range mechanisms.Names() {
		if m, err := mechanisms.New(name, 1); err == nil && estimateNeeds.Met(m) {
			out = append(out, name)
		}
	}
	return out
}

// TrialKey implements experiment.TrialKeyer: the cells of a clients
// configuration that differ only in params.round see the same runs (one
// training per trial, whose accuracy after each round the cells read).
func (Kind) TrialKey(c *experiment.CellSpec) string {
	vals := c.Params.Values()
	delete(vals, "round")
	key := fmt.Sprintf("dataset=%s;method=%s;eps=%s;n=%d", c.Dataset.Name, c.Method, strconv.FormatFloat(c.Eps, 'g', -1, 64), c.N)
	for _, k := range params.Keys() {
		if v, ok := vals[k]; ok {
			key += ";" + k + "=" + v
		}
	}
	return key
}

// task returns the cell's task.
func task(c *experiment.CellSpec) string { return c.Params.String("task", TaskERM) }

// metricsOf lists the metrics a task measures.
func metricsOf(task, model string) []string {
	switch task {
	case TaskClients:
		return []string{"accuracy", "misclassification_rate"}
	case TaskMean:
		return []string{"mse"}
	}
	if model == "linear" {
		return []string{"test_mse"}
	}
	return []string{"misclassification_rate", "accuracy"}
}

// Check implements experiment.Kind.
func (Kind) Check(c *experiment.CellSpec) error {
	tk := task(c)
	name := c.Dataset.Name
	if !slices.Contains(datasets.TableNames(), name) {
		return fmt.Errorf("dataset %q: kind fl reads the table of that name (datasets.LoadTable: %v); name the [[datasets]] entry after one", name, datasets.TableNames())
	}
	for _, f := range datasets.TableFiles(name) {
		if _, err := datasets.Find(f); err != nil {
			return fmt.Errorf("dataset %s: %w", name, err)
		}
	}
	if c.N != 1 {
		return fmt.Errorf("axes.n = %d: kind fl trains on (or averages) the whole table named by the dataset; give n = [1]", c.N)
	}
	model := c.Params.String("model", "")
	switch tk {
	case TaskClients:
		if model != "" && model != "multinomial" {
			return params.Errorf("model", "%s: task clients trains multinomial logistic regression only", model)
		}
		if name != "gamma" && name != "shuttle" {
			return fmt.Errorf("dataset %s: task clients runs on gamma or shuttle (classification tables)", name)
		}
		if r := c.Params.Int("round", 0); r > c.Params.Int("rounds", 50) {
			return params.Errorf("round", "%d: beyond params.rounds = %d", r, c.Params.Int("rounds", 50))
		}
	case TaskERM:
		if model == "multinomial" {
			return params.Errorf("model", "multinomial: task erm trains linear, logistic or svm")
		}
		if name == "wisdm" {
			return fmt.Errorf("dataset wisdm: no response column; use task = \"mean\"")
		}
	}
	for _, m := range c.Metrics {
		if !slices.Contains(metricsOf(tk, c.Params.String("model", "logistic")), m) {
			return fmt.Errorf("metric %s: task %s with model %s measures %v", m, tk, c.Params.String("model", "logistic"), metricsOf(tk, c.Params.String("model", "logistic")))
		}
	}
	grid, err := gridOf(c.Params)
	if err != nil {
		return err
	}
	if tk == TaskClients && grid != 0 {
		return params.Errorf("levels", "task clients has no discretisation")
	}
	if c.Method == fedlearn.NonPrivate {
		if grid != 0 {
			return fmt.Errorf("method %s: nothing to discretise", c.Method)
		}
		if tk == TaskMean {
			return fmt.Errorf("method %s: task mean needs a mechanism", c.Method)
		}
		return nil
	}
	if err := checkNeeds(c.Method, c.Eps, grid); err != nil {
		return err
	}
	_, err = fedlearn.NewMechanism(c.Method, 4, c.Eps, grid)
	return err
}

// gridOf returns Algorithm 5's m from params.levels or params.segments.
func gridOf(p experiment.Params) (int, error) {
	levels, segments := p.Int("levels", 0), p.Int("segments", 0)
	switch {
	case levels != 0 && segments != 0:
		return 0, params.Errorf("segments", "give the grid once: axes.params.levels is given too")
	case levels != 0 && (levels < 3 || levels%2 == 0):
		return 0, params.Errorf("levels", "%d: the number of output levels 2m+1 must be odd and ≥ 3 (or 0 for none)", levels)
	case segments != 0 && segments%2 == 1:
		return 0, params.Errorf("segments", "%d: the number of segments 2m must be even (or 0 for none)", segments)
	case levels != 0:
		return (levels - 1) / 2, nil
	}
	return segments / 2, nil
}

// Prepare implements experiment.Kind.
func (Kind) Prepare(ctx context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	switch task(c) {
	case TaskClients:
		return prepareClients(c)
	case TaskMean:
		return prepareMean(c)
	}
	return prepareERM(c)
}
