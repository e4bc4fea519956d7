package central

import (
	"github.com/ldpbench/ldpbench/centraldp"
	"github.com/ldpbench/ldpbench/estimators"
)

// computeTheory returns the cell's theory per metric, and the kurtosis of
// one run's error for sizing a batch (0 where unknown):
//
//   - lower-bound: w²σ²(ε)/n², exact (it is what the method reports);
//   - ldp: methods: (w/2)²·(1/n²)·Σᵢ Var(Y | xᵢ) over the values on
//     [−1, 1], exact (the collector's average is unbiased), κ = 3 (a mean
//     of n reports is nearly normal);
//   - central estimators: the leading-order MSE 𝒩·2w²/(n²ε²), 𝒩 from
//     central.LeadingConstant at α = (μ(D) − l)/w (halved at α = 0 or 1,
//     where clipping removes the outward half of the noise), where the
//     terms it neglects are bounded below the tolerances of validity.go;
//     none elsewhere: within a few noise scales √2/(nε) of an end (the
//     transition between the two constants, which no formula here
//     models), at small n (App. H), at small nε.
//
// Every metric's theory is the MSE's in that metric's normalisation.
func (r *cell) computeTheory(method string, opt centraldp.Options) (map[string]float64, float64) {
	d := r.data
	w := d.u - d.l
	n := float64(d.n)
	var mse, kurtosis float64
	switch r.fam {
	case familyBound:
		mse = w * w * centraldp.SigmaSq(r.eps) / (n * n)
	case familyLDP:
		mse = w * w / 4 * estimators.ExpectedMeanMSE(r.ldp, d.unit)
		kurtosis = 3
	default:
		boundary := d.atBoundary()
		em := newErrorModel(method, r.eps, d.truth, d.l, d.u, d.n)
		if !em.holds(boundary) {
			return nil, 0
		}
		c, err := centraldp.LeadingConstant(method, r.eps, d.alpha(), opt)
		if err != nil {
			return nil, 0
		}
		mse = c * 2 * w * w / (n * n * r.eps * r.eps)
		kurtosis = em.kurtosis(boundary)
	}
	out := make(map[string]float64, 3)
	for _, m := range (Kind{}).Metrics() {
		out[m] = r.normalise(m, mse)
	}
	return out, kurtosis
}
