package aaa

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// Variant names the phase 1 of the protocol.
type Variant int

const (
	// AAA: phase 1 reports the stochastically rounded grid index by GRR
	// over the M indices; the estimate is the mean of the phase-2 reports.
	AAA Variant = iota
	// NPAAA: phase 1 reports x by HM-NP; 2PEM with d = M estimates x_P
	// over M equal intervals of width 2/M, used unchanged as the weights
	// of the M grid points (ERRATA E0.25, an approximation); the estimate
	// is the pooled mean of every report of both phases (ERRATA E0.22).
	NPAAA
)

func (v Variant) String() string {
	if v == NPAAA {
		return "np-aaa"
	}
	return "aaa"
}

// Config configures a protocol run.
type Config struct {
	Variant Variant
	Eps     float64
	// Dim sets the sampling rate: each record is kept with probability
	// 1/Dim and only kept records report (the subset mean of the authors'
	// code; default 1).
	Dim int
	// Split is the fraction of kept records in phase 1 (default 0.1):
	// the first ⌊Split·kept⌋ in dataset order (the authors' code, ERRATA
	// E0.24), or a uniformly random subset of that size when Shuffled.
	Split    float64
	Shuffled bool
	// Bins is M, the number of grid points (default 17, bin 0.125).
	Bins int
	// AxRatio, R and Alignment configure the noise programme (defaults 4,
	// 0.5, Corrected).
	AxRatio   int
	R         float64
	Alignment Alignment
	// PEM configures 2PEM in NP-AAA (D is set to Bins).
	PEM estimators.TwoPEMConfig
}

// Protocol runs AAA or NP-AAA; it is safe for concurrent use.
type Protocol struct {
	cfg   Config
	grr   *mechanisms.GRR
	hm    *mechanisms.HMNP
	cache *Cache
}

