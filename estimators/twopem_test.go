package estimators

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// referenceMatrix builds Θ[j, i] densely from the mechanism's own exact
// bucket law (mechanisms' BucketGivenBin, AverageProbability): an
// implementation independent of HistTransition's window/band code.
func referenceMatrix(t *testing.T, m mechanisms.Mechanism, tr *HistTransition) []float64 {
	t.Helper()
	d := tr.D
	out := make([]float64, tr.Rows*d)
	dlo, dhi := m.Domain()
	winRows := 0
	if tr.win != nil {
		winRows = tr.win.rows
	}
	var cont interface {
		BucketGivenBin(ylo, yhi, xlo, xhi float64) float64
	}
	var disc func(k int, xlo, xhi float64) float64
	pc := 1.0
	switch mm := m.(type) {
	case *mechanisms.Piecewise:
		cont = mm
	case *mechanisms.SquareWave:
		cont = mm
	case *mechanisms.NOutput:
		disc = mm.AverageProbability
	case interface {
		Components() (continuous, discrete mechanisms.Mechanism, pContinuous float64)
	}:
		c, dm, p := mm.Components()
		cont = c.(*mechanisms.Piecewise)
		pc = p
		if no, ok := dm.(*mechanisms.NOutput); ok {
			disc = func(k int, a, b float64) float64 { return (1 - pc) * no.AverageProbability(k, a, b) }
		} else {
			to := dm.(mechanisms.Discrete)
			disc = func(k int, a, b float64) float64 {
				// 0 is a bin edge for even d (the tests use even d here).
				p := make([]float64, len(to.Outputs()))
				to.Probabilities((a+b)/2, p)
				return (1 - pc) * p[k]
			}
		}
	case mechanisms.Discrete:
		disc = func(k int, a, b float64) float64 {
			p := make([]float64, len(mm.Outputs()))
			mm.Probabilities((a+b)/2, p)
			return p[k]
		}
	}
	for i := range d {
		a, b := binEdges(dlo, dhi, d, i)
		for j := range winRows {
			u := tr.win.lo + float64(j)*tr.win.w
			v := tr.win.lo + float64(j+1)*tr.win.w
			if j == winRows-1 {
				v = tr.hiOut
			}
			out[j*d+i] = pc * cont.BucketGivenBin(u, v, a, b)
		}
		for k := winRows; k < tr.Rows; k++ {
			out[k*d+i] = disc(k-winRows, a, b)
		}
	}
	return out
}

