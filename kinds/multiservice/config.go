package multiservice

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// The parameters of kind multiservice (the spec's axes.params, kindParams;
// every key is checked, and an error names it).
//
//	services       the services, in order: entries "mech" or "mech:ε"
//	               separated by commas (mech a registered name, or the
//	               paper's "sr" = duchi, "lap" = laplace), or one named
//	               configuration of the paper (namedServices: A1–A4 for
//	               the mean [SR, Laplace, PM, SW], C1–C4 for the
//	               distribution [SR, PM, SW]). Several alternatives may
//	               be listed, separated by "|", of which params.config
//	               picks one; the named families "A" and "C" are
//	               A1|A2|A3|A4 and C1|C2|C3|C4. Required.
//	config         with alternatives: the 1-based number of the one to use
//	               (a numeric axis, so that a figure can plot against the
//	               paper's configurations)
//	m              cycle the services list to m services (Fig. 7a/b: m from
//	               2 to 16 over [SR, Laplace, PM, SW]); default its length
//	groups         user groups reporting to subsets of the services: "fig8"
//	               (the paper's G1–G11 for 4 services: the 6 pairs, the 4
//	               triples, then all 4, in lexicographic order) or explicit
//	               subsets of 1-based service indices, "1+2,1+3,...". The n
//	               users are split into equal contiguous groups (the first
//	               n mod G one larger); default: every user reports to every
//	               service
//	group          with groups: "all" (default) scores the mean (histogram)
//	               of all n users from all reports, pooled; "g" (1-based)
//	               scores group g's users from group g's reports alone
//	h              input buckets of UWA's posterior (default 100)
//	out_buckets    output buckets of PM and SW in the posterior (default h)
//	pm_lookup      "bucket" (default) | "authors" (ERRATA E4.2, compat only)
//	laplace_clamp  "false" (default) | "true" (ERRATA E4.3, compat only)
//	threads        goroutines of one estimator call (default GOMAXPROCS)
//	bins           bins of the distribution estimate on [-1, 1] (default 1024)
//	smooth         EMS smoothing of ULE/EMS: "true" (default, the code) |
//	               "false" (the paper's plain EM; ERRATA E4.4)
//	stop           EM stopping rule: "authors" (default) | "converged"
//	ll_tol         EM log-likelihood tolerance, > 0: absolute (nats) under
//	               stop = authors (default 1e-3), relative to |LL| under
//	               stop = converged (default 1e-10)
//	max_iter       EM iteration cap, ≥ 1 (default 10,000 authors, 100,000
//	               converged)
//	theta_tol      EM L1 tolerance on θ, > 0, of stop = converged (default
//	               1e-12); ignored by stop = authors, whose tolerance is 1/N
//	               by definition
//	accel          EM acceleration: "squarem" (SQUAREM, estimators.
//	               AccelSquarem) | "none" (plain EM). Default: squarem
//	               under stop = converged, which asks for the fixed point
//	               and SQUAREM reaches it in 3-28 times fewer E-steps
//	               (docs/multiservice.md); none under stop = authors,
//	               whose stopping point is one of the plain EM path, so
//	               squarem is refused there. Under squarem em_iterations
//	               records the E-steps
//	v              the input of metric variance (Fig. 3), in [-1, 1]
//
// ε: a service without its own budget takes the cell's ε. When every
// service names its budget, the cell's ε must be their total (each user's
// budget when reporting to every service), so that the rows record it; the
// services' budgets are in the params column.

// namedServices are the paper's budget configurations
// (Du et al. Section 6.2: A1–A4 and C1–C4).
var namedServices = map[string]string{
	"A1": "duchi:0.1,laplace:0.2,pm:0.3,sw:0.4",
	"A2": "duchi:0.2,laplace:0.4,pm:0.1,sw:0.3",
	"A3": "duchi:0.3,laplace:0.1,pm:0.4,sw:0.2",
	"A4": "duchi:0.4,laplace:0.3,pm:0.2,sw:0.1",
	"C1": "duchi:0.1,pm:0.2,sw:0.3",
	"C2": "duchi:0.2,pm:0.3,sw:0.1",
	"C3": "duchi:0.3,pm:0.1,sw:0.2",
	"C4": "duchi:0.2,pm:0.1,sw:0.3",
	"A":  "A1|A2|A3|A4",
	"C":  "C1|C2|C3|C4",
}

