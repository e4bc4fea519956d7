package group

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Config selects a group mechanism and its budget.
type Config struct {
	// Method is "laplace", "bernoulli", "nprr", "pw" or "value".
	Method string
	// Eps is the target ε, split into ε1 (group) and ε2 (value) by the
	// method's allocation (Raab et al. Theorems 1–3, Proposition 6).
	Eps float64
	// D is the number of groups, ≥ 2.
	D int
	// K is NPRR's discretisation, 1 ≤ k ≤ MaxK (nprr only; 0 means the
	// default 8).
	K int
	// Neutral is what a user whose group changed reports (nprr only):
	// "nprr0" (the paper's, NPRR of the neutral 0; the default) or
	// "uniform-grid" (a uniform grid value, the fix of E2.1).
	Neutral string
	// Split is Group Piecewise's allocation (pw only): "half" (the
	// default, ε1 = ε2 = ε/2), "ratio:<r>" with 0 < r < 1 (ε1 = r·ε,
	// ε2 = (1-r)·ε), or "fitted" (the authors' unpublished default
	// r = 0.156·ln d + 0.148, E2.15).
	Split string
	// Value is the registry name of the value mechanism (value only): any
	// registered mechanism on [-1, 1] that is unbiased and has a closed-form
	// variance, e.g. "pm-sub", "three-outputs", "n-output", "hm-tp".
	Value string
	// Ratio is the value method's allocation (value only): ε1 = Ratio·ε,
	// ε2 = (1-Ratio)·ε, plain composition; 0 means 0.5.
	Ratio float64
}

// Methods returns the method names New takes.
func Methods() []string {
	return []string{"laplace", "bernoulli", "nprr", "pw", "value"}
}

// DefaultK is NPRR's discretisation when Config.K is 0: the authors'
// default.
const DefaultK = 8

// MaxK is the largest discretisation New takes: Simulate reads the cell
// and the rounding threshold of a value from the integer part of
// k(v+1)/2·2^32, which must stay below 2^63 (and a run keeps d(k+1)
// counts).
const MaxK = 1 << 20

// Neutral reports of Group NPRR (Config.Neutral).
const (
	NeutralNPRR0       = "nprr0"
	NeutralUniformGrid = "uniform-grid"
)

// fittedSplit is the authors' fitted ε1/ε of Group Piecewise (E2.15).
func fittedSplit(d int) float64 { return 0.156*math.Log(float64(d)) + 0.148 }

// errorf returns a configuration error naming the field:
// "group: k = 0: must be ≥ 1".
func errorf(field string, value any, format string, args ...any) error {
	if s, ok := value.(string); ok {
		value = strconv.Quote(s)
	}
	return fmt.Errorf("group: %s = %v: %s", field, value, fmt.Sprintf(format, args...))
}

// normalise validates cfg and fills its defaults.
func normalise(cfg Config) (Config, error) {
	if !contains(Methods(), cfg.Method) {
		return cfg, errorf("method", cfg.Method, "unknown (valid: %s)", strings.Join(Methods(), ", "))
	}
	if math.IsNaN(cfg.Eps) || math.IsInf(cfg.Eps, 0) || cfg.Eps <= 0 {
		return cfg, errorf("eps", cfg.Eps, "must be finite and > 0")
	}
	if cfg.D < 2 {
		return cfg, errorf("d", cfg.D, "must be ≥ 2 (GRR over one group divides by d-1 = 0)")
	}
	// An option of another method is an error, not ignored: a spec that
	// sets k for Group Laplace has a mistake in it.
	only := func(field string, set bool, method string) error {
		if set && cfg.Method != method {
			return fmt.Errorf("group: %s is an option of method %s only, not of %s", field, method, cfg.Method)
		}
		return nil
	}
	for _, err := range []error{
		only("k", cfg.K != 0, "nprr"),
		only("neutral", cfg.Neutral != "", "nprr"),
		only("split", cfg.Split != "", "pw"),
		only("value", cfg.Value != "", "value"),
		only("ratio", cfg.Ratio != 0, "value"),
	} {
		if err != nil {
			return cfg, err
		}
	}
	switch cfg.Method {
	case "nprr":
		if cfg.K == 0 {
			cfg.K = DefaultK
		}
		if cfg.K < 1 {
			return cfg, errorf("k", cfg.K, "must be ≥ 1 (0 means the default %d)", DefaultK)
		}
		if cfg.K > MaxK {
			return cfg, errorf("k", cfg.K, "must be at most %d", MaxK)
		}
		if cfg.Neutral == "" {
			cfg.Neutral = NeutralNPRR0
		}
		if cfg.Neutral != NeutralNPRR0 && cfg.Neutral != NeutralUniformGrid {
			return cfg, errorf("neutral", cfg.Neutral, "want %s or %s", NeutralNPRR0, NeutralUniformGrid)
		}
	case "pw":
		if cfg.Split == "" {
			cfg.Split = "half"
		}
		if _, err := pwSplit(cfg.Split, cfg.D); err != nil {
			return cfg, err
		}
	case "value":
		if cfg.Value == "" {
			return cfg, errorf("value", cfg.Value, "method value needs a registered mechanism (valid: %s)", strings.Join(mechanisms.Names(), ", "))
		}
		if cfg.Ratio == 0 {
			cfg.Ratio = 0.5
		}
		if !(cfg.Ratio > 0 && cfg.Ratio < 1) {
			return cfg, errorf("ratio", cfg.Ratio, "must be in (0, 1)")
		}
	}
	return cfg, nil
}

