package mechanisms

import (
	"fmt"
	"slices"
	"strings"
)

// Info describes one registered mechanism.
type Info struct {
	// Name is the registry name used in specs and on the command line.
	Name string
	// Summary is one line for `ldpbench list mechanisms -v`.
	Summary string
	// New builds the mechanism at budget eps.
	New func(eps float64) (Mechanism, error)
}

// registry is the one list of mechanisms. A new mechanism is one file plus
// one line here.
var registry = []Info{
	{"laplace", "Laplace noise of scale 2/ε on [-1, 1]", wrap(NewLaplace)},
	{"duchi", "Duchi et al.'s binary mechanism (stochastic rounding, SR) on [-1, 1]", wrap(NewDuchi)},
	{"pm", "Wang et al.'s piecewise mechanism (t = e^{ε/2}) on [-1, 1]", wrap(NewPM)},
	{"sw", "Li et al.'s Square Wave on [0, 1], biased, with its de-biasing map", wrap(NewSquareWave)},
	{"pm-sub", "Zhao et al.'s PM-SUB: the piecewise family with t = e^{ε/3}", wrap(NewPMSub)},
	{"pm-opt", "Zhao et al.'s PM-OPT: the piecewise family with the worst-case-optimal t (root of eq. (58))", wrap(NewPMOpt)},
	{"three-outputs", "Zhao et al.'s Three-Outputs: {-C, 0, C} with the optimal P[0|0] (corrected eqs. (2), (4), (5))", wrap(NewThreeOutputs)},
	{"hm", "Wang et al.'s hybrid: PM with probability 1-e^{-ε/2} (ε > 0.61), else Duchi; atoms ±C", wrap(NewHM)},
	{"hm-tp", "Zhao et al.'s HM-TP: PM-SUB with probability β (corrected eq. (150)), else Three-Outputs", wrap(NewHMTP)},
	{"n-output", "Baek & Chung's N-output: N outputs, Ω and p0 optimised for ε (Algorithm 2 corrected, Theorems 4–5)", wrap(NewNOutput)},
	{"hm-np", "Baek & Chung's HM-NP: N-output with probability α (Theorem 8 corrected), else PM-SUB; N and α chosen jointly", wrap(NewHMNP)},
	{"bernoulli", "Raab et al.'s Bernoulli mechanism (Algorithm 1): reports ±1, biased, de-biased by (e^ε+1)/(e^ε-1)", wrap(NewBernoulli)},
	{"nprr", "Raab et al.'s simplified NPRR (Algorithm 2) at k = 8: stochastic rounding to 9 grid points, then GRR; biased, de-biased", wrap(func(eps float64) (*NPRR, error) { return NewNPRR(eps, 8) })},
}

// wrap adapts a typed constructor to Info.New. It returns a nil Mechanism
// with the error: returning the typed nil pointer directly would give a
// non-nil interface holding a nil *T.
func wrap[T Mechanism](newT func(eps float64) (T, error)) func(eps float64) (Mechanism, error) {
	return func(eps float64) (Mechanism, error) {
		m, err := newT(eps)
		if err != nil {
			return nil, err
		}
		return m, nil
	}
}

func init() {
	seen := make(map[string]bool)
	for _, info := range registry {
		if seen[info.Name] {
			panic("mechanisms: duplicate registry name " + info.Name)
		}
		seen[info.Name] = true
	}
}

// Names returns the registered names in sorted order.
func Names() []string {
	names := make([]string, len(registry))
	for i, info := range registry {
		names[i] = info.Name
	}
	slices.Sort(names)
	return names
}

// Lookup returns the registry entry of name.
func Lookup(name string) (Info, bool) {
	i := slices.IndexFunc(registry, func(info Info) bool { return info.Name == name })
	if i < 0 {
		return Info{}, false
	}
	return registry[i], true
}

// New builds the mechanism registered as name at budget eps. An unknown name
// gives an error that lists the valid ones.
func New(name string, eps float64) (Mechanism, error) {
	info, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown mechanism %q (valid: %s)", name, strings.Join(Names(), ", "))
	}
	return info.New(eps)
}
