package estimators

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// UWAOptions configure UWA.
type UWAOptions struct {
	// Posterior configures the per-user posterior (Algorithm 1).
	Posterior PosteriorOptions
	// Workers is the number of goroutines over blocks of users; 0 means
	// runtime.GOMAXPROCS(0). The estimate does not depend on it.
	Workers int
}

// uwaBlock is the number of consecutive users whose weighted values are
// summed on their own before the block sums are added in order: the unit
// of work of UWA's goroutines, and a fixed cut, so that the estimate does
// not depend on the number of workers.
const uwaBlock = 2048

// UWA is Du et al.'s user-level weighted averaging (Algorithm 2, Theorem
// 4.2, Section 4.3). For every user i the posterior f over the input
// buckets (Algorithm 1, [Posterior]) gives the expected variance of each
// service's unbiased value, V_j = Σ_k f_k·Var_j(μ_k) (eq. (8), Var_j on the
// [-1, 1] scale, Square Wave's multiplied by 4, E4.5); the user's reports
// are combined with the inverse-variance weights w_j = (1/V_j)/Σ_t (1/V_t),
// the sum over the user's services t = 1…m (Algorithm 2 line 4 prints
// t = 1…h, E4.6), into v'_i = Σ_j w_j·A'_j(v_i), and the estimate is the
// mean of v'_i over the users with at least one report. No user is dropped
// (E4.12).
//
// The weights depend on the reports they weight, so v'_i is not exactly
// unbiased (E4.14); UWA is reproduced as written and has no exact theory.
// OracleUWA is the diagnostic with weights from the true inputs.
//
// How it is computed: the posterior's normaliser cancels in the weights
// (w_j ∝ 1/V_j, and V_j is a ratio of sums over the same unnormalised f),
// so f is the plain product of the users' likelihood rows (each a table
// lookup, or for Laplace three exponentials), and when every Var_j is a
// quadratic in the input (SR, Laplace, PM, unbiased SW: detected at every
// midpoint) V_j needs only the three moments Σf, Σfμ, Σfμ² of f, formed in
// the same pass as the last product. A user then costs (m-1)·h
// multiplications and 3h multiply-adds. The rows are scaled to a maximum of
// 1 and are ≥ e^{-ε} for ε-LDP mechanisms, so the product cannot underflow
// unless Σ_j ε_j is in the hundreds; a user whose product does (or whose
// sum is not finite) is recomputed with the per-service normalisation of
// Algorithm 1.
type UWA struct {
	post    *Posterior
	workers int
}

// NewUWA prepares UWA for the services (their likelihood and variance
// tables).
func NewUWA(services []mechanisms.Mechanism, opt UWAOptions) (*UWA, error) {
	p, err := NewPosterior(services, opt.Posterior)
	if err != nil {
		return nil, err
	}
	w := opt.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	return &UWA{post: p, workers: w}, nil
}

// Posterior returns the posterior UWA uses.
func (u *UWA) Posterior() *Posterior { return u.post }

// Estimate returns UWA's estimate of the mean from the raw reports,
// reports[j][i] being user i's report at service j (NaN: none).
func (u *UWA) Estimate(reports [][]float64) (float64, error) {
	p := u.post
	if len(reports) != len(p.lik) {
		return 0, fmt.Errorf("UWA: %d report columns for %d services", len(reports), len(p.lik))
	}
	n, err := linkedLen(reports)
	if err != nil {
		return 0, err
	}
	return runBlocks(n, u.workers, func(lo, hi int, sc *uwaScratch) (float64, int, error) {
		return p.weightedSum(reports, lo, hi, sc)
	}, p.h, len(p.lik))
}

// linkedLen checks that every service holds one slot per user and returns n.
func linkedLen(reports [][]float64) (int, error) {
	if len(reports) == 0 {
		return 0, errors.New("no services")
	}
	n := len(reports[0])
	for j, r := range reports {
		if len(r) != n {
			return 0, fmt.Errorf("service %d holds %d reports, service 1 holds %d: reports are linked by user, one slot per user (NaN = not reported)", j+1, len(r), n)
		}
	}
	return n, nil
}

// uwaScratch is one goroutine's working space.
type uwaScratch struct {
	f    []float64   // h: the product of all rows but the last three
	full []float64   // h: the whole product, for non-quadratic variances
	lap  [][]float64 // m × h: rows computed per report (Laplace)
	rows [][]float64 // the rows of the current user's reports
	idx  []int       // their services
	u    []float64   // their unbiased values
}

