package estimators

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/floats"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Multi-service collection (Du et al., "Privacy for Free", Section 3).
//
// m services each hold one report per user from their own mechanism, linked
// by user. The estimators of this file and of uwa.go take the reports
// service-major, reports[j][i] being the raw report of user i at service j:
// what services[j].Perturb returned for the user's input mapped onto the
// mechanism's domain (Square Wave's raw report on [-b, 1+b], not its
// de-biased value). A user who did not report to service j has
// reports[j][i] = NaN (the subset collections of the paper's Fig. 8c/d);
// every reports[j] has the same length n. Services are keyed by index, never
// by mechanism name, so a mechanism may serve several services (ERRATA
// E4.12).

// Unbiaser maps the raw reports of one mechanism to unbiased estimates of
// the input on [-1, 1], with their closed-form variance: the map of
// mechanisms.Unbiased (de-bias if the mechanism is a Debiaser, then the
// affine map of its domain onto [-1, 1]), applied to reports already drawn.
type Unbiaser struct {
	est    mechanisms.Estimate
	debias mechanisms.Debiaser // nil for unbiased mechanisms
	lo     float64             // the mechanism's domain is [lo, lo+2·half]
	half   float64
	ident  bool // the report is the estimate
}

// NewUnbiaser returns the Unbiaser of m, which must have a closed-form
// variance (mechanisms.Variancer).
func NewUnbiaser(m mechanisms.Mechanism) (Unbiaser, error) {
	est, err := mechanisms.Unbiased(m)
	if err != nil {
		return Unbiaser{}, err
	}
	lo, hi := m.Domain()
	d, _ := m.(mechanisms.Debiaser)
	return Unbiaser{est: est, debias: d, lo: lo, half: (hi - lo) / 2, ident: d == nil && lo == -1 && hi == 1}, nil
}

// Value returns the unbiased estimate on [-1, 1] of the input behind the raw
// report y. It is the report of mechanisms.Unbiased(m) bit for bit.
func (u Unbiaser) Value(y float64) float64 {
	if u.ident {
		return y
	}
	if u.debias != nil {
		y = u.debias.Debias(y)
	}
	return (y-u.lo)/u.half - 1
}

// Variance returns Var[Value(Y) | x] for x on [-1, 1] (Square Wave's
// variance multiplied by 4, ERRATA E4.5).
func (u Unbiaser) Variance(x float64) float64 { return u.est.Variance(x) }

// Input maps x on [-1, 1] onto the mechanism's own domain, where it is
// perturbed.
func (u Unbiaser) Input(x float64) float64 {
	if u.ident {
		return x
	}
	return u.lo + (x+1)*u.half
}

// RawVariance returns the variance of the raw report Y of input x on
// [-1, 1], expressed on the [-1, 1] scale (multiplied by (2/(hi-lo))²): for
// unbiased mechanisms it is Variance(x); for Square Wave it is
// 4·var_sw(s), s = (x+1)/2, the spread of the biased report before
// de-biasing (the "SW" curve of the paper's Fig. 3, beside "unbiased SW").
func (u Unbiaser) RawVariance(x float64) float64 {
	v := u.est.Variance(x)
	if u.debias == nil {
		return v
	}
	// Debias is affine, y -> (y - α)/k, so Var[Debias(Y)] = Var[Y]/k².
	k := 1 / (u.debias.Debias(1) - u.debias.Debias(0))
	return v * k * k
}

// uaSumBlock is the number of consecutive terms each estimator adds on
// their own before adding the block's sum to the total: a fixed cut, so the
// order of the additions, and so every estimate, is fixed.
const uaSumBlock = 4096

// checkLinked validates the shape of a multi-service collection and
// returns n.
func checkLinked(reports [][]float64, services []mechanisms.Mechanism) (int, error) {
	if len(services) == 0 {
		return 0, errors.New("no services")
	}
	if len(reports) != len(services) {
		return 0, fmt.Errorf("%d report columns for %d services", len(reports), len(services))
	}
	return linkedLen(reports)
}

// newUnbiasers returns the Unbiaser of every service.
func newUnbiasers(services []mechanisms.Mechanism) ([]Unbiaser, error) {
	us := make([]Unbiaser, len(services))
	for j, m := range services {
		u, err := NewUnbiaser(m)
		if err != nil {
			return nil, fmt.Errorf("service %d: %w", j+1, err)
		}
		us[j] = u
	}
	return us, nil
}

// sumAvailable returns the sum of the unbiased values of the reports that
// are not NaN, and their count, adding block by block.
func sumAvailable(u Unbiaser, ys []float64) (float64, int) {
	var total float64
	count := 0
	for len(ys) > 0 {
		k := min(len(ys), uaSumBlock)
		var s float64
		for _, y := range ys[:k] {
			if y == y {
				s += u.Value(y)
				count++
			}
		}
		total += s
		ys = ys[k:]
	}
	return total, count
}

// UA is Du et al.'s unbiased averaging (eq. (2), Section 4.1): the average
// of every available unbiased report, Σ_j Σ_i A'_j(v_i)/(n·m), A' the
// report itself for unbiased mechanisms and the de-biased value 2u - 1 for
// Square Wave. With subsets (NaN reports) it is the pooled average of the
// reports that exist (the paper does not spell this out). It is an error if
// no report exists.
func UA(reports [][]float64, services []mechanisms.Mechanism) (float64, error) {
	if _, err := checkLinked(reports, services); err != nil {
		return 0, err
	}
	us, err := newUnbiasers(services)
	if err != nil {
		return 0, err
	}
	var total float64
	count := 0
	for j, u := range us {
		s, c := sumAvailable(u, reports[j])
		total += s
		count += c
	}
	if count == 0 {
		return 0, errors.New("UA: no reports")
	}
	return total / float64(count), nil
}

