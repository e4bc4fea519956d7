package emkernel

import (
	"math"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// TestTransitionProfiles checks that the compressed rows of the fast route
// (pieces, and the band form where it exists) reproduce every normalised
// row to the constant-piece tolerance, and that PM and SW rows have the
// band form.
func TestTransitionProfiles(t *testing.T) {
	for _, name := range []string{"duchi", "pm", "sw", "pm-sub", "three-outputs"} {
		for _, eps := range []float64{0.1, 0.6, 3} {
			for _, bins := range []int{64, 1024} {
				m, err := mechanisms.New(name, eps)
				if err != nil {
					t.Fatal(err)
				}
				s := uleMatrices(t, []mechanisms.Mechanism{m}, bins, testBins)[0]
				p := s.prof
				l := s.L
				if (name == "pm" || name == "sw") && p.band == nil {
					t.Errorf("%s eps %v bins %d: no band form", name, eps, bins)
				}
				var worst float64
				for r := 0; r <= s.H; r++ {
					norm := p.norm[r*l : (r+1)*l]
					if r < s.H {
						for tb := range l {
							if d := math.Abs(norm[tb]*math.Exp(p.lnMax[r]) - s.T[r*l+tb]); d > 1e-14*s.T[r*l+tb]+1e-300 {
								t.Fatalf("%s: lnMax of row %d is off", name, r)
							}
						}
					}
					pos := int32(0)
					for _, q := range p.pieces[p.rowOff[r]:p.rowOff[r+1]] {
						if q.start != pos {
							t.Fatalf("%s row %d: piece starts at %d, want %d", name, r, q.start, pos)
						}
						for tb := q.start; tb < q.end; tb++ {
							v := q.val
							if q.off >= 0 {
								v = p.vals[q.off+tb-q.start]
							}
							worst = max(worst, math.Abs(v-norm[tb]))
						}
						pos = q.end
					}
					if int(pos) != l {
						t.Fatalf("%s row %d: pieces end at %d", name, r, pos)
					}
					if bd := p.band; bd != nil {
						e := bd.eh
						for tb := range l {
							v := bd.base[r]
							if int(bd.a[r]) <= tb && tb < int(bd.b[r]) {
								v += bd.delta[r]
							}
							if i := tb - (int(bd.a[r]) - e); i >= 0 && i < e {
								v += bd.ramp[r*2*e+i]
							}
							if i := tb - int(bd.b[r]); i >= 0 && i < e {
								v += bd.ramp[r*2*e+e+i]
							}
							worst = max(worst, math.Abs(v-norm[tb]))
						}
					}
				}
				if worst > 1e-12 {
					t.Errorf("%s eps %v bins %d: compressed rows off by %g", name, eps, bins, worst)
				}
			}
		}
	}
}