func newUWAScratch(h, m int) *uwaScratch {
	sc := &uwaScratch{
		f: make([]float64, h), full: make([]float64, h),
		lap: make([][]float64, m), rows: make([][]float64, 0, m),
		idx: make([]int, 0, m), u: make([]float64, 0, m),
	}
	for j := range sc.lap {
		sc.lap[j] = make([]float64, h)
	}
	return sc
}

// runBlocks cuts the users [0, n) into blocks of uwaBlock, sums each with
// sum on one of workers goroutines, and adds the block sums in order. The
// result is the total divided by the number of users counted.
func runBlocks(n, workers int, sum func(lo, hi int, sc *uwaScratch) (float64, int, error), h, m int) (float64, error) {
	nb := (n + uwaBlock - 1) / uwaBlock
	sums := make([]float64, nb)
	counts := make([]int, nb)
	workers = max(1, min(workers, nb))
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := newUWAScratch(h, m)
			for {
				b := int(next.Add(1) - 1)
				if b >= nb {
					return
				}
				lo := b * uwaBlock
				s, c, err := sum(lo, min(lo+uwaBlock, n), sc)
				if err != nil {
					once.Do(func() { firstErr = err })
					next.Store(int64(nb)) // stop the others
					return
				}
				sums[b], counts[b] = s, c
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return 0, firstErr
	}
	var total float64
	count := 0
	for b := range sums {
		total += sums[b]
		count += counts[b]
	}
	if count == 0 {
		return 0, errors.New("UWA: no user has a report")
	}
	return total / float64(count), nil
}

// weightedSum returns Σ v'_i over the users [lo, hi) that have a report,
// and their number.
func (p *Posterior) weightedSum(reports [][]float64, lo, hi int, sc *uwaScratch) (float64, int, error) {
	var s float64
	count := 0
	for i := lo; i < hi; i++ {
		v, ok, err := p.userValue(reports, i, sc)
		if err != nil {
			return 0, 0, fmt.Errorf("UWA: user %d: %w", i, err)
		}
		if ok {
			s += v
			count++
		}
	}
	return s, count, nil
}

// userValue returns v'_i of user i (ok = false if the user has no report).
func (p *Posterior) userValue(reports [][]float64, i int, sc *uwaScratch) (float64, bool, error) {
	rows, idx, us := sc.rows[:0], sc.idx[:0], sc.u[:0]
	for j, col := range reports {
		y := col[i]
		if y != y {
			continue
		}
		r, ok := p.lik[j].row(y, sc.lap[j])
		if !ok {
			return 0, false, fmt.Errorf("service %d cannot report %v", j+1, y)
		}
		rows = append(rows, r)
		idx = append(idx, j)
		us = append(us, p.unb[j].Value(y))
	}
	sc.rows, sc.idx, sc.u = rows, idx, us
	switch len(rows) {
	case 0:
		return 0, false, nil
	case 1:
		return us[0], true, nil // the only weight is 1
	}
	h := p.h
	var num, den float64
	if p.allQuad {
		// The product of the rows, all but the last three folded into
		// sc.f three at a time, and its moments in one fused pass.
		S, M1, M2 := p.productMoments(rows, sc.f[:h])
		if !(S > 1e-280) || math.IsInf(S, 0) {
			return p.userValueSlow(rows, idx, us, sc)
		}
		for t, j := range idx {
			d := p.qa[j]*S + p.qb[j]*M1 + p.qc[j]*M2 // V_j·S
			num += us[t] / d
			den += 1 / d
		}
	} else {
		full := sc.full[:h]
		copy(full, rows[0])
		for _, r := range rows[1:] {
			mulInto(full, full, r)
		}
		var S float64
		for _, v := range full {
			S += v
		}
		if !(S > 1e-280) || math.IsInf(S, 0) {
			return p.userValueSlow(rows, idx, us, sc)
		}
		for t, j := range idx {
			d := dotH(full, p.varTab[j])
			num += us[t] / d
			den += 1 / d
		}
	}
	return num / den, true, nil
}

