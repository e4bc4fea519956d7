package experiment

import (
	"fmt"
	"strings"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// MechanismPlaceholder stands for the mechanism's registry name in
// MethodNeeds.Method: "value:<m>" is "value:pm" for pm.
const MechanismPlaceholder = "<m>"

// MethodNeeds is one method of a kind that takes a registered mechanism,
// and what it needs of it as capabilities (see mechanisms.Capability).
type MethodNeeds struct {
	// Method is the spec's method name, with MechanismPlaceholder where
	// the mechanism's name goes ("<m>", "ldp:<m>"), or a fixed name
	// ("ule") for a method that takes the mechanisms of the cell's
	// parameters (multiservice's services).
	Method string
	// When is empty, or the condition under which these needs hold
	// instead ("params.levels or segments"): a method may need more with
	// some parameters.
	When string
	// Needs is what the method needs of each of its mechanisms.
	Needs mechanisms.Needs
	// Also, if not nil, is a further check beyond the capabilities (a
	// structure the method's algorithm needs, such as Algorithm 5's
	// piecewise-constant density), run after Needs.
	Also func(m mechanisms.Mechanism) error
}

// Name returns the method's name for mechanism name.
func (n MethodNeeds) Name(mechanism string) string {
	return strings.ReplaceAll(n.Method, MechanismPlaceholder, mechanism)
}

// Check returns nil if m meets the method's needs, else an error naming
// the kind, the method and the missing capability: "kind multiservice,
// method ule: needs a bounded output: laplace's output is unbounded".
func (n MethodNeeds) Check(kind string, m mechanisms.Mechanism) error {
	method := n.Name(m.Name())
	if n.When != "" {
		method += " (" + n.When + ")"
	}
	return n.CheckAs(kind, method, m)
}

// CheckAs is Check with the method named as given (the spec's "ems-2" for
// the entry "ems-<s>").
func (n MethodNeeds) CheckAs(kind, method string, m mechanisms.Mechanism) error {
	err := n.Needs.Check(m)
	if err == nil && n.Also != nil {
		err = n.Also(m)
	}
	if err != nil {
		return &NeedsError{Kind: kind, Method: method, Err: err}
	}
	return nil
}

// Met reports whether m meets the method's needs.
func (n MethodNeeds) Met(m mechanisms.Mechanism) bool { return n.Check("", m) == nil }

// NeedsError is a kind's refusal of a mechanism that lacks a capability
// (or fails MethodNeeds.Also).
type NeedsError struct {
	Kind, Method string
	Err          error // a *mechanisms.NeedError, or Also's error
}

func (e *NeedsError) Error() string {
	return fmt.Sprintf("kind %s, method %s: %v", e.Kind, e.Method, e.Err)
}

func (e *NeedsError) Unwrap() error { return e.Err }

// MechanismTaker is implemented by every kind whose methods take
// registered mechanisms: it states, per method, what the method needs of
// them. The kind's Check refuses a mechanism by the same needs, so that
// MethodsFor and Check agree.
type MechanismTaker interface {
	Kind
	MechanismNeeds() []MethodNeeds
}

// MethodsFor returns the methods of kind k that take mechanism m, by their
// spec names, a conditional one followed by its condition in parentheses.
func MethodsFor(k MechanismTaker, m mechanisms.Mechanism) []string {
	var out []string
	for _, n := range k.MechanismNeeds() {
		if n.Met(m) {
			name := n.Name(m.Name())
			if n.When != "" {
				name += " (" + n.When + ")"
			}
			out = append(out, name)
		}
	}
	return out
}

// NeedsFor returns the entry of needs for method (When as given).
func NeedsFor(needs []MethodNeeds, method, when string) MethodNeeds {
	for _, n := range needs {
		if n.Method == method && n.When == when {
			return n
		}
	}
	panic(fmt.Sprintf("experiment: no needs stated for method %q (when %q)", method, when))
}

// Needs that several kinds state alike.
var (
	// UnbiasedNeeds is what a method named after a mechanism needs when
	// the collector averages unbiased reports (kinds mean, mean-ht,
	// mean-md, theory and fl): a closed-form variance of the unbiased
	// estimate.
	UnbiasedNeeds = MethodNeeds{
		Method: MechanismPlaceholder,
		Needs:  mechanisms.Needs{All: []mechanisms.Capability{mechanisms.CapVariance}},
	}
	// DiscretizedNeeds is what Zhao et al.'s Algorithm 5 (params.levels
	// or segments, kinds mean-md and fl) needs: a bounded report to round
	// to the grid whose rounding has an exact variance
	// (mechanisms.NewDiscretized: the piecewise family or a hybrid with
	// one).
	DiscretizedNeeds = MethodNeeds{
		Method: MechanismPlaceholder,
		When:   "params.levels or segments",
		Needs:  mechanisms.Needs{All: []mechanisms.Capability{mechanisms.CapVariance, mechanisms.CapBounded}},
		Also: func(m mechanisms.Mechanism) error {
			_, err := mechanisms.NewDiscretized(m, 1)
			return err
		},
	}
)
