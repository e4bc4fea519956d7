package experiment

import (
	"context"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// Measurement is one metric's value in one trial.
type Measurement struct {
	Metric string
	Value  float64
}

// CellSpec is what a kind knows of one cell of the plan: one dataset, one
// method, one ε, one n and one value of every free parameter.
type CellSpec struct {
	Experiment string
	// Dataset holds at least N rows; the cell uses the first N
	// (Dataset.Values[:N*Dataset.Dim()]), so that cells of different n
	// see nested samples.
	Dataset *datasets.Dataset
	Method  string
	Eps     float64
	N       int
	// Params holds the cell's values of the spec's axes.params, checked
	// against the kind's ParamSet.
	Params Params
	// Metrics are the per-trial metrics the spec asks for, in order: Trial
	// appends one measurement for each, in this order.
	Metrics []string
	// Seed is the spec's master seed, for what a kind fixes per cell rather
	// than per trial (multiservice-md's split of the users); trials take
	// theirs from the runner.
	Seed uint64
}

// Kind is one kind of experiment. The runner calls Check on every cell
// before it writes anything, then Prepare once per cell (on a worker, so it
// may be expensive) and the returned CellRun's Trial once per trial.
type Kind interface {
	// Name is the value of the spec's kind key.
	Name() string
	// Metrics lists the per-trial metrics the kind can measure; each must
	// be described in package metrics (metrics.Describe).
	Metrics() []string
	// Params declares the keys the kind accepts in axes.params (nil: none).
	// The runner refuses any other key, and any value outside its
	// declared type and bounds, before Check is called.
	Params() ParamSet
	// Check validates a cell cheaply (mechanism names, budgets, parameters
	// that depend on one another) before anything runs; its error names
	// what is wrong, by spec key where there is one (ParamSet.Errorf).
	Check(c *CellSpec) error
	// Prepare builds what the cell's trials share. ctx is the run's.
	Prepare(ctx context.Context, c *CellSpec) (CellRun, error)
}

// CellRun runs the trials of one prepared cell.
type CellRun interface {
	// Trial runs trial number trial and appends one measurement per
	// metric of CellSpec.Metrics, in that order. It may be called
	// concurrently from several workers, each with its own generator; rng
	// is the trial's alone and must be its only source of randomness. A
	// trial that can run long watches ctx and returns its error when it
	// is done.
	Trial(ctx context.Context, trial int, rng *rand.Rand, out []Measurement) ([]Measurement, error)
	// Theory returns the predicted mean over trials of a metric, when the
	// theory gives it exactly; the runner writes it beside every row.
	Theory(metric string) (float64, bool)
}

// MethodLister is implemented by a kind that can expand the method "*" of a
// spec into every method it accepts.
type MethodLister interface {
	AllMethods() []string
}

// A MethodDoc describes one method of a kind, or one family of methods:
// Name as a spec writes it ("uwa"), or a pattern with a placeholder
// ("single-<s>", "<m>" for any registered mechanism that meets the kind's
// needs, MechanismTaker); Doc is one or two sentences on what it computes,
// citing the paper's algorithm or equation.
type MethodDoc struct {
	Name, Doc string
}

// MethodDescriber is implemented by every kind: its methods, in the order
// a reader meets them, for `ldpbench list kinds -v` and docs/kinds.md (one
// source, so that the three never drift).
type MethodDescriber interface {
	Methods() []MethodDoc
}

// MethodLabeler is implemented by a kind whose method names are not what a
// reader of its paper calls them: MethodLabel returns the legend name of a
// method ("Alg. 3 (Laplace)" for central-alg3-lap, "UWA" for uwa), or false
// to leave the method to the default, Label.
type MethodLabeler interface {
	MethodLabel(method string) (string, bool)
}

// Label is the legend name of a method of kind k: the kind's own
// (MethodLabeler), else the registered mechanism's (mechanisms.Label, for
// the kinds whose methods are mechanism names), else the method itself.
func Label(k Kind, method string) string {
	if l, ok := k.(MethodLabeler); ok {
		if s, ok := l.MethodLabel(method); ok {
			return s
		}
	}
	return mechanisms.Label(method)
}

// TrialKeyer is implemented by a kind whose trials must see the same
// randomness across some axes of the plan (common random numbers, a paired
// comparison): the runner seeds trial t's generator from (master seed,
// experiment, TrialKey(c), t) instead of the cell's own key, so that cells
// with equal keys draw equal reports in trial t. The key must separate
// every pair of cells whose randomness must differ, and must not depend on
// -j. The runner tags the rows of such a kind (seeding=paired-v1 in the
// first line of rows.csv), so that rows drawn under another seeding are
// neither reused nor resumed; change the tag in package harness whenever a
// kind's key changes.
type TrialKeyer interface {
	TrialKey(c *CellSpec) string
}

// MemoryEstimator is implemented by a kind whose cells hold memory that
// grows with n (report buffers, transition tables): the runner sums the
// estimates of the cells and trials that can be alive at once with the
// datasets, and refuses a run that would not fit, before it allocates
// anything large. Rough is fine (within a factor of 2): the point is to
// refuse n = 10¹² with a message, not to die out of memory.
type MemoryEstimator interface {
	// CellBytes returns the bytes a prepared cell holds (shared by its
	// trials) and the bytes one running trial holds on top.
	CellBytes(c *CellSpec) (prepared, perTrial int64)
}
