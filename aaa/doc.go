// Package aaa implements the AAA mechanism (Wei et al., PVLDB 2024) and
// NP-AAA (Baek & Chung, PVLDB 2025, Sec. 4.3) for mean estimation under
// ε-LDP, as docs/aaa.md describes them.
//
// Both are two-phase protocols. In phase 1 a fraction of the users report
// so that the collector can estimate x_P, the distribution of the data
// over the M = 17 grid points {-1, -0.875, …, 1}: AAA by generalised
// randomised response over the grid index of a stochastically rounded
// value, NP-AAA by HM-NP and the 2PEM estimator (d = 17). In phase 2 the
// collector solves a linear programme for the noise law P[i][·] that
// minimises the expected noise variance Σ_i x_P[i]·Σ_l a_l²·P[i][l]
// subject to zero noise mean, normalisation and the ε-LDP ratio rows, and
// every phase-2 user reports G_i + a with i its rounded grid point and
// a ~ P[i]. The estimate is the mean of the phase-2 reports (AAA) or of
// every report of both phases (NP-AAA, ERRATA E0.22).
//
// The programme (2,193 variables and 39,440 two-entry ratio rows at
// M = 17) is solved by package lp after an exact reformulation with one
// auxiliary variable per output position; every solution is checked
// (see [SolveNoise]) and cached per (ε, x_P) ([Cache]). docs/aaa.md
// describes the solver, the measured times and the errata (E0.22–E0.25).
package aaa