// New checks cfg and returns its protocol. Solved noise laws are cached in
// cache (nil: a cache private to the protocol).
func New(cfg Config, cache *Cache) (*Protocol, error) {
	if !(cfg.Eps > 0) || math.IsInf(cfg.Eps, 0) {
		return nil, fmt.Errorf("aaa: eps = %v: must be finite and > 0", cfg.Eps)
	}
	if cfg.Dim == 0 {
		cfg.Dim = 1
	}
	if cfg.Dim < 1 {
		return nil, fmt.Errorf("aaa: dim = %d: must be ≥ 1", cfg.Dim)
	}
	if cfg.Split == 0 {
		cfg.Split = 0.1
	}
	if !(cfg.Split > 0 && cfg.Split < 1) {
		return nil, fmt.Errorf("aaa: split = %v: must be in (0, 1)", cfg.Split)
	}
	if cfg.Bins == 0 {
		cfg.Bins = 17
	}
	if cfg.Bins < 2 {
		return nil, fmt.Errorf("aaa: bins = %d: must be ≥ 2", cfg.Bins)
	}
	if cache == nil {
		cache = NewCache(64)
	}
	p := &Protocol{cfg: cfg, cache: cache}
	var err error
	switch cfg.Variant {
	case AAA:
		p.grr, err = mechanisms.NewGRR(cfg.Eps, cfg.Bins)
	case NPAAA:
		p.hm, err = mechanisms.NewHMNP(cfg.Eps)
		p.cfg.PEM.D = cfg.Bins
	default:
		err = fmt.Errorf("aaa: unknown variant %d", int(cfg.Variant))
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Config returns the protocol's configuration with its defaults filled.
func (p *Protocol) Config() Config { return p.cfg }

// HMNP returns NP-AAA's phase-1 mechanism (nil for AAA).
func (p *Protocol) HMNP() *mechanisms.HMNP { return p.hm }

// Noise returns the (cached) solved noise law for prior.
func (p *Protocol) Noise(prior []float64) (*Noise, *Phase2, error) {
	return p.cache.Get(NoiseConfig{Eps: p.cfg.Eps, Prior: prior, AxRatio: p.cfg.AxRatio, R: p.cfg.R, Alignment: p.cfg.Alignment})
}

// Result is one run of the protocol.
type Result struct {
	Estimate float64
	// Kept is the number of records that reported; N1 and N2 those of
	// each phase.
	Kept, N1, N2 int
	// Prior is the phase-1 estimate of x_P.
	Prior []float64
	Noise *Noise
	// PEM is NP-AAA's 2PEM outcome.
	PEM estimators.TwoPEMResult
}

// Run simulates the protocol once on the records xs (values in [-1, 1]).
func (p *Protocol) Run(ctx context.Context, xs []float64, rng *rand.Rand) (Result, error) {
	cfg := p.cfg
	rate := 1 / float64(cfg.Dim)
	kept := make([]float64, 0, int(float64(len(xs))*rate*1.1)+16)
	for _, x := range xs {
		if !(x >= -1 && x <= 1) {
			return Result{}, fmt.Errorf("aaa: value %v outside [-1, 1]", x)
		}
		if cfg.Dim == 1 || rng.Float64() < rate {
			kept = append(kept, x)
		}
	}
	n1 := int(cfg.Split * float64(len(kept))) // int(split_ratio·a3m_n), as the authors
	if n1 < 1 || len(kept)-n1 < 1 {
		return Result{}, fmt.Errorf("aaa: %d records kept of %d: too few for both phases", len(kept), len(xs))
	}
	if cfg.Shuffled { // a uniform subset of size n1 to the front (partial Fisher–Yates)
		for k := 0; k < n1; k++ {
			j := k + rng.IntN(len(kept)-k)
			kept[k], kept[j] = kept[j], kept[k]
		}
	}
	res := Result{Kept: len(kept), N1: n1, N2: len(kept) - n1}
	ph1 := kept[:n1]
	var sum1 float64
	switch cfg.Variant {
	case AAA:
		res.Prior = p.phase1GRR(ph1, rng)
	case NPAAA:
		prior, pem, s, err := p.phase1HMNP(ctx, ph1, rng)
		if err != nil {
			return Result{}, err
		}
		res.Prior, res.PEM, sum1 = prior, pem, s
	}
	nz, mech, err := p.Noise(res.Prior)
	if err != nil {
		return Result{}, err
	}
	res.Noise = nz
	var sum2 float64
	for _, x := range kept[n1:] {
		i := mech.Round(x, rng)
		sum2 += nz.Grid[i] + nz.A[mech.NoiseIndex(i, rng)]
	}
	if cfg.Variant == AAA {
		res.Estimate = sum2 / float64(res.N2)
	} else {
		res.Estimate = (sum1 + sum2) / float64(res.Kept)
	}
	return res, nil
}

// phase1GRR returns AAA's estimate of x_P from GRR reports of the rounded
// grid indices of xs.
func (p *Protocol) phase1GRR(xs []float64, rng *rand.Rand) []float64 {
	m := p.cfg.Bins
	h := 2 / float64(m-1)
	counts := make([]float64, m)
	for _, x := range xs {
		t := (x + 1) / h
		i := int(t)
		if i >= m-1 {
			i = m - 1
		} else if rng.Float64() < t-float64(i) {
			i++
		}
		counts[p.grr.Perturb(i, rng)]++
	}
	return GRRPrior(counts, p.grr.P(), p.grr.Q())
}

// GRRPrior is AAA's phase-1 aggregator: it solves A·f = counts/n for the
// GRR matrix A (p on the diagonal, q off it), f_j = (c_j/n - q)/(p - q)
// (the unique solution, which sums to 1), clips negatives to 0 and
// renormalises. With all f clipped it returns the uniform prior.
func GRRPrior(counts []float64, p, q float64) []float64 {
	n := 0.0
	for _, c := range counts {
		n += c
	}
	f := make([]float64, len(counts))
	s := 0.0
	for j, c := range counts {
		f[j] = math.Max(0, (c/n-q)/(p-q))
		s += f[j]
	}
	for j := range f {
		if s > 0 {
			f[j] /= s
		} else {
			f[j] = 1 / float64(len(f))
		}
	}
	return f
}

// phase1HMNP returns NP-AAA's estimate of x_P by 2PEM on HM-NP reports of
// xs, the run's 2PEM outcome and the sum of the reports.
func (p *Protocol) phase1HMNP(ctx context.Context, xs []float64, rng *rand.Rand) ([]float64, estimators.TwoPEMResult, float64, error) {
	cont, disc, pc := p.hm.Components()
	pm := make([]float64, 0, len(xs))
	no := make([]float64, 0, len(xs))
	sum := 0.0
	for _, x := range xs {
		if rng.Float64() < pc {
			y := cont.Perturb(x, rng)
			pm = append(pm, y)
			sum += y
		} else {
			y := disc.Perturb(x, rng)
			no = append(no, y)
			sum += y
		}
	}
	r, err := estimators.TwoPEM(ctx, pm, no, p.cfg.Eps, p.hm, p.cfg.PEM)
	if err != nil {
		return nil, r, 0, fmt.Errorf("np-aaa phase 1: %w", err)
	}
	return r.Hist, r, sum, nil
}