// serviceAliases are the paper's mechanism names.
var serviceAliases = map[string]string{"sr": "duchi", "lap": "laplace"}

// kindParams declares the parameters above; the runner checks types and
// bounds, parseMSConfig what depends on the cell (the services, config
// against the alternatives, groups against the services).
var kindParams = experiment.ParamSet{
	experiment.StringParam("services", `the services: "mech" or "mech:ε" entries separated by commas, "|" between alternatives, or a named configuration (A1–A4, C1–C4, A, C); required`),
	experiment.IntParam("config", 1, maxServices, "with alternatives in services: the 1-based number of the one to use"),
	experiment.IntParam("m", 1, maxServices, "cycle the services list to m services (default its length)"),
	experiment.StringParam("groups", `user groups reporting to subsets of the services: "fig8" or "1+2,1+3,..." (default: every user reports to every service)`),
	experiment.StringParam("group", `with groups: "all" (default) or the 1-based group whose users are scored`),
	experiment.IntParam("h", 2, 1<<16, "input buckets of UWA's posterior (default 100)"),
	experiment.IntParam("out_buckets", 1, 1<<16, "output buckets of PM and SW in UWA's posterior (default h)"),
	experiment.EnumParam("pm_lookup", []string{estimators.PMLookupBucket, estimators.PMLookupAuthors}, "PM's likelihood lookup in UWA: bucket (default) | authors (ERRATA E4.2, compat only)"),
	experiment.BoolParam("laplace_clamp", "clamp Laplace reports in UWA (ERRATA E4.3, compat only; default false)"),
	experiment.IntParam("threads", 1, 1024, "goroutines of one estimator call (default GOMAXPROCS; results do not depend on it)"),
	experiment.IntParam("bins", 2, 1<<15, "bins of the distribution estimate on [-1, 1] (default 1024)"),
	experiment.BoolParam("smooth", "EMS smoothing of ULE and EMS (default true; false is the paper's plain EM, ERRATA E4.4)"),
	experiment.EnumParam("stop", []string{string(estimators.StopAuthors), string(estimators.StopConverged)}, "EM stopping rule (default authors)"),
	experiment.PositiveParam("ll_tol", "EM log-likelihood tolerance: absolute under stop = authors (default 1e-3), relative under converged (default 1e-10)"),
	experiment.IntParam("max_iter", 1, math.MaxInt32, "EM iteration cap (default 10,000 authors, 100,000 converged)"),
	experiment.PositiveParam("theta_tol", "EM L1 tolerance on θ of stop = converged (default 1e-12)"),
	experiment.EnumParam("accel", []string{string(estimators.AccelSquarem), string(estimators.AccelNone)}, "EM acceleration: squarem (SQUAREM; the default under stop = converged, which asks for the fixed point: the same one in 3-28 times fewer E-steps) | none (plain EM; the only choice under stop = authors, whose stopping point is one of the plain EM path)"),
	experiment.FloatParam("v", -1, 1, "the input of metric variance (Fig. 3)"),
}

// maxServices bounds m and config.
const maxServices = 4096

// serviceSpec is one service of a cell: its registry name and budget.
type serviceSpec struct {
	name  string // registry name
	label string // as written (an alias stays an alias)
	eps   float64
}

// cellConfig is a cell's parsed parameters.
type cellConfig struct {
	services []serviceSpec
	mechs    []mechanisms.Mechanism
	// groups is nil when every user reports to every service.
	groups     []estimators.UserGroup
	groupNames []string // "1+2", ...
	group      int      // -1: all users; else the scored group's index
	post       estimators.PosteriorOptions
	threads    int
	bins       int
	em         estimators.EMOptions
	v          float64 // NaN if not given
}

func paramError(key, format string, args ...any) error {
	return kindParams.Errorf(key, format, args...)
}

