package metrics

import "math"

// SquaredError returns (est − truth)², the per-trial value of the metric
// "mse". Its mean over trials is the mean squared error; the RMSE is the
// square root of that mean, formed at summary time (see RMSE), not a mean of
// per-trial values.
func SquaredError(est, truth float64) float64 {
	d := est - truth
	return d * d
}

// AbsError returns |est − truth|, the per-trial value of the metric "abs".
// Its mean over trials is the mean absolute error, which is not the RMSE.
func AbsError(est, truth float64) float64 {
	return math.Abs(est - truth)
}

// ScaledAbsError returns |est − truth| / scale, the per-trial value of the
// metric "scaled-abs". The scale is chosen by the experiment and recorded with
// it; the two conventions in use are
//
//   - the width of the data domain, hi − lo (2 for data on [−1, 1]), which
//     makes errors comparable across datasets rescaled to different domains;
//   - |truth|, the relative error, which is undefined when the truth is 0.
//
// A scale that is not positive and finite (including |truth| = 0) gives NaN.
func ScaledAbsError(est, truth, scale float64) float64 {
	if !(scale > 0) || math.IsInf(scale, 1) {
		return math.NaN()
	}
	return math.Abs(est-truth) / scale
}

// Accuracy returns correct/total, the per-trial value of the metric
// "accuracy" (the fraction of test examples a trained model classifies
// correctly). It returns NaN unless 0 ≤ correct ≤ total and total > 0.
func Accuracy(correct, total int) float64 {
	if total <= 0 || correct < 0 || correct > total {
		return math.NaN()
	}
	return float64(correct) / float64(total)
}

// RMSE returns the square root of the mean of squaredErrors: the root mean
// squared error formed at summary time from the per-trial values of "mse",
// "var-mse" or "quantile-mse". It returns NaN for an empty slice and
// propagates NaN entries.
func RMSE(squaredErrors []float64) float64 {
	if len(squaredErrors) == 0 {
		return math.NaN()
	}
	var s float64
	for _, v := range squaredErrors {
		s += v
	}
	return math.Sqrt(s / float64(len(squaredErrors)))
}
