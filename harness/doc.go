// Package harness turns an experiment spec into results on disk.
//
// A spec (a TOML file in runs/, or a Spec value) names the experiment kind,
// the datasets, the swept axes (method, ε, n and free parameters), the trials,
// the metrics and the figures. The runner
//
//   - expands the axes into cells in a fixed plan order;
//   - loads every dataset and checks every cell before it writes anything, so
//     that bad input leaves no output behind;
//   - runs the (cell, trial) pairs on -j workers (errgroup), each trial with
//     its own generator seeded from SHA-256(master seed, experiment, cell key,
//     trial), never from a worker index or a shared stream;
//   - streams tidy rows to rows.csv in plan order, whole cells at a time, so
//     that the file is byte-identical at any -j, and a run killed at any
//     point resumes from the finished cells with the same bytes;
//   - writes summary.csv and the figures atomically.
//
// Experiment kinds implement [Kind]: the runner knows nothing of mean
// estimation, histograms or training loops, only of cells that run trials
// and return measurements. The mean-estimation kind lives in mean.go.
package harness