// pwSplit returns Group Piecewise's ε1/ε for a Split option.
func pwSplit(split string, d int) (float64, error) {
	switch {
	case split == "half":
		return 0.5, nil
	case split == "fitted":
		r := fittedSplit(d)
		if !(r > 0 && r < 1) {
			return 0, errorf("split", split, "the fitted ratio 0.156·ln d + 0.148 = %.4g at d = %d is not in (0, 1)", r, d)
		}
		return r, nil
	case strings.HasPrefix(split, "ratio:"):
		r, err := strconv.ParseFloat(strings.TrimPrefix(split, "ratio:"), 64)
		if err != nil || !(r > 0 && r < 1) {
			return 0, errorf("split", split, "want ratio:<r> with 0 < r < 1")
		}
		return r, nil
	}
	return 0, errorf("split", split, "want half, ratio:<r> with 0 < r < 1, or fitted")
}

// allocate returns (ε1, ε2) for the normalised cfg (Raab et al.
// Theorems 1–3, Proposition 6).
func allocate(cfg Config) (eps1, eps2 float64) {
	eps := cfg.Eps
	switch cfg.Method {
	case "laplace":
		// Theorem 1: max{ε2, ε1 + ε2/2} = ε.
		return eps / 2, eps
	case "bernoulli":
		// Theorem 2: ε1 = ε - ln(2e^ε/(e^ε+1)) = ln((e^ε+1)/2).
		return logOnePlusExpm1Over(eps, 1), eps
	case "nprr":
		// Theorem 3 (as printed, E2.1): ε1 = ln((e^ε+k)/(k+1)).
		return logOnePlusExpm1Over(eps, cfg.K), eps
	case "pw":
		r, _ := pwSplit(cfg.Split, cfg.D)
		return r * eps, (1 - r) * eps
	default: // value
		return cfg.Ratio * eps, (1 - cfg.Ratio) * eps
	}
}

// logOnePlusExpm1Over returns ln((e^ε+k)/(k+1)) = ln(1 + (e^ε-1)/(k+1))
// without cancellation at small ε (log1p of expm1) or overflow at large ε
// (ε + ln(1 + k·e^{-ε}) - ln(k+1)).
func logOnePlusExpm1Over(eps float64, k int) float64 {
	kf := float64(k)
	if eps < 1 {
		return math.Log1p(math.Expm1(eps) / (kf + 1))
	}
	return eps + math.Log1p(kf*math.Exp(-eps)) - math.Log(kf+1)
}

// nprrExcess returns ln((k+1)e^ε/(e^ε+k)) = ln(k+1) - ln(1 + k·e^{-ε}): the
// group term of Theorem 3 (k = 1: Theorem 2's ln(2e^ε/(e^ε+1))).
func nprrExcess(eps float64, k int) float64 {
	kf := float64(k)
	return math.Log(kf+1) - math.Log1p(kf*math.Exp(-eps))
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
