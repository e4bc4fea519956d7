package mean

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/aaa"
	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/metrics"
)

// The methods aaa and np-aaa of kind mean-ht are the two-phase protocols
// of package aaa (Baek & Chung Sec. 4.3, Fig. 3), not registered
// mechanisms. They use the subset mean of the authors' code: each record is
// kept with probability 1/dim (k plays no part) and only kept records
// report, at the full ε. AAA estimates the mean from its phase-2 reports;
// NP-AAA pools every report of both phases (ERRATA E0.22).
//
// Parameters (beside dim): split ("dataset", the default, the first 10 %
// of the kept records in dataset order as the authors' code, ERRATA E0.24;
// or "shuffled") and alignment ("corrected", the default, or "authors",
// ERRATA E0.23).
//
// Theory of mse (an approximation, the subset-mean formula): with S1 the
// first tenth of the records (dataset split; the whole data weighted 0.1
// and 0.9 when shuffled) and S2 the rest,
//
//	AAA:    (mean(S2) - μ)² + [avg_{S2} V2(x) + (1 - n2/|S2|)·s²_{S2}]/n2,  n2 = 0.9·n/dim
//	NP-AAA: [ (Σ_{S1} V_HMNP(x) + Σ_{S2} V2(x))/n + (1 - m/n)·s² ]/m,      m = n/dim
//
// where V2 is the phase-2 variance (rounding and noise) of the noise law
// solved for the data's true rounded histogram. The protocols solve it
// for a phase-1 estimate instead, which is optimal for the estimate, not
// for the data, so the measured MSE lies at or above this theory; the gap
// shrinks as phase 1 grows (it is wide at quick scale, where phase 1 has
// about 100 users). NP-AAA's prior is 2PEM's 17 intervals of width 2/17
// read as the 17 grid points (E0.25), a further approximation.
var aaaMethods = map[string]aaa.Variant{"aaa": aaa.AAA, "np-aaa": aaa.NPAAA}

// aaaCache holds solved noise laws for every cell of the process.
var aaaCache = aaa.NewCache(512)

func aaaConfig(c *experiment.CellSpec) (aaa.Config, error) {
	cfg := aaa.Config{Variant: aaaMethods[c.Method], Eps: c.Eps, Dim: c.Params.Int("dim", 1)}
	switch s := c.Params.String("split", "dataset"); s {
	case "dataset":
	case "shuffled":
		cfg.Shuffled = true
	default:
		return cfg, htParams.Errorf("split", "%q: want \"dataset\" or \"shuffled\"", s)
	}
	al, err := aaa.ParseAlignment(c.Params.String("alignment", "corrected"))
	if err != nil {
		return cfg, htParams.Errorf("alignment", "%v", err)
	}
	cfg.Alignment = al
	return cfg, nil
}

func aaaPrepare(ctx context.Context, c *experiment.CellSpec) (experiment.CellRun, error) {
	cfg, err := aaaConfig(c)
	if err != nil {
		return nil, err
	}
	p, err := aaa.New(cfg, aaaCache)
	if err != nil {
		return nil, err
	}
	cfg = p.Config()
	xs := c.Dataset.Values[:c.N]
	r := &aaaRun{p: p, xs: xs, truth: estimators.TrueMean(xs), rate: 1 / float64(cfg.Dim), metrics: c.Metrics}
	r.mse, r.mseOK, err = aaaTheory(p, xs)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// aaaTheory returns the subset-mean approximation of the MSE (see above):
// aaaTheoryFor the noise law solved for the data's expected rounded
// histogram.
func aaaTheory(p *aaa.Protocol, xs []float64) (float64, bool, error) {
	m := p.Config().Bins
	h := 2 / float64(m-1)
	prior := make([]float64, m)
	for _, x := range xs { // the expected rounded histogram
		t := (x + 1) / h
		i := min(int(t), m-2)
		f := t - float64(i)
		prior[i] += 1 - f
		prior[i+1] += f
	}
	_, mech, err := p.Noise(prior)
	if err != nil {
		return 0, false, err
	}
	v, ok := aaaTheoryFor(p, xs, mech)
	return v, ok, nil
}

// aaaTheoryFor returns the formula above with phase 2 run by mech. At
// dim = 1 with the dataset split (every record reports, and the phases
// are the first tenth of the data and the rest) its mean over the laws a
// run can solve is the exact MSE: phase 2's reports are unbiased given the
// law, so the cross terms vanish (TestAAATheory). aaaTheory takes the
// law solved for the data instead of for a phase-1 estimate.
func aaaTheoryFor(p *aaa.Protocol, xs []float64, mech *aaa.Phase2) (float64, bool) {
	cfg := p.Config()
	n := float64(len(xs))
	n1 := int(cfg.Split * n)
	stats := func(s []float64, w float64, v func(float64) float64) (mean, sq, vsum float64) {
		for _, x := range s {
			mean += x
			sq += x * x
			vsum += w * v(x)
		}
		return mean / float64(len(s)), sq / float64(len(s)), vsum
	}
	kept := n / float64(cfg.Dim)
	mu := estimators.TrueMean(xs)
	switch cfg.Variant {
	case aaa.AAA:
		s2 := xs[n1:]
		w := 1.0
		if cfg.Shuffled {
			s2 = xs
		}
		mean2, sq2, v2 := stats(s2, w, mech.Variance)
		n2 := (1 - cfg.Split) * kept
		var bias2 float64
		if !cfg.Shuffled {
			bias2 = (mean2 - mu) * (mean2 - mu)
		}
		s2var := sq2 - mean2*mean2
		return bias2 + (v2/float64(len(s2))+(1-n2/float64(len(s2)))*s2var)/n2, true
	default:
		hm := p.HMNP()
		var vsum float64
		if cfg.Shuffled {
			_, _, a := stats(xs, cfg.Split, hm.Variance)
			_, _, b := stats(xs, 1-cfg.Split, mech.Variance)
			vsum = a + b
		} else {
			_, _, a := stats(xs[:n1], 1, hm.Variance)
			_, _, b := stats(xs[n1:], 1, mech.Variance)
			vsum = a + b
		}
		mean, sq, _ := stats(xs, 0, mech.Variance)
		return (vsum/n + (1-kept/n)*(sq-mean*mean)) / kept, true
	}
}

type aaaRun struct {
	p       *aaa.Protocol
	xs      []float64
	truth   float64
	rate    float64
	mse     float64
	mseOK   bool
	metrics []string
}

func (r *aaaRun) Trial(ctx context.Context, _ int, rng *rand.Rand, out []experiment.Measurement) ([]experiment.Measurement, error) {
	res, err := r.p.Run(ctx, r.xs, rng)
	if err != nil {
		return out, err
	}
	for _, m := range r.metrics {
		var v float64
		switch m {
		case "mse":
			v = metrics.SquaredError(res.Estimate, r.truth)
		case "abs":
			v = metrics.AbsError(res.Estimate, r.truth)
		case "reporting":
			v = float64(res.Kept) / float64(len(r.xs))
		}
		out = append(out, experiment.Measurement{Metric: m, Value: v})
	}
	return out, nil
}

func (r *aaaRun) Theory(metric string) (float64, bool) {
	switch metric {
	case "mse":
		return r.mse, r.mseOK && !math.IsNaN(r.mse)
	case "reporting":
		return r.rate, true
	}
	return 0, false
}
