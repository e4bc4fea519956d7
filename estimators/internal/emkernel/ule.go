package emkernel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"time"
)

// ULE (Du et al., Section 5, Algorithm 3) and the per-service EMS baseline
// (the baselines of Du et al. Section 6.2).
//
// Each user's reports are cut into one output bucket per service, users
// with the same bucket vector are merged with counts (a radix sort of
// packed keys), and EM (EMS with the default smoothing, em.go) estimates
// the histogram over the l input bins of [-1, 1] from R_k[t] =
// Π_j T_j[W_k[j], t].
//
// Two routes compute the E-step. The dense route stores every distinct
// vector's row over all l bins, in log space with the row maximum
// subtracted (against underflow): O(distinct·l) per iteration and in
// memory, the reference of the tests. The fast route (ule_fast.go,
// ule_pair.go) never forms R_k: every row of a PM or SW transition matrix,
// divided by its maximum, is constant outside a few ramp bins (a base and a
// plateau), so R_k is constant on a handful of runs of bins, and its sums
// against θ are differences of prefix sums of θ times the product of the
// few-bucket (SR) rows of the vector's combination. It gives the dense
// route's iterates to rounding (tested to 1e-9; in practice 1e-14), at a
// cost per iteration of a few dozen operations per distinct vector:
//
//   - two PM/SW services plus any SR ([SR, PM, SW], the paper's m = 3): the
//     pair kernel, about 16 ns per distinct vector and core; where most
//     (combination, PM row, SW row) cells hold a vector (about 38 % at
//     n = 10⁶, ε = 0.1, 99 % at 10⁷), its grid form (ule_grid.go), which
//     walks every cell in sequence in AVX2 assembly, about 4 ns per cell
//     and core, the log-likelihood included;
//   - one PM/SW service (EMS, [SR, PM]): the grouped kernel, O(l) per
//     combination plus a handful of operations per vector;
//   - three or more (m = 6, 9, ...): each vector's runs and ramp bins are
//     merged once and compiled into a short program (O(m) entries).
//
// At n = 10⁷ users and m = 3 about 2·10⁶ vectors are distinct (of 2·1024²
// possible), and the authors' stopping rule runs about 10⁴ iterations at
// ε = 0.1, so the E-steps, not the deduplication, set the time (see
// ule_bench_test.go).

// uleMaxComboBuckets and uleMaxCombos bound the services handled as
// combinations: a service with at most uleMaxComboBuckets buckets (SR has 2)
// is one while the product of their bucket counts stays within uleMaxCombos.
const (
	uleMaxComboBuckets = 16
	uleMaxCombos       = 64
)

// uleMaxDenseEntries bounds the dense route's row matrix (1 GiB of float64).
const uleMaxDenseEntries = 1 << 27

// Linked runs EM over the linked reports of the services whose matrices
// are mats: reports[j][i] is user i's raw report to service j, NaN if that
// user did not report to it; users with no report at all are dropped. It
// buckets the reports, merges the users with the same bucket vector and
// runs EM on the route opt selects, checking ctx once per iteration. The
// caller (estimators.ULE) checks that every matrix has the same L and
// every reports[j] the same length.
func Linked(ctx context.Context, reports [][]float64, mats []*Matrix, opt Options) ([]float64, Info, error) {
	start := time.Now()
	n := len(reports[0])
	hasMissing := make([]bool, len(mats))
	for j, rs := range reports {
		for _, y := range rs {
			if y != y {
				hasMissing[j] = true
				break
			}
		}
	}
	lay := newULELayout(mats, hasMissing)
	buckets := func(j, i int) int { return mats[j].Bucket(reports[j][i]) }
	d, err := lay.dedup(n, buckets)
	if err != nil {
		return nil, Info{}, err
	}
	return d.run(ctx, opt.resolved(), start)
}

// Histogram runs EM over one service's output histogram: counts[r] users
// in bucket r of mat (the caller checks that there are mat.H counts, each
// finite and ≥ 0). It is Linked on those users' reports, without the
// bucketing.
func Histogram(ctx context.Context, counts []float64, mat *Matrix, opt Options) ([]float64, Info, error) {
	start := time.Now()
	lay := newULELayout([]*Matrix{mat}, []bool{false})
	d := lay.newData()
	for r, c := range counts {
		if c > 0 {
			var seg []uint16
			if len(lay.seg) == 1 {
				seg = []uint16{uint16(r)}
			}
			d.appendVector(lay.comboOf(func(int) int { return r }), seg, c)
		}
	}
	if err := d.finish(); err != nil {
		return nil, Info{}, err
	}
	return d.run(ctx, opt.resolved(), start)
}

