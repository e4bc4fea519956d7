package audit_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/ldpbench/ldpbench/audit"
	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/group"
)

// Audit Wang et al.'s piecewise mechanism through its density: it spends
// exactly its budget, at the domain's endpoints.
func ExampleAuditLaw() {
	pm, _ := mechanisms.NewPM(1)
	f, _, _ := audit.AuditLaw(pm, audit.Resolution{})
	fmt.Printf("%s: audited ε = %.6f by %s, %s vs %s: %s\n", pm.Name(), f.Epsilon, f.Method, f.X0, f.X1, f.Verdict(pm.Epsilon()))
	// Output:
	// pm: audited ε = 1.000000 by density, x=1 vs x=-1: pass
}

// Audit the paper's Group NPRR (k = 8, the neutral 0 through NPRR) over
// (g, v): it claims ε = 1 and spends ε + ln((e^ε + 8)/9) (ERRATA E2.1).
func ExampleAuditJointLaw() {
	m, _ := group.New(group.Config{Method: "nprr", Eps: 1, D: 2, K: 8, Neutral: group.NeutralNPRR0})
	f, _, _ := audit.AuditJointLaw(m, audit.Resolution{})
	fmt.Printf("%s: claimed %.6f, audited %.6f by %s: %s\n", m.Name(), m.ClaimedEpsilon(), f.Epsilon, f.Method, f.Verdict(m.ClaimedEpsilon()))
	fmt.Printf("worst pair %s vs %s, output %s\n", f.X0, f.X1, f.Output)
	// Output:
	// group-nprr(k=8,neutral=nprr0): claimed 1.000000, audited 1.174726 by exact: VIOLATION
	// worst pair (g=0, v=1) vs (g=1, v=-1), output (g'=0, v'=1)
}

// A black-box lower bound from reports alone: Duchi's mechanism at ε = 2
// between the domain's endpoints, proved to spend at least this much with
// probability 1 - 1e-6.
func ExampleMonteCarlo() {
	duchi, _ := mechanisms.NewDuchi(2)
	rng := rand.New(rand.NewPCG(1, 2))
	f, _ := audit.MonteCarlo(duchi, 1, -1, audit.MCConfig{N: 100_000, Alpha: 1e-6}, rng)
	fmt.Printf("ε ≥ %.2f (%s, %d events): %s\n", f.Epsilon, f.Output, f.Events, f.Verdict(2))
	// Output:
	// ε ≥ 1.96 (y=1.31304, 2 events): pass
}

// Audit a list of targets and print the summary.
func ExampleRun() {
	var ts []audit.Target
	for _, name := range []string{"duchi", "laplace"} {
		m, _ := mechanisms.New(name, 1)
		ts = append(ts, audit.MechanismTarget(m))
	}
	rows, _ := audit.Run(context.Background(), ts, audit.Options{})
	audit.Summary(os.Stdout, rows)
	// Output:
	// audited 2 rows: exact 1 (0 violations) density 1 (0 violations)
	// no violations
}
