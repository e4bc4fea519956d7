// Package central holds kind central-mean: mean estimation under central
// differential privacy in the add-remove model (Kulesza, Suresh and Wang,
// "Mean estimation in the add-remove model of differential privacy",
// ICML 2024), beside the local mechanisms on the same data.
//
//	kind          type  serves
//	central-mean  Kind  Fig. 3a (runs/central-fig3a.toml: Algs 1–3 against ε),
//	                    Fig. 3b (central-fig3b.toml: against μ), Fig. 3c
//	                    (central-fig3c.toml: 2-D staircase and hourglass at
//	                    large ε), Fig. 4 (central-fig4.toml), App. H Figs 5a–d
//	                    (central-fig5.toml: |D| = 1…64), and central against
//	                    local error (central-vs-local.toml)
//
// Methods (described once in Methods: ldpbench list kinds -v,
// docs/kinds.md): the estimators of package centraldp, the lower bound and
// ldp:<mechanism>; "*" is the central estimators and the bound. The method
// name carries the privacy model and neighbour relation into rows.csv
// (Tags): central-* add-remove, central-swap-* swap (n public), lower-bound
// add-remove, ldp:* local.
//
// Data: the estimators see a dataset only through n and Σx, so the kind
// builds it deterministically with mean exactly μ (params.mu; the paper
// does not state its data, E1.14: params.data = extremes, the default, ⌊nα⌋
// values at hi, one value between, the rest at lo; or constant), on
// params.range (default 0:1), or takes the spec dataset's first n values
// (data = dataset). The error is always measured against the data's own
// mean μ(D), never a generating mean (E1.14).
//
// A trial is a batch: params.runs releases (default 100,000 for the central
// estimators, whose release is O(1) and allocation-free; 100 for ldp:
// methods, whose run is n reports), and its metrics are the batch's mean
// squared error, so that a spec's trials = 10 gives 10⁶ runs per point and
// a CI over 10 batch means without a row per run. params.target_rse raises
// the batch where the error is heavy-tailed (the staircases at large ε:
// kurtosis 500 for the hourglass at ε = 10), from the first-order
// kurtosis κ: runs ≥ (κ − 1)/target_rse².
//
// Metrics (package metrics describes each): mse (the batch's mean squared
// error, data units), mse_norm_sec6 (× n²ε²/(2w²), Section 6) and
// mse_norm_apph (× ε²/(2w²), App. H); "normalized by" means multiplied
// (E1.15). Theory: exact for lower-bound and ldp: methods; for the central
// estimators the leading-order constant of central.LeadingConstant
// (docs/central.md; halved at μ exactly lo or hi), stated only where bounds
// on the terms it neglects (clipping, the ratio's expansion in D/n) are
// below 0.1 % and 0.5 % of it (validity.go), and none elsewhere: near the
// ends of the range, at the small n of App. H, at small nε. docs/central.md
// has the paper's numbers beside ours.
package central
