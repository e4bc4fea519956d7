// Command ldpbench runs, re-draws and checks experiments of numerical local
// differential privacy.
//
// Usage:
//
//	ldpbench <command> [flags] [arguments]
//
// The commands are:
//
//	run      run specs (a TOML file, or a name in runs/ or among the shipped specs) into out/<name>/
//	plot     re-draw a finished run's figures and tables from its summary
//	plan     estimate a spec's trials, CPU and wall time, and the shards that bring it under an hour
//	merge    join the directories of 'run --shard i/N' into what one run would have written
//	regress  check a finished run against its theory and its baseline (exit 1 if a cell moved)
//	compare  recompute a finished run's claims.csv, the paper's stated ranges beside the measured ones
//	times    print what finished runs cost: their wall and CPU time, as each recorded it (times.csv); --iterations: their EM iterations, the record plan reads
//	report   write a static HTML page per finished run and an index of them (default: every run under out/)
//	audit    measure each mechanism's ε from its law (exit 1 under --strict if one exceeds its claim)
//	theory   print each mechanism's worst-case variance at each ε, as CSV
//	list     list the registered mechanisms, the datasets, the specs or the experiment kinds
//	version  print the module version, VCS revision, modified flag and Go version
//	help     print this usage, or a command's usage and flags
//
// Run 'ldpbench help <command>' for a command's usage and flags.
//
// Flags may be written -name or --name, before, between or after the
// arguments, and mean the same in every command: --seed is an unsigned
// integer, --quick and --full pick the spec's scale (full, the paper's, by
// default), --eps is a comma-separated list of budgets.
//
// SPEC is a TOML file, or the name of a spec in runs/ (of the working
// directory, else of the module root), else of one of the shipped specs,
// which the binary carries embedded: after go install, 'ldpbench run
// mean-synthetic --quick' works in any directory. Results land in
// out/<spec name>/ unless --out says otherwise: rows.csv (one row per cell,
// trial and metric), summary.csv (mean, sd, se, 95% CI and theory per cell
// and metric), spec.toml (a copy), the figures as SVG and PNG, the tables,
// and for a spec with [[claims]] claims.csv. Several SPECs (make figures)
// print one line each and end with out/index.md.
//
// Exit status, for every command: 0 when it did what was asked; 1 when a
// check ran and found something (regress: a cell moved; audit --strict: a
// violation); 2 for a usage error or a failure to run.
package main
