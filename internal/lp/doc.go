// Package lp solves sparse linear programmes
//
//	minimise cᵀx  subject to  A·x = b,  G·x ≤ h,  x ≥ 0
//
// by a primal–dual interior-point method (Mehrotra's predictor–corrector,
// infeasible start, separate primal and dual step lengths), and certifies
// every answer: [Check] recomputes from the primal–dual pair alone the
// largest violation of each kind of constraint, the dual residual
// c − Aᵀy + Gᵀz − w with z, w ≥ 0, and the relative duality gap, and
// [Solve] returns an error unless all are within the tolerances
// (feasibility 1e-9, dual residual and gap 1e-8 by default).
//
// It was written for the noise programme of the AAA mechanism (package
// aaa), whose dense form gonum's optimize/convex/lp cannot hold (39,440
// inequality rows by 2,193 variables, about 13.8 GB once put in standard
// form with slacks), and it is fast where that programme's structure is
// found in general: the Newton system of each iteration,
//
//	(Gᵀ·diag(z/s)·G + diag(w/x))·dx − Aᵀ·dy = r1,   A·dx = rp,
//
// is solved by splitting the variables into a set D, no two of which
// share a row of G, and the rest B. The block of D is then diagonal and is
// eliminated by division (with the Lagrange identity in place of the
// subtraction h·hᵀ/H that would cancel to many digits near the optimum),
// leaving a dense |B|×|B| Cholesky factorisation and a dense one over the
// rows of A, each refined twice against the sparse residual. The cost of
// an iteration is O(nnz(G)·(rows per D variable)·(B entries per row)² +
// |B|³ + rows(A)³): small when the coupling variables and the equality
// rows are few, dense (and slow) otherwise. The partition is chosen
// greedily (variables with the fewest rows of G first).
//
// Degenerate programmes lose precision in the last iterations (the dual
// residual can grow again once the gap is below 1e-10); Solve keeps the
// best iterate that passes the certificate and returns it when the
// iterations end on a loss of precision.
package lp
