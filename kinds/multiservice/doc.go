// Package multiservice holds the experiment kinds of Du et al., "Privacy for
// Free: Leveraging Local Differential Privacy Perturbed Data from Multiple
// Services" (VLDB 2025): n users each report their value to m services, each
// through its own ε_j-LDP mechanism, and a collector estimates the mean (UA,
// UWA) or the distribution (ULE, EMS) from every report at no further
// privacy cost.
//
//	kind             type  serves
//	multiservice     Kind  Figs 3, 4, 5, 6a/b, 7, 8 and Table 1
//	                       (runs/multiservice-fig*.toml, -table1*.toml)
//	multiservice-md  MD    Figs 6c/d: d-dimensional rows, the users split
//	                       into d groups (runs/multiservice-fig6c/d.toml)
//
// The services, their budgets, the user groups and the estimators' settings
// are the cell's params (config.go, kindParams); the methods name the
// collector's estimator (kind.go). Both kinds pair their methods
// (experiment.TrialKeyer, pairing.go): every method of a cell estimates from
// bit-identical reports in trial t. The per-paper detail is in
// docs/multiservice.md.
package multiservice