// productMoments returns S = Σ_k f_k, M1 = Σ_k f_k·μ_k and M2 = Σ_k f_k·μ_k²
// of the product f of rows (at least two), using buf (length h) for the
// product of all but the last three.
func (p *Posterior) productMoments(rows [][]float64, buf []float64) (S, M1, M2 float64) {
	n := len(rows)
	if n <= 4 {
		switch n {
		case 2:
			return moments3(rows[0], rows[1], p.ones, p.mu, p.mu2)
		case 3:
			return moments3(rows[0], rows[1], rows[2], p.mu, p.mu2)
		}
		return moments4(rows[0], rows[1], rows[2], rows[3], p.mu, p.mu2)
	}
	// n ≥ 5: buf = the product of rows[:n-3], then fused with the last 3.
	head := rows[:n-3]
	switch len(head) % 3 {
	case 0:
		mul3Into(buf, head[0], head[1], head[2])
		head = head[3:]
	case 1:
		copy(buf, head[0])
		head = head[1:]
	case 2:
		mulInto(buf, head[0], head[1])
		head = head[2:]
	}
	for ; len(head) > 0; head = head[3:] {
		mul4Into(buf, buf, head[0], head[1], head[2])
	}
	return moments4(buf, rows[n-3], rows[n-2], rows[n-1], p.mu, p.mu2)
}

// moments3 returns the moments of f = a·b·c: Σf, Σf·μ, Σf·μ².
func moments3(a, b, c, mu, mu2 []float64) (S, M1, M2 float64) {
	h := len(mu)
	a, b, c, mu2 = a[:h], b[:h], c[:h], mu2[:h]
	var s0, s1, m0, m1, q0, q1 float64
	k := 0
	for ; k+2 <= h; k += 2 {
		f0 := a[k] * b[k] * c[k]
		f1 := a[k+1] * b[k+1] * c[k+1]
		s0 += f0
		s1 += f1
		m0 += f0 * mu[k]
		m1 += f1 * mu[k+1]
		q0 += f0 * mu2[k]
		q1 += f1 * mu2[k+1]
	}
	for ; k < h; k++ {
		f0 := a[k] * b[k] * c[k]
		s0 += f0
		m0 += f0 * mu[k]
		q0 += f0 * mu2[k]
	}
	return s0 + s1, m0 + m1, q0 + q1
}

// moments4 returns the moments of f = a·b·c·d.
func moments4(a, b, c, d, mu, mu2 []float64) (S, M1, M2 float64) {
	h := len(mu)
	a, b, c, d, mu2 = a[:h], b[:h], c[:h], d[:h], mu2[:h]
	var s0, s1, m0, m1, q0, q1 float64
	k := 0
	for ; k+2 <= h; k += 2 {
		f0 := (a[k] * b[k]) * (c[k] * d[k])
		f1 := (a[k+1] * b[k+1]) * (c[k+1] * d[k+1])
		s0 += f0
		s1 += f1
		m0 += f0 * mu[k]
		m1 += f1 * mu[k+1]
		q0 += f0 * mu2[k]
		q1 += f1 * mu2[k+1]
	}
	for ; k < h; k++ {
		f0 := (a[k] * b[k]) * (c[k] * d[k])
		s0 += f0
		m0 += f0 * mu[k]
		q0 += f0 * mu2[k]
	}
	return s0 + s1, m0 + m1, q0 + q1
}

// mulInto sets dst = a·b elementwise.
func mulInto(dst, a, b []float64) {
	a, b = a[:len(dst)], b[:len(dst)]
	for k := range dst {
		dst[k] = a[k] * b[k]
	}
}

// mul3Into sets dst = a·b·c elementwise.
func mul3Into(dst, a, b, c []float64) {
	a, b, c = a[:len(dst)], b[:len(dst)], c[:len(dst)]
	for k := range dst {
		dst[k] = a[k] * b[k] * c[k]
	}
}

// mul4Into sets dst = a·b·c·d elementwise (dst may be a).
func mul4Into(dst, a, b, c, d []float64) {
	a, b, c, d = a[:len(dst)], b[:len(dst)], c[:len(dst)], d[:len(dst)]
	for k := range dst {
		dst[k] = (a[k] * b[k]) * (c[k] * d[k])
	}
}

