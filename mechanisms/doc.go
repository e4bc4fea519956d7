// Package mechanisms holds the client side of local differential privacy:
// randomisers that turn one private number (or, for a [Vector], one point
// of [-1, 1]^d) into one ε-LDP report.
//
// Every mechanism implements [Mechanism] (single and batch perturbation with
// a caller-supplied math/rand/v2 generator). Optional capabilities are small
// interfaces that a mechanism implements when its paper gives them:
// [Variancer] (the closed-form variance that every error curve is checked
// against), [Discrete] (a finite output alphabet with exact probabilities),
// [Continuous] (a density, its CDF and exact bucket-given-bin probabilities,
// the transition matrices that EM-type estimators need), [Atoms] (the point
// masses of an otherwise continuous report), [Mixture] (the two components
// of a hybrid) and [Debiaser] (an affine de-biasing map, for Square Wave).
// [Unbiased] turns a mechanism with a closed-form variance into an
// [Estimate] on [-1, 1], and [NewDiscretized] rounds the bounded report of
// the piecewise family (or of a hybrid's continuous component) to a finite
// grid.
//
// Mechanisms are found by name through the registry ([New], [Names]); adding
// a mechanism is one file plus one line in registry.go, after which every
// experiment spec and the CLI can use it.
//
// Where a paper prints a formula wrongly the code implements the corrected one
// and cites the erratum id (E3.4, ...); docs/errata.md says what each id is
// about.
//
// This package imports nothing else of the project.
package mechanisms
