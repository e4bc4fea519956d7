package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

const (
	ln2     = 0.6931471805599453 // ln 2
	sqrtLn2 = 0.8325546111576977 // √(ln 2)
)

func TestWasserstein1(t *testing.T) {
	for _, c := range []struct {
		name  string
		p, q  []float64
		width float64
		want  float64
	}{
		{"point masses at bins 0 and 3", []float64{1, 0, 0, 0}, []float64{0, 0, 0, 1}, 0.5, 1.5},
		{"counts are normalised", []float64{2, 0, 0, 0}, []float64{0, 0, 0, 5}, 0.5, 1.5},
		{"reversed order", []float64{0, 0, 0, 1}, []float64{1, 0, 0, 0}, 0.5, 1.5},
		{"identical", []float64{0.1, 0.2, 0.3, 0.4}, []float64{0.1, 0.2, 0.3, 0.4}, 0.25, 0},
		{"proportional", []float64{1, 2, 3, 4}, []float64{0.1, 0.2, 0.3, 0.4}, 0.25, 0},
		// CDFs 1,1,1 and 1/4,1/2,3/4: differences 3/4 + 1/2 + 1/4.
		{"point mass vs uniform", []float64{1, 0, 0, 0}, []float64{1, 1, 1, 1}, 1, 1.5},
		// Mirror images: half the mass moves 2 bins, half moves 2 bins.
		{"mirror images", []float64{0.5, 0.5, 0, 0}, []float64{0, 0, 0.5, 0.5}, 2.0 / 1024, 4.0 / 1024},
		{"shift by one bin", []float64{0.2, 0.3, 0.5, 0}, []float64{0, 0.2, 0.3, 0.5}, 0.125, 0.125},
		{"single bin", []float64{3}, []float64{1}, 2, 0},
		{"empty", []float64{}, []float64{}, 1, nan},
		{"zero mass", []float64{0, 0}, []float64{1, 0}, 1, nan},
		{"negative entry", []float64{1.5, -0.5}, []float64{0.5, 0.5}, 1, nan},
		{"NaN entry", []float64{nan, 1}, []float64{0.5, 0.5}, 1, nan},
		{"infinite entry", []float64{inf, 1}, []float64{0.5, 0.5}, 1, nan},
		{"zero width", []float64{1, 0}, []float64{0, 1}, 0, nan},
		{"negative width", []float64{1, 0}, []float64{0, 1}, -1, nan},
		{"infinite width", []float64{1, 0}, []float64{0, 1}, inf, nan},
	} {
		if got := Wasserstein1(c.p, c.q, c.width); !same(got, c.want, 1e-15) {
			t.Errorf("%s: Wasserstein1 = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestWasserstein1Authors(t *testing.T) {
	for _, c := range []struct {
		name string
		p, q []float64
		want float64
	}{
		// The defect of ERRATA E0.2: mirror images have equal bin heights.
		{"mirror images", []float64{0.5, 0.5, 0, 0}, []float64{0, 0, 0.5, 0.5}, 0},
		{"point masses far apart", []float64{1, 0, 0, 0}, []float64{0, 0, 0, 1}, 0},
		// sorted (0,0,0,1) vs (¼,¼,¼,¼): (¼+¼+¼+¾)/4.
		{"point mass vs uniform", []float64{1, 0, 0, 0}, []float64{1, 1, 1, 1}, 0.375},
		{"counts are normalised", []float64{4, 0, 0, 0}, []float64{0.25, 0.25, 0.25, 0.25}, 0.375},
		// sorted (0.1,0.2,0.3,0.4) vs (0,0,0.5,0.5): (0.1+0.2+0.2+0.1)/4.
		{"general", []float64{0.4, 0.1, 0.3, 0.2}, []float64{0, 0.5, 0, 0.5}, 0.15},
		{"zero mass", []float64{0, 0}, []float64{1, 0}, nan},
	} {
		for _, scratch := range [][]float64{nil, make([]float64, 2*len(c.p))} {
			if got := Wasserstein1Authors(c.p, c.q, scratch); !same(got, c.want, 1e-15) {
				t.Errorf("%s (scratch %d): Wasserstein1Authors = %v, want %v", c.name, len(scratch), got, c.want)
			}
		}
	}
	// The inputs are not reordered.
	p, q := []float64{0.4, 0.1, 0.3, 0.2}, []float64{0, 0.5, 0, 0.5}
	Wasserstein1Authors(p, q, make([]float64, 8))
	if p[0] != 0.4 || q[1] != 0.5 {
		t.Errorf("Wasserstein1Authors modified its inputs: %v %v", p, q)
	}
}

func TestJSDivergence(t *testing.T) {
	for _, c := range []struct {
		name      string
		p, q      []float64
		div, dist float64
		tol       float64
	}{
		{"disjoint supports", []float64{1, 0}, []float64{0, 1}, ln2, sqrtLn2, 0},
		{"disjoint, several bins", []float64{0.2, 0.8, 0, 0}, []float64{0, 0, 3, 1}, ln2, sqrtLn2, 1e-15},
		{"identical", []float64{0.1, 0.2, 0.7}, []float64{0.1, 0.2, 0.7}, 0, 0, 0},
		{"proportional", []float64{1, 2, 7}, []float64{0.1, 0.2, 0.7}, 0, 0, 1e-15},
		// M = (¾, ¼): ½ ln(4/3) + ½·½ ln(4/3) = ¾ ln(4/3).
		{"point mass vs uniform", []float64{1, 0}, []float64{0.5, 0.5}, 0.21576155433883565, 0.46450140402245893, 1e-15},
		{"zero mass", []float64{0, 0}, []float64{1, 0}, nan, nan, 0},
		{"negative entry", []float64{1.5, -0.5}, []float64{0.5, 0.5}, nan, nan, 0},
		{"NaN entry", []float64{0.5, nan}, []float64{0.5, 0.5}, nan, nan, 0},
		{"empty", nil, nil, nan, nan, 0},
	} {
		for _, pq := range [][2][]float64{{c.p, c.q}, {c.q, c.p}} { // symmetry
			if got := JSDivergence(pq[0], pq[1]); !same(got, c.div, c.tol) {
				t.Errorf("%s: JSDivergence(%v, %v) = %v, want %v", c.name, pq[0], pq[1], got, c.div)
			}
			if got := JSDistance(pq[0], pq[1]); !same(got, c.dist, c.tol) {
				t.Errorf("%s: JSDistance(%v, %v) = %v, want %v", c.name, pq[0], pq[1], got, c.dist)
			}
		}
	}
}

func TestKL(t *testing.T) {
	for _, c := range []struct {
		name string
		p, q []float64
		want float64
	}{
		{"identical", []float64{0.25, 0.75}, []float64{0.25, 0.75}, 0},
		// ½ ln(½/¼) + ½ ln(½/¾) = ½ ln(4/3).
		{"two bins", []float64{0.5, 0.5}, []float64{0.25, 0.75}, 0.14384103622589042},
		{"counts are normalised", []float64{3, 3}, []float64{1, 3}, 0.14384103622589042},
		{"zero in q where p has mass", []float64{0.5, 0.5}, []float64{1, 0}, inf},
		// 0·log 0 = 0: bins where p is 0 do not count. ln(1/½).
		{"zero in p", []float64{1, 0}, []float64{0.5, 0.5}, ln2},
		{"disjoint", []float64{1, 0}, []float64{0, 1}, inf},
		{"zero mass", []float64{0, 0}, []float64{1, 0}, nan},
		{"negative entry", []float64{1, 0}, []float64{1.5, -0.5}, nan},
	} {
		if got := KL(c.p, c.q); !same(got, c.want, 1e-15) {
			t.Errorf("%s: KL = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestLengthMismatchPanics(t *testing.T) {
	p, q := []float64{1, 0}, []float64{1, 0, 0}
	for name, f := range map[string]func(){
		"Wasserstein1":        func() { Wasserstein1(p, q, 1) },
		"Wasserstein1Authors": func() { Wasserstein1Authors(p, q, nil) },
		"JSDivergence":        func() { JSDivergence(p, q) },
		"JSDistance":          func() { JSDistance(p, q) },
		"KL":                  func() { KL(p, q) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic on histograms of lengths 2 and 3", name)
				}
			}()
			f()
		}()
	}
}

// randHist returns a random histogram of n bins, about a third of them empty,
// with at least one positive entry.
func randHist(rng *rand.Rand, n int) []float64 {
	p := make([]float64, n)
	for i := range p {
		if rng.IntN(3) > 0 {
			p[i] = 10 * rng.Float64()
		}
	}
	p[rng.IntN(n)] += 1
	return p
}

// w1Coupling computes W1 between the histograms by an independent route:
// the monotone (quantile) coupling of the two distributions on the bin
// centres, moving mass atom by atom.
func w1Coupling(p, q []float64, width float64) float64 {
	sp, _ := mass(p)
	sq, _ := mass(q)
	n := len(p)
	i, j := 0, 0
	ra, rb := p[0]/sp, q[0]/sq
	var s float64
	for i < n && j < n {
		d := math.Abs(float64(i-j)) * width
		if ra <= rb {
			s += ra * d
			rb -= ra
			if i++; i < n {
				ra = p[i] / sp
			}
		} else {
			s += rb * d
			ra -= rb
			if j++; j < n {
				rb = q[j] / sq
			}
		}
	}
	return s
}

func TestDistanceProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(20250101, 7))
	const lo, hi = -1.0, 1.0
	for trial := range 2000 {
		n := 1 + rng.IntN(64)
		width := (hi - lo) / float64(n)
		p, q, r := randHist(rng, n), randHist(rng, n), randHist(rng, n)

		js := JSDivergence(p, q)
		if !(js >= 0 && js <= ln2) {
			t.Fatalf("trial %d: JSDivergence = %v outside [0, ln 2]", trial, js)
		}
		if js2 := JSDivergence(q, p); js2 != js && math.Abs(js2-js) > 1e-15 {
			t.Fatalf("trial %d: JSDivergence not symmetric: %v vs %v", trial, js, js2)
		}
		if d := JSDistance(p, q); !same(d*d, js, 1e-14) {
			t.Fatalf("trial %d: JSDistance² = %v, JSDivergence = %v", trial, d*d, js)
		}
		// JS distance is a metric.
		if a, b, c := JSDistance(p, r), JSDistance(p, q), JSDistance(q, r); a > b+c+1e-12 {
			t.Fatalf("trial %d: JSDistance triangle inequality fails: %v > %v + %v", trial, a, b, c)
		}
		if k := KL(p, q); !(k >= 0) {
			t.Fatalf("trial %d: KL = %v < 0", trial, k)
		}
		if KL(p, p) > 1e-15 {
			t.Fatalf("trial %d: KL(p, p) = %v", trial, KL(p, p))
		}

		w := Wasserstein1(p, q, width)
		if !(w >= 0 && w <= hi-lo) {
			t.Fatalf("trial %d: Wasserstein1 = %v outside [0, %v]", trial, w, hi-lo)
		}
		if w2 := Wasserstein1(q, p, width); !same(w2, w, 1e-14) {
			t.Fatalf("trial %d: Wasserstein1 not symmetric: %v vs %v", trial, w, w2)
		}
		if a, b, c := Wasserstein1(p, r, width), w, Wasserstein1(q, r, width); a > b+c+1e-12 {
			t.Fatalf("trial %d: Wasserstein1 triangle inequality fails: %v > %v + %v", trial, a, b, c)
		}
		if want := w1Coupling(p, q, width); !same(w, want, 1e-12) {
			t.Fatalf("trial %d: Wasserstein1 = %v, coupling gives %v", trial, w, want)
		}

		// Shifting a histogram by k bins moves it by k·width.
		k := rng.IntN(n)
		shifted := make([]float64, n+k)
		copy(shifted[k:], p)
		padded := make([]float64, n+k)
		copy(padded, p)
		if got, want := Wasserstein1(padded, shifted, width), float64(k)*width; !same(got, want, 1e-12) {
			t.Fatalf("trial %d: shift by %d bins: Wasserstein1 = %v, want %v", trial, k, got, want)
		}
	}
}

var sink float64

func TestDistancesDoNotAllocate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	p, q := randHist(rng, 1024), randHist(rng, 1024)
	scratch := make([]float64, 2048)
	for name, f := range map[string]func(){
		"Wasserstein1":        func() { sink = Wasserstein1(p, q, 2.0/1024) },
		"Wasserstein1Authors": func() { sink = Wasserstein1Authors(p, q, scratch) },
		"JSDivergence":        func() { sink = JSDivergence(p, q) },
		"JSDistance":          func() { sink = JSDistance(p, q) },
		"KL":                  func() { sink = KL(p, q) },
		"SquaredError":        func() { sink = SquaredError(p[0], q[0]) },
		"AbsError":            func() { sink = AbsError(p[0], q[0]) },
		"ScaledAbsError":      func() { sink = ScaledAbsError(p[0], q[0], 2) },
		"RMSE":                func() { sink = RMSE(p) },
	} {
		if a := testing.AllocsPerRun(20, f); a != 0 {
			t.Errorf("%s: %v allocations per run, want 0", name, a)
		}
	}
}
