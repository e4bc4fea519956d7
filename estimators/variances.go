package estimators

import "github.com/ldpbench/ldpbench/mechanisms"

// varianceChunk is how many inputs eachVariances asks a mechanism about at
// once: one request per chunk for an external program
// (mechanisms.VarianceBatcher), with scratch of 8·varianceChunk bytes per
// mechanism.
const varianceChunk = 1 << 14

// eachVariances calls f(lo, vars) for consecutive chunks xs[lo:lo+len(vars[0])]
// of xs, in order, where vars[j][k] = vs[j].Variance(xs[lo+k]) bit for bit,
// asked through mechanisms.Variances: in one call per mechanism and chunk
// for a mechanisms.VarianceBatcher rather than one call per input. A sum
// that f forms in the order of the inputs is the one of the point-wise
// loop. A failed batch is its error. With no mechanism f is not called.
func eachVariances(vs []mechanisms.Variancer, xs []float64, f func(lo int, vars [][]float64)) error {
	if len(xs) == 0 || len(vs) == 0 {
		return nil
	}
	c := min(len(xs), varianceChunk)
	buf := make([]float64, len(vs)*c)
	vars := make([][]float64, len(vs))
	for lo := 0; lo < len(xs); lo += c {
		chunk := xs[lo:min(lo+c, len(xs))]
		for j, v := range vs {
			vars[j] = buf[j*c : j*c+len(chunk)]
			if err := mechanisms.Variances(v, vars[j], chunk); err != nil {
				return err
			}
		}
		f(lo, vars)
	}
	return nil
}

// unbiaserVariancers returns the estimates of us[j] for j in js, whose
// variances are Unbiaser.Variance's.
func unbiaserVariancers(us []Unbiaser, js []int) []mechanisms.Variancer {
	vs := make([]mechanisms.Variancer, len(js))
	for t, j := range js {
		vs[t] = us[j].est
	}
	return vs
}
