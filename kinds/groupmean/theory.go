package groupmean

import (
	"math"

	"github.com/ldpbench/ldpbench/estimators"
)

// maxTheoryCV is the largest coefficient of variation of a count estimate
// n̂_g at which the kind states a delta-method theory (derived; the paper
// has none): beyond it the ratio m̂_g = ŝ_g/n̂_g is heavy-tailed, the delta
// method underestimates its error, and a theory line would be drawn where
// no theory holds. The group error ratio's theory is exact and always
// given.
const maxTheoryCV = 0.15

// computeTheory returns the cell's theory per metric:
//
//   - group_error_ratio: 1 − a, exact (the group errors are Binomial(n, 1 − a));
//   - scaled_abs_error: the mean over the reported groups of
//     √(2/π)·√Var(m̂_g)/2, Var(m̂_g) by the delta method on [−1, 1];
//   - scaled_abs_error_sq: the mean over the reported groups of Var(m̂_g)/4;
//   - mean_diff and group_mean: the true m₀ − m₁ and m_g (the estimates'
//     bias is of relative order CV²);
//
// the last three only where every group involved has CV(n̂_g) ≤ maxTheoryCV.
// order_correct has none: m̂₀ and m̂₁ are correlated through the group
// reports (for d = 2, C₀ + C₁ = n), and a normal approximation that
// ignored it would be a guess.
func (r *cell) computeTheory() map[string]float64 {
	d := r.data
	a, q := r.mech.Keep()
	out := map[string]float64{"group_error_ratio": 1 - a}
	theories := make([]estimators.GroupTheory, d.d)
	ok := make([]bool, d.d)
	for g := range d.d {
		if d.sizes[g] == 0 {
			continue
		}
		th, err := estimators.NewGroupTheory(len(d.unit), a, q, r.mech.Scale(), d.member[g], r.mech.SecondMoment, r.mech.NeutralSecondMoment())
		if err != nil {
			continue
		}
		theories[g], ok[g] = th, th.CVCount() <= maxTheoryCV
	}
	groupsOK := func(gs ...int) bool {
		for _, g := range gs {
			if !ok[g] {
				return false
			}
		}
		return true
	}
	var reported []int
	for g := range d.d {
		if d.sizes[g] > 0 && (r.which < 0 || g == r.which) {
			reported = append(reported, g)
		}
	}
	if len(reported) > 0 && groupsOK(reported...) {
		var abs, sq float64
		for _, g := range reported {
			abs += theories[g].MeanAbsScaledError()
			sq += theories[g].VarMean() / 4
		}
		out["scaled_abs_error"] = abs / float64(len(reported))
		out["scaled_abs_error_sq"] = sq / float64(len(reported))
	}
	if d.d >= 2 && groupsOK(0, 1) {
		out["mean_diff"] = d.means[0] - d.means[1]
	}
	if r.which >= 0 && groupsOK(r.which) {
		out["group_mean"] = d.means[r.which]
	}
	for k, v := range out {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			delete(out, k)
		}
	}
	return out
}