// uleLayout assigns the services to the two roles of the fast route and
// packs a bucket vector into a sort key: the combination index of the
// combo services (few buckets) in the high bits, then the bucket of each
// segment service, the last (the inner service of a group) in the lowest
// bits.
type uleLayout struct {
	svcs    []*Matrix
	l       int
	combo   []int // indices of combo services
	seg     []int // indices of segment services, in key order
	radix   []int // per service: H, + 1 if a report is missing (value H)
	nCombo  int
	segBits []uint
	keyBits uint
}

// newULELayout lays out the services whose matrices are svcs (all with
// the same L); hasMissing[j] is true if some user did not report to
// service j.
func newULELayout(svcs []*Matrix, hasMissing []bool) *uleLayout {
	lay := &uleLayout{svcs: svcs, l: svcs[0].L, nCombo: 1}
	for j, s := range svcs {
		r := s.H
		if hasMissing[j] {
			r++
		}
		lay.radix = append(lay.radix, r)
		if s.H <= uleMaxComboBuckets && lay.nCombo*r <= uleMaxCombos {
			lay.combo = append(lay.combo, j)
			lay.nCombo *= r
		} else {
			lay.seg = append(lay.seg, j)
		}
	}
	// The inner service (last in the key, walked per vector by the grouped
	// kernel) is the one with the cheapest rows.
	if len(lay.seg) > 1 {
		cost := func(j int) float64 {
			p := svcs[j].prof
			if p.band != nil {
				return float64(p.band.eh)
			}
			return 100 + p.explPerRow
		}
		best := 0
		for i, j := range lay.seg {
			if cost(j) < cost(lay.seg[best]) {
				best = i
			}
		}
		inner := lay.seg[best]
		lay.seg = append(slices.Delete(slices.Clone(lay.seg), best, best+1), inner)
	}
	lay.keyBits = uleBitsFor(lay.nCombo)
	for _, j := range lay.seg {
		b := uleBitsFor(lay.radix[j])
		lay.segBits = append(lay.segBits, b)
		lay.keyBits += b
	}
	return lay
}

// bitsFor returns the bits needed for values in [0, n).
func uleBitsFor(n int) uint {
	if n <= 1 {
		return 0
	}
	return uint(bits.Len(uint(n - 1)))
}

// comboOf returns the combination index of the combo services' buckets
// (bucket(j) for service j; -1 is missing).
func (lay *uleLayout) comboOf(bucket func(j int) int) int {
	c := 0
	for _, j := range lay.combo {
		b := bucket(j)
		if b < 0 {
			b = lay.svcs[j].H
		}
		c = c*lay.radix[j] + b
	}
	return c
}

// uleData is the deduplicated input of EM: K distinct bucket vectors, each
// a combination index and one row per segment service, with counts.
type uleData struct {
	lay    *uleLayout
	combo  []int32
	seg    []uint16 // K×S, vector-major
	count  []float64
	N      float64
	S      int
	comboL [][]float64 // per combination: the product of its rows, over its maximum
	comboN []float64   // ln of that maximum
	groups []int32     // starts of the runs of vectors sharing all but the inner segment row, and K
}

func (lay *uleLayout) newData() *uleData {
	return &uleData{lay: lay, S: len(lay.seg)}
}

func (d *uleData) appendVector(c int, seg []uint16, n float64) {
	d.combo = append(d.combo, int32(c))
	d.seg = append(d.seg, seg...)
	d.count = append(d.count, n)
	d.N += n
}

