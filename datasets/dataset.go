package datasets

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// Dataset is one attribute, or rows of Dims attributes, on the mechanism
// domain [-1, 1] together with its provenance; or, for a grouped dataset
// (Groups not nil), one raw attribute with each user's group.
type Dataset struct {
	// Name is the dataset's name in specs, result rows and the catalogue.
	Name string
	// Values are the normalised values, each in [-1, 1]: for Dims > 1, row i
	// is Values[i·Dims : (i+1)·Dims] (row-major). In a grouped dataset they
	// are the raw values, not normalised: the truth of group means is
	// computed on the raw data, and Grouped scales them with the declared
	// fixed range (Raab et al., App. C).
	Values []float64
	// Groups, for a grouped dataset (a file spec with group_column, or a
	// stand-in), holds each row's group, an index into GroupLabels; nil
	// otherwise. See Grouped.
	Groups []int32
	// GroupLabels names the groups, in sorted label order (numerically when
	// every label is a number, else by bytes: MIMIC's categories
	// alphabetically, as Raab et al.'s Table 7); nil when ungrouped.
	GroupLabels []string
	// Dims is the number of attributes per row; 0 means 1.
	Dims int
	// Normalisation records how raw values were mapped onto [-1, 1]; for a
	// grouped dataset, the fixed range [Lo, Hi] that Grouped applies (not
	// yet applied to Values), Clipped counting the values outside it.
	Normalisation Normalisation
	// Source says where the raw values came from, for example
	// "synthetic beta(a=3,b=2) n=1000000 seed=7" or
	// "file ../shared/data/magic04.data column 0 sep=\",\" rows 1-19020".
	Source string
	// Substitute marks a stand-in that is not the paper's own data.
	Substitute bool
	// File, for a dataset read from a file, names the file, its SHA-256
	// and what the loader did with its rows (the record of a run); nil for
	// synthetic data and stand-ins.
	File *FileProvenance
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
	means := make([]float64, k)
	col := make([]float64, rows)
	for j := range means {
		for i := range col {
			col[i] = d.Values[i*k+j]
		}
		means[j] = mean(col)
	}
	return means
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
	sq := make([]float64, n)
	for i, x := range d.Values {
		sq[i] = (x - m) * (x - m)
	}
	return floats.SumCompensated(sq) / float64(n)
}

// mean returns the compensated mean of xs, NaN when xs is empty: the one
// sum of every ground truth is gonum's floats.SumCompensated (Neumaier's
// algorithm, whose error is about 2 ulps of the result plus
// O(n·eps²)·Σ|x|, independent of n to first order).
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return floats.SumCompensated(xs) / float64(len(xs))
}
