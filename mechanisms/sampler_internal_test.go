package mechanisms

// Exact checks of the batch samplers' rewrites: each must give, bit for
// bit, what the straightforward code it replaced gives (every operation
// rounded in turn, as it is compiled for amd64 by default), so that the
// output law and the reports of a given stream are unchanged. The
// references are written with float64 conversions, so that no build fuses
// their products and sums into FMAs either.

import (
	"math"
	"math/rand/v2"
	"testing"
)

// edgeUniforms are uniforms at and next to the points where a sampler
// switches case, followed by random ones.
func edgeUniforms(n int, cuts ...float64) []float64 {
	us := []float64{0, 0x1p-53, 0.5 - 0x1p-53, 0.5, 0.5 + 0x1p-53, 1 - 0x1p-53}
	for _, c := range cuts {
		for _, v := range []float64{c, math.Nextafter(c, 0), math.Nextafter(c, 1)} {
			// Keep v on the grid of rng.Float64, multiples of 2^-53.
			v = math.Floor(v*0x1p53) / 0x1p53
			if v >= 0 && v < 1 {
				us = append(us, v, v+0x1p-53)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for len(us) < n {
		us = append(us, rng.Float64())
	}
	return us
}

func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// TestCheckInputsPredicate: the bit-pattern scan of checkInputs (inRange)
// accepts exactly the batches that !(x >= lo) || x > hi accepts (but may
// leave a -0 on [0, h] to the compares), and checkInputs reports the first
// bad index.
func TestCheckInputsPredicate(t *testing.T) {
	nan := math.NaN()
	negNaN := math.Float64frombits(math.Float64bits(nan) | 1<<63)
	negZero := math.Copysign(0, -1)
	for _, d := range []struct{ lo, hi float64 }{
		{-1, 1}, {0, 1}, {-2, 3}, {0, 0}, {negZero, 0}, {math.Inf(-1), math.Inf(1)}, {0, math.Inf(1)},
	} {
		vals := []float64{
			0, negZero, d.lo, d.hi, -d.hi, -d.lo, 0.5, -0.5, 2, -2, 1e300, -1e300,
			math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64,
			math.Inf(1), math.Inf(-1), nan, negNaN,
			math.Nextafter(d.lo, math.Inf(-1)), math.Nextafter(d.lo, math.Inf(1)),
			math.Nextafter(d.hi, math.Inf(-1)), math.Nextafter(d.hi, math.Inf(1)),
		}
		for _, v := range vals {
			for _, n := range []int{1, 2, 3, 8, 9, 16, 17, 34} {
				for pos := 0; pos < n; pos++ {
					xs := make([]float64, n)
					for i := range xs {
						xs[i] = d.hi // a valid filler
						if math.IsInf(d.hi, 1) {
							xs[i] = 0
						}
					}
					xs[pos] = v
					want := -1
					for i, x := range xs {
						if !(x >= d.lo) || x > d.hi {
							want = i
							break
						}
					}
					// inRange may turn down a valid batch on [0, h] only
					// for a -0.
					if (d.lo == -d.hi || d.lo == 0) && d.hi >= 0 {
						excused := d.lo == 0 && v == 0 && math.Signbit(v)
						if got := inRange(xs, d.lo == 0, d.hi); got != (want < 0) && !(excused && !got) {
							t.Errorf("[%v, %v]: %v at %d of %d: inRange %v", d.lo, d.hi, v, pos, n, got)
						}
					}
					err := checkInputs("m", xs, d.lo, d.hi)
					got := -1
					if ie, ok := err.(*InputError); ok {
						got = ie.Index
					} else if err != nil {
						t.Fatalf("[%v, %v]: %v gives %T", d.lo, d.hi, v, err)
					}
					if got != want {
						t.Errorf("[%v, %v]: %v at %d of %d: error index %d, want %d", d.lo, d.hi, v, pos, n, got, want)
					}
				}
			}
		}
	}
}

// TestSquareWaveReportPieces: report, with its operand table and one
// division, equals the three-piece inverse CDF computed in full, bit for
// bit.
func TestSquareWaveReportPieces(t *testing.T) {
	for _, eps := range []float64{0.01, 0.5, 1, 4, 16, 40, 700} {
		m, err := NewSquareWave(eps)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []float64{0, math.Copysign(0, -1), 1e-300, 0.3, 0.5, 0.999, 1} {
			qs := float64(m.q * s)
			for _, u := range edgeUniforms(4096, qs, qs+m.pWin) {
				below := u/m.q - m.b
				window := (u-qs)/m.p + s - m.b
				above := (u-qs-m.pWin)/m.q + s + m.b
				want := choose(u <= qs, below, choose(u <= qs+m.pWin, window, above))
				if got := m.report(s, u); !sameBits(got, want) {
					t.Fatalf("ε=%v s=%v u=%v: report %v, want %v", eps, s, u, got, want)
				}
			}
		}
	}
}

// TestPiecewiseReportCases: report, with its operand table, equals the
// three cases computed in full and selected, bit for bit.
func TestPiecewiseReportCases(t *testing.T) {
	for _, eps := range []float64{0.01, 0.5, 1, 4, 16, 100} {
		for _, t0 := range []float64{math.Exp(eps / 2), math.Exp(eps / 3), 0.2, 7} {
			m, err := NewPiecewise("p", eps, t0)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range []float64{-1, math.Copysign(0, -1), 0, -0.4, 0.7, 1} {
				vs := edgeUniforms(512, (1+x)/2)
				us := edgeUniforms(64, m.pIn)
				for _, u := range us {
					for _, v := range vs {
						xt := float64(x * m.t)
						inner := float64(m.r*(xt-1)) + float64(2*m.r*v)
						w := 2 * v
						left := -m.a + float64(m.rt*w)
						right := float64(m.r*(xt+1)) + float64(m.rt*(w-(1+x)))
						want := choose(u < m.pIn, inner, choose(w < 1+x, left, right))
						if got := m.report(x, u, w); !sameBits(got, want) {
							t.Fatalf("ε=%v t=%v x=%v u=%v v=%v: report %v, want %v", eps, t0, x, u, v, got, want)
						}
					}
				}
			}
		}
	}
}

// TestBatchLengths: for every batch length around the block and small-batch
// limits, in place or not, a batch equals the same sequence of Perturb
// calls, and leaves the generator where they leave it. (Laplace's batch
// spends the generator differently: TestLaplaceBatchStream.)
func TestBatchLengths(t *testing.T) {
	type run struct {
		name string
		eps  float64
	}
	var runs []run
	for _, name := range []string{"duchi", "pm", "sw", "three-outputs", "n-output"} {
		runs = append(runs, run{name, 1})
	}
	// The mixtures at budgets where a weight is 0 or 1, where one or the
	// other component dominates, where their batches branch on the choice
	// and where they select without a branch; N-output with one piece and
	// with many.
	for _, name := range []string{"hm", "hm-tp", "hm-np", "n-output", "three-outputs"} {
		for _, eps := range []float64{0.3, 0.65, 2, 4, 8} {
			runs = append(runs, run{name, eps})
		}
	}
	for _, r := range runs {
		name := r.name
		m, err := New(name, r.eps)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := m.Domain()
		for n := 0; n <= 3*batchBlock+1; n++ {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = lo + (hi-lo)*float64(i%7)/6
				if i%5 == 4 {
					xs[i] = lo + (hi-lo)*float64(i%11)/10.5
				}
			}
			ref := rand.New(rand.NewPCG(uint64(n), 3))
			want := make([]float64, n)
			for i, x := range xs {
				want[i] = m.Perturb(x, ref)
			}
			next := ref.Uint64()
			for _, inPlace := range []bool{false, true} {
				rng := rand.New(rand.NewPCG(uint64(n), 3))
				got := make([]float64, n)
				if inPlace {
					copy(got, xs)
					err = m.PerturbBatch(got, got, rng)
				} else {
					err = m.PerturbBatch(got, xs, rng)
				}
				if err != nil {
					t.Fatal(err)
				}
				for i := range got {
					if !sameBits(got[i], want[i]) {
						t.Fatalf("%s ε=%v n=%d in place %v: report %d is %v, Perturb gives %v", name, r.eps, n, inPlace, i, got[i], want[i])
					}
				}
				if rng.Uint64() != next {
					t.Fatalf("%s ε=%v n=%d in place %v: the generator is not where n Perturb calls leave it", name, r.eps, n, inPlace)
				}
			}
		}
	}
}

// TestLaplaceBatchStream: for every batch length around multiples of 64, in
// place or not, Laplace's batch makes exactly the reports its comment
// states, bit for bit: per run of up to 64 inputs one rng.Uint64() whose
// bit k signs the run's k-th report, then one rng.ExpFloat64() per report,
// x ± b·E; it leaves the generator just after those draws; and a batch of
// one equals Perturb.
func TestLaplaceBatchStream(t *testing.T) {
	for _, eps := range []float64{0.5, 3} {
		m, _ := NewLaplace(eps)
		b := m.Scale()
		for n := 0; n <= 3*laplaceSignBits+2; n++ {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = -1 + 2*float64(i%7)/6
			}
			ref := rand.New(rand.NewPCG(uint64(n), 3))
			want := make([]float64, n)
			var signs uint64
			for i, x := range xs {
				if i%64 == 0 {
					signs = ref.Uint64()
				}
				e := ref.ExpFloat64()
				if signs>>(i%64)&1 == 1 {
					e = -e
				}
				want[i] = x + float64(b*e) // no FMA: Laplace rounds the product first
			}
			next := ref.Uint64()
			for _, inPlace := range []bool{false, true} {
				rng := rand.New(rand.NewPCG(uint64(n), 3))
				got := make([]float64, n)
				var err error
				if inPlace {
					copy(got, xs)
					err = m.PerturbBatch(got, got, rng)
				} else {
					err = m.PerturbBatch(got, xs, rng)
				}
				if err != nil {
					t.Fatal(err)
				}
				for i := range got {
					if !sameBits(got[i], want[i]) {
						t.Fatalf("ε=%v n=%d in place %v: report %d is %v, want %v", eps, n, inPlace, i, got[i], want[i])
					}
				}
				if rng.Uint64() != next {
					t.Fatalf("ε=%v n=%d in place %v: the generator is not where the stated draws leave it", eps, n, inPlace)
				}
			}
			if n == 1 {
				if y := m.Perturb(xs[0], rand.New(rand.NewPCG(1, 3))); !sameBits(y, want[0]) {
					t.Errorf("ε=%v: a batch of one gives %v, Perturb %v", eps, want[0], y)
				}
			}
		}
	}
}

// nOutputIndexRef is NOutput's sampler as it was written before its
// operand tables (pcs, flat): the reference of TestNOutputIndexTables.
func nOutputIndexRef(m *NOutput, x, u float64) int {
	N := m.cfg.N
	n := m.cfg.n
	k := min(int(u*m.invP), 2*n-1+b2i(m.cfg.odd))
	flat := k
	if m.cfg.odd {
		flat = k + b2i(k >= n)
		if k >= 2*n {
			flat = n
		}
	}
	v := u - m.base
	ax := math.Abs(x)
	j := m.piece(ax)
	r := m.knots[j-1] - ax
	extra := m.off + j - b2i(v < float64(r*m.tw[j-1]))
	if m.cfg.odd && j == 1 {
		mOpp := float64(m.cOpp * r)
		extra = n + 1 - b2i(v < mOpp+float64(m.cZero*r)) - b2i(v < mOpp)
	}
	if x < 0 {
		extra = N - 1 - extra
	}
	if u < m.base {
		extra = flat
	}
	return extra
}

// TestNOutputIndexTables: index, with its operand tables, equals the
// sampler written out case by case, bit for bit, at uniforms next to every
// cut (the flat part's k·p and 1-t, and the thresholds of x's piece), for
// inputs at, next to and between the knots, for N from 2 to large.
func TestNOutputIndexTables(t *testing.T) {
	var ms []*NOutput
	for _, eps := range []float64{0.1, 0.5, 1, 2, 3, 4, 8, 16, 30} {
		m, err := NewNOutput(eps)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
		for _, N := range []int{2, 3, 4, 5, 6, 7} {
			if m, err := NewNOutputN(eps, N); err == nil {
				ms = append(ms, m)
			}
		}
	}
	for _, m := range ms {
		c := &m.cfg
		xs := []float64{-1, -0.7, math.Copysign(0, -1), 0, 1e-300, 0.33, 1}
		for _, k := range m.knots {
			for _, v := range []float64{k, math.Nextafter(k, 0), math.Nextafter(k, 2), k / 2} {
				if v <= 1 {
					xs = append(xs, v, -v)
				}
			}
		}
		var cuts []float64
		for k := 0; k <= c.N; k++ {
			cuts = append(cuts, float64(k)*c.p)
		}
		for _, x := range xs {
			ax := math.Abs(x)
			j := m.piece(ax)
			r := m.knots[j-1] - ax
			cs := append(cuts, m.base, m.base+float64(r*m.tw[j-1]),
				m.base+float64(m.cOpp*r), m.base+float64(m.cOpp*r)+float64(m.cZero*r))
			for _, u := range edgeUniforms(256, cs...) {
				if got, want := m.index(x, u), nOutputIndexRef(m, x, u); got != want {
					t.Fatalf("ε=%v N=%d x=%v u=%v: index %d, want %d", m.eps, c.N, x, u, got, want)
				}
			}
		}
	}
}

// TestNOutputIndexBatch: PerturbIndexBatch gives the indices of the same
// sequence of PerturbIndex calls, and of PerturbBatch's reports.
func TestNOutputIndexBatch(t *testing.T) {
	for _, eps := range []float64{0.5, 1, 4, 8} {
		m, _ := NewNOutput(eps)
		for _, n := range []int{0, 1, 5, 31, 32, 33, 100} {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = -1 + 2*float64(i%13)/12
			}
			ref := rand.New(rand.NewPCG(uint64(n), 5))
			want := make([]int, n)
			for i, x := range xs {
				want[i] = m.PerturbIndex(x, ref)
			}
			got := make([]int, n)
			if err := m.PerturbIndexBatch(got, xs, rand.New(rand.NewPCG(uint64(n), 5))); err != nil {
				t.Fatal(err)
			}
			ys := make([]float64, n)
			if err := m.PerturbBatch(ys, xs, rand.New(rand.NewPCG(uint64(n), 5))); err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if got[i] != want[i] || !sameBits(ys[i], m.outs[want[i]]) {
					t.Fatalf("ε=%v n=%d: index %d is %d (report %v), PerturbIndex gives %d", eps, n, i, got[i], ys[i], want[i])
				}
			}
		}
	}
}

