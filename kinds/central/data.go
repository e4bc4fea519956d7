package central

import (
	"fmt"
	"math"

	"github.com/ldpbench/ldpbench/experiment"
)

// Data constructions (params.data).
const (
	// dataExtremes: ⌊nα⌋ values at u, one at l + (nα − ⌊nα⌋)·w, the rest
	// at l (α = (μ − l)/w): the values of a Bernoulli draw, with the mean
	// exactly μ (the paper does not state its data, E1.14). The default.
	dataExtremes = "extremes"
	// dataConstant: every value equal to μ.
	dataConstant = "constant"
	// dataDataset: the first n values of the spec's dataset (on [−1, 1])
	// mapped affinely onto [l, u]: an i.i.d. sample, whose mean μ(D)
	// differs from its law's.
	dataDataset = "dataset"
)

// data is one cell's dataset through what the estimators see: its size,
// its sum of values clamped to [l, u], and its mean μ(D), the truth.
// unit holds the values on [−1, 1] for the ldp: methods (nil for the
// others: the central estimators need only n and the sum).
type data struct {
	l, u  float64
	n     int
	off   float64 // Σ(x − l)/w: the data's position above l, in counts
	sum   float64
	truth float64 // μ(D) = sum/n, in data units
	unit  []float64
}

// dataSpec is a cell's data as checked: how they are built and at which
// mean and range.
type dataSpec struct {
	how    string
	mu     float64 // synthetic data
	l, u   float64
	values []float64 // dataDataset: the dataset's first n values
}

// parseData checks the data parameters of a cell.
func parseData(c *experiment.CellSpec) (dataSpec, error) {
	p := c.Params
	d := dataSpec{how: p.String("data", dataExtremes), l: 0, u: 1}
	if p.Has("range") {
		var err error
		if d.l, d.u, err = experiment.ParseRange(p.String("range", "")); err != nil {
			return dataSpec{}, params.Errorf("range", "%v", err)
		}
	}
	if d.how == dataDataset {
		if p.Has("mu") {
			return dataSpec{}, params.Errorf("mu", "sets the mean of synthetic data; with data = dataset the mean is the dataset's own")
		}
		if err := c.Dataset.Ungrouped(Kind{}.Name()); err != nil {
			return dataSpec{}, err
		}
		if dim := c.Dataset.Dim(); dim != 1 {
			return dataSpec{}, fmt.Errorf("dataset %s has %d attributes per row; kind %s takes one", c.Dataset.Name, dim, Kind{}.Name())
		}
		if len(c.Dataset.Values) < c.N {
			return dataSpec{}, fmt.Errorf("dataset %s has %d values, fewer than n = %d", c.Dataset.Name, len(c.Dataset.Values), c.N)
		}
		d.values = c.Dataset.Values[:c.N]
		return d, nil
	}
	if !p.Has("mu") {
		return dataSpec{}, params.Errorf("mu", "is required with data = %s (the data mean, in [lo, hi] of range)", d.how)
	}
	d.mu = p.Float("mu", 0)
	if !(d.mu >= d.l && d.mu <= d.u) {
		return dataSpec{}, params.Errorf("mu", "%v is outside the range [%v, %v]", d.mu, d.l, d.u)
	}
	return d, nil
}

// build makes the data of n values; withUnit also materialises the values
// on [−1, 1] (for an ldp: method).
func (d dataSpec) build(n int, withUnit bool) *data {
	w := d.u - d.l
	out := &data{l: d.l, u: d.u, n: n}
	fn := float64(n)
	// off is Σ(x − l)/w: the sum in units of w above l, which the
	// estimators recover as (sum − n·l)/w.
	var off float64
	switch d.how {
	case dataExtremes:
		alpha := (d.mu - d.l) / w
		k := math.Min(math.Floor(fn*alpha), fn)
		frac := fn*alpha - k
		if k == fn {
			frac = 0
		}
		off = k + frac
		if withUnit {
			out.unit = make([]float64, n)
			for i := range out.unit {
				switch {
				case float64(i) < k:
					out.unit[i] = 1
				case float64(i) == k && frac > 0:
					out.unit[i] = 2*frac - 1
				default:
					out.unit[i] = -1
				}
			}
		}
	case dataConstant:
		alpha := (d.mu - d.l) / w
		off = fn * alpha
		if withUnit {
			out.unit = make([]float64, n)
			for i := range out.unit {
				out.unit[i] = 2*alpha - 1
			}
		}
	case dataDataset:
		if withUnit {
			out.unit = make([]float64, n)
		}
		for i, v := range d.values {
			v = math.Max(-1, math.Min(1, v)) // the estimators' inputs are clamped to [l, u]
			off += (v + 1) / 2
			if withUnit {
				out.unit[i] = v
			}
		}
	}
	out.off = off
	out.sum = fn*d.l + off*w
	out.truth = d.l + off*w/fn
	return out
}

// alpha returns (μ(D) − l)/w, the truth's position in the range.
func (d *data) alpha() float64 { return d.off / float64(d.n) }

// atBoundary reports whether μ(D) is exactly l or u (every value at the
// same end), where clipping halves the leading-order constants.
func (d *data) atBoundary() bool { return d.off == 0 || d.off == float64(d.n) }
