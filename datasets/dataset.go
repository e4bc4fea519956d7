package datasets

import "math"

// Dataset is one attribute on the mechanism domain [-1, 1] together with its
// provenance.
type Dataset struct {
	// Name is the dataset's name in specs, result rows and the catalogue.
	Name string
	// Values are the normalised values, each in [-1, 1].
	Values []float64
	// Normalisation records how raw values were mapped onto [-1, 1].
	Normalisation Normalisation
	// Source says where the raw values came from, for example
	// "synthetic beta(a=3,b=2) n=1000000 seed=7" or
	// "file ../shared/data/magic04.data column 0 sep=\",\" rows 1-19020".
	Source string
	// Substitute marks a stand-in that is not the paper's own data.
	Substitute bool
}

// Len returns the number of values.
func (d *Dataset) Len() int { return len(d.Values) }

// Mean returns the dataset's own mean on [-1, 1], the ground truth of mean
// estimation. The sum is compensated (Neumaier), so the result is accurate to
// a few ulps even for 10^7 values. Mean of an empty dataset is NaN.
func (d *Dataset) Mean() float64 { return mean(d.Values) }

// Variance returns the population variance (divisor n) of the values, by a
// two-pass compensated sum. Variance of an empty dataset is NaN.
func (d *Dataset) Variance() float64 {
	n := len(d.Values)
	if n == 0 {
		return math.NaN()
	}
	m := mean(d.Values)
	var s, c float64
	for _, x := range d.Values {
		dx := x - m
		s, c = neumaierAdd(s, c, dx*dx)
	}
	return (s + c) / float64(n)
}

// mean returns the compensated mean of xs, NaN when xs is empty.
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return sum(xs) / float64(len(xs))
}

// sum returns the Neumaier-compensated sum of xs: the error is bounded by
// about 2 ulps of the result plus O(n·eps²)·Σ|x|, independent of n to first
// order.
func sum(xs []float64) float64 {
	var s, c float64
	for _, x := range xs {
		s, c = neumaierAdd(s, c, x)
	}
	return s + c
}

// neumaierAdd adds x to the running sum s with compensation c.
func neumaierAdd(s, c, x float64) (float64, float64) {
	t := s + x
	if math.Abs(s) >= math.Abs(x) {
		c += (s - t) + x
	} else {
		c += (x - t) + s
	}
	return t, c
}
