package multiservice

import (
	"strings"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// methodLabels are Du et al.'s names of the aggregations (§4, §5, Fig. 8).
var methodLabels = map[string]string{
	"ua": "UA", "uwa": "UWA", "uwa-oracle": "UWA (oracle weights)",
	"ule": "ULE", "single-best": "Single best", "ems-best": "Single best",
}

// legendLabel is the legend name of a multiservice method: the paper's
// name of an aggregation; a service alone by its mechanism as the paper
// names it ("SR" for duchi) or by its number ("service 2"), its raw report
// marked as such.
func legendLabel(method string) (string, bool) {
	if l, ok := methodLabels[method]; ok {
		return l, true
	}
	for _, p := range []struct{ prefix, suffix string }{{"single-", ""}, {"ems-", ""}, {"raw-", " (raw report)"}} {
		ref, ok := strings.CutPrefix(method, p.prefix)
		if !ok || ref == "" {
			continue
		}
		if ref[0] >= '0' && ref[0] <= '9' {
			return "service " + ref + p.suffix, true
		}
		if a, ok := msAliases[ref]; ok {
			ref = a
		}
		if ref == "duchi" {
			return "SR" + p.suffix, true
		}
		return mechanisms.Label(ref) + p.suffix, true
	}
	return "", false
}

// MethodLabel implements experiment.MethodLabeler.
func (Kind) MethodLabel(method string) (string, bool) { return legendLabel(method) }

// MethodLabel implements experiment.MethodLabeler.
func (MD) MethodLabel(method string) (string, bool) { return legendLabel(method) }
