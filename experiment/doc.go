// Package experiment is the contract between the runner (package harness)
// and the experiment kinds (packages under kinds/).
//
// A kind is one family of experiment: mean estimation, multi-service
// collection, group means, central estimators, federated learning, ... It
// implements [Kind]: its name (the spec's kind key), the metrics it can
// measure, the parameters it takes (the spec's axes.params, declared as a
// [ParamSet] so that every key is checked before anything runs), a cheap
// Check of one cell, and Prepare, which builds what a cell's trials share
// and returns a [CellRun]. The runner calls Trial once per trial, on any
// worker, with a generator seeded for that trial alone, and writes one row
// per [Measurement].
//
// Optional capabilities are small interfaces that the runner looks for:
//
//   - [MethodLister]: the kind can expand the method "*" into every method
//     it accepts;
//   - [MethodDescriber]: the kind documents its methods (every shipped
//     kind does: `ldpbench list kinds -v` and docs/kinds.md print them);
//   - [MethodLabeler]: the kind names its methods for a legend as its paper
//     does ("UWA", "Alg. 3 (Laplace)");
//   - [TrialKeyer]: the kind's trials are paired across some axes (common
//     random numbers): the runner seeds trial t from the kind's key instead
//     of the cell's;
//   - [MemoryEstimator]: the kind says how much memory a cell and a trial
//     hold, so that the runner refuses a run that cannot fit before it
//     allocates.
//
// Cancellation is not optional: Prepare and Trial receive the run's
// context, and a trial that can run long (an EM loop) watches it and
// returns its error, so that an interrupted run keeps its finished cells.
//
// A [Registry] lists the kinds a program knows; the command line's list is
// in cmd/ldpbench/kinds.go. The package depends on datasets and mechanisms
// only, so that kinds and the runner can both import it.
package experiment