// parseMSConfig parses and checks a cell's parameters and builds its
// mechanisms.
func parseMSConfig(c *experiment.CellSpec) (*cellConfig, error) {
	p := c.Params
	cfg := &cellConfig{group: -1, bins: p.Int("bins", estimators.DefaultBins), v: p.Float("v", math.NaN())}

	// Services.
	spec, ok := p.Lookup("services")
	if !ok || spec == "" {
		return nil, paramError("services", "is required: the services as \"duchi,laplace,pm,sw\", \"duchi:0.1,pm:0.2\" or a named configuration (%s)", strings.Join(namedList(), ", "))
	}
	if named, ok := namedServices[spec]; ok {
		spec = named
	}
	alts := strings.Split(spec, "|")
	if k := p.Int("config", 0); k > len(alts) {
		return nil, paramError("config", "%d: want an integer in [1, %d] (the alternatives of params.services)", k, len(alts))
	} else if k > 0 {
		spec = alts[k-1]
	} else if len(alts) > 1 {
		return nil, paramError("services", "%q lists %d alternatives: choose one with params.config", p.String("services", ""), len(alts))
	}
	spec = strings.TrimSpace(spec)
	if named, ok := namedServices[spec]; ok {
		spec = named
	}
	explicit := 0
	for i, e := range strings.Split(spec, ",") {
		e = strings.TrimSpace(e)
		name, budget, hasBudget := strings.Cut(e, ":")
		name = strings.TrimSpace(name)
		s := serviceSpec{label: name, name: name, eps: c.Eps}
		if a, ok := serviceAliases[name]; ok {
			s.name = a
		}
		if _, ok := mechanisms.Lookup(s.name); !ok {
			return nil, paramError("services", "entry %d %q: unknown mechanism %q (valid: %s; aliases sr, lap; named configurations %s)", i+1, e, name, strings.Join(mechanisms.Names(), ", "), strings.Join(namedList(), ", "))
		}
		if hasBudget {
			eps, err := strconv.ParseFloat(strings.TrimSpace(budget), 64)
			if err != nil || math.IsNaN(eps) || math.IsInf(eps, 0) || eps <= 0 {
				return nil, paramError("services", "entry %d %q: the budget must be finite and > 0", i+1, e)
			}
			s.eps = eps
			explicit++
		}
		cfg.services = append(cfg.services, s)
	}
	if m := p.Int("m", 0); m > 0 {
		base := cfg.services
		cfg.services = make([]serviceSpec, m)
		for j := range cfg.services {
			cfg.services[j] = base[j%len(base)]
		}
	}
	if explicit == len(strings.Split(spec, ",")) {
		var total float64
		for _, s := range cfg.services {
			total += s.eps
		}
		if math.Abs(total-c.Eps) > 1e-9*total {
			return nil, fmt.Errorf("axes.eps = %v: every service of axes.params.services = %q names its budget, so the cell's ε must be their total, %v (each user's budget over all services)", c.Eps, p.String("services", ""), roundBudget(total))
		}
	}
	for _, s := range cfg.services {
		m, err := mechanisms.New(s.name, s.eps)
		if err != nil {
			return nil, paramError("services", "%v", err)
		}
		// Every method de-biases every service's reports (methodNeeds).
		if err := mechanisms.Need(m, mechanisms.CapVariance); err != nil {
			return nil, fmt.Errorf("%w (params.services: %s)", &experiment.NeedsError{Kind: Kind{}.Name(), Method: c.Method, Err: err}, s.label)
		}
		cfg.mechs = append(cfg.mechs, m)
	}

	// Groups.
	if g, ok := p.Lookup("groups"); ok {
		subsets, names, err := parseMSGroups(g, len(cfg.services))
		if err != nil {
			return nil, err
		}
		cfg.groupNames = names
		cfg.groups = splitMSGroups(c.N, subsets)
		for gi, gr := range cfg.groups {
			if gr.Hi == gr.Lo {
				return nil, paramError("groups", "group %d (%s) has no user at n = %d", gi+1, names[gi], c.N)
			}
		}
	}
	if g, ok := p.Lookup("group"); ok && g != "all" {
		if cfg.groups == nil {
			return nil, paramError("group", "%q needs params.groups", g)
		}
		n, err := strconv.Atoi(g)
		if err != nil || n < 1 || n > len(cfg.groups) {
			return nil, paramError("group", "%q: want \"all\" or a group number in [1, %d]", g, len(cfg.groups))
		}
		cfg.group = n - 1
	}

	// Estimator options: 0 (absent) means the estimators' default.
	cfg.post.Buckets = p.Int("h", 0)
	cfg.post.OutBuckets = p.Int("out_buckets", 0)
	cfg.post.PMLookup = p.String("pm_lookup", "")
	cfg.post.LaplaceClamp = p.Bool("laplace_clamp", false)
	cfg.threads = p.Int("threads", 0)
	cfg.em.NoSmooth = !p.Bool("smooth", true)
	cfg.em.Stop = estimators.StopRule(p.String("stop", ""))
	cfg.em.LLTol = p.Float("ll_tol", 0)
	cfg.em.ThetaTol = p.Float("theta_tol", 0)
	cfg.em.MaxIter = p.Int("max_iter", 0)
	cfg.em.Workers = cfg.threads
	// SQUAREM by default where EM runs to its fixed point: it reaches the
	// same one (TestSquaremFixedPointCells) in a fraction of the E-steps.
	// The authors' rule stays plain: it stops at a point of the plain path.
	if cfg.em.Stop == estimators.StopConverged {
		cfg.em.Accel = estimators.AccelSquarem
	}
	if a, ok := p.Lookup("accel"); ok {
		switch estimators.Accel(a) {
		case estimators.AccelNone:
			cfg.em.Accel = ""
		case estimators.AccelSquarem:
			if cfg.em.Stop != estimators.StopConverged {
				return nil, paramError("accel", "%q needs params.stop = %q: the authors' rule stops at a point of the plain EM path, which an accelerated EM does not follow", a, estimators.StopConverged)
			}
			cfg.em.Accel = estimators.AccelSquarem
		}
	}
	return cfg, nil
}

