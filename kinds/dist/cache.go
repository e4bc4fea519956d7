package dist

import (
	"sync"

	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/mechanisms"
)

type trKey struct {
	name string
	eps  float64
	bins int
}

var trCache sync.Map // trKey → *estimators.HistTransition

// transitionCached returns m's transition matrix over bins input bins,
// built once per process (cells of the same mechanism and ε on other
// datasets share it).
func transitionCached(m mechanisms.Mechanism, bins int) (*estimators.HistTransition, error) {
	k := trKey{m.Name(), m.Epsilon(), bins}
	if v, ok := trCache.Load(k); ok {
		return v.(*estimators.HistTransition), nil
	}
	tr, err := estimators.NewHistTransition(m, bins, estimators.TransitionOptions{})
	if err != nil {
		return nil, err
	}
	v, _ := trCache.LoadOrStore(k, tr)
	return v.(*estimators.HistTransition), nil
}
