package central

import (
	"strings"

	cdp "github.com/ldpbench/ldpbench/central"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// methodLabels are Kulesza et al.'s names of the estimators: the
// algorithm's number, and for Algorithm 3 its noise (§4).
var methodLabels = map[string]string{
	cdp.NameAlg1:      "Alg. 1",
	cdp.NameAlg2:      "Alg. 2",
	cdp.NameAlg3Lap:   "Alg. 3 (Laplace)",
	cdp.NameAlg3TwoD:  "Alg. 3 (2-D staircase)",
	cdp.NameAlg3HG:    "Alg. 3 (hourglass)",
	cdp.NameSwapStair: "swap-model staircase",
	LowerBound:        "lower bound",
}

// MethodLabel implements experiment.MethodLabeler: the estimators by the
// paper's algorithm numbers, a local mechanism by its own label and
// "(local)".
func (Kind) MethodLabel(method string) (string, bool) {
	if m, ok := strings.CutPrefix(method, ldpPrefix); ok {
		return mechanisms.Label(m) + " (local)", true
	}
	l, ok := methodLabels[method]
	return l, ok
}
