package fl

import (
	"context"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// meanRun is a prepared cell of task mean (Zhao et al. Fig. 6): every user
// reports the numeric attributes of its row, on [−1, 1], through the
// method's d-dimensional mechanism at the numeric share of the budget,
// ε·d_n/d over the attributes (Zhao et al. Section VII-A: the categorical
// attributes spend the rest and are not scored); the collector averages
// every attribute.
type meanRun struct {
	v      mechanisms.Vector
	xs     []float64 // n rows of dn values
	dn     int
	scored []int // attributes in the MSE (Vehicle: the last 6, Section VII-A)
	truth  []float64
	theory float64
}

func prepareMean(c *experiment.CellSpec) (experiment.CellRun, error) {
	td, err := loadTable(c.Dataset.Name)
	if err != nil {
		return nil, err
	}
	tab := td.tab
	n := tab.Rows()
	dn := tab.Numeric
	attrs := tab.Numeric + tab.Categorical
	if tab.Y != nil {
		attrs++ // the response is an attribute too
		if td.yReg != nil {
			dn++
		}
	}
	xs := make([]float64, n*dn)
	for i := range n {
		copy(xs[i*dn:], td.xz[i*tab.P:i*tab.P+tab.Numeric])
		if dn > tab.Numeric {
			xs[i*dn+dn-1] = td.yReg[i]
		}
	}
	grid, err := gridOf(c.Params)
	if err != nil {
		return nil, err
	}
	v, err := mechanisms.NewVectorDiscretized(c.Method, dn, c.Eps*float64(dn)/float64(attrs), grid)
	if err != nil {
		return nil, err
	}
	r := &meanRun{v: v, xs: xs, dn: dn, truth: make([]float64, dn)}
	first := 0
	if c.Dataset.Name == "vehicle" {
		first = dn - 6
	}
	for j := first; j < dn; j++ {
		r.scored = append(r.scored, j)
	}
	fn := float64(n)
	for i := range n {
		for _, j := range r.scored {
			x := xs[i*dn+j]
			r.truth[j] += x / fn
			r.theory += v.CoordinateVariance(x)
		}
	}
	r.theory /= fn * fn * float64(len(r.scored))
	return r, nil
}

// Trial simulates every user once; the scratch is two d-vectors.
func (r *meanRun) Trial(_ context.Context, _ int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	dn := r.dn
	buf := make([]float64, 2*dn)
	sums, dst := buf[:dn], buf[dn:]
	for i := 0; i < len(r.xs); i += dn {
		if err := r.v.PerturbVector(dst, r.xs[i:i+dn], rng); err != nil {
			return out, err
		}
		for j, y := range dst {
			sums[j] += y
		}
	}
	n := float64(len(r.xs) / dn)
	var sq float64
	for _, j := range r.scored {
		e := sums[j]/n - r.truth[j]
		sq += e * e
	}
	return append(out, experiment.Measurement{Metric: "mse", Value: sq / float64(len(r.scored))}), nil
}

// Theory implements experiment.CellRun: the exact MSE,
// (1/|S|)·Σ_{j∈S} (1/n²)·Σ_i Var[Y_ij | x_ij].
func (r *meanRun) Theory(metric string) (float64, bool) { return r.theory, metric == "mse" }