// userValueSlow is userValue with the posterior normalised after every
// service, as Algorithm 1 does: for products that under- or overflow.
func (p *Posterior) userValueSlow(rows [][]float64, idx []int, us []float64, sc *uwaScratch) (float64, bool, error) {
	f := sc.full[:p.h]
	for k := range f {
		f[k] = 1
	}
	for _, r := range rows {
		var s float64
		for k := range f {
			f[k] *= r[k]
			s += f[k]
		}
		if !(s > 0) || math.IsInf(s, 0) {
			return 0, false, ErrImpossible
		}
		for k := range f {
			f[k] /= s
		}
	}
	var num, den float64
	for t, j := range idx {
		d := dotH(f, p.varTab[j])
		num += us[t] / d
		den += 1 / d
	}
	return num / den, true, nil
}

// dotH returns Σ a_k·b_k.
func dotH(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1 float64
	k := 0
	for ; k+2 <= len(a); k += 2 {
		s0 += a[k] * b[k]
		s1 += a[k+1] * b[k+1]
	}
	for ; k < len(a); k++ {
		s0 += a[k] * b[k]
	}
	return s0 + s1
}

// UserWeights writes the UWA weights w_j of one user (ys[j] the user's raw
// report at service j, NaN if none; services without a report get weight
// 0) to w, computed literally: the posterior of Algorithm 1 (normalised
// after each service), V_j = Σ_k f_k·Var_j(μ_k), w_j = (1/V_j)/Σ_t(1/V_t).
// It is the reference against which UWA's fast path is tested.
func (p *Posterior) UserWeights(ys, w []float64) error {
	f := make([]float64, p.h)
	if err := p.User(ys, f, make([]float64, p.h)); err != nil {
		return err
	}
	var den float64
	for j, y := range ys {
		w[j] = 0
		if y != y {
			continue
		}
		var v float64
		for k, fk := range f {
			v += fk * p.varTab[j][k]
		}
		w[j] = 1 / v
		den += w[j]
	}
	for j := range ys {
		w[j] /= den
	}
	return nil
}

// OracleUWA is a diagnostic, not an estimator: UWA with the weights of
// Theorem 4.2 computed from every user's true input x_i instead of its
// posterior, w_j ∝ 1/Var_j(x_i). The weights are then independent of the
// reports, so the estimate is exactly unbiased with the exact MSE of
// OracleUWAExpectedMSE: the floor that UWA's posterior weights approach.
// xs are the users' inputs on [-1, 1].
func OracleUWA(reports [][]float64, services []mechanisms.Mechanism, xs []float64, workers int) (float64, error) {
	n, err := checkLinked(reports, services)
	if err != nil {
		return 0, err
	}
	if len(xs) != n {
		return 0, fmt.Errorf("oracle UWA: %d inputs for %d users", len(xs), n)
	}
	us, err := newUnbiasers(services)
	if err != nil {
		return 0, err
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return runBlocks(n, workers, func(lo, hi int, _ *uwaScratch) (float64, int, error) {
		var s float64
		count := 0
		for i := lo; i < hi; i++ {
			var num, den float64
			for j, col := range reports {
				y := col[i]
				if y != y {
					continue
				}
				d := us[j].Variance(xs[i])
				num += us[j].Value(y) / d
				den += 1 / d
			}
			if den > 0 {
				s += num / den
				count++
			}
		}
		return s, count, nil
	}, 1, len(services))
}

// OracleUWAExpectedMSE returns the exact expected squared error of
// OracleUWA against the mean of xs when users report as groups says (nil:
// every user to every service): (1/n²)·Σ_i (Σ_{j ∋ i} 1/Var_j(x_i))^{-1}, the
// minimal variance of Theorem 4.2 at the true inputs.
func OracleUWAExpectedMSE(xs []float64, services []mechanisms.Mechanism, groups []UserGroup) (float64, error) {
	us, err := newUnbiasers(services)
	if err != nil {
		return 0, err
	}
	gs, err := groupLayout(len(xs), len(services), groups)
	if err != nil {
		return 0, err
	}
	var v float64
	for _, g := range gs {
		err := eachVariances(unbiaserVariancers(us, g.Services), xs[g.Lo:g.Hi], func(_ int, vars [][]float64) {
			for k := range vars[0] {
				var inv float64
				for t := range g.Services {
					inv += 1 / vars[t][k]
				}
				v += 1 / inv
			}
		})
		if err != nil {
			return 0, err
		}
	}
	n := float64(len(xs))
	return v / (n * n), nil
}
