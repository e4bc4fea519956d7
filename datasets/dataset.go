package datasets

import "math"

// Dataset is one attribute, or rows of Dims attributes, on the mechanism
// domain [-1, 1] together with its provenance.
type Dataset struct {
	// Name is the dataset's name in specs, result rows and the catalogue.
	Name string
	// Values are the normalised values, each in [-1, 1]: for Dims > 1, row i
	// is Values[i·Dims : (i+1)·Dims] (row-major).
	Values []float64
	// Dims is the number of attributes per row; 0 means 1.
	Dims int
	// Normalisation records how raw values were mapped onto [-1, 1].
	Normalisation Normalisation
	// Source says where the raw values came from, for example
	// "synthetic beta(a=3,b=2) n=1000000 seed=7" or
	// "file ../shared/data/magic04.data column 0 sep=\",\" rows 1-19020".
	Source string
	// Substitute marks a stand-in that is not the paper's own data.
	Substitute bool
}

// Len returns the number of values (rows × Dim()).
func (d *Dataset) Len() int { return len(d.Values) }

// Dim returns the number of attributes per row, at least 1.
func (d *Dataset) Dim() int { return max(d.Dims, 1) }

// Rows returns the number of rows, Len()/Dim().
func (d *Dataset) Rows() int { return len(d.Values) / d.Dim() }

// Row returns row i (a sub-slice of Values, not a copy).
func (d *Dataset) Row(i int) []float64 {
	k := d.Dim()
	return d.Values[i*k : (i+1)*k : (i+1)*k]
}

// AttributeMeans returns the compensated mean of every attribute over the
// first rows rows (all rows if rows ≤ 0 or rows > Rows()): the ground
// truth of multi-dimensional mean estimation. Every mean is NaN if there
// are no rows.
func (d *Dataset) AttributeMeans(rows int) []float64 {
	k := d.Dim()
	if rows <= 0 || rows > d.Rows() {
		rows = d.Rows()
	}
	s := make([]float64, k)
	c := make([]float64, k)
	for i := range rows {
		for j, x := range d.Values[i*k : (i+1)*k] {
			s[j], c[j] = neumaierAdd(s[j], c[j], x)
		}
	}
	for j := range s {
		s[j] = (s[j] + c[j]) / float64(rows)
	}
	return s
}

// Mean returns the dataset's own mean on [-1, 1], the ground truth of mean
// estimation (over all values; for Dims > 1 see AttributeMeans). The sum is
// compensated (Neumaier), so the result is accurate to a few ulps even for
// 10^7 values. Mean of an empty dataset is NaN.
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