// dedup buckets every user's reports (bucket(j, i) for service j and user
// i, -1 if missing), sorts the bucket vectors and merges equal ones.
func (lay *uleLayout) dedup(n int, bucket func(j, i int) int) (*uleData, error) {
	d := lay.newData()
	S := len(lay.seg)
	m := len(lay.svcs)
	vec := make([]int, m)
	get := func(i int) bool { // fills vec; false if every report is missing
		any := false
		for j := range m {
			b := bucket(j, i)
			vec[j] = b
			if b >= 0 {
				any = true
			}
		}
		return any
	}
	comboOfVec := func() int { return lay.comboOf(func(j int) int { return vec[j] }) }
	segOf := func(k int) int { // segment row k of vec, missing as H
		j := lay.seg[k]
		if vec[j] < 0 {
			return lay.svcs[j].H
		}
		return vec[j]
	}
	if lay.keyBits <= 64 {
		keys := make([]uint64, 0, n)
		for i := range n {
			if !get(i) {
				continue
			}
			key := uint64(comboOfVec())
			for k := range S {
				key = key<<lay.segBits[k] | uint64(segOf(k))
			}
			keys = append(keys, key)
		}
		uleRadixSort(keys, lay.keyBits)
		segBuf := make([]uint16, S)
		for i := 0; i < len(keys); {
			e := i + 1
			for e < len(keys) && keys[e] == keys[i] {
				e++
			}
			key := keys[i]
			for k := S - 1; k >= 0; k-- {
				segBuf[k] = uint16(key & (1<<lay.segBits[k] - 1))
				key >>= lay.segBits[k]
			}
			d.appendVector(int(key), segBuf, float64(e-i))
			i = e
		}
	} else {
		// Wide keys (many services): sort the users by their tuples.
		w := S + 1
		tup := make([]uint16, 0, n*w)
		for i := range n {
			if !get(i) {
				continue
			}
			tup = append(tup, uint16(comboOfVec()))
			for k := range S {
				tup = append(tup, uint16(segOf(k)))
			}
		}
		cnt := len(tup) / w
		idx := make([]int32, cnt)
		for i := range idx {
			idx[i] = int32(i)
		}
		row := func(i int32) []uint16 { return tup[int(i)*w : int(i)*w+w] }
		slices.SortFunc(idx, func(a, b int32) int { return slices.Compare(row(a), row(b)) })
		for i := 0; i < cnt; {
			e := i + 1
			for e < cnt && slices.Equal(row(idx[e]), row(idx[i])) {
				e++
			}
			r := row(idx[i])
			d.appendVector(int(r[0]), r[1:], float64(e-i))
			i = e
		}
	}
	if err := d.finish(); err != nil {
		return nil, err
	}
	return d, nil
}