func twoPEMMech(t *testing.T, name string, eps float64) mechanisms.Mechanism {
	t.Helper()
	m, err := mechanisms.New(name, eps)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestHistTransitionExact: every column sums to 1 and every entry equals
// the mechanism's own exact bucket law to 1e-12 (relative to the column's
// largest entry), for the piecewise family, Square Wave, the discrete
// mechanisms and the hybrids, at d a power of two, an odd d (17, NP-AAA's)
// and d = 1024. Catches: a band that misses a row (entries lost, column sum
// < 1), the window's slope or width wrong (PM-SUB's t = e^{ε/3} vs e^{ε/2}),
// a kink not split (the trapezoid over a kink is off by ~1e-4), a wrong
// scale of a hybrid's blocks, bucket edges off by one.
func TestHistTransitionExact(t *testing.T) {
	cases := []struct {
		mech string
		eps  float64
		d    int
	}{
		{"pm-sub", 1, 16}, {"pm-sub", 3, 17}, {"pm-sub", 5, 64}, {"pm-sub", 0.2, 1024},
		{"pm", 2, 32}, {"sw", 1, 16}, {"sw", 4, 33}, {"sw", 0.5, 1024},
		{"n-output", 1, 16}, {"n-output", 4, 17}, {"three-outputs", 2, 16}, {"duchi", 1, 10},
		{"hm-tp", 3, 16}, {"hm-np", 2, 20}, {"hm", 1.5, 12},
	}
	for _, c := range cases {
		m := twoPEMMech(t, c.mech, c.eps)
		tr, err := NewHistTransition(m, c.d, TransitionOptions{})
		if err != nil {
			t.Fatalf("%s ε=%v: %v", c.mech, c.eps, err)
		}
		dense := tr.Dense()
		ref := referenceMatrix(t, m, tr)
		worst, worstSum := 0.0, 0.0
		for i := range c.d {
			var s, mx float64
			for j := range tr.Rows {
				s += dense[j*c.d+i]
				mx = max(mx, dense[j*c.d+i])
			}
			worstSum = max(worstSum, math.Abs(s-1))
			for j := range tr.Rows {
				worst = max(worst, math.Abs(dense[j*c.d+i]-ref[j*c.d+i])/mx)
			}
		}
		if worstSum > 1e-12 || worst > 1e-12 {
			t.Errorf("%s ε=%v d=%d (rows %d): max |colsum-1| = %.3g, max entry diff/colmax = %.3g (want ≤ 1e-12)", c.mech, c.eps, c.d, tr.Rows, worstSum, worst)
		}
	}
}

// TestDTilde: the corrected eq. (13) gives d̃ = ⌈d(1 + e^{-ε/3})⌉, the
// authors' compat one less when that is not an integer, and the printed
// width (the window's width, not the range's) gives ⌈d·e^{-ε/3}⌉ buckets,
// too few to cover [-C, C] at the window's shift per bin (ERRATA E0.6).
func TestDTilde(t *testing.T) {
	for _, eps := range []float64{0.5, 1, 2, 3, 4, 5} {
		pm, _ := mechanisms.NewPMSub(eps)
		for _, d := range []int{17, 1024} {
			want := int(math.Ceil(float64(d) * (1 + math.Exp(-eps/3))))
			got := DTilde(pm, d, DTildeCeil)
			if got != want {
				t.Errorf("ε=%v d=%d: d̃ = %d, want %d", eps, d, got, want)
			}
			if f := DTilde(pm, d, DTildeFloorCompat); f != want-1 {
				t.Errorf("ε=%v d=%d: compat d̃ = %d, want %d", eps, d, f, want-1)
			}
			// The bucket width of d̃ buckets is at most the window's shift
			// per input bin l̃ = L(r_i) - L(r_{i-1}).
			lo, hi := pm.OutputRange()
			l0, _ := pm.Window(-1)
			l1, _ := pm.Window(-1 + 2/float64(d))
			if w := (hi - lo) / float64(got); w > (l1-l0)*(1+1e-12) {
				t.Errorf("ε=%v d=%d: bucket width %v > l̃ = %v", eps, d, w, l1-l0)
			}
			printed := int(math.Ceil(float64(d) * math.Exp(-eps/3)))
			if w := (hi - lo) / float64(printed); w <= (l1-l0)*1.5 {
				t.Errorf("ε=%v d=%d: the printed eq. (13) should give buckets far wider than l̃ (%v vs %v)", eps, d, w, l1-l0)
			}
		}
	}
}

// denseEM is the reference EM: a dense matrix, the textbook loops, the same
// stopping rule and MAP update as HistEM.
func denseEM(T []float64, rows, d int, counts, prior []float64, lambda, tau float64, maxIter int) ([]float64, int) {
	var total float64
	for _, c := range counts {
		total += c
	}
	c := make([]float64, rows)
	for j := range c {
		c[j] = counts[j] / total
	}
	pi := make([]float64, d)
	for i := range pi {
		if prior != nil {
			pi[i] = prior[i]
		} else {
			pi[i] = 1 / float64(d)
		}
	}
	ll := func() float64 {
		var s float64
		for j := range rows {
			if c[j] == 0 {
				continue
			}
			var dj float64
			for i := range d {
				dj += T[j*d+i] * pi[i]
			}
			s += c[j] * math.Log(dj)
		}
		return s
	}
	old := ll()
	it := 0
	for it < maxIter {
		q := make([]float64, d)
		for j := range rows {
			if c[j] == 0 {
				continue
			}
			var dj float64
			for i := range d {
				dj += T[j*d+i] * pi[i]
			}
			for i := range d {
				q[i] += c[j] * T[j*d+i] * pi[i] / dj
			}
		}
		var sq float64
		for _, v := range q {
			sq += v
		}
		for i := range pi {
			if prior != nil {
				pi[i] = (q[i] + lambda*prior[i]) / (sq + lambda)
			} else {
				pi[i] = q[i] / sq
			}
		}
		it++
		nw := ll()
		if math.Abs(nw-old) <= tau {
			break
		}
		old = nw
	}
	var s float64
	for _, v := range pi {
		s += v
	}
	for i := range pi {
		pi[i] /= s
	}
	return pi, it
}

// hmnpReports draws n HM-NP reports of Beta(3,2) inputs on [-1, 1], split
// into PM-SUB reports and N-output reports.
func hmnpReports(t testing.TB, hm *mechanisms.HMNP, n int, seed uint64) (pm, no []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	pmS, noS := hm.PMSub(), hm.NOutput()
	for range n {
		// Beta(3,2) as the median of... use the order statistic: the 3rd
		// smallest of 4 uniforms is Beta(3,2).
		u := [4]float64{rng.Float64(), rng.Float64(), rng.Float64(), rng.Float64()}
		for i := 1; i < 4; i++ {
			for j := i; j > 0 && u[j] < u[j-1]; j-- {
				u[j], u[j-1] = u[j-1], u[j]
			}
		}
		x := 2*u[2] - 1
		if rng.Float64() < hm.Alpha() {
			no = append(no, noS.Perturb(x, rng))
		} else {
			pm = append(pm, pmS.Perturb(x, rng))
		}
	}
	return pm, no
}

// TestTwoPEMEqualsDenseEM: at small d (8, 17) 2PEM equals the dense
// reference EM, run on the reference matrices built from the mechanisms'
// own bucket laws, to 1e-12 in every bin, with the same iteration counts.
// Catches: a phase-2 update other than (Q + λμ)/(ΣQ + λ), the prior not
// μ, a transposed E-step, a stopping rule off by one iteration, phase 2
// started from uniform instead of μ, the band E-step dropping rows.
func TestTwoPEMEqualsDenseEM(t *testing.T) {
	for _, c := range []struct {
		eps float64
		d   int
	}{{1, 8}, {2.5, 17}, {4, 16}} {
		hm, err := mechanisms.NewHMNP(c.eps)
		if err != nil {
			t.Fatal(err)
		}
		pm, no := hmnpReports(t, hm, 20000, uint64(c.d))
		res, err := TwoPEM(context.Background(), pm, no, c.eps, hm, TwoPEMConfig{D: c.d})
		if err != nil {
			t.Fatal(err)
		}
		mats, _ := TwoPEMCached(hm, c.d, DTildeCeil)
		refP := referenceMatrix(t, hm.PMSub(), mats.PM)
		refN := referenceMatrix(t, hm.NOutput(), mats.NO)
		mu, it1 := denseEM(refP, mats.PM.Rows, c.d, mats.PM.Counts(pm, nil), nil, 0, 1e-5, 10000)
		pi, it2 := denseEM(refN, mats.NO.Rows, c.d, mats.NO.Counts(no, nil), mu, 1, 1e-5, 10000)
		if it1 != res.Iter1 || it2 != res.Iter2 {
			t.Errorf("ε=%v d=%d: iterations %d, %d; dense reference %d, %d", c.eps, c.d, res.Iter1, res.Iter2, it1, it2)
		}
		for i := range pi {
			if math.Abs(pi[i]-res.Hist[i]) > 1e-12 || math.Abs(mu[i]-res.Phase1[i]) > 1e-12 {
				t.Errorf("ε=%v d=%d bin %d: 2PEM %v (phase 1 %v), dense %v (%v)", c.eps, c.d, i, res.Hist[i], res.Phase1[i], pi[i], mu[i])
			}
		}
		var total float64
		for _, v := range res.Hist {
			if v < 0 {
				t.Fatalf("ε=%v d=%d: negative bin %v", c.eps, c.d, v)
			}
			total += v
		}
		if math.Abs(total-1) > 1e-12 || len(res.Hist) != c.d {
			t.Errorf("ε=%v d=%d: %d bins summing to %v, want a probability vector of length d", c.eps, c.d, len(res.Hist), total)
		}
		if res.Iter1 < 3 || res.Iter2 < 1 {
			t.Errorf("ε=%v d=%d: too few iterations to test anything (%d, %d)", c.eps, c.d, res.Iter1, res.Iter2)
		}
	}
}

// TestTwoPEMPhase1Monotone: the phase-1 (MLE-EM) log-likelihood never
// decreases, at d = 1024 on 10⁵ reports over many iterations (τ tiny).
// Catches an E-step that is not the exact EM step for its matrix (a band
// truncated, the constant part left out of the backward pass), which breaks
// the EM ascent property.
func TestTwoPEMPhase1Monotone(t *testing.T) {
	skipUnderRace(t, "6 s")
	for _, eps := range []float64{1, 4} {
		hm, _ := mechanisms.NewHMNP(eps)
		pm, _ := hmnpReports(t, hm, 100000, 3)
		tr, err := NewHistTransition(hm.PMSub(), 1024, TransitionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		prev := math.Inf(-1)
		var bad int
		_, err = tr.HistEM(context.Background(), tr.Counts(pm, nil), HistEMConfig{Tau: 1e-300, MaxIter: 300, Trace: func(it int, ll float64) {
			if ll < prev-1e-13*math.Abs(prev) {
				bad++
				if bad < 4 {
					t.Errorf("ε=%v: LL fell at iteration %d: %v → %v", eps, it, prev, ll)
				}
			}
			prev = ll
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestTwoPEMExpectedCountsFixedPoint: fed the exact expected frequencies
// of a known 8-bin histogram (computed from the mechanisms' own laws), the
// truth is a fixed point of both phases: phase 1 started at the truth and
// phase 2 with the truth as its prior stay there to 1e-12 over 50
// iterations; and from the uniform start phase 1 moves towards it (the L1
// distance falls by half). Catches a matrix that differs from the
// mechanism (wrong d̃ range, a transposed window, a wrong hybrid scale),
// which moves the estimate off the truth at the first iteration.
func TestTwoPEMExpectedCountsFixedPoint(t *testing.T) {
	truth := []float64{0.02, 0.05, 0.08, 0.15, 0.2, 0.25, 0.18, 0.07}
	d := len(truth)
	l1 := func(p []float64) float64 {
		var s float64
		for i := range p {
			s += math.Abs(p[i] - truth[i])
		}
		return s
	}
	for _, eps := range []float64{1, 3} {
		hm, _ := mechanisms.NewHMNP(eps)
		mats, err := NewTwoPEMMatrices(hm, d, DTildeCeil)
		if err != nil {
			t.Fatal(err)
		}
		exp := func(T []float64, rows int) []float64 {
			c := make([]float64, rows)
			for j := range rows {
				for i := range d {
					c[j] += T[j*d+i] * truth[i] * 1e6
				}
			}
			return c
		}
		cP := exp(referenceMatrix(t, hm.PMSub(), mats.PM), mats.PM.Rows)
		cN := exp(referenceMatrix(t, hm.NOutput(), mats.NO), mats.NO.Rows)
		r1, err := mats.PM.HistEM(context.Background(), cP, HistEMConfig{Start: truth, Tau: 1e-300, MaxIter: 50})
		if err != nil {
			t.Fatal(err)
		}
		r2, err := mats.NO.HistEM(context.Background(), cN, HistEMConfig{Prior: truth, Tau: 1e-300, MaxIter: 50})
		if err != nil {
			t.Fatal(err)
		}
		if e1, e2 := l1(r1.Hist), l1(r2.Hist); e1 > 1e-12 || e2 > 1e-12 {
			t.Errorf("ε=%v: from the truth, phase 1 moved %.3g and phase 2 %.3g (L1)", eps, e1, e2)
		}
		r0, _ := mats.PM.HistEM(context.Background(), cP, HistEMConfig{})
		uni := make([]float64, d)
		for i := range uni {
			uni[i] = 1 / float64(d)
		}
		if l1(r0.Hist) > l1(uni)/2 {
			t.Errorf("ε=%v: phase 1 from uniform ends at L1 %.3g from the truth (uniform %.3g)", eps, l1(r0.Hist), l1(uni))
		}
	}
}

// TestTwoPEMCapAndEdges: the cap is recorded and logged; no reports of a
// kind leave that phase at its start; the rows of reports at the range's
// ends and of the atoms.
func TestTwoPEMCapAndEdges(t *testing.T) {
	hm, _ := mechanisms.NewHMNP(2)
	pm, no := hmnpReports(t, hm, 5000, 9)
	var logged int
	res, err := TwoPEM(context.Background(), pm, no, 2, hm, TwoPEMConfig{D: 64, MaxIter: 2, Tau: 1e-300, Logf: func(string, ...any) { logged++ }})
	if err != nil {
		t.Fatal(err)
	}
	if !res.CapHit || !res.CapHit1 || !res.CapHit2 || res.Iter1 != 2 || res.Iter2 != 2 || logged != 2 {
		t.Errorf("cap: %+v, logged %d", res, logged)
	}
	res, err = TwoPEM(context.Background(), pm, nil, 2, hm, TwoPEMConfig{D: 64})
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Hist {
		if math.Abs(res.Hist[i]-res.Phase1[i]) > 1e-15 {
			t.Fatalf("no N-output reports: 2PEM changed phase 1's bin %d", i)
		}
	}
	mats, _ := TwoPEMCached(hm, 64, DTildeCeil)
	lo, hi := hm.PMSub().OutputRange()
	if r := mats.PM.Row(lo); r != 0 {
		t.Errorf("row of -C = %d", r)
	}
	if r := mats.PM.Row(hi); r != mats.PM.Rows-1 {
		t.Errorf("row of C = %d, want %d", r, mats.PM.Rows-1)
	}
	for k, a := range hm.NOutput().Outputs() {
		if r := mats.NO.Row(a); r != k {
			t.Errorf("row of atom %v = %d, want %d", a, r, k)
		}
	}
	if _, err := TwoPEM(context.Background(), pm, no, 3, hm, TwoPEMConfig{D: 64}); err == nil {
		t.Error("ε mismatch accepted")
	}
}

// TestHistEMMatchesEMS: on Square Wave's reports (1024 buckets, d = 64),
// five iterations of HistEM equal five of the package's existing EM/EMS
// (EMSHistogram, the multi-service code's kernel on its own matrix) to
// 1e-12, with and without smoothing. An independent check of the SW
// matrix (window, bucket edges, bin-averaged input) and of the EMS kernel.
func TestHistEMMatchesEMS(t *testing.T) {
	sw, _ := mechanisms.NewSquareWave(1.5)
	tr, err := NewHistTransition(sw, 64, TransitionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := NewService(sw, ServiceOptions{Bins: 64})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 8))
	reports := make([]float64, 50000)
	for i := range reports {
		u := [4]float64{rng.Float64(), rng.Float64(), rng.Float64(), rng.Float64()}
		reports[i] = sw.Perturb(max(u[0], u[1], u[2])*0.9+u[3]*0.1, rng)
	}
	counts := tr.Counts(reports, nil)
	if sc := svc.OutputHistogram(reports); len(sc) != len(counts) {
		t.Fatalf("bucket counts differ in length: %d vs %d", len(sc), len(counts))
	} else {
		for j := range sc {
			if sc[j] != counts[j] {
				t.Fatalf("bucket %d: %v reports here, %v by Service", j, counts[j], sc[j])
			}
		}
	}
	for _, smooth := range []bool{false, true} {
		got, err := tr.HistEM(context.Background(), counts, HistEMConfig{Smooth: smooth, MaxIter: 5, Tau: 1e-300})
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := EMSHistogram(context.Background(), counts, svc, EMOptions{NoSmooth: !smooth, Stop: StopConverged, MaxIter: 5, LLTol: 1e-300, ThetaTol: 1e-300, Dense: true})
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if math.Abs(got.Hist[i]-want[i]) > 1e-12 {
				t.Fatalf("smooth=%v bin %d: %v, EMS kernel %v", smooth, i, got.Hist[i], want[i])
			}
		}
	}
}

// TestTwoPEMCountsSwitch (ERRATA E0.4): on raw counts with τ and λ both
// multiplied by the number of reports, 2PEM makes the same updates as on
// normalised histograms (every quantity scales by n), so the two agree to
// 1e-12 with the same iterations; with λ = 1 on counts the prior is
// negligible and the result moves away. Catches a Counts switch that
// normalises anyway, or scales only one phase.
func TestTwoPEMCountsSwitch(t *testing.T) {
	hm, _ := mechanisms.NewHMNP(2)
	pm, no := hmnpReports(t, hm, 20000, 12)
	mats, _ := TwoPEMCached(hm, 16, DTildeCeil)
	cP, cN := mats.PM.Counts(pm, nil), mats.NO.Counts(no, nil)
	a, err := TwoPEMCounts(context.Background(), cP, cN, mats, TwoPEMConfig{})
	if err != nil {
		t.Fatal(err)
	}
	nP, nN := float64(len(pm)), float64(len(no))
	// Phase 1 has nP reports, phase 2 nN: one τ cannot scale both, so run
	// the phases separately.
	r1, _ := mats.PM.HistEM(context.Background(), cP, HistEMConfig{Counts: true, Tau: 1e-5 * nP})
	r2, _ := mats.NO.HistEM(context.Background(), cN, HistEMConfig{Counts: true, Tau: 1e-5 * nN, Prior: r1.Hist, Lambda: nN})
	if r1.Iter != a.Iter1 || r2.Iter != a.Iter2 {
		t.Errorf("iterations %d, %d on counts; %d, %d normalised", r1.Iter, r2.Iter, a.Iter1, a.Iter2)
	}
	var moved float64
	b, _ := TwoPEMCounts(context.Background(), cP, cN, mats, TwoPEMConfig{Counts: true})
	for i := range a.Hist {
		if math.Abs(r2.Hist[i]-a.Hist[i]) > 1e-12 || math.Abs(r1.Hist[i]-a.Phase1[i]) > 1e-12 {
			t.Errorf("bin %d: counts %v (phase 1 %v), normalised %v (%v)", i, r2.Hist[i], r1.Hist[i], a.Hist[i], a.Phase1[i])
		}
		moved += math.Abs(b.Hist[i] - b.Phase1[i])
	}
	if moved < 1e-3 {
		t.Errorf("λ = 1 on counts: phase 2 moved phase 1 by only %v in L1", moved)
	}
}
