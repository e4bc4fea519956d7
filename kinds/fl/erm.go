package fl

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/fedlearn"
)

// ermRun is a prepared cell of task erm: Zhao et al.'s LDP-FedSGD trained
// on the training folds of a cross-validation and scored on the test fold.
type ermRun struct {
	cfg     fedlearn.FedSGD
	x, y    []float64 // the first n rows of the table
	p       int
	perms   [][]int // one permutation of the n rows per repeat
	folds   int
	theta0  float64
	metrics []string
}

func prepareERM(c *experiment.CellSpec) (experiment.CellRun, error) {
	td, err := loadTable(c.Dataset.Name)
	if err != nil {
		return nil, err
	}
	tab := td.tab
	n := tab.Rows()
	p := c.Params
	modelName := p.String("model", "logistic")
	y := td.yBin
	if modelName == "linear" {
		y = td.yReg
	}
	if y == nil {
		return nil, fmt.Errorf("dataset %s: model %s needs a %s response, which this table does not have", c.Dataset.Name, modelName, map[bool]string{true: "numeric", false: "binary"}[modelName == "linear"])
	}
	model, err := fedlearn.NewModel(modelName, tab.P, p.Bool("intercept", true), 0)
	if err != nil {
		return nil, err
	}
	grid, err := gridOf(p)
	if err != nil {
		return nil, err
	}
	mech, err := fedlearn.NewMechanism(c.Method, model.Dim(), c.Eps, grid)
	if err != nil {
		return nil, err
	}
	r := &ermRun{
		cfg: fedlearn.FedSGD{Model: model, Mech: mech, Eta: p.Float("eta", DefaultEta), Group: p.Int("group", DefaultGroup),
			Lambda: p.Float("lambda", fedlearn.DefaultLambda), Clip: p.Float("clip", DefaultClip)},
		x: td.xz[:n*tab.P], y: y[:n], p: tab.P, folds: p.Int("folds", DefaultFolds),
		theta0: p.Float("theta0", 0), metrics: c.Metrics,
	}
	if err := r.cfg.Check(); err != nil {
		return nil, err
	}
	if r.folds > n {
		return nil, params.Errorf("folds", "%d folds of %d rows", r.folds, n)
	}
	// The folds depend on the master seed, the dataset and the repeat
	// only: every method and ε of a run sees the same folds (a paired
	// comparison), and the mechanisms' draws come from the trial's own
	// generator.
	h := fnv.New64a()
	h.Write([]byte(c.Dataset.Name))
	for rep := range p.Int("repeats", DefaultRepeats) {
		r.perms = append(r.perms, rand.New(rand.NewPCG(c.Seed^h.Sum64(), uint64(rep))).Perm(n))
	}
	return r, nil
}

// Trial runs fold trial mod folds of repeat ⌊trial/folds⌋: one pass of
// LDP-FedSGD over the training users in the repeat's random order, then
// the test error of θ.
func (r *ermRun) Trial(_ context.Context, trial int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	rep, fold := trial/r.folds, trial%r.folds
	if rep >= len(r.perms) {
		return out, fmt.Errorf("trial %d: only folds·repeats = %d trials exist (axes.params.folds, repeats)", trial, r.folds*len(r.perms))
	}
	sp, err := fedlearn.KFold(r.perms[rep], r.folds, fold)
	if err != nil {
		return out, err
	}
	m := r.cfg.Model
	theta := make([]float64, m.Dim())
	for j := range theta {
		theta[j] = r.theta0
	}
	if err := r.cfg.TrainRows(theta, r.x, r.y, sp.Train, fedlearn.NewWorkspace(m.Dim()), rng); err != nil {
		return out, err
	}
	e := fedlearn.TestErrorRows(m, theta, r.x, r.y, sp.Test)
	if math.IsNaN(e) || math.IsInf(e, 0) {
		// Clipped gradients bound every step, so this is a bug, not data.
		return out, fmt.Errorf("trial %d: test error %v", trial, e)
	}
	for _, name := range r.metrics {
		v := e
		if name == "accuracy" {
			v = 1 - e
		}
		out = append(out, experiment.Measurement{Metric: name, Value: v})
	}
	return out, nil
}

// Theory implements experiment.CellRun: training has no closed form.
func (r *ermRun) Theory(string) (float64, bool) { return 0, false }