// roundBudget prints a sum of decimal budgets without the binary noise.
func roundBudget(x float64) string { return strconv.FormatFloat(x, 'g', 12, 64) }

func namedList() []string { return slices.Sorted(maps.Keys(namedServices)) }

// parseMSGroups parses params.groups into the 0-based service subsets of
// the groups and their names.
func parseMSGroups(s string, m int) ([][]int, []string, error) {
	if s == "fig8" {
		if m != 4 {
			return nil, nil, paramError("groups", "\"fig8\" is the paper's G1–G11 over 4 services; the cell has %d", m)
		}
		s = "1+2,1+3,1+4,2+3,2+4,3+4,1+2+3,1+2+4,1+3+4,2+3+4,1+2+3+4"
	}
	var subsets [][]int
	var names []string
	for gi, g := range strings.Split(s, ",") {
		g = strings.TrimSpace(g)
		var set []int
		for _, f := range strings.Split(g, "+") {
			j, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || j < 1 || j > m {
				return nil, nil, paramError("groups", "group %d %q: %q is not a service number in [1, %d]", gi+1, g, f, m)
			}
			if slices.Contains(set, j-1) {
				return nil, nil, paramError("groups", "group %d %q names service %d twice", gi+1, g, j)
			}
			set = append(set, j-1)
		}
		sort.Ints(set)
		subsets = append(subsets, set)
		names = append(names, g)
	}
	return subsets, names, nil
}

// splitMSGroups cuts n users into len(subsets) contiguous groups of equal
// size, the first n mod G one larger.
func splitMSGroups(n int, subsets [][]int) []estimators.UserGroup {
	g := len(subsets)
	out := make([]estimators.UserGroup, g)
	lo := 0
	for i, s := range subsets {
		size := n / g
		if i < n%g {
			size++
		}
		out[i] = estimators.UserGroup{Lo: lo, Hi: lo + size, Services: s}
		lo += size
	}
	return out
}

// resolveService returns the 0-based index of the service named by ref in a
// method name ("single-<ref>", "ems-<ref>"): a 1-based number, or a
// mechanism name (registry name or the paper's alias), meaning the first
// service that runs it.
func (cfg *cellConfig) resolveService(method, ref string) (int, error) {
	if k, err := strconv.Atoi(ref); err == nil {
		if k < 1 || k > len(cfg.services) {
			return 0, fmt.Errorf("method %s: service %d out of range [1, %d]", method, k, len(cfg.services))
		}
		return k - 1, nil
	}
	name := ref
	if a, ok := serviceAliases[ref]; ok {
		name = a
	}
	for j, s := range cfg.services {
		if s.name == name {
			return j, nil
		}
	}
	return 0, fmt.Errorf("method %s: no service runs %q (services: %s)", method, ref, cfg.describeServices())
}

func (cfg *cellConfig) describeServices() string {
	parts := make([]string, len(cfg.services))
	for j, s := range cfg.services {
		parts[j] = fmt.Sprintf("%d=%s:%v", j+1, s.label, s.eps)
	}
	return strings.Join(parts, ", ")
}
