package audit_test

import (
	"math"
	"testing"

	"github.com/ldpbench/ldpbench/audit"
)

// TestClopperPearson holds the one-sided bounds to reference values
// computed with mpmath at 60 digits by solving the binomial tail equations
// P_L[X ≥ k] = alpha and P_U[X ≤ k] = alpha by bisection (independently of
// any beta quantile), to 1e-10 relative. (7, 20, 0.025) is R's
// binom.test(7, 20) interval, 0.1539092–0.5921885. A bound with the beta
// parameters off by one (Beta(k+1, n-k) for the lower bound), alpha and
// 1 - alpha swapped, or a two-sided level would miss by far more.
func TestClopperPearson(t *testing.T) {
	for _, c := range []struct {
		k, n         int
		alpha        float64
		lower, upper float64
	}{
		{7, 20, 0.025, 0.15390920478454116, 0.59218853453282812},
		{1, 10, 0.05, 0.0051161968918237014, 0.39416330243650478},
		{50, 100000, 1e-6, 0.00023253659437057434, 0.00092376100415259563},
		{3, 1000, 1e-3, 0.0001907059817085266, 0.012996697147763749},
		{400, 5000, 1e-8, 0.06016469113021301, 0.10343348319561276},
	} {
		l, err := audit.ClopperPearsonLower(c.k, c.n, c.alpha)
		if err != nil {
			t.Fatal(err)
		}
		u, err := audit.ClopperPearsonUpper(c.k, c.n, c.alpha)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(l/c.lower-1) > 1e-10 || math.Abs(u/c.upper-1) > 1e-10 {
			t.Errorf("k=%d n=%d alpha=%g: [%.17g, %.17g], want [%.17g, %.17g]", c.k, c.n, c.alpha, l, u, c.lower, c.upper)
		}
		// The mirror image: the lower bound of k is 1 - the upper bound
		// of n - k (to 1e-10 absolute: 1 - u loses digits and gonum's
		// beta quantile is accurate to about 1e-12).
		um, _ := audit.ClopperPearsonUpper(c.n-c.k, c.n, c.alpha)
		if math.Abs((1-um)-l) > 1e-10 {
			t.Errorf("k=%d n=%d: lower %v, 1 - upper(n-k) %v", c.k, c.n, l, 1-um)
		}
	}
	// The closed forms at the ends: no successes gives [0, 1 - alpha^(1/n)],
	// all successes [alpha^(1/n), 1].
	for _, n := range []int{1, 7, 1000, 1_000_000} {
		for _, alpha := range []float64{0.05, 1e-9} {
			l0, _ := audit.ClopperPearsonLower(0, n, alpha)
			u0, _ := audit.ClopperPearsonUpper(0, n, alpha)
			ln, _ := audit.ClopperPearsonLower(n, n, alpha)
			un, _ := audit.ClopperPearsonUpper(n, n, alpha)
			want := math.Pow(alpha, 1/float64(n))
			if l0 != 0 || un != 1 || math.Abs(u0/(1-want)-1) > 1e-9 || math.Abs(ln/want-1) > 1e-12 {
				t.Errorf("n=%d alpha=%g: k=0 [%v, %v], k=n [%v, %v]", n, alpha, l0, u0, ln, un)
			}
		}
	}
	for _, c := range []struct {
		k, n  int
		alpha float64
	}{{-1, 10, 0.05}, {11, 10, 0.05}, {0, 0, 0.05}, {1, 10, 0}, {1, 10, 1}, {1, 10, math.NaN()}} {
		if _, err := audit.ClopperPearsonLower(c.k, c.n, c.alpha); err == nil {
			t.Errorf("ClopperPearsonLower(%d, %d, %v) accepted", c.k, c.n, c.alpha)
		}
		if _, err := audit.ClopperPearsonUpper(c.k, c.n, c.alpha); err == nil {
			t.Errorf("ClopperPearsonUpper(%d, %d, %v) accepted", c.k, c.n, c.alpha)
		}
	}
}