// radixSort sorts keys whose values are below 2^keyBits, LSD by 11-bit
// digits.
func uleRadixSort(keys []uint64, keyBits uint) {
	const digit = 11
	if len(keys) < 2 || keyBits == 0 {
		return
	}
	if len(keys) < 256 {
		slices.Sort(keys)
		return
	}
	buf := make([]uint64, len(keys))
	src, dst := keys, buf
	var count [1 << digit]int
	for shift := uint(0); shift < keyBits; shift += digit {
		clear(count[:])
		for _, k := range src {
			count[(k>>shift)&(1<<digit-1)]++
		}
		pos := 0
		for i, c := range count {
			count[i] = pos
			pos += c
		}
		for _, k := range src {
			b := (k >> shift) & (1<<digit - 1)
			dst[count[b]] = k
			count[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}

// finish builds the combination rows and the groups.
func (d *uleData) finish() error {
	lay := d.lay
	K := len(d.count)
	if K == 0 {
		return errors.New("estimators: no reports")
	}
	l := lay.l
	d.comboL = make([][]float64, lay.nCombo)
	d.comboN = make([]float64, lay.nCombo)
	used := make([]bool, lay.nCombo)
	for _, c := range d.combo {
		used[c] = true
	}
	logRow := make([]float64, l)
	for c := range lay.nCombo {
		if !used[c] {
			continue
		}
		clear(logRow)
		rest := c
		for i := len(lay.combo) - 1; i >= 0; i-- {
			j := lay.combo[i]
			b := rest % lay.radix[j]
			rest /= lay.radix[j]
			if b == lay.svcs[j].H {
				continue // missing: a row of ones
			}
			row := lay.svcs[j].row(b)
			for t := range l {
				logRow[t] += math.Log(row[t])
			}
		}
		mx := math.Inf(-1)
		for _, v := range logRow {
			mx = max(mx, v)
		}
		if math.IsInf(mx, -1) {
			return fmt.Errorf("estimators: an observed combination of SR-type buckets has probability 0 in every bin")
		}
		L := make([]float64, l)
		for t, v := range logRow {
			L[t] = math.Exp(v - mx)
		}
		d.comboL[c], d.comboN[c] = L, mx
	}
	// Groups: runs sharing the combination and every segment row but the
	// last.
	S := d.S
	d.groups = d.groups[:0]
	for k := range K {
		if k == 0 || d.combo[k] != d.combo[k-1] ||
			(S > 1 && !slices.Equal(d.seg[k*S:k*S+S-1], d.seg[(k-1)*S:(k-1)*S+S-1])) {
			d.groups = append(d.groups, int32(k))
		}
	}
	d.groups = append(d.groups, int32(K))
	return nil
}

// llConst returns Σ_k n_k ln(scale_k) of the fast route's scaled rows.
func (d *uleData) llConst() float64 {
	var s float64
	S := d.S
	for k, n := range d.count {
		v := d.comboN[d.combo[k]]
		for i := range S {
			v += d.lay.svcs[d.lay.seg[i]].prof.lnMax[d.seg[k*S+i]]
		}
		s += n * v
	}
	return s
}

// run runs EM over d with the resolved options opt; start is when the
// caller began (Info.Setup runs from it).
func (d *uleData) run(ctx context.Context, opt Options, start time.Time) ([]float64, Info, error) {
	info := Info{Users: int(d.N), Distinct: len(d.count)}
	var e emEngine
	llConst := 0.0
	if opt.Dense {
		de, c, err := newULEDense(d, opt.Workers)
		if err != nil {
			return nil, info, err
		}
		e, llConst, info.Route = de, c, "dense"
	} else {
		e, llConst, info.Route = newULEFast(d, opt.Workers, opt.kernel), d.llConst(), "fast"
	}
	info.Setup = time.Since(start)
	theta, err := runEM(ctx, e, d.lay.l, d.N, llConst, opt, &info)
	return theta, info, err
}

// slotsFor returns the number of slots (units of work with their own
// accumulators) for K vectors: it depends on K only, so the result does not
// depend on the number of workers.
func uleSlotsFor(K int) int {
	return min(32, max(1, K/8192))
}

// uleDense stores every distinct vector's row, R_k[t] = exp(Σ_j
// ln T_j[W_k[j], t] − max_t), the log-space rows.
type uleDense struct {
	l       int
	rows    []float64
	count   []float64
	bounds  []int
	workers int
	acc     [][]float64
	ll      []float64
}

func newULEDense(d *uleData, workers int) (*uleDense, float64, error) {
	lay := d.lay
	l, K := lay.l, len(d.count)
	if K*l > uleMaxDenseEntries {
		return nil, 0, fmt.Errorf("estimators: the dense route would store %d×%d row entries (limit %d)", K, l, uleMaxDenseEntries)
	}
	e := &uleDense{l: l, rows: make([]float64, K*l), count: d.count, workers: workers}
	// Per service, ln T (rows of ones for a missing report).
	logT := make([][]float64, len(lay.svcs))
	for j, s := range lay.svcs {
		lt := make([]float64, (s.H+1)*l)
		for i, v := range s.T {
			lt[i] = math.Log(v)
		}
		logT[j] = lt
	}
	var llConst float64
	vec := make([]int, len(lay.svcs))
	for k := range K {
		// Decode the vector.
		rest := int(d.combo[k])
		for i := len(lay.combo) - 1; i >= 0; i-- {
			j := lay.combo[i]
			vec[j] = rest % lay.radix[j]
			rest /= lay.radix[j]
		}
		for i, j := range lay.seg {
			vec[j] = int(d.seg[k*d.S+i])
		}
		row := e.rows[k*l : (k+1)*l]
		for j := range lay.svcs {
			lr := logT[j][vec[j]*l : (vec[j]+1)*l]
			for t := range l {
				row[t] += lr[t]
			}
		}
		mx := math.Inf(-1)
		for _, v := range row {
			mx = max(mx, v)
		}
		if math.IsInf(mx, -1) {
			return nil, 0, errors.New("estimators: an observed bucket vector has probability 0 in every bin")
		}
		for t := range row {
			row[t] = math.Exp(row[t] - mx)
		}
		llConst += d.count[k] * mx
	}
	ns := uleSlotsFor(K)
	e.bounds = make([]int, ns+1)
	for s := range ns + 1 {
		e.bounds[s] = K * s / ns
	}
	e.acc = make([][]float64, ns)
	for s := range e.acc {
		e.acc[s] = make([]float64, l)
	}
	e.ll = make([]float64, ns)
	return e, llConst, nil
}

func (e *uleDense) eval(theta, a []float64) float64 {
	l := e.l
	emForSlots(len(e.acc), e.workers, func(s int) {
		acc := e.acc[s]
		clear(acc)
		ll := newEMLLAcc()
		for k := e.bounds[s]; k < e.bounds[s+1]; k++ {
			row := e.rows[k*l : (k+1)*l]
			var dk float64
			for t, v := range row {
				dk += v * theta[t]
			}
			w := e.count[k] / dk
			ll.add(e.count[k], dk)
			for t, v := range row {
				acc[t] += w * v
			}
		}
		e.ll[s] = ll.value()
	})
	clear(a)
	var ll float64
	for s, acc := range e.acc {
		for t, v := range acc {
			a[t] += v
		}
		ll += e.ll[s]
	}
	return ll
}
