package harness

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/ldpbench/ldpbench/datasets"
)

// Measurement is one metric's value in one trial.
type Measurement struct {
	Metric string
	Value  float64
}

// CellSpec is what a kind needs to know of one cell.
type CellSpec struct {
	Experiment string
	Dataset    *datasets.Dataset
	Method     string
	Eps        float64
	N          int
	// Params holds the free axes of the spec (their values as written).
	Params map[string]string
	// Metrics are the per-trial metrics the spec asks for, in order.
	Metrics []string
	// Seed is the spec's master seed, for what a kind fixes per cell rather
	// than per trial (multiservice-md's split of the users); trials take
	// theirs from the runner.
	Seed uint64
}

// Kind is one kind of experiment: mean estimation, distribution estimation,
// multi-service collection, group means, central estimators, federated
// learning, ... The runner calls Prepare once per cell (on a worker, so it may
// be expensive) and Trial once per trial.
type Kind interface {
	// Name is the value of the spec's kind key.
	Name() string
	// Metrics lists the per-trial metrics the kind can measure.
	Metrics() []string
	// Check validates a cell cheaply (mechanism names, budgets, parameters)
	// before anything runs; its error names what is wrong.
	Check(c *CellSpec) error
	// Prepare builds what the cell's trials share.
	Prepare(c *CellSpec) (CellRun, error)
}

// CellRun runs the trials of one prepared cell. Trial may be called
// concurrently from several workers, each with its own generator.
type CellRun interface {
	// Trial runs one trial and appends one measurement per requested metric,
	// in the order of CellSpec.Metrics.
	Trial(trial int, rng *rand.Rand, out []Measurement) ([]Measurement, error)
	// Theory returns the predicted mean over trials of a metric, when the
	// theory gives it exactly.
	Theory(metric string) (float64, bool)
}

// kinds is the registry of experiment kinds.
var kinds = []Kind{
	meanKind{},
	meanHTKind{},
	meanMDKind{},
	multiserviceKind{},
	multiserviceMDKind{},
	theoryKind{},
}

// LookupKind returns the kind registered under name; the error lists the
// valid names.
func LookupKind(name string) (Kind, error) {
	names := make([]string, 0, len(kinds))
	for _, k := range kinds {
		if k.Name() == name {
			return k, nil
		}
		names = append(names, k.Name())
	}
	sort.Strings(names)
	return nil, fmt.Errorf("unknown kind %q (valid: %s)", name, strings.Join(names, ", "))
}

// Kinds returns the names of the registered experiment kinds.
func Kinds() []string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.Name()
	}
	sort.Strings(names)
	return names
}
