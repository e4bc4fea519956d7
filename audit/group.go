package audit

import (
	"fmt"
	"strings"

	"github.com/ldpbench/ldpbench/mechanisms/group"
)

var _ interface {
	JointDiscrete
	JointContinuous
} = (*group.Mechanism)(nil)

// groupNames returns "group-<method>" for every group method.
func groupNames() []string {
	var names []string
	for _, m := range group.Methods() {
		names = append(names, "group-"+m)
	}
	return names
}

// GroupDs are the numbers of groups every group mechanism is audited at.
var GroupDs = []int{2, 4}

// groupConfigs returns the audited configurations of a group method (ε and
// d left to fill): NPRR at k ∈ {1, 2, 8} with both neutral reports, every
// Piecewise split (half, the ratio 0.3 the paper finds best for d = 2, and
// the authors' fitted one), and the value method with a continuous and a
// discrete registered mechanism (pm-sub, three-outputs; not a mixture such
// as hm-tp, whose point masses JointDensity leaves out).
func groupConfigs(method string) []group.Config {
	switch method {
	case "nprr":
		var cs []group.Config
		for _, k := range []int{1, 2, 8} {
			for _, n := range []string{group.NeutralNPRR0, group.NeutralUniformGrid} {
				cs = append(cs, group.Config{Method: method, K: k, Neutral: n})
			}
		}
		return cs
	case "pw":
		return []group.Config{
			{Method: method, Split: "half"},
			{Method: method, Split: "ratio:0.3"},
			{Method: method, Split: "fitted"},
		}
	case "value":
		return []group.Config{
			{Method: method, Value: "pm-sub"},
			{Method: method, Value: "three-outputs"},
		}
	}
	return []group.Config{{Method: method}}
}

// GroupTargets returns the audit targets of a group method ("laplace",
// "bernoulli", "nprr", "pw", "value") at every ε and every d of GroupDs,
// in every configuration of groupConfigs. Each is held to its
// ClaimedEpsilon (the paper's theorem); its TrueEpsilon is carried for the
// report only. The paper's Group NPRR with k ≥ 2 (neutral = nprr0) is
// marked as the known erratum E2.1.
func GroupTargets(method string, eps []float64) ([]Target, error) {
	var ts []Target
	for _, cfg := range groupConfigs(method) {
		for _, e := range eps {
			for _, d := range GroupDs {
				cfg.Eps, cfg.D = e, d
				m, err := group.New(cfg)
				if err != nil {
					return nil, err
				}
				t := JointTarget(m, withD(m.Name(), d), m.Name(), e)
				if c := m.Config(); c.Method == "nprr" && c.Neutral == group.NeutralNPRR0 && c.K >= 2 {
					t.KnownIssue = "E2.1"
				}
				ts = append(ts, t)
			}
		}
	}
	return ts, nil
}

// withD adds the number of groups to a group mechanism's name:
// "group-nprr(k=8,neutral=nprr0)" → "group-nprr(k=8,neutral=nprr0,d=2)",
// "group-laplace" → "group-laplace(d=2)".
func withD(name string, d int) string {
	if strings.HasSuffix(name, ")") {
		return fmt.Sprintf("%s,d=%d)", strings.TrimSuffix(name, ")"), d)
	}
	return fmt.Sprintf("%s(d=%d)", name, d)
}
