package audit_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ldpbench/ldpbench/audit"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// mcAlpha is the error probability of the Monte Carlo bounds in these
// tests: a correct mechanism is flagged with probability at most 1e-6 per
// audit, by construction of the bound.
const mcAlpha = 1e-6

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

// TestMonteCarloCatches is the meta-test of the black-box path, from
// reports alone at the domain's ends, N = 200,000 reports per input,
// error probability 1e-6:
//
//   - PM at 2ε claiming ε = 1: the event {Y > t} for t near 1 has
//     probabilities 0.73 and 0.099 at x = 1 and -1 (ratio e²); their
//     Clopper–Pearson bounds at the Bonferroni level (46 events, z ≈ 5.9)
//     are within 1 % and 4 % relative, so the bound is about 1.95, and a
//     miss would need an error of some 50 standard errors.
//   - Group NPRR, paper's neutral value, k = 8, d = 2, ε = 1 (true level
//     1.1747, E2.1): the output (g′ = 0, v′ = 1) has probabilities 0.1379
//     at (0, 1) and 0.0426 at (1, -1); their bounds at z ≈ 5.6 (20 events)
//     are within 3.1 % and 5.9 %, so the bound is about 1.085 > 1: 0.085 in
//     log is 7 standard errors of the log ratio (0.012) from a miss.
//
// Each bound must also stay below the true level (it is a lower bound).
func TestMonteCarloCatches(t *testing.T) {
	rng := newRNG(1)
	cfg := audit.MCConfig{N: 200_000, Alpha: mcAlpha}
	f, err := audit.MonteCarlo(newDoubledPM(1), 1, -1, cfg, rng)
	if err != nil {
		t.Fatal(err)
	}
	if f.Verdict(1) != audit.Violation || f.Epsilon > 2 || f.Method != audit.MethodMonteCarlo || f.Samples != cfg.N || f.Alpha != mcAlpha {
		t.Errorf("PM at 2ε claiming 1: %+v", f)
	}
	t.Logf("PM at 2ε claiming 1: ε ≥ %.4g with probability 1 - %g (%s, %v vs %v)", f.Epsilon, f.Alpha, f.Output, f.X0, f.X1)

	m := newRefNPRR(2, 8, 1, true)
	f, err = audit.MonteCarloJoint(m, audit.Input{G: 0, V: 1}, audit.Input{G: 1, V: -1}, cfg, rng)
	if err != nil {
		t.Fatal(err)
	}
	if f.Verdict(1) != audit.Violation || f.Epsilon > m.TrueEpsilon() {
		t.Errorf("Group NPRR k=8 nprr0: %+v (true ε %v)", f, m.TrueEpsilon())
	}
	t.Logf("Group NPRR k=8 d=2 nprr0 ε=1: ε ≥ %.4g with probability 1 - %g (%s); true %.4g", f.Epsilon, f.Alpha, f.Output, m.TrueEpsilon())
}

// TestMonteCarloSound: no correct mechanism is flagged: every registered
// one at ε = 1 between its domain's ends, the fixed Group NPRR and the
// one-scale Group Laplace (k = 2). Each flag would be an event of
// probability ≤ 1e-6; a bound built from point estimates instead of
// confidence bounds would flag about half of these tight mechanisms.
func TestMonteCarloSound(t *testing.T) {
	rng := newRNG(2)
	cfg := audit.MCConfig{N: 100_000, Alpha: mcAlpha}
	for _, name := range mechanisms.Names() {
		m, err := mechanisms.New(name, 1)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := m.Domain()
		f, err := audit.MonteCarlo(m, hi, lo, cfg, rng)
		if err != nil {
			t.Fatal(err)
		}
		if f.Verdict(1) != audit.Pass {
			t.Errorf("%s: flagged: %+v", name, f)
		}
	}
	for _, m := range []audit.Joint{newRefNPRR(2, 8, 1, false), newJKLaplace(2, 1, 2)} {
		f, err := audit.MonteCarloJoint(m, audit.Input{G: 0, V: 1}, audit.Input{G: 1, V: -1}, cfg, rng)
		if err != nil {
			t.Fatal(err)
		}
		if f.Verdict(1) != audit.Pass {
			t.Errorf("%s: flagged: %+v", m.Name(), f)
		}
	}
}

// TestMonteCarloIsABound checks the coverage of the bound itself: Duchi's
// mechanism at ε = 1 has privacy loss exactly 1, so a bound at error
// probability 0.2 may exceed 1 in at most 20 % of independent audits. Over
// 300 audits of 2,000 reports the count of such audits is at most
// Binomial(300, 0.2), which exceeds 60 + 4·√48 = 88 with probability below
// 1e-4. A bound from point estimates exceeds 1 in about 3/4 of the audits
// (either output's estimated ratio above e, each about half the time).
func TestMonteCarloIsABound(t *testing.T) {
	m, _ := mechanisms.NewDuchi(1)
	rng := newRNG(3)
	over := 0
	for range 300 {
		f, err := audit.MonteCarlo(m, 1, -1, audit.MCConfig{N: 2000, Pilot: 200, Alpha: 0.2}, rng)
		if err != nil {
			t.Fatal(err)
		}
		if f.Epsilon > 1 {
			over++
		}
	}
	t.Logf("%d of 300 audits above the true ε", over)
	if over > 88 {
		t.Errorf("the bound exceeded the true ε in %d of 300 audits at alpha 0.2", over)
	}
}

// TestMonteCarloErrors: inputs outside the domain (or a group out of
// range) and a bad alpha are errors.
func TestMonteCarloErrors(t *testing.T) {
	pm, _ := mechanisms.NewPM(1)
	rng := newRNG(4)
	if _, err := audit.MonteCarlo(pm, 1.5, -1, audit.MCConfig{N: 100}, rng); err == nil {
		t.Error("x = 1.5 accepted")
	}
	if _, err := audit.MonteCarlo(pm, 1, -1, audit.MCConfig{N: 100, Alpha: 1}, rng); err == nil {
		t.Error("alpha = 1 accepted")
	}
	m := newRefNPRR(2, 2, 1, true)
	if _, err := audit.MonteCarloJoint(m, audit.Input{G: 2, V: 0}, audit.Input{G: 0, V: 0}, audit.MCConfig{N: 100}, rng); err == nil {
		t.Error("group 2 of 2 accepted")
	}
	if _, err := audit.MonteCarloJoint(m, audit.Input{G: 0, V: math.NaN()}, audit.Input{G: 1, V: 0}, audit.MCConfig{N: 100}, rng); err == nil {
		t.Error("v = NaN accepted")
	}
}
