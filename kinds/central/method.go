package central

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ldpbench/ldpbench/centraldp"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// LowerBound is the method that reports the minimax lower bound of
// Theorem 4 instead of running an estimator: MSE = w²σ²(ε)/n², i.e.
// σ²(ε)ε²/2 in Section 6's normalisation (the red curves of Figs 3a and
// 3c) and σ²(ε)ε²/(2n²) in Appendix H's (reading (i) of E1.16; reading
// (ii) is the simulated swap reference central-swap-staircase). It draws
// nothing: every trial reports the closed form.
const LowerBound = "lower-bound"

// ldpPrefix names an ε-LDP mechanism of package mechanisms run on the
// same data ("ldp:laplace"): every user randomises their own value and the
// collector averages the n unbiased reports.
const ldpPrefix = "ldp:"

// family is what a method is: a central estimator, the analytic bound,
// or a local mechanism.
type family int

const (
	familyCentral family = iota
	familyBound
	familyLDP
)

// methodFamily classifies a method name, and returns the mechanism name
// of an ldp: method.
func methodFamily(method string) (family, string) {
	switch {
	case method == LowerBound:
		return familyBound, ""
	case strings.HasPrefix(method, ldpPrefix):
		return familyLDP, strings.TrimPrefix(method, ldpPrefix)
	}
	return familyCentral, ""
}

// Tags returns the privacy model and the neighbour relation a method's
// rows stand for: central add-remove for the paper's Algorithms 1–3 and
// the lower bound, central swap for the swap reference (n public), local
// for an ldp: mechanism (each user's report is ε-DP whatever the others
// hold). The method name carries them into rows.csv: every central
// estimator's name starts with "central-", the swap reference's contains
// "swap", a local one starts with "ldp:".
func Tags(method string) (model, neighbour string) {
	switch f, _ := methodFamily(method); {
	case f == familyLDP:
		return "local", "any two values of one user"
	case method == centraldp.NameSwapStair:
		return "central", "swap"
	}
	return "central", "add-remove"
}

// AllMethods implements experiment.MethodLister: the paper's estimators
// and the lower bound (the central track). Local mechanisms are named one
// by one ("ldp:laplace"), since they cost n draws per run.
func (Kind) AllMethods() []string { return append(centraldp.EstimatorNames(), LowerBound) }

// checkMethod validates a cell's method at its ε and range.
func checkMethod(method string, eps float64, opt centraldp.Options) error {
	switch f, mech := methodFamily(method); f {
	case familyBound:
		return nil
	case familyLDP:
		_, err := ldpMechanism(mech, eps)
		return err
	}
	if !slices.Contains(centraldp.EstimatorNames(), method) {
		return fmt.Errorf("method %q: unknown (central estimators: %s; %s; or %s<mechanism>, one of: %s)",
			method, strings.Join(centraldp.EstimatorNames(), ", "), LowerBound, ldpPrefix, strings.Join(mechanisms.Names(), ", "))
	}
	_, err := centraldp.NewEstimator(method, eps, opt)
	return err
}

// ldpNeeds is what an ldp: method needs of its mechanism: every user's
// report is averaged, so an unbiased report with a closed-form variance
// (which is also the exact theory).
var ldpNeeds = experiment.MethodNeeds{
	Method: ldpPrefix + experiment.MechanismPlaceholder,
	Needs:  mechanisms.Needs{All: []mechanisms.Capability{mechanisms.CapVariance}},
}

// MechanismNeeds implements experiment.MechanismTaker.
func (Kind) MechanismNeeds() []experiment.MethodNeeds {
	return []experiment.MethodNeeds{ldpNeeds}
}

// ldpMechanism builds an ldp: method's mechanism as an unbiased estimate
// on [−1, 1] with its closed-form variance.
func ldpMechanism(name string, eps float64) (mechanisms.Estimate, error) {
	m, err := mechanisms.New(name, eps)
	if err != nil {
		return nil, fmt.Errorf("method %s%s: %w", ldpPrefix, name, err)
	}
	if err := ldpNeeds.Check(Kind{}.Name(), m); err != nil {
		return nil, err
	}
	est, err := mechanisms.Unbiased(m)
	if err != nil {
		return nil, fmt.Errorf("method %s%s: %w", ldpPrefix, name, err)
	}
	return est, nil
}