// ServiceMean returns one service's own estimate of the mean: the average
// of its available unbiased reports (the "single service" baselines of the
// paper's figures). It is an error if the service holds no report.
func ServiceMean(reports []float64, service mechanisms.Mechanism) (float64, error) {
	u, err := NewUnbiaser(service)
	if err != nil {
		return 0, err
	}
	s, c := sumAvailable(u, reports)
	if c == 0 {
		return 0, fmt.Errorf("service %s holds no report", service.Name())
	}
	return s / float64(c), nil
}

// UserGroup is a block of users [Lo, Hi) that report to the services listed (0-based indices, increasing).
// A collection's groups partition the users; nil groups mean that every
// user reports to every service.
type UserGroup struct {
	Lo, Hi   int
	Services []int
}

// layout returns the groups of n users, one group of everything when
// groups is nil, after checking them.
func groupLayout(n, m int, groups []UserGroup) ([]UserGroup, error) {
	if groups == nil {
		all := make([]int, m)
		for j := range all {
			all[j] = j
		}
		return []UserGroup{{0, n, all}}, nil
	}
	next := 0
	for g, gr := range groups {
		if gr.Lo != next || gr.Hi < gr.Lo {
			return nil, fmt.Errorf("group %d covers [%d, %d); groups must partition the users in order, from %d", g+1, gr.Lo, gr.Hi, next)
		}
		if len(gr.Services) == 0 {
			return nil, fmt.Errorf("group %d reports to no service", g+1)
		}
		for t, j := range gr.Services {
			if j < 0 || j >= m || (t > 0 && j <= gr.Services[t-1]) {
				return nil, fmt.Errorf("group %d: services %v must be increasing indices below %d", g+1, gr.Services, m)
			}
		}
		next = gr.Hi
	}
	if next != n {
		return nil, fmt.Errorf("groups cover %d users, not n = %d", next, n)
	}
	return groups, nil
}

// TrueMean returns the mean of xs, the ground truth of mean estimation:
// compensated (Neumaier's sum, gonum's floats.SumCompensated, the one sum of
// every ground truth), NaN when empty.
func TrueMean(xs []float64) float64 {
	return floats.SumCompensated(xs) / float64(len(xs))
}

// UAExpectedMSE returns the exact expected squared error of UA against the
// mean of xs (the users' inputs on [-1, 1]) when the users report as groups
// says (nil: every user to every service). UA's expectation is
// Σ_i c_i·x_i/Σ_i c_i, c_i the number of services of user i, so
//
//	MSE = (Σ_i c_i x_i/N - mean(x))² + (1/N²)·Σ_i Σ_{j ∋ i} Var_j(x_i),  N = Σ_i c_i;
//
// the first term is 0 when every user reports to equally many services,
// leaving (1/(nm))²·Σ_i Σ_j Var_j(x_i).
func UAExpectedMSE(xs []float64, services []mechanisms.Mechanism, groups []UserGroup) (float64, error) {
	us, err := newUnbiasers(services)
	if err != nil {
		return 0, err
	}
	gs, err := groupLayout(len(xs), len(services), groups)
	if err != nil {
		return 0, err
	}
	var wsum, vsum, count float64
	for _, g := range gs {
		c := float64(len(g.Services))
		gx := xs[g.Lo:g.Hi]
		err := eachVariances(unbiaserVariancers(us, g.Services), gx, func(lo int, vars [][]float64) {
			for k, x := range gx[lo : lo+len(vars[0])] {
				wsum += c * x
				for t := range g.Services {
					vsum += vars[t][k]
				}
			}
		})
		if err != nil {
			return 0, err
		}
		count += c * float64(g.Hi-g.Lo)
	}
	bias := wsum/count - TrueMean(xs)
	return bias*bias + vsum/(count*count), nil
}

// ServiceExpectedMSE returns the exact expected squared error of
// ServiceMean of service j against the mean of all of xs: the users of j
// are those of the groups that list it (every user for nil groups), so
//
//	MSE = (mean_{i ∈ S_j} x_i - mean(x))² + (1/|S_j|²)·Σ_{i ∈ S_j} Var_j(x_i).
func ServiceExpectedMSE(xs []float64, services []mechanisms.Mechanism, groups []UserGroup, j int) (float64, error) {
	if j < 0 || j >= len(services) {
		return 0, fmt.Errorf("service index %d out of range", j)
	}
	u, err := NewUnbiaser(services[j])
	if err != nil {
		return 0, err
	}
	gs, err := groupLayout(len(xs), len(services), groups)
	if err != nil {
		return 0, err
	}
	var xsum, vsum float64
	count := 0
	for _, g := range gs {
		if !hasService(g.Services, j) {
			continue
		}
		gx := xs[g.Lo:g.Hi]
		err := eachVariances([]mechanisms.Variancer{u.est}, gx, func(lo int, vars [][]float64) {
			for k, x := range gx[lo : lo+len(vars[0])] {
				xsum += x
				vsum += vars[0][k]
			}
		})
		if err != nil {
			return 0, err
		}
		count += g.Hi - g.Lo
	}
	if count == 0 {
		return 0, fmt.Errorf("service %d has no users", j+1)
	}
	c := float64(count)
	bias := xsum/c - TrueMean(xs)
	return bias*bias + vsum/(c*c), nil
}

func hasService(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
