package estimators

import (
	"errors"
	"math"
	"testing"

	"github.com/ldpbench/ldpbench/estimators/internal/uletest"
	"github.com/ldpbench/ldpbench/mechanisms"
)

func uleMech(t *testing.T, name string, eps float64) mechanisms.Mechanism {
	t.Helper()
	m, err := mechanisms.New(name, eps)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestTransitionColumnsAndEntries checks that every column sums to 1 and
// that every entry is the exact bucket probability of the authors'
// discretisation (E4.13): SR's law at the bin midpoint, PM's BucketGivenBin
// at the midpoint, SW's averaged over the bin, each column divided by its
// (rounding-level) sum.
func TestTransitionColumnsAndEntries(t *testing.T) {
	for _, name := range []string{"duchi", "pm", "sw"} {
		for _, eps := range []float64{0.1, 1, 4} {
			for _, bins := range []int{7, 64} {
				m := uleMech(t, name, eps)
				s, err := NewService(m, ServiceOptions{Bins: bins, Buckets: 96})
				if err != nil {
					t.Fatal(err)
				}
				dlo, dhi := m.Domain()
				w := (dhi - dlo) / float64(bins)
				for tb := range bins {
					var sum, rawSum float64
					raw := make([]float64, s.Buckets)
					mid := dlo + (float64(tb)+0.5)*w
					for r := range s.Buckets {
						switch mm := m.(type) {
						case mechanisms.Discrete:
							p := make([]float64, s.Buckets)
							mm.Probabilities(mid, p)
							raw[r] = p[r]
						case mechanisms.Continuous:
							lo, hi := mm.OutputRange()
							bw := (hi - lo) / float64(s.Buckets)
							ylo, yhi := lo+float64(r)*bw, lo+float64(r+1)*bw
							if r == s.Buckets-1 {
								yhi = hi
							}
							if name == "sw" {
								xhi := dlo + float64(tb+1)*w
								if tb == bins-1 {
									xhi = dhi
								}
								raw[r] = mm.BucketGivenBin(ylo, yhi, dlo+float64(tb)*w, xhi)
							} else {
								raw[r] = mm.BucketGivenBin(ylo, yhi, mid, mid)
							}
						}
						rawSum += raw[r]
						sum += s.At(r, tb)
					}
					if math.Abs(sum-1) > 1e-13 {
						t.Errorf("%s eps %v bins %d: column %d sums to %v", name, eps, bins, tb, sum)
					}
					if math.Abs(rawSum-1) > 1e-12 {
						t.Errorf("%s eps %v bins %d: column %d of the exact integrals sums to %v", name, eps, bins, tb, rawSum)
					}
					for r := range s.Buckets {
						if d := math.Abs(s.At(r, tb) - raw[r]/rawSum); d > 1e-15 {
							t.Errorf("%s eps %v bins %d: T[%d,%d] = %v, BucketGivenBin gives %v", name, eps, bins, r, tb, s.At(r, tb), raw[r]/rawSum)
						}
					}
				}
			}
		}
	}
}

// TestTransitionDefaults checks the authors' discretisation: 2 buckets for
// SR, 1024 for PM and SW, 1024 bins; midpoint for PM and SR, bin average
// for SW (E4.13).
func TestTransitionDefaults(t *testing.T) {
	svcs := uleServices(t, uletest.Mechs(t, 0.5, 0.5, 0.5), 0)
	for j, want := range []struct {
		buckets  int
		midpoint bool
	}{{2, true}, {1024, true}, {1024, false}} {
		s := svcs[j]
		if s.Bins != 1024 || s.Buckets != want.buckets || s.Midpoint != want.midpoint {
			t.Errorf("%s: bins %d buckets %d midpoint %v", s.Mech.Name(), s.Bins, s.Buckets, s.Midpoint)
		}
	}
	// PM covers [-C, C] and SW [-b, 1+b].
	pm := svcs[1].Mech.(mechanisms.Continuous)
	if lo, hi := pm.OutputRange(); svcs[1].Lo != lo || svcs[1].Hi != hi {
		t.Errorf("pm range [%v, %v], service [%v, %v]", lo, hi, svcs[1].Lo, svcs[1].Hi)
	}
	sw := svcs[2].Mech.(*mechanisms.SquareWave)
	if svcs[2].Lo != -sw.B() || svcs[2].Hi != 1+sw.B() {
		t.Errorf("sw range [%v, %v], b = %v", svcs[2].Lo, svcs[2].Hi, sw.B())
	}
}

func TestTransitionLaplaceExcluded(t *testing.T) {
	_, err := NewServices([]mechanisms.Mechanism{uleMech(t, "pm", 1), uleMech(t, "laplace", 1)}, 0)
	if !errors.Is(err, ErrUnboundedOutput) {
		t.Fatalf("laplace: err = %v, want ErrUnboundedOutput", err)
	}
}

func TestServiceBucket(t *testing.T) {
	pm, err := NewService(uleMech(t, "pm", 1), ServiceOptions{Buckets: 8})
	if err != nil {
		t.Fatal(err)
	}
	w := (pm.Hi - pm.Lo) / 8
	for _, tc := range []struct {
		y    float64
		want int
	}{
		{pm.Lo, 0}, {pm.Lo - 1, 0}, {pm.Lo + 0.5*w, 0}, {pm.Lo + 1.5*w, 1},
		{pm.Hi, 7}, {pm.Hi + 1, 7}, {math.Nextafter(pm.Hi, 0), 7}, {0.01, 4}, {-0.01, 3},
		{math.NaN(), -1},
	} {
		if got := pm.Bucket(tc.y); got != tc.want {
			t.Errorf("pm bucket(%v) = %d, want %d", tc.y, got, tc.want)
		}
	}
	sr, err := NewService(uleMech(t, "duchi", 1), ServiceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := sr.Hi
	for _, tc := range []struct {
		y    float64
		want int
	}{{-c, 0}, {c, 1}, {-0.5, 0}, {0.5, 1}, {math.NaN(), -1}} {
		if got := sr.Bucket(tc.y); got != tc.want {
			t.Errorf("sr bucket(%v) = %d, want %d", tc.y, got, tc.want)
		}
	}
}
