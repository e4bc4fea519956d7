package mechtest

import (
	"fmt"
	"math"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Checks for mechanisms whose report mixes point masses and a density
// ([mechanisms.Atoms], e.g. the hybrids HM and HM-TP, which are also
// [mechanisms.Mixture]s). For them [DensityLDP] sees only the continuous
// part and [BucketsMatchDensity] cannot hold (a bucket holding an atom has
// more probability than the integral of the density); use [MixedLDP] and
// [BucketsMatchDensity] on [ContinuousPart] instead, and [MixtureMatches]
// to tie the mixture to its components. [BucketsSumToOne],
// [CDFConsistent] and [ContinuousFit] apply to such a mechanism as it is,
// since its CDF and BucketGivenBin include the atoms.

// MixedMechanism is a continuous mechanism with point masses.
type MixedMechanism interface {
	mechanisms.Continuous
	mechanisms.Atoms
}

// atomicPart is the point masses of a mechanism as a Discrete.
type atomicPart struct{ m mechanisms.Atoms }

func (a atomicPart) Outputs() []float64                     { return a.m.AtomOutputs() }
func (a atomicPart) Probabilities(x float64, dst []float64) { a.m.AtomProbabilities(x, dst) }

// AtomicPart returns the point masses of m as a [mechanisms.Discrete] whose
// probabilities sum to the atoms' total mass, not to 1: use it with
// [DiscreteRatio] and [DiscreteLDP], not with [ProbabilitiesSumToOne].
func AtomicPart(m mechanisms.Atoms) mechanisms.Discrete { return atomicPart{m} }

// MixedRatio returns the privacy ratio of a mechanism with point masses:
// the larger of [DiscreteRatio] of its atoms over xs and [DensityRatio] of
// its continuous part over xs and ys. The atomic and the continuous part
// are mutually singular and the atom positions do not depend on x, so
// sup_S P[Y ∈ S|x]/P[Y ∈ S|x′] is the larger of the two (choose S inside
// the atoms, or S without them).
func MixedRatio(m MixedMechanism, xs, ys []float64) float64 {
	ra := DiscreteRatio(AtomicPart(m), xs)
	rd := DensityRatio(m, xs, ys)
	if math.IsNaN(ra) || math.IsNaN(rd) {
		return math.NaN()
	}
	return max(ra, rd)
}

// MixedLDP checks that MixedRatio(m, xs, ys) ≤ e^ε(1+tol).
func MixedLDP(m MixedMechanism, xs, ys []float64, eps, tol float64) error {
	return checkRatio("atom and density", m, MixedRatio(m, xs, ys), eps, tol, false)
}

// MixedLDPTight is [MixedLDP] that also requires the bound to be attained,
// ratio ≥ e^ε(1-tol).
func MixedLDPTight(m MixedMechanism, xs, ys []float64, eps, tol float64) error {
	return checkRatio("atom and density", m, MixedRatio(m, xs, ys), eps, tol, true)
}

// continuousPart is p times a continuous component, on a given range.
type continuousPart struct {
	c      mechanisms.Continuous
	p      float64
	lo, hi float64
}

func (c continuousPart) OutputRange() (lo, hi float64) { return c.lo, c.hi }
func (c continuousPart) Density(y, x float64) float64  { return c.p * c.c.Density(y, x) }
func (c continuousPart) CDF(y, x float64) float64      { return c.p * c.c.CDF(y, x) }
func (c continuousPart) BucketGivenBin(ylo, yhi, xlo, xhi float64) float64 {
	return c.p * c.c.BucketGivenBin(ylo, yhi, xlo, xhi)
}

// ContinuousPart returns the continuous part of the mixture m, built from
// its components alone: p times the continuous component's density, CDF
// and BucketGivenBin, on m's output range when m is
// [mechanisms.Continuous] (else the component's). Its probabilities sum to
// p, not to 1, so use it with [BucketsMatchDensity] and [DensityLDP], not
// with [BucketsSumToOne]. It is an error if the continuous component is
// not [mechanisms.Continuous].
func ContinuousPart(m mechanisms.Mixture) (mechanisms.Continuous, error) {
	cm, _, p := m.Components()
	c, ok := cm.(mechanisms.Continuous)
	if !ok {
		return nil, fmt.Errorf("%s: the continuous component %s is not Continuous", name(m), cm.Name())
	}
	lo, hi := c.OutputRange()
	if mc, ok := m.(mechanisms.Continuous); ok {
		lo, hi = mc.OutputRange()
	}
	return continuousPart{c: c, p: p, lo: lo, hi: hi}, nil
}

// MixtureMatches checks a mixture with point masses against its
// components, which must be a [mechanisms.Continuous] and a
// [mechanisms.Discrete] mechanism at the mixture's budget on [-1, 1], with
// 0 ≤ p ≤ 1:
//
//   - AtomOutputs are the discrete component's outputs, strictly inside
//     the output range, which also covers the continuous component's;
//   - AtomProbabilities(x) = (1-p)·P_d(x) and Density(y, x) = p·f_c(y|x)
//     at every x in xs and y in ys;
//   - BucketGivenBin of every bucket (yEdges[j], yEdges[j+1]] and every
//     input bin of xEdges (and edge as a point) equals
//     p·(the component's BucketGivenBin) + (1-p)·(the bin average of the
//     discrete probabilities of the outputs in the bucket), the average
//     computed independently by adaptive quadrature ([Integrate]).
//
// All comparisons are absolute, within tol.
func MixtureMatches(m mechanisms.Mixture, xs, ys, yEdges, xEdges []float64, tol float64) error {
	mm, ok := m.(MixedMechanism)
	if !ok {
		return fmt.Errorf("%s: not Continuous with Atoms", name(m))
	}
	cm, dm, p := m.Components()
	c, ok1 := cm.(mechanisms.Continuous)
	d, ok2 := dm.(mechanisms.Discrete)
	if !ok1 || !ok2 {
		return fmt.Errorf("%s: components %s and %s are not Continuous and Discrete", name(m), cm.Name(), dm.Name())
	}
	if !(p >= 0 && p <= 1) {
		return fmt.Errorf("%s: weight of the continuous component %v is not a probability", name(m), p)
	}
	for _, k := range []mechanisms.Mechanism{cm, dm} {
		if k.Epsilon() != m.Epsilon() {
			return fmt.Errorf("%s: component %s has ε = %v", name(m), k.Name(), k.Epsilon())
		}
		if lo, hi := k.Domain(); lo != -1 || hi != 1 {
			return fmt.Errorf("%s: component %s has domain [%v, %v]", name(m), k.Name(), lo, hi)
		}
	}
	lo, hi := mm.OutputRange()
	if clo, chi := c.OutputRange(); clo < lo || chi > hi {
		return fmt.Errorf("%s: output range [%v, %v] does not cover the continuous component's [%v, %v]", name(m), lo, hi, clo, chi)
	}
	atoms, outs := mm.AtomOutputs(), d.Outputs()
	if len(atoms) != len(outs) {
		return fmt.Errorf("%s: atoms %v, discrete outputs %v", name(m), atoms, outs)
	}
	for i := range atoms {
		if atoms[i] != outs[i] || !(atoms[i] > lo && atoms[i] < hi) {
			return fmt.Errorf("%s: atoms %v, discrete outputs %v, output range [%v, %v]", name(m), atoms, outs, lo, hi)
		}
	}
	pa := make([]float64, len(outs))
	pd := make([]float64, len(outs))
	for _, x := range xs {
		mm.AtomProbabilities(x, pa)
		d.Probabilities(x, pd)
		for i := range pa {
			if want := (1 - p) * pd[i]; !(math.Abs(pa[i]-want) <= tol) {
				return fmt.Errorf("%s: P[Y = %v | x = %v] = %v, want (1-p)·%v = %v", name(m), outs[i], x, pa[i], pd[i], want)
			}
		}
		for _, y := range ys {
			if got, want := mm.Density(y, x), p*c.Density(y, x); !(math.Abs(got-want) <= tol*max(1, math.Abs(want))) {
				return fmt.Errorf("%s: density at y = %v, x = %v is %v, want p·f = %v", name(m), y, x, got, want)
			}
		}
	}
	if err := checkEdges("output", yEdges); err != nil {
		return err
	}
	if err := checkEdges("input", xEdges); err != nil {
		return err
	}
	atomMass := func(ylo, yhi, x float64) float64 {
		d.Probabilities(x, pd)
		s := 0.0
		for i, o := range outs {
			if o > ylo && o <= yhi {
				s += pd[i]
			}
		}
		return s
	}
	for j := 0; j+1 < len(yEdges); j++ {
		ylo, yhi := yEdges[j], yEdges[j+1]
		err := bins(xEdges, func(xlo, xhi float64) error {
			var avg float64
			if xlo == xhi {
				avg = atomMass(ylo, yhi, xlo)
			} else {
				f := func(x float64) float64 { return atomMass(ylo, yhi, x) }
				avg = Integrate(f, xlo, xhi, 32, 1e-15) / (xhi - xlo)
			}
			want := p*c.BucketGivenBin(ylo, yhi, xlo, xhi) + (1-p)*avg
			if got := mm.BucketGivenBin(ylo, yhi, xlo, xhi); !(math.Abs(got-want) <= tol) {
				return fmt.Errorf("%s: bucket (%v, %v] given bin [%v, %v]: %v, from the components %v (difference %.3g)",
					name(m), ylo, yhi, xlo, xhi, got, want, got-want)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
