package aaa

import (
	"math"
	"testing"

	"github.com/ldpbench/ldpbench/audit"
)

// TestAuditPhase2: the project's exact auditor (audit.AuditLaw, which
// knows nothing of the programme: it evaluates Probabilities on a fine
// input grid) finds the corrected release ε-LDP at ε = 1, 3, 5 and the
// authors' alignment released on the data grid not ε-LDP (E0.23); both
// agree with Phase2.AuditedEpsilon (exactly for the corrected law; for
// the authors' the auditor reports a finite lower bound, 4.67 at ε = 3,
// where AuditedEpsilon finds a report impossible at one grid point and
// possible at another, +Inf).
func TestAuditPhase2(t *testing.T) {
	for _, tc := range []struct {
		al   Alignment
		eps  float64
		pass bool
	}{{Corrected, 1, true}, {Corrected, 3, true}, {Corrected, 5, true}, {Authors, 3, false}} {
		nz, err := SolveNoise(NoiseConfig{Eps: tc.eps, Prior: betaPrior(17), Alignment: tc.al})
		if err != nil {
			t.Fatal(err)
		}
		m := NewPhase2(nz)
		f, ok, err := audit.AuditLaw(m, audit.Resolution{Inputs: 200})
		if err != nil || !ok {
			t.Fatalf("%v ε = %g: AuditLaw ok=%v err=%v", tc.al, tc.eps, ok, err)
		}
		if got := f.Verdict(tc.eps) == audit.Pass; got != tc.pass {
			t.Errorf("%v ε = %g: audited ε = %v (pass %v, want %v)", tc.al, tc.eps, f.Epsilon, got, tc.pass)
		}
		own := m.AuditedEpsilon()
		if !tc.pass { // both find the violation (the auditor's value is its own lower bound)
			if !(own > tc.eps && f.Epsilon > tc.eps) {
				t.Errorf("%v ε = %g: AuditedEpsilon %v, auditor %v: want both > ε", tc.al, tc.eps, own, f.Epsilon)
			}
			t.Logf("%v ε = %g: AuditedEpsilon %v, auditor %v", tc.al, tc.eps, own, f.Epsilon)
			continue
		}
		if math.Abs(own-f.Epsilon) > 1e-9*tc.eps {
			t.Errorf("%v ε = %g: AuditedEpsilon %v, auditor %v", tc.al, tc.eps, own, f.Epsilon)
		}
	}
}
