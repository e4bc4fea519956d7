package multiservice

import (
	"math"
	"strconv"
	"strings"

	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/mechanisms"
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
	_ experiment.CostEstimator = Kind{}
	_ experiment.CostEstimator = MD{}
)

// TrialCost implements experiment.CostEstimator, for --shard's balance
// (plan times the EM cells at their own n instead): a trial's CPU in
// nanoseconds on the machine of docs/times.md, modelled, since a shard
// must compute the same assignment without timing anything. The draws
// cost about 15 ns a report (multiservice-fig4: 228 CPU-s for 4,200
// trials of 4·10⁶ reports), UWA's posterior 10 ns more, EM's bucketing
// and merging 20 ns more; an EM cell then runs min(max_iter,
// 1000·(n/10⁴)^⅓) iterations under the authors' rule (the growth plan's
// fallback assumes too), 500 E-steps under stop = converged, each
// costing what its route does (emIterationCost).
// Without it, a shard was balanced by n alone: multiservice-fig7d's four
// shards took 9, 15, 14 and 728 CPU-s, its ULE cells all in one.
func (Kind) TrialCost(c *experiment.CellSpec) float64 {
	return msTrialCost(c, c.N)
}

// TrialCost implements experiment.CostEstimator: d attributes of n/d
// users each, one EM (or mean) per attribute, and about 30 µs per
// attribute beside it (its estimator's set-up): at plan's calibration
// size, 20,000 users over 60 attributes, that is most of a mean cell's
// trial, and scaled as n alone multiservice-fig6c was planned at 1.36
// times its run.
func (MD) TrialCost(c *experiment.CellSpec) float64 {
	d := max(c.Params.Int("d", 1), 1)
	sub := c.Params.Values()
	delete(sub, "d")
	p, err := kindParams.Parse(sub)
	if err != nil {
		return experiment.DefaultTrialCost(c)
	}
	one := *c
	one.Params = p
	return float64(d) * (30e3 + msTrialCost(&one, max(c.N/d, 1)))
}

// msTrialCost is the modelled CPU nanoseconds of a trial of cell c at n
// users (0 when the cell does not parse: the caller falls back).
func msTrialCost(c *experiment.CellSpec, n int) float64 {
	cfg, err := parseMSConfig(c)
	if err != nil {
		return 0
	}
	m := len(cfg.services)
	reports := float64(n) * float64(m)
	switch {
	case c.Method == "uwa" || c.Method == "uwa-oracle":
		return 25 * reports
	case c.Method != "ule" && !strings.HasPrefix(c.Method, "ems-"):
		return 15 * reports
	}
	_, maxIter, _ := emIterations(c)
	iters := 500.0
	if estimators.StopRule(c.Params.String("stop", "")) != estimators.StopConverged {
		iters = 1000 * math.Cbrt(float64(n)/1e4)
	}
	iters = min(iters, float64(maxIter))
	var buckets []int // per service: its output buckets (0: a few, as SR)
	for _, mech := range cfg.mechs {
		buckets = append(buckets, outputBuckets(mech, cfg.bins))
	}
	var perIter float64
	switch {
	case c.Method == "ule":
		perIter = emIterationCost(buckets, n, cfg.bins)
	case c.Method == "ems-best":
		for _, h := range buckets {
			perIter += emIterationCost([]int{h}, n, cfg.bins)
		}
	default:
		j := 0
		if ref, ok := strings.CutPrefix(c.Method, "ems-"); ok {
			if k, err := cfg.resolveService(c.Method, ref); err == nil {
				j = k
			}
		}
		perIter = emIterationCost(buckets[j:j+1], n, cfg.bins)
	}
	return 35*reports + iters*perIter
}

// outputBuckets is a service's output buckets in EM: d̃ of eq. (13) of
// Baek & Chung for the piecewise family, bins for Square Wave, 0 for a
// mechanism of a few outputs (SR), which EM handles as a combination.
func outputBuckets(m mechanisms.Mechanism, bins int) int {
	switch mm := m.(type) {
	case *mechanisms.Piecewise:
		return estimators.DTilde(mm, bins, estimators.DTildeCeil)
	case *mechanisms.SquareWave:
		return bins
	}
	return 0
}

// emIterationCost is the modelled nanoseconds of one E-step of ULE (EMS
// for one service) over services with these output buckets at n users,
// by the route emkernel takes (measured on the machine of docs/
// multiservice.md, Table 1): SR-like services alone, O(bins) per
// combination; one PM or SW service, O(bins) per combination plus a few
// ns per distinct vector; two, the pair kernel (16 ns per distinct vector)
// or its grid form (0.8 ns per cell of the bucket grid, which stops
// growing once filled); three or more, a compiled program per vector,
// every user distinct.
func emIterationCost(buckets []int, n, bins int) float64 {
	combos := 1.0
	var seg []float64
	for _, h := range buckets {
		if h == 0 {
			combos *= 2
		} else {
			seg = append(seg, float64(h))
		}
	}
	distinct := func(cells float64) float64 { return cells * -math.Expm1(-float64(n)/cells) }
	base := 5 * float64(bins) * combos
	switch len(seg) {
	case 0:
		return base
	case 1:
		return base + 10*distinct(combos*seg[0])
	case 2:
		g := combos * seg[0] * seg[1]
		return base + min(16*distinct(g), 0.8*g)
	}
	return base + (10+2.7*float64(len(seg)))*float64(n)
}
