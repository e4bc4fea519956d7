package binrr_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/mechtest"
	"github.com/ldpbench/ldpbench/mechanisms/mechtest/internal/binrr"
)

// TestSuite registers binrr, a mechanism written outside package
// mechanisms, through the public API and runs the registry-wide suite on
// it, as a user's own test would: catches a suite that needs more of a
// mechanism than the public interfaces (a name it knows, an unexported
// helper), and binrr's own bugs.
func TestSuite(t *testing.T) {
	unregister, err := mechanisms.Register(binrr.Info())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unregister)
	info, ok := mechanisms.Lookup(binrr.Name)
	if !ok || !slices.Contains(mechanisms.Names(), binrr.Name) {
		t.Fatalf("%s registered but not found", binrr.Name)
	}
	mechtest.Suite(t, info)
}

// claimsEps runs the mechanism at one budget and states another.
type claimsEps struct {
	*binrr.RR
	eps float64
}

func (m claimsEps) Epsilon() float64 { return m.eps }

// wrongVariance states 1.5 times its variance.
type wrongVariance struct{ *binrr.RR }

func (m wrongVariance) Variance(x float64) float64 { return 1.5 * m.RR.Variance(x) }
func (m wrongVariance) WorstCaseVariance() float64 { return 1.5 * m.RR.WorstCaseVariance() }

// wrongWords states one word a report; it takes two.
type wrongWords struct{ *binrr.RR }

func (m wrongWords) WordsPerReport() ([]int, []float64) { return []int{1}, []float64{1} }

// backwardBatch makes its batch's reports in reverse order: the same words
// and, input by input, the same law, but not the Perturb calls it promises
// (it states no mechanisms.BatchOrder).
type backwardBatch struct{ *binrr.RR }

func (m backwardBatch) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	for i, x := range xs {
		if !(x >= -1 && x <= 1) {
			return &mechanisms.InputError{Mechanism: binrr.Name, Index: i, Value: x, Lo: -1, Hi: 1}
		}
	}
	for i := len(xs) - 1; i >= 0; i-- {
		dst[i] = m.Perturb(xs[i], rng)
	}
	return nil
}

// noTails is Laplace without its Quantile method: an unbounded continuous
// mechanism that does not say where its law lies.
type noTails struct {
	mechanisms.Mechanism
	mechanisms.Variancer
	mechanisms.Continuous
	mechanisms.BatchOrder
}

// wrap builds an Info named name whose mechanism at ε is f(ε).
func wrap[T mechanisms.Mechanism](name string, f func(eps float64) (T, error)) mechanisms.Info {
	return mechanisms.Info{Name: name, New: func(eps float64) (mechanisms.Mechanism, error) {
		m, err := f(eps)
		if err != nil {
			return nil, err
		}
		return m, nil
	}}
}

// failingChecks runs every check of the suite at each of its budgets on
// info and returns the names of those that fail, with their errors. A
// panic in a check is a failure of the test, not of the check.
func failingChecks(t *testing.T, info mechanisms.Info) ([]string, string) {
	t.Helper()
	var names []string
	var msgs strings.Builder
	for ci, c := range mechtest.Checks() {
		for ei, eps := range c.Budgets {
			rng := rand.New(rand.NewPCG(uint64(ci), uint64(ei)))
			if err := c.Run(info, eps, rng); err != nil {
				if !slices.Contains(names, c.Name) {
					names = append(names, c.Name)
				}
				fmt.Fprintf(&msgs, "%s/eps=%v: %v\n", c.Name, eps, err)
			}
		}
	}
	return names, msgs.String()
}

// TestSuiteCatchesBroken: the suite fails a broken variant of binrr in the
// check that is about its bug, and in no other, and refuses an unbounded
// mechanism without tail quantiles by an error naming it and the method
// (not by a panic). Catches a check that passes whatever it is given (its
// tolerance too loose, a comparison the wrong way round, a mechanism
// property read from the wrong method) and a check that fails for
// another's reason.
func TestSuiteCatchesBroken(t *testing.T) {
	newRR := func(eps float64) (*binrr.RR, error) { return binrr.New(eps) }
	for _, c := range []struct {
		what string
		info mechanisms.Info
		want []string // the failing checks, in Checks() order
		text string   // in the errors
	}{
		{"run at 2ε, stating ε", wrap(binrr.Name, func(eps float64) (claimsEps, error) {
			m, err := binrr.New(2 * eps)
			return claimsEps{m, eps}, err
		}), []string{"exact"}, "ratio"},
		{"variance stated 1.5 times", wrap(binrr.Name, func(eps float64) (wrongVariance, error) {
			m, err := newRR(eps)
			return wrongVariance{m}, err
		}), []string{"moments"}, "closed form"},
		{"one word stated, two taken", wrap(binrr.Name, func(eps float64) (wrongWords, error) {
			m, err := newRR(eps)
			return wrongWords{m}, err
		}), []string{"words"}, "want one of [1]"},
		{"batch in reverse order", wrap(binrr.Name, func(eps float64) (backwardBatch, error) {
			m, err := newRR(eps)
			return backwardBatch{m}, err
		}), []string{"batch"}, "differs from the same Perturb calls"},
		{"unbounded without Quantile", wrap("laplace", func(eps float64) (noTails, error) {
			m, err := mechanisms.NewLaplace(eps)
			return noTails{m, m, m, m}, err
		}), []string{"interfaces", "exact", "fit"}, "laplace (ε = 1.5): its output range [-Inf, +Inf] is unbounded and it has no method Quantile(p, x float64) float64 (mechanisms.TailQuantiler)"},
	} {
		t.Run(c.what, func(t *testing.T) {
			got, msgs := failingChecks(t, c.info)
			if !slices.Equal(got, c.want) {
				t.Errorf("failing checks %v, want %v:\n%s", got, c.want, msgs)
			}
			if !strings.Contains(msgs, c.text) {
				t.Errorf("the errors do not say %q:\n%s", c.text, msgs)
			}
		})
	}
}
