// Package mechanisms holds the client side of local differential privacy:
// randomisers that turn one private number into one ε-LDP report.
//
// Every mechanism implements [Mechanism] (single and batch perturbation with
// a caller-supplied math/rand/v2 generator). Optional capabilities are small
// interfaces that a mechanism implements when its paper gives them:
// [Variancer] (the closed-form variance that every error curve is checked
// against), [Discrete] (a finite output alphabet with exact probabilities),
// [Continuous] (a density, its CDF and exact bucket-given-bin probabilities,
// the transition matrices that EM-type estimators need) and [Debiaser]
// (an affine de-biasing map, for Square Wave).
//
// Mechanisms are found by name through the registry ([New], [Names]); adding
// a mechanism is one file plus one line in registry.go, after which every
// experiment spec and the CLI can use it.
//
// Where a paper prints a formula wrongly the code implements the corrected one
// and cites the erratum id (E3.4, ...) of ../shared/papers/ERRATA.md.
//
// This package imports nothing else of the project.
package mechanisms
