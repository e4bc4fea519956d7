package audit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Names returns the names [Targets] takes: every registered mechanism
// (sorted), then every group method as "group-<method>".
func Names() []string {
	return append(mechanisms.Names(), groupNames()...)
}

// Targets builds the targets of the named mechanisms at every ε: a
// registered mechanism once per ε, a group method in each of its audited
// configurations (see [GroupTargets]). No names means all of [Names]. An unknown name is an error that lists the valid
// ones; an ε that is not finite and > 0 is an error naming it.
func Targets(names []string, eps []float64) ([]Target, error) {
	if len(names) == 0 {
		names = Names()
	}
	if len(eps) == 0 {
		return nil, fmt.Errorf("audit: no ε")
	}
	for _, e := range eps {
		if err := checkEps("audit", e); err != nil {
			return nil, err
		}
	}
	valid := Names()
	var ts []Target
	for _, name := range names {
		if !slices.Contains(valid, name) {
			return nil, fmt.Errorf("unknown mechanism %q (valid: %s)", name, strings.Join(valid, ", "))
		}
		var more []Target
		var err error
		if slices.Contains(groupNames(), name) {
			more, err = GroupTargets(strings.TrimPrefix(name, "group-"), eps)
		} else {
			more, err = RegistryTargets([]string{name}, eps)
		}
		if err != nil {
			return nil, err
		}
		ts = append(ts, more...)
	}
	return ts, nil
}