// TestThreeOutputsReportCases: the report made from cuts and pick, with
// its lookup table, equals Algorithm 2's case split on the probabilities
// of probs, bit for bit.
func TestThreeOutputsReportCases(t *testing.T) {
	for _, eps := range []float64{0.3, math.Ln2, 1, 2, 4, 16, 100} {
		ms := []*ThreeOutputs{}
		m, _ := NewThreeOutputs(eps)
		ms = append(ms, m)
		if m2, err := NewThreeOutputsA("t", eps, 0); err == nil {
			ms = append(ms, m2)
		}
		for _, m := range ms {
			for _, x := range []float64{-1, -0.6, math.Copysign(0, -1), 0, 1e-300, 0.25, 1} {
				ax := math.Abs(x)
				bx := 1 - ax
				far := float64(bx*m.half0) + float64(ax*m.far1)
				zero := float64(bx*m.a) + float64(ax*m.zero1)
				s := choose(x < 0, -m.c, m.c)
				for _, u := range edgeUniforms(2048, far, far+zero) {
					want := choose(u < far, -s, choose(u < far+zero, 0, s))
					f, c := m.cuts(ax)
					if got := m.pick(x, u, f, c); !sameBits(got, want) {
						t.Fatalf("ε=%v a=%v x=%v u=%v: report %v, want %v", eps, m.a, x, u, got, want)
					}
				}
			}
		}
	}
}
