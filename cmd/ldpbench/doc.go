// Command ldpbench runs, re-draws and lists numerical local differential
// privacy experiments.
//
// Usage:
//
//	ldpbench list mechanisms|datasets|specs|kinds [-v]
//	ldpbench theory [--mech a,b] [--eps 0.5,1,2]
//	ldpbench run SPEC [--out DIR] [-j N] [--quick] [--seed S] [--fresh]
//	ldpbench plot SPEC|DIR [--out DIR]
//	ldpbench compare DIR [--spec SPEC]
//	ldpbench audit [--mech a,b] [--eps 0.5,1,4] [--out DIR] [--mc N] [--alpha A] [--strict]
//
// SPEC is a TOML file or the name of one in runs/. Results land in
// out/<spec name>/ unless --out says otherwise: rows.csv (one row per cell,
// trial and metric), summary.csv (mean, sd, se, 95% CI and theory per cell
// and metric), spec.toml (a copy) and the figures as SVG and PNG; a spec with
// [[claims]] also gets claims.csv, the paper's stated improvement ranges
// beside the measured ones, which compare recomputes from DIR alone. audit
// measures every registered mechanism's ε from its law (exact enumeration,
// exact densities, or a Monte Carlo lower bound) into out/audit/audit.csv
// and a figure of claimed against audited ε.
package main
