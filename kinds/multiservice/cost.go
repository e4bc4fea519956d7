package multiservice

import (
	"strconv"
	"strings"

	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/experiment"
)

// The cost of a trial of an EM method is its draws and merging of the
// reports plus its EM iterations, and under the authors' stopping rule
// (|ΔLL| < 10⁻³ nats, absolute) the iterations grow with n as no
// calibration at a smaller n foresees: measured at full scale, from
// n^0.16 (three SR services at ε = 0.1–0.3) to n^0.40 (EMS of SW), and
// for ULE over m services the fewer the larger m is (docs/scale-out.md).
// So both kinds are experiment.IterativeCost: `ldpbench plan` times an EM
// cell at its own n with max_iter capped, and takes the iterations from
// a full-scale run's record.

// Iterations implements experiment.IterativeCost: the EM methods (ule,
// ems-<s>, ems-best) report their E-steps in em_iterations; their cap is
// params.max_iter, else 10,000 under the authors' rule and 100,000 under
// stop = converged.
func (Kind) Iterations(c *experiment.CellSpec) (metric string, max int, ok bool) {
	return emIterations(c)
}

// CapIterations implements experiment.IterativeCost: params.max_iter = k.
func (Kind) CapIterations(_ *experiment.CellSpec, k int) map[string]string {
	return capIterations(k)
}

// Iterations implements experiment.IterativeCost as Kind's: a trial
// reports the mean of its d attributes' E-steps, each EM capped alike.
func (MD) Iterations(c *experiment.CellSpec) (metric string, max int, ok bool) {
	return emIterations(c)
}

// CapIterations implements experiment.IterativeCost: params.max_iter = k,
// for every attribute's EM.
func (MD) CapIterations(_ *experiment.CellSpec, k int) map[string]string {
	return capIterations(k)
}

func emIterations(c *experiment.CellSpec) (string, int, bool) {
	if c.Method != "ule" && !strings.HasPrefix(c.Method, "ems-") {
		return "", 0, false
	}
	def := 10000
	if estimators.StopRule(c.Params.String("stop", "")) == estimators.StopConverged {
		def = 100000
	}
	return "em_iterations", c.Params.Int("max_iter", def), true
}

func capIterations(k int) map[string]string {
	return map[string]string{"max_iter": strconv.Itoa(k)}
}

var (
	_ experiment.IterativeCost = Kind{}
	_ experiment.IterativeCost = MD{}
)
