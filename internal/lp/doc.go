// Package lp solves sparse linear programmes
//
//	minimise cᵀx  subject to  A·x = b,  G·x ≤ h,  x ≥ 0
//
// by a primal–dual interior-point method (Mehrotra's predictor–corrector,
// infeasible start, separate primal and dual step lengths), and certifies
// every answer: [Check] recomputes from the primal–dual pair alone, on
// the problem as given, the largest violation of each kind of
// constraint, the dual residual c − Aᵀy + Gᵀz − w with z, w ≥ 0, and the
// relative duality gap, and [Solve] returns an error exactly when one of
// them exceeds its tolerance.
//
// What a certificate that passes with the default tolerances promises:
//
//   - every row i of A·x = b and G·x ≤ h holds to within 1e-9 of its
//     scale, max_j |a_ij|·max(1, |x_j|): the row is judged as if divided
//     by its largest coefficient, so multiplying a row by a constant
//     changes nothing, and while x ≤ 1 the point lies within 1e-9, in
//     every coordinate, of each row's hyperplane or half-space. The
//     scale is the precision double arithmetic can give (evaluating a
//     row rounds by about 1e-16·(row length)·scale); an absolute 1e-9
//     would be out of reach for a row such as 1e6·x0 + x1 = 2e6;
//   - x, z and w are ≥ -1e-9 (the interior point keeps them > 0);
//   - the dual residual ‖c − Aᵀy + Gᵀz − w‖∞ is at most 1e-8·(1 + ‖c‖∞),
//     and |cᵀx − (bᵀy − hᵀz)| at most 1e-8·(1 + |cᵀx|). By weak duality
//     with the residual r carried, every feasible x' has
//     cᵀx' ≥ bᵀy − hᵀz − ‖r‖₁·‖x'‖∞, so cᵀx is optimal to within the gap
//     and that term; the complementarity xᵀw + zᵀ(h − G·x) equals the
//     gap less rᵀx + yᵀ(A·x − b).
//
// The iterations run on an equilibrated copy of the problem: a row whose
// largest coefficient lies outside [2⁻¹⁰, 2¹⁰] is multiplied by the power
// of two that brings it into [½, 1) and its multiplier rescaled
// afterwards; a programme with no such row is solved exactly as written.
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
// residual can grow again once the gap is below 1e-10, or the Newton
// direction overflows); Solve keeps the best iterate that passes the
// certificate and returns it when the iterations end on a loss of
// precision, or the last iterate if that one passes.
package lp
