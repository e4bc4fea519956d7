// Package harness turns an experiment spec into result rows on disk. It
// knows no paper: what a cell measures is the business of its kind (an
// experiment.Kind, from a package under kinds/), which the caller passes in
// an experiment.Registry.
//
// A spec (a TOML file in runs/, or a Spec value) names the experiment kind,
// the datasets, the swept axes (method, ε, n and free parameters), the trials,
// the metrics and the figures. Run
//
//   - checks the spec against its kind (Spec.Check: the metrics), loads every
//     dataset, expands the axes into cells in a fixed plan order, and checks
//     every cell (its size against the dataset's rows, its parameters against
//     the kind's ParamSet, then the kind's own Check) before it writes
//     anything, so that bad input leaves no output behind;
//   - runs the (cell, trial) pairs on -j workers (errgroup), each trial with
//     its own generator seeded from SHA-256(master seed, experiment, trial
//     key, trial) (TrialRand; the trial key is the cell's key unless the kind
//     is an experiment.TrialKeyer), never from a worker index or a shared
//     stream;
//   - streams tidy rows to rows.csv in plan order, whole cells at a time, so
//     that the file is byte-identical at any -j, and a run killed at any
//     point resumes from the finished cells with the same bytes (resume.go);
//   - prints progress with an ETA, and writes summary.csv, a copy of the spec
//     and the figures atomically.
//
// Beyond one machine, Options.Shard runs one share of the cells, assigned
// by estimated cost (AssignShards: greedy longest first over the kind's
// experiment.CostEstimator), and Merge joins the shards' rows into the
// single run's files, byte for byte (shard.go, merge.go); a Slurm array or
// a Kubernetes Indexed Job runs the shards (deploy/). Budget estimates a
// spec's CPU and wall time from a short calibration (budget.go, `ldpbench
// plan`).
//
// The [[claims]] of a spec are plain data here (Claim); package compare
// validates and evaluates them.
package harness
