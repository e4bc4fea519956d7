package mechanisms

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Info describes one registered mechanism.
type Info struct {
	// Name is the registry name used in specs and on the command line.
	Name string
	// Label is the name a reader of the papers knows it by, for legends
	// ("PM-SUB", "Three-Outputs"); empty means Name.
	Label string
	// Summary is one line for `ldpbench list mechanisms -v`.
	Summary string
	// New builds the mechanism at budget eps.
	New func(eps float64) (Mechanism, error)
}

// registry is the one list of mechanisms. A new mechanism is one file plus
// one line here; a program or a test adds its own with Register.
var registry = []Info{
	{"laplace", "Laplace", "Laplace noise of scale 2/ε on [-1, 1]", wrap(NewLaplace)},
	{"duchi", "Duchi et al.", "Duchi et al.'s binary mechanism (stochastic rounding, SR) on [-1, 1]", wrap(NewDuchi)},
	{"pm", "PM", "Wang et al.'s piecewise mechanism (t = e^{ε/2}) on [-1, 1]", wrap(NewPM)},
	{"sw", "SW", "Li et al.'s Square Wave on [0, 1], biased, with its de-biasing map", wrap(NewSquareWave)},
	{"pm-sub", "PM-SUB", "Zhao et al.'s PM-SUB: the piecewise family with t = e^{ε/3}", wrap(NewPMSub)},
	{"pm-opt", "PM-OPT", "Zhao et al.'s PM-OPT: the piecewise family with the worst-case-optimal t (root of eq. (58))", wrap(NewPMOpt)},
	{"three-outputs", "Three-Outputs", "Zhao et al.'s Three-Outputs: {-C, 0, C} with the optimal P[0|0] (corrected eqs. (2), (4), (5))", wrap(NewThreeOutputs)},
	{"hm", "HM", "Wang et al.'s hybrid: PM with probability 1-e^{-ε/2} (ε > 0.61), else Duchi; atoms ±C", wrap(NewHM)},
	{"hm-tp", "HM-TP", "Zhao et al.'s HM-TP: PM-SUB with probability β (corrected eq. (150)), else Three-Outputs", wrap(NewHMTP)},
	{"n-output", "N-output", "Baek & Chung's N-output: N outputs, Ω and p0 optimised for ε (Algorithm 2 corrected, Theorems 4–5)", wrap(NewNOutput)},
	{"hm-np", "HM-NP", "Baek & Chung's HM-NP: N-output with probability α (Theorem 8 corrected), else PM-SUB; N and α chosen jointly", wrap(NewHMNP)},
	{"bernoulli", "Bernoulli", "Raab et al.'s Bernoulli mechanism (Algorithm 1): reports ±1, biased, de-biased by (e^ε+1)/(e^ε-1)", wrap(NewBernoulli)},
	{"nprr", "NPRR (k = 8)", "Raab et al.'s simplified NPRR (Algorithm 2) at k = 8: stochastic rounding to 9 grid points, then GRR; biased, de-biased", wrap(func(eps float64) (*NPRR, error) { return NewNPRR(eps, 8) })},
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

// registryMu guards registry against Register while specs are checked and
// run.
var registryMu sync.RWMutex

func init() {
	seen := make(map[string]bool)
	for _, info := range registry {
		if seen[info.Name] {
			panic("mechanisms: duplicate registry name " + info.Name)
		}
		seen[info.Name] = true
	}
}

// validName is what a registered name may be: it appears in specs, cell
// keys and file names.
var validName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// Register adds a mechanism to the registry, after which every spec, kind
// and command can name it, exactly as the built-in ones: a user's own
// mechanism registered from their program or test, or a spec's external
// mechanism for the duration of a run. It refuses an empty, malformed or
// taken name and a nil New. The returned function removes the entry again.
func Register(info Info) (unregister func(), err error) {
	if !validName.MatchString(info.Name) {
		return nil, fmt.Errorf("register mechanism %q: a name is lower-case letters, digits, '.', '_' and '-', starting with a letter or digit", info.Name)
	}
	if info.New == nil {
		return nil, fmt.Errorf("register mechanism %q: no constructor (Info.New)", info.Name)
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if slices.ContainsFunc(registry, func(i Info) bool { return i.Name == info.Name }) {
		return nil, fmt.Errorf("register mechanism %q: %w", info.Name, ErrNameTaken)
	}
	registry = append(registry, info)
	var once sync.Once
	return func() {
		once.Do(func() {
			registryMu.Lock()
			defer registryMu.Unlock()
			registry = slices.DeleteFunc(registry, func(i Info) bool { return i.Name == info.Name })
		})
	}, nil
}

// ErrNameTaken is wrapped by Register's error for a name already in the
// registry.
var ErrNameTaken = errors.New("the name is taken")

// Names returns the registered names in sorted order.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, len(registry))
	for i, info := range registry {
		names[i] = info.Name
	}
	slices.Sort(names)
	return names
}

// Label returns the name a reader knows the mechanism registered as name
// by (Info.Label), or name itself when it has none or is not registered.
func Label(name string) string {
	if info, ok := Lookup(name); ok && info.Label != "" {
		return info.Label
	}
	return name
}

// Lookup returns the registry entry of name.
func Lookup(name string) (Info, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
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
