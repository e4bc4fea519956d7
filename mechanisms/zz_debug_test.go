package mechanisms_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/mechtest"
)

func TestZZDebug(t *testing.T) {
	m, _ := mechanisms.NewPiecewise("x", 1, math.Exp(0.5))
	lo, hi := m.OutputRange()
	x := 0.6
	l, r := m.Window(x)
	fmt.Println(lo, hi, l, r)
	n := 0
	f := func(y float64) float64 { n++; return y * m.Density(y, x) }
	for _, p := range []int{16, 32, 63, 64, 65, 128} {
		n = 0
		fmt.Println(p, mechtest.Integrate(f, lo, hi, p, 1e-15), n, mechtest.Integrate(f, lo, hi, p, 1e-13))
	}
	h := (hi - lo) / 64
	fmt.Println((l-lo)/h, (r-lo)/h)
}
