// Package emkernel is the EM behind estimators.ULE, EMS and EMSHistogram
// (Du et al., "Privacy for Free", Section 5, Algorithm 3): the discretised
// model, the EM loop over it, and the kernels that bring an iteration down
// to a few dozen operations per distinct bucket vector.
//
// By file:
//
//   - matrix.go, profile.go: a service's transition matrix (Matrix: T
//     from the mechanism, and the bucketing of its reports) and its rows
//     compressed for the fast route (constant and explicit pieces, the
//     band form);
//   - ule.go: the entry points Linked and Histogram; the bucketing and
//     deduplication of the users into distinct bucket vectors with counts;
//     the dense route, the reference of the fast one;
//   - em.go: the EM/EMS loop of the authors' code and its stopping rules,
//     the smoothing, and the slots that make every result independent of
//     the number of workers;
//   - ule_fast.go: the fast route's merged, compiled and grouped kernels;
//     ule_zone.go its zone programs (three or more PM/SW services);
//     ule_pair.go the pair kernel ([SR, PM, SW]); ule_grid.go its grid
//     form, in AVX-512 and AVX2 assembly in ule_grid_amd64.s, with a Go
//     reference of the same bits (ule_grid_other.go, and the purego build
//     tag);
//     ule_llsum.go the log-likelihood sums.
//
// It is internal because none of it is a choice a user of estimators
// makes: the routes and kernels are ways of computing one result (tested
// against the dense route to rounding), and their knobs (a forced kernel,
// the slot counts, the AVX-512 switch) exist for this package's tests and
// benchmarks. Keeping them here keeps go doc ./estimators to the
// functions a user calls, and leaves the kernels free to change without
// changing that API. The tests of the kernels and the Table 1 benchmarks
// (ule_bench_test.go) are here, as they reach into the kernels.
//
// The contract with estimators: estimators checks the inputs (report
// lengths, equal bins, counts) and the options, and builds each Matrix
// through estimators.NewService; this package trusts them, fills in the defaults of
// Options (those estimators.EMOptions documents), and words its errors as
// estimators' ("estimators: ..."), since they reach the user through it.
// The same inputs give the same bits whatever the number of workers and
// whichever grid kernel (AVX-512, AVX2 or Go) runs.
package emkernel
