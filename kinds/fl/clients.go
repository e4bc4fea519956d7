package fl

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/fedlearn"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// clientsRun is a prepared cell of task clients: Baek & Chung's federated
// averaging on an 80/20 split, standardised on the training part.
type clientsRun struct {
	proto              fedlearn.Clients
	xtr, ytr, xte, yte []float64
	round              int // 1-based
	metrics            []string
	key                curveKey
}

// curveKey names one training run: cells with equal keys (they differ in
// params.round only) draw the same randomness (TrialKey), so the run's
// accuracy curve is computed once and read by all of them.
//
// binding is the registry summary of the method's mechanism: the trial key
// holds its name only, and a name may be bound to another mechanism in a
// later run in this process (a spec's external program is registered for
// one run, its summary naming its command; a test registers its own),
// whose curves a hit would otherwise return.
type curveKey struct {
	experiment, trialKey, binding string
	seed                          uint64
	trial                         int
}

type curve struct {
	once sync.Once
	acc  []float64
	err  error
}

// curves holds the accuracy curves of the runs of the process. An entry is
// a few hundred bytes (one float per round); a run of Fig. 5 makes 400.
var curves sync.Map

func prepareClients(c *experiment.CellSpec) (experiment.CellRun, error) {
	td, err := loadTable(c.Dataset.Name)
	if err != nil {
		return nil, err
	}
	tab := td.tab
	n := tab.Rows()
	// The split depends on the master seed only (the authors fix
	// random_state = 42): every method sees the same training and test rows.
	sp, err := fedlearn.TrainTest(n, 0.2, rand.New(rand.NewPCG(c.Seed, 42)))
	if err != nil {
		return nil, err
	}
	r := &clientsRun{metrics: c.Metrics}
	r.xtr, r.ytr = fedlearn.Gather(tab.X, tab.Y, tab.P, sp.Train)
	r.xte, r.yte = fedlearn.Gather(tab.X, tab.Y, tab.P, sp.Test)
	fedlearn.Standardise(r.xtr, r.xte, tab.P)
	// Output classes: those present in the training split (as the
	// authors'): the largest class index seen, plus one.
	k := 0
	for _, y := range r.ytr {
		k = max(k, int(y)+1)
	}
	model, err := fedlearn.NewMultinomial(tab.P, k)
	if err != nil {
		return nil, err
	}
	mech, post, err := fedlearn.BaekChungMechanism(c.Method, model, c.Eps, c.Params.Bool("compat", false))
	if err != nil {
		return nil, err
	}
	r.proto = fedlearn.BaekChung(model, mech)
	r.proto.PostScale = post
	r.proto.Rounds = c.Params.Int("rounds", r.proto.Rounds)
	r.round = c.Params.Int("round", r.proto.Rounds)
	if r.round > r.proto.Rounds {
		return nil, params.Errorf("round", "%d: beyond %d rounds", r.round, r.proto.Rounds)
	}
	if len(r.ytr) < r.proto.Clients {
		return nil, fmt.Errorf("dataset %s: %d training rows for %d clients", c.Dataset.Name, len(r.ytr), r.proto.Clients)
	}
	info, _ := mechanisms.Lookup(c.Method)
	r.key = curveKey{experiment: c.Experiment, trialKey: Kind{}.TrialKey(c), binding: info.Summary, seed: c.Seed}
	return r, nil
}

// Trial trains once per (configuration, trial) and records the test
// accuracy after round params.round.
func (r *clientsRun) Trial(_ context.Context, trial int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	key := r.key
	key.trial = trial
	e, _ := curves.LoadOrStore(key, &curve{})
	cv := e.(*curve)
	cv.once.Do(func() {
		m := r.proto.Model
		theta := make([]float64, m.Dim())
		fedlearn.XavierInit(m, theta, rng)
		cv.acc = make([]float64, r.proto.Rounds)
		ws := fedlearn.NewClientWorkspace(m.Dim(), len(r.ytr), r.proto.Clients)
		cv.err = r.proto.Train(theta, r.xtr, r.ytr, r.xte, r.yte, cv.acc, ws, rng)
	})
	if cv.err != nil {
		return out, cv.err
	}
	for _, name := range r.metrics {
		v := cv.acc[r.round-1]
		if name == "misclassification_rate" {
			v = 1 - v
		}
		out = append(out, experiment.Measurement{Metric: name, Value: v})
	}
	return out, nil
}

// Theory implements experiment.CellRun: none.
func (r *clientsRun) Theory(string) (float64, bool) { return 0, false }
